"""Loader messages: a UTF-8 byte-order mark loads, JSON of the wrong shape says "expected a JSON
object", and every error is a ``TokvizError`` naming the file once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tokenizers import Tokenizer as HFTokenizer

from tokviz.core.errors import ModelFileError, TokenizerLoadError, TokvizError
from tokviz.core.formats import load_hf, load_model, load_tiktoken_file, tokenizer_from_files
from tokviz.core.formats.registry import load_tokenizer

from .made_by_others import (
    hf_trained,
    hf_vocab_and_merges,
    model_document,
    tiktoken_lines,
    write_hf_files,
)

BOM = b"\xef\xbb\xbf"


@pytest.fixture(scope="module")
def hf_tk(english_text: str) -> HFTokenizer:
    return hf_trained(english_text[:60_000], vocab_size=450)


def _with_bom(path: Path) -> Path:
    path.write_bytes(BOM + path.read_bytes())
    return path


def test_files_starting_with_a_bom_load(tmp_path: Path, hf_tk: HFTokenizer, varied_text: str) -> None:
    expected = hf_tk.encode(varied_text).ids
    files = write_hf_files(hf_tk, tmp_path / "hf")
    for name in ("tokenizer.json", "vocab.json", "merges.txt"):
        _with_bom(files[name])
    assert load_tokenizer(files["tokenizer.json"]).encode(varied_text) == expected
    assert load_tokenizer(files["vocab.json"]).encode(varied_text) == expected

    vocab, merges = hf_vocab_and_merges(hf_tk)
    model = tmp_path / "model.json"
    model.write_bytes(BOM + json.dumps(model_document(vocab, merges)).encode())
    tok = load_model(model).tokenizer
    assert tok.vocab == vocab
    assert load_tokenizer(model).merges == merges

    ranks = tmp_path / "r.tiktoken"
    ranks.write_bytes(BOM + "\n".join(tiktoken_lines(hf_tk)).encode())
    assert load_tiktoken_file(ranks).vocab_size == 449


@pytest.mark.parametrize(
    ("content", "found"), [("[1, 2]", "an array"), ("null", "null"), ('"x"', "a string"), ("3", "a number")]
)
def test_json_that_is_not_an_object_says_so(tmp_path: Path, content: str, found: str) -> None:
    for name in ("m.json", "tokenizer.json", "thing.model"):
        path = tmp_path / name
        path.write_text(content)
        with pytest.raises(TokenizerLoadError) as info:
            load_tokenizer(path)
        message = str(info.value)
        assert "expected a JSON object" in message and message.endswith(f"found {found}")
        assert "not JSON" not in message
        assert message.count(name) == 1
    with pytest.raises(
        ModelFileError, match=f"m.json: not a tokviz model file \\(expected a JSON object, found {found}\\)"
    ):
        load_model(tmp_path / "m.json")
    with pytest.raises(TokenizerLoadError, match=f"tokenizer.json: .*expected a JSON object, found {found}"):
        load_hf(tmp_path / "tokenizer.json")


def test_a_vocab_json_that_is_an_array_says_so(tmp_path: Path) -> None:
    (tmp_path / "vocab.json").write_text("[]")
    (tmp_path / "merges.txt").write_text("#version: 0.2\n")
    with pytest.raises(
        TokenizerLoadError,
        match="vocab.json: the vocabulary must be a JSON object of token -> id, not an array",
    ):
        tokenizer_from_files(tmp_path / "vocab.json", tmp_path / "merges.txt")


def test_a_bad_merge_names_merges_txt(tmp_path: Path, hf_tk: HFTokenizer) -> None:
    files = write_hf_files(hf_tk, tmp_path / "hf")
    files["merges.txt"].write_text("#version: 0.2\nĠ t\n\u4e00 \u4e01\n", encoding="utf-8")
    with pytest.raises(TokenizerLoadError) as info:
        load_tokenizer(files["vocab.json"])
    message = str(info.value)
    assert message.startswith("merges.txt: merge 1")
    assert message.count("merges.txt") == 1 and "vocab.json" not in message


def test_a_text_file_names_itself_once(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("just notes\n")
    with pytest.raises(TokenizerLoadError) as info:
        load_tokenizer(path)
    assert str(info.value).count("notes.txt") == 1
    assert isinstance(info.value, TokvizError)
