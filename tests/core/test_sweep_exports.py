"""A size from a sweep, exported: every format loads back with the prefix vocabulary's own ids."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.multilingual import corpus_lines
from tokviz.core.analysis.sweep import prefix_extras, prefix_tokenizer
from tokviz.core.bpe.tokenizer import Tokenizer
from tokviz.core.formats.exports import write_export
from tokviz.core.formats.registry import load_tokenizer
from tokviz.core.formats.tiktoken_sidecar import sidecar_path
from tokviz.core.training.train import train_bpe

SPECIALS = ["<|endoftext|>", "<pad>"]
SIZE = 500


@pytest.fixture(scope="module")
def model() -> Tokenizer:
    result = train_bpe(text="\n".join(corpus_lines(2000)), vocab_size=900, special_tokens=SPECIALS, workers=1)
    return result.tokenizer("ml")


@pytest.fixture(scope="module")
def held_out() -> list[str]:
    lines = corpus_lines(120, seed=5)
    return [*lines, f"{lines[0]}<|endoftext|>{lines[1]}<pad>"]


def test_the_prefix_is_the_first_merges_with_the_specials_after_them(
    model: Tokenizer, held_out: list[str]
) -> None:
    prefix = prefix_tokenizer(model, SIZE)
    assert prefix.merges == model.merges[: SIZE - 258]
    assert prefix.special_tokens == {"<|endoftext|>": 498, "<pad>": 499}
    renumbered = {model.special_tokens[s]: prefix.special_tokens[s] for s in SPECIALS}
    for text in held_out:
        first_merges = model.encode_with_merges(text, SIZE - 258)
        assert prefix.encode(text) == [renumbered.get(i, i) for i in first_merges]


def test_every_export_of_a_prefix_loads_back_with_its_ids(
    model: Tokenizer, held_out: list[str], tmp_path: Path
) -> None:
    tokenizers = pytest.importorskip("tokenizers")
    tiktoken = pytest.importorskip("tiktoken")
    prefix = prefix_tokenizer(model, SIZE)
    expected = [prefix.encode(t) for t in held_out]

    write_export(prefix, "hf", f"{tmp_path}/hf/")
    hf = tokenizers.Tokenizer.from_file(str(tmp_path / "hf" / "tokenizer.json"))
    assert [hf.encode(t, add_special_tokens=False).ids for t in held_out] == expected
    assert hf.get_vocab_size() == SIZE

    write_export(prefix, "gpt2", f"{tmp_path}/gpt2/")
    assert len(json.loads((tmp_path / "gpt2" / "vocab.json").read_text(encoding="utf-8"))) >= SIZE - 2
    assert [load_tokenizer(tmp_path / "gpt2").encode(t) for t in held_out] == expected

    path = tmp_path / "ml.tiktoken"
    write_export(prefix, "tiktoken", path)
    side = json.loads(sidecar_path(path).read_text(encoding="utf-8"))
    from tiktoken.load import load_tiktoken_bpe

    enc = tiktoken.Encoding(
        "ml",
        pat_str=side["pattern"],
        mergeable_ranks=load_tiktoken_bpe(str(path)),
        special_tokens=side["special_tokens"],
    )
    assert [enc.encode(t, allowed_special="all") for t in held_out] == expected

    model_path = tmp_path / "ml-500.json"
    write_export(prefix, "model", model_path, extras=prefix_extras(model, prefix))
    again = load_tokenizer(model_path)
    assert again.vocab_size == SIZE and [again.encode(t) for t in held_out] == expected
