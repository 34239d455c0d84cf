"""Honest loaders: missing, empty or cut-short merges are refused, never turned into "special tokens".

Files are made by Hugging Face ``tokenizers`` (and by hand for tokviz model files), then damaged the
way the issue found them: an empty ``merges.txt``, a ``tokenizer.json`` without ``"merges"``, a
merge list cut short.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tokenizers import Tokenizer as HFTokenizer

from tokviz.core.errors import ModelFileError, TokenizerLoadError, TokvizError
from tokviz.core.formats import load_model, load_warnings
from tokviz.core.formats._reach import FEW_UNMADE
from tokviz.core.formats.registry import load_tokenizer

from .made_by_others import hf_document, hf_trained, hf_vocab_and_merges, model_document, write_hf_files


@pytest.fixture(scope="module")
def hf_tk(english_text: str) -> HFTokenizer:
    return hf_trained(english_text[:100_000], vocab_size=600)


@pytest.fixture
def hf_folder(tmp_path: Path, hf_tk: HFTokenizer) -> dict[str, Path]:
    return write_hf_files(hf_tk, tmp_path / "hf")


def _merge_lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def test_the_files_load_whole_and_encode_like_tokenizers(
    hf_folder: dict[str, Path], hf_tk: HFTokenizer
) -> None:
    text = "The quick brown fox returns the value of the function."
    for path in hf_folder.values():
        tok = load_tokenizer(path)
        assert tok.encode(text) == hf_tk.encode(text).ids
        assert tok.special_tokens == {"<|endoftext|>": 0}
        assert load_warnings(tok) == ()


@pytest.mark.parametrize("content", ["", "#version: 0.2\n", "#version: 0.2\n\n\n"])
def test_an_empty_merges_txt_is_refused_not_read_as_specials(
    hf_folder: dict[str, Path], content: str
) -> None:
    hf_folder["merges.txt"].write_text(content, encoding="utf-8")
    with pytest.raises(
        TokenizerLoadError, match="there are no merges, but the vocabulary has 344 tokens"
    ) as info:
        load_tokenizer(hf_folder["vocab.json"])  # the folder itself opens its tokenizer.json
    assert str(info.value).count("vocab.json") == 1
    assert "missing or empty" in str(info.value)


@pytest.mark.parametrize("change", ["missing", "empty"])
def test_a_tokenizer_json_without_merges_is_refused(hf_folder: dict[str, Path], change: str) -> None:
    doc = json.loads(hf_folder["tokenizer.json"].read_text(encoding="utf-8"))
    if change == "missing":
        del doc["model"]["merges"]
    else:
        doc["model"]["merges"] = []
    hf_folder["tokenizer.json"].write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(TokenizerLoadError, match="tokenizer.json: there are no merges"):
        load_tokenizer(hf_folder["tokenizer.json"])


def test_merges_cut_short_are_refused_when_most_tokens_cannot_be_made(hf_folder: dict[str, Path]) -> None:
    lines = _merge_lines(hf_folder["merges.txt"])
    hf_folder["merges.txt"].write_text("\n".join(lines[: len(lines) // 3]) + "\n", encoding="utf-8")
    with pytest.raises(
        TokenizerLoadError, match=r"of the 344 tokens longer than one byte cannot be made by the"
    ):
        load_tokenizer(hf_folder["merges.txt"])


def test_a_few_unmade_tokens_load_with_a_warning(hf_folder: dict[str, Path]) -> None:
    lines = _merge_lines(hf_folder["merges.txt"])
    cut = FEW_UNMADE + 4
    hf_folder["merges.txt"].write_text("\n".join(lines[:-cut]) + "\n", encoding="utf-8")
    tok = load_tokenizer(hf_folder["vocab.json"])
    (warning,) = load_warnings(tok)
    # <|endoftext|> is unmade too: vocab.json alone does not say it is special.
    assert f"{cut + 1} tokens of vocab.json cannot be made by its merges" in warning
    assert "are treated as special tokens" in warning


def test_gpt2s_own_endoftext_still_becomes_the_special_token(tmp_path: Path, hf_tk: HFTokenizer) -> None:
    """GPT-2's layout: the special sits at the end of vocab.json and no merge makes it."""
    folder = write_hf_files(hf_tk, tmp_path / "gpt2-like")
    vocab = json.loads(folder["vocab.json"].read_text(encoding="utf-8"))
    del vocab["<|endoftext|>"]
    vocab = {s: i - 1 for s, i in vocab.items()}
    vocab["<|endoftext|>"] = len(vocab)
    folder["vocab.json"].write_text(json.dumps(vocab), encoding="utf-8")
    tok = load_tokenizer(folder["vocab.json"])
    assert tok.special_tokens == {"<|endoftext|>": 599}
    assert load_warnings(tok) == ()


def test_a_byte_vocabulary_with_one_special_and_no_merges_still_loads(
    tmp_path: Path, hf_tk: HFTokenizer
) -> None:
    folder = write_hf_files(hf_tk, tmp_path / "bytes")
    vocab = json.loads(folder["vocab.json"].read_text(encoding="utf-8"))
    kept = {s: i for s, i in vocab.items() if i <= 256}
    folder["vocab.json"].write_text(json.dumps(kept), encoding="utf-8")
    folder["merges.txt"].write_text("#version: 0.2\n", encoding="utf-8")
    tok = load_tokenizer(folder["vocab.json"])
    assert tok.vocab_size == 257 and tok.merge_count == 0


def test_a_model_file_with_no_merges_is_refused(tmp_path: Path, hf_tk: HFTokenizer) -> None:
    vocab, _merges = hf_vocab_and_merges(hf_tk)
    path = tmp_path / "m.json"
    path.write_text(json.dumps(model_document(vocab | {0: b"\x00"}, [])), encoding="utf-8")
    _fix_byte_ids(path, vocab)
    with pytest.raises(ModelFileError, match="m.json: there are no merges") as info:
        load_model(path)
    assert str(info.value).count("m.json") == 1


def test_a_model_file_missing_its_last_merges_loads_with_a_warning(
    tmp_path: Path, hf_tk: HFTokenizer
) -> None:
    vocab, merges = hf_vocab_and_merges(hf_tk)
    path = tmp_path / "m.json"
    path.write_text(json.dumps(model_document(vocab, merges[:-3])), encoding="utf-8")
    _fix_byte_ids(path, vocab)
    loaded = load_model(path)
    (warning,) = load_warnings(loaded.tokenizer)
    assert "3 tokens of m.json cannot be made by its merges" in warning and "are never produced" in warning
    assert load_warnings(load_tokenizer(path)) == (warning,)


def _fix_byte_ids(path: Path, vocab: dict[int, bytes]) -> None:
    """HF puts the special at id 0: give the model file a byte token there too (ids stay the file's)."""
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["vocab"] = {str(i): b.hex() for i, b in sorted(vocab.items())}
    path.write_text(json.dumps(doc), encoding="utf-8")


def test_info_warns_and_refuses(
    capsys: pytest.CaptureFixture[str], hf_folder: dict[str, Path], tmp_path: Path
) -> None:
    from tests.cli.helpers import assert_one_line_error, run

    lines = _merge_lines(hf_folder["merges.txt"])
    hf_folder["merges.txt"].write_text("\n".join(lines[:-20]) + "\n", encoding="utf-8")
    code, out, _ = run(capsys, "info", str(hf_folder["vocab.json"]))
    assert code == 0
    assert "warning:        21 tokens of vocab.json cannot be made by its merges" in out
    code, out, _ = run(capsys, "info", str(hf_folder["vocab.json"]), "--format", "json")
    assert json.loads(out)["warnings"][0].startswith("21 tokens of vocab.json")

    hf_folder["merges.txt"].write_text("#version: 0.2\n", encoding="utf-8")
    code, out, err = run(capsys, "info", str(hf_folder["vocab.json"]))
    assert code == 1 and out == ""
    assert_one_line_error(err, "there are no merges")


def test_an_added_token_outside_the_merges_is_a_special_not_a_warning(
    tmp_path: Path, hf_tk: HFTokenizer
) -> None:
    doc = hf_document(hf_tk)
    doc["added_tokens"].append(
        {
            "id": 600,
            "content": "<|im_start|>",
            "single_word": False,
            "lstrip": False,
            "rstrip": False,
            "normalized": False,
            "special": True,
        }
    )
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    tok = load_tokenizer(path)
    assert tok.special_tokens["<|im_start|>"] == 600
    assert load_warnings(tok) == ()
    assert issubclass(TokenizerLoadError, TokvizError)
