"""The registry: built-in tokenizers agree with tiktoken, files of every kind load by path."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import tiktoken

from tokviz.core.bpe.tokenizer import Tokenizer
from tokviz.core.errors import TokenizerLoadError
from tokviz.core.formats import export_gpt2, export_hf, export_tiktoken, save_model
from tokviz.core.formats.encodings import bundled_encoding
from tokviz.core.formats.registry import BUILTIN_TOKENIZERS, builtin_tokenizer, load_tokenizer
from tokviz.core.io.resources import resource_path
from tokviz.core.training.train import train_bpe

DEMO = "Hello, 🌍! 你好!"


@pytest.fixture(scope="module")
def sample(english_text: str, varied_text: str) -> str:
    """About 8 KB: real prose and code, then every hard case twice."""
    return english_text[:6000] + varied_text + varied_text


def test_builtin_names() -> None:
    names = {
        "bytes": "bytes",
        "gpt2": "GPT-2",
        "cl100k": "cl100k",
        "characters": "characters",
        "words": "words",
    }
    assert set(names) <= set(BUILTIN_TOKENIZERS)
    assert {n: load_tokenizer(n).name for n in names} == names


def test_the_byte_tokenizer_gives_one_id_per_byte() -> None:
    tok = load_tokenizer("bytes")
    assert tok.encode("Hi 🌍") == [72, 105, 32, 240, 159, 140, 141]
    assert (tok.vocab_size, tok.merge_count, tok.is_bpe, tok.pretokenizer.name) == (256, 0, False, "none")
    assert tok.decode(tok.encode(DEMO)) == DEMO


def test_gpt2_matches_tiktoken_on_the_lecture_string(gpt2_tiktoken: tiktoken.Encoding) -> None:
    tok = load_tokenizer("gpt2")
    ids = tok.encode(DEMO)
    assert len(DEMO.encode("utf-8")) == 20
    assert len(ids) == 12
    assert ids == gpt2_tiktoken.encode(DEMO)


@pytest.mark.parametrize("name", ["gpt2", "cl100k"])
def test_bundled_encodings_match_tiktoken_on_varied_text(
    name: str, sample: str, gpt2_tiktoken: tiktoken.Encoding, cl100k_tiktoken: tiktoken.Encoding
) -> None:
    oracle = gpt2_tiktoken if name == "gpt2" else cl100k_tiktoken
    tok = load_tokenizer(name)
    assert tok.encode(sample) == oracle.encode(sample, allowed_special="all")
    assert tok.encode_ordinary(sample) == oracle.encode_ordinary(sample)
    assert tok.decode(tok.encode(sample)) == sample


def test_cl100k_matches_tiktoken_on_the_lecture_string(cl100k_tiktoken: tiktoken.Encoding) -> None:
    assert load_tokenizer("cl100k_base").encode(DEMO) == cl100k_tiktoken.encode(DEMO)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["gpt2", "cl100k"])
def test_recovered_merges_alone_reproduce_tiktoken(
    name: str, sample: str, gpt2_tiktoken: tiktoken.Encoding, cl100k_tiktoken: tiktoken.Encoding
) -> None:
    """Acceptance: a tokenizer built from the recovered merge list, with no tiktoken engine, is exact."""
    oracle = gpt2_tiktoken if name == "gpt2" else cl100k_tiktoken
    bundled = load_tokenizer(name)
    by_merges = Tokenizer(
        bundled.vocab, bundled.merges, bundled.special_tokens, bundled.pretokenizer, name="slow"
    )
    assert by_merges.encode(DEMO) == oracle.encode(DEMO)
    assert by_merges.encode(sample) == oracle.encode(sample, allowed_special="all")
    spans = by_merges.encode_spans(sample)
    assert [s.id for s in spans] == oracle.encode(sample, allowed_special="all")


def test_bundled_tokenizers_are_built_once_and_shared_across_threads() -> None:
    results: list[Tokenizer] = []
    threads = [threading.Thread(target=lambda: results.append(builtin_tokenizer("gpt2"))) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 8 and all(r is results[0] for r in results)
    assert load_tokenizer("r50k_base") is load_tokenizer("GPT2") is results[0]


@pytest.mark.parametrize(
    ("alias", "published", "listed"), [("gpt-2", "r50k_base", "gpt2"), ("gpt-4o", "o200k_base", "o200k")]
)
def test_an_encoding_answers_to_every_name_in_the_registry_and_among_the_encodings(
    alias: str, published: str, listed: str
) -> None:
    assert bundled_encoding(alias).name == bundled_encoding(listed).name == published
    assert load_tokenizer(alias) is load_tokenizer(published) is builtin_tokenizer(listed)
    assert listed in BUILTIN_TOKENIZERS


def test_bundled_encodings_encode_in_a_fresh_process_without_their_merge_list() -> None:
    """Start-up needs no merge list: tiktoken encodes, and the merges are recovered later, on demand.

    (How long loading takes against tiktoken's own is measured in benchmarks/bench_load.py.)
    """
    code = (
        "from tokviz.core.formats.registry import load_tokenizer\n"
        "for n in ('gpt2', 'cl100k'):\n"
        "    tok = load_tokenizer(n)\n"
        "    print(n, tok.encode('warm up') == tok.encode_ordinary('warm up'), tok._merges is None)\n"
    )
    root = str(Path(__file__).resolve().parents[2])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")])))
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    ).stdout
    assert out.split() == ["gpt2", "True", "True", "cl100k", "True", "True"]


def test_unknown_name_says_what_was_tried(tmp_path: Path) -> None:
    with pytest.raises(
        TokenizerLoadError, match=r"'gpt5' is neither a built-in tokenizer \(bytes, gpt2, cl100k, .*words\)"
    ):
        load_tokenizer("gpt5")
    with pytest.raises(TokenizerLoadError, match="holds no tokenizer: looked for vocab.json"):
        load_tokenizer(tmp_path)


@pytest.fixture(scope="module")
def trained(english_text: str) -> Tokenizer:
    return train_bpe(text=english_text[:30_000], vocab_size=400, special_tokens=["<|endoftext|>"]).tokenizer(
        "tiny"
    )


def test_every_file_kind_loads_by_path(tmp_path: Path, trained: Tokenizer, varied_text: str) -> None:
    save_model(tmp_path / "tiny.tokviz.json", trained)
    export_gpt2(trained, tmp_path / "gpt2-files")
    export_tiktoken(trained, tmp_path / "tiny.tiktoken")
    (tmp_path / "hf").mkdir()
    export_hf(trained, tmp_path / "hf" / "tokenizer.json")
    expected = trained.encode(varied_text)
    targets: list[Path | str] = [
        tmp_path / "tiny.tokviz.json",
        tmp_path / "gpt2-files",
        tmp_path / "gpt2-files" / "vocab.json",
        tmp_path / "gpt2-files" / "merges.txt",
        tmp_path / "hf",
        tmp_path / "hf" / "tokenizer.json",
        str(tmp_path / "hf" / "tokenizer.json"),
    ]
    for target in targets:
        assert load_tokenizer(target).encode(varied_text) == expected, target
    # A .tiktoken file has no special tokens: its text is encoded as plain text.
    assert load_tokenizer(tmp_path / "tiny.tiktoken").encode(varied_text) == trained.encode_ordinary(
        varied_text
    )


def test_wrong_kinds_of_file_are_named(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("just some notes\n")
    with pytest.raises(TokenizerLoadError, match="notes.txt is not a tokenizer file tokviz knows"):
        load_tokenizer(tmp_path / "notes.txt")
    (tmp_path / "data.json").write_text(json.dumps({"a": 1}))
    with pytest.raises(TokenizerLoadError, match="data.json is JSON but neither a tokviz model file"):
        load_tokenizer(tmp_path / "data.json")
    (tmp_path / "lonely").mkdir()
    (tmp_path / "lonely" / "vocab.json").write_text("{}")
    with pytest.raises(TokenizerLoadError, match="vocab.json needs its partner merges.txt"):
        load_tokenizer(tmp_path / "lonely" / "vocab.json")


def test_a_copy_of_a_published_rank_file_keeps_its_pattern_and_specials(
    tmp_path: Path, sample: str, cl100k_tiktoken: tiktoken.Encoding
) -> None:
    copy = tmp_path / "copy.tiktoken"
    copy.write_bytes(resource_path("encodings", "cl100k_base.tiktoken").read_bytes())
    tok = load_tokenizer(copy)
    assert tok.pretokenizer.name == "cl100k" and tok.special_tokens["<|endofprompt|>"] == 100276
    assert tok.encode(sample) == cl100k_tiktoken.encode(sample, allowed_special="all")
