"""Every export loads back in the library it is meant for, with tokviz's ids and special tokens.

Models are trained on multilingual text with each pre-tokenizer (``gpt2``, ``cl100k``, ``none``)
and three special tokens, exported every way, and loaded with ``tokenizers``, ``transformers``
(``AutoTokenizer.from_pretrained``), ``tiktoken`` (with the sidecar's pattern and specials) and
tokviz itself. Ids must be equal on held-out text in many scripts and on text holding the
special tokens, ``eos_token`` must be set, and decoding must give the text back.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
from hypothesis import given, settings

from tests.multilingual import corpus_lines
from tests.strategies import hard_text
from tokviz.core.bpe.tokenizer import Tokenizer
from tokviz.core.formats.exports import Export, export_problem, export_warnings, plan_outputs, render_exports
from tokviz.core.formats.hf_config import special_roles
from tokviz.core.formats.registry import load_tokenizer
from tokviz.core.formats.tiktoken_sidecar import SIDECAR_FORMAT, sidecar_path
from tokviz.core.io.outputs import write_outputs
from tokviz.core.training.train import train_bpe

SPECIALS = ["<|endoftext|>", "<pad>", "<|im_start|>"]
PRETOKENIZERS = ["gpt2", "cl100k", "none"]


@pytest.fixture(scope="module")
def held_out() -> list[str]:
    lines = corpus_lines(300, seed=71)
    lines += [
        f"{lines[0]}<|endoftext|>{lines[1]}",
        "<|im_start|>user\nhi<|endoftext|><pad><pad>",
        "<|endoftext|>",
    ]
    return lines


@pytest.fixture(scope="module", params=PRETOKENIZERS)
def model(request: pytest.FixtureRequest) -> Tokenizer:
    result = train_bpe(
        text="\n".join(corpus_lines(3000)),
        vocab_size=900,
        special_tokens=SPECIALS,
        pretokenizer=request.param,
        workers=1,
    )
    return result.tokenizer(f"ml-{request.param}")


def export(tokenizer: Tokenizer, *exports: Export) -> list[str]:
    """Write ``exports`` like the CLI does; return the notes a user is shown."""
    write_outputs(render_exports(exports, tokenizer))
    return [n for e in exports for n in e.notes()] + export_warnings(exports, tokenizer)


def mismatches(encode: Callable[[str], Sequence[int]], tokenizer: Tokenizer, texts: list[str]) -> list[str]:
    """The texts ``encode`` gives other ids for than tokviz."""
    return [t for t in texts if list(encode(t)) != tokenizer.encode(t)]


@pytest.mark.slow
def test_the_gpt2_folder_loads_in_transformers_with_eos_and_the_same_ids(
    model: Tokenizer, held_out: list[str], tmp_path: Path
) -> None:
    transformers = pytest.importorskip("transformers")
    folder = tmp_path / "gpt2"
    notes = export(model, Export.of("gpt2", folder, "--export-gpt2", model.pretokenizer))

    names = {p.name for p in folder.iterdir()}
    assert {"vocab.json", "merges.txt", "tokenizer_config.json", "special_tokens_map.json"} <= names
    config = json.loads((folder / "tokenizer_config.json").read_text(encoding="utf-8"))
    if model.pretokenizer.name == "gpt2":
        # vocab.json + merges.txt say everything: GPT-2's class reads them, nothing else is written.
        assert "tokenizer.json" not in names and notes == []
        assert config["tokenizer_class"] == "GPT2Tokenizer"
    else:
        # They cannot hold cl100k's or no pre-tokenizer: tokenizer.json beside them does, and the user is told.
        assert "tokenizer.json" in names
        assert config["tokenizer_class"] == "PreTrainedTokenizerFast"
        assert len(notes) == 1 and f"cannot hold the {model.pretokenizer.name} pre-tokenizer" in notes[0]

    auto = transformers.AutoTokenizer.from_pretrained(str(folder))
    assert auto.eos_token == "<|endoftext|>" and auto.eos_token_id == model.special_tokens["<|endoftext|>"]
    assert auto.pad_token == "<pad>" and auto.bos_token is None
    assert len(auto) == model.vocab_size
    assert mismatches(lambda t: auto.encode(t, add_special_tokens=False), model, held_out) == []
    assert all(auto.decode(model.encode(t)) == t for t in held_out)
    # tokviz reads the folder back as the same tokenizer.
    assert mismatches(load_tokenizer(folder).encode, model, held_out) == []


def test_the_tokenizer_json_folder_loads_in_tokenizers_and_transformers(
    model: Tokenizer, held_out: list[str], tmp_path: Path
) -> None:
    tokenizers = pytest.importorskip("tokenizers")
    transformers = pytest.importorskip("transformers")
    folder = tmp_path / "hf"
    notes = export(model, Export.of("hf", f"{folder}/", "--export-hf", model.pretokenizer))
    assert notes == []
    assert {p.name for p in folder.iterdir()} >= {
        "tokenizer.json",
        "tokenizer_config.json",
        "special_tokens_map.json",
    }

    raw = tokenizers.Tokenizer.from_file(str(folder / "tokenizer.json"))
    assert mismatches(lambda t: raw.encode(t, add_special_tokens=False).ids, model, held_out) == []
    auto = transformers.AutoTokenizer.from_pretrained(str(folder))
    assert auto.eos_token == "<|endoftext|>" and auto.pad_token == "<pad>"
    assert set(auto.all_special_tokens) == set(SPECIALS)
    assert mismatches(lambda t: auto.encode(t, add_special_tokens=False), model, held_out) == []
    special_map = json.loads((folder / "special_tokens_map.json").read_text(encoding="utf-8"))
    assert special_map == {
        "eos_token": "<|endoftext|>",
        "pad_token": "<pad>",
        "additional_special_tokens": ["<|im_start|>"],
    }
    assert mismatches(load_tokenizer(folder).encode, model, held_out) == []


def test_the_tiktoken_file_and_its_sidecar_load_in_tiktoken_and_in_tokviz(
    model: Tokenizer, held_out: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tiktoken = pytest.importorskip("tiktoken")
    path = tmp_path / "ml.tiktoken"
    notes = export(model, Export.of("tiktoken", path, "--export-tiktoken", model.pretokenizer))

    side = json.loads(sidecar_path(path).read_text(encoding="utf-8"))
    assert sidecar_path(path).name == "ml.tiktoken.json"
    assert side["format"] == SIDECAR_FORMAT and side["version"] == 1
    assert side["special_tokens"] == model.special_tokens
    assert side["pretokenizer"] == model.pretokenizer.name
    # The note says tiktoken needs them passed in, and shows how; the snippet works as printed.
    assert len(notes) == 1 and "tiktoken needs the pattern and special tokens passed in" in notes[0]
    snippet = notes[0].split("In Python:\n", 1)[1]
    assert len(snippet.splitlines()) == 3
    monkeypatch.chdir(tmp_path)
    scope: dict[str, object] = {}
    exec(snippet, scope)  # noqa: S102 - the three lines the user is told to run
    enc = scope["enc"]
    assert isinstance(enc, tiktoken.Encoding)
    assert mismatches(lambda t: enc.encode(t, allowed_special="all"), model, held_out) == []
    # tokviz reads the pattern and the special tokens back from the sidecar.
    again = load_tokenizer(path)
    assert again.special_tokens == model.special_tokens
    assert mismatches(again.encode, model, held_out) == []


def test_exports_into_one_folder_are_written_together_as_one_folder(model: Tokenizer, tmp_path: Path) -> None:
    folder = tmp_path / "both"
    exports = [
        Export.of("gpt2", folder, "--export-gpt2", model.pretokenizer),
        Export.of("hf", folder / "tokenizer.json", "--export-hf", model.pretokenizer),
    ]
    (output,) = plan_outputs(exports)
    assert output.is_folder and output.what == "--export-gpt2 and --export-hf"
    assert set(output.files) == {
        "vocab.json",
        "merges.txt",
        "tokenizer.json",
        "tokenizer_config.json",
        "special_tokens_map.json",
    }
    export(model, *exports)
    assert sorted(p.name for p in folder.iterdir() if not p.name.startswith(".")) == sorted(output.files)


def test_a_tokenizer_json_under_another_name_is_written_alone_and_the_user_is_told(tmp_path: Path) -> None:
    tok = train_bpe(text="hello world " * 50, vocab_size=270, special_tokens=["</s>"]).tokenizer("small")
    notes = export(tok, Export.of("hf", tmp_path / "small.json", "--export-hf", "gpt2"))
    assert [p.name for p in tmp_path.iterdir()] == ["small.json"]
    assert len(notes) == 1 and "export to a folder or to a file named tokenizer.json" in notes[0]


def test_roles_are_read_from_the_spelling_of_each_special_token() -> None:
    assert special_roles({"<s>": 0, "</s>": 1, "<unk>": 2, "<pad>": 3, "[MASK]": 4}) == {
        "eos_token": "</s>",
        "bos_token": "<s>",
        "unk_token": "<unk>",
        "pad_token": "<pad>",
        "sep_token": None,
        "cls_token": None,
        "mask_token": "[MASK]",
    }
    assert special_roles({"<|endoftext|>": 50256, "<|im_end|>": 50257}) == {
        "eos_token": "<|endoftext|>",
        "bos_token": None,
        "unk_token": None,
        "pad_token": None,
        "sep_token": None,
        "cls_token": None,
        "mask_token": None,
    }
    assert set(special_roles({"<|user|>": 5}).values()) == {None}


def test_what_a_format_cannot_hold_is_said_before_anything_is_written() -> None:
    horizontal = train_bpe(text="a b\tc " * 40, vocab_size=260, pretokenizer=r"\h+|\S+").tokenizer("h")
    assert "\\h means a hex digit" in (export_problem(horizontal, "hf") or "")
    assert "\\h means a hex digit" in (export_problem(horizontal, "gpt2") or "")
    assert export_problem(horizontal, "tiktoken") is None and export_problem(horizontal, "model") is None

    gap = Tokenizer({i: bytes([i]) for i in range(256)} | {300: b"ab"}, [(b"a", b"b")], pretokenizer="none")
    assert "ordinary ids have gaps" in (export_problem(gap, "tiktoken") or "")
    from tokviz.core.errors import ExportError

    with pytest.raises(ExportError, match="cannot write --export-tiktoken: a .tiktoken file's ranks"):
        render_exports([Export.of("tiktoken", "x.tiktoken", "--export-tiktoken", "none")], gap)


def test_gpt2_and_cl100k_themselves_export_to_every_format() -> None:
    for name in ("gpt2", "cl100k"):
        tok = load_tokenizer(name)
        assert {
            kind: export_problem(tok, kind) for kind in ("model", "hf", "gpt2", "tiktoken")
        } == dict.fromkeys(("model", "hf", "gpt2", "tiktoken"))


@pytest.fixture(scope="module")
def reference_encoders(
    model: Tokenizer,
) -> tuple[Callable[[str], Sequence[int]], Callable[[str], Sequence[int]]]:
    """The model as the ``tokenizers`` library and tiktoken read its exports (files in memory)."""
    tokenizers = pytest.importorskip("tokenizers")
    tiktoken = pytest.importorskip("tiktoken")
    from tokviz.core.formats.hf_json import hf_file_bytes
    from tokviz.core.formats.tiktoken_file import parse_tiktoken_file, tiktoken_file_bytes
    from tokviz.core.formats.tiktoken_sidecar import tiktoken_pattern

    hf = tokenizers.Tokenizer.from_str(hf_file_bytes(model).decode("utf-8"))
    enc = tiktoken.Encoding(
        "m",
        pat_str=tiktoken_pattern(model.pretokenizer),
        mergeable_ranks=parse_tiktoken_file(tiktoken_file_bytes(model), "m.tiktoken"),
        special_tokens=dict(model.special_tokens),
    )
    return (
        lambda t: hf.encode(t, add_special_tokens=False).ids,
        lambda t: enc.encode(t, allowed_special="all"),
    )


@pytest.mark.slow
@settings(max_examples=60)
@given(text=hard_text(specials=SPECIALS))
def test_exports_encode_any_text_like_tokviz(
    model: Tokenizer,
    reference_encoders: tuple[Callable[[str], Sequence[int]], Callable[[str], Sequence[int]]],
    text: str,
) -> None:
    hf, tiktoken_encode = reference_encoders
    expected = model.encode(text)
    assert list(hf(text)) == expected
    assert list(tiktoken_encode(text)) == expected


def test_bert_style_special_tokens_get_their_roles_in_transformers(tmp_path: Path) -> None:
    transformers = pytest.importorskip("transformers")
    specials = ["[PAD]", "[CLS]", "[SEP]", "[MASK]", "<|user|>"]
    tok = train_bpe(text="the cat sat on the mat " * 40, vocab_size=280, special_tokens=specials).tokenizer(
        "b"
    )
    export(tok, Export.of("hf", f"{tmp_path}/", "--export-hf", "gpt2"))
    auto = transformers.AutoTokenizer.from_pretrained(str(tmp_path))
    assert (auto.pad_token, auto.cls_token, auto.sep_token, auto.mask_token) == (
        "[PAD]",
        "[CLS]",
        "[SEP]",
        "[MASK]",
    )
    assert auto.eos_token is None and auto.unk_token is None
    text = "[CLS] the cat<|user|>[MASK][SEP]"
    assert auto.encode(text, add_special_tokens=False) == tok.encode(text)


def test_a_pattern_tiktoken_refuses_is_said_and_tokviz_still_reads_the_file_back(tmp_path: Path) -> None:
    pattern = r"(?V1)[\w--\d]+|\d|\s+|."  # a set difference: Python's regex module only
    tok = train_bpe(text="abc123 def456 " * 40, vocab_size=270, pretokenizer=pattern).tokenizer("v1")
    notes = export(
        tok, Export.of("tiktoken", tmp_path / "v1.tiktoken", "--export-tiktoken", tok.pretokenizer)
    )
    assert any("tiktoken cannot use the pre-tokenizer pattern" in n for n in notes)
    again = load_tokenizer(tmp_path / "v1.tiktoken")
    assert again.encode("abc123 x") == tok.encode("abc123 x")
