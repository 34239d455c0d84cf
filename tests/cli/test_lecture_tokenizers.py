"""``--tokenizer characters`` and ``--tokenizer words`` on the command line: encode, compare, info, render."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from .helpers import assert_one_line_error, run


def test_encode_characters_prints_code_points(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "encode", "--tokenizer", "characters", "--text", "Hi 🌍")
    assert code == 0
    assert out == "72 105 32 127757\n"


def test_encode_words_builds_the_vocabulary_from_the_input(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "encode", "--tokenizer", "words", "--text", "the cat, the hat", "--format", "tokens"
    )
    assert code == 0
    assert out == "the|·|cat|,|·|the|·|hat\n"


def test_encode_words_from_a_corpus_shows_unknown_words(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("the cat sat on the mat\n", encoding="utf-8")
    argv = ["encode", "--tokenizer", "words", "--words-corpus", str(corpus), "--text", "the dog sat"]
    code, out, _ = run(capsys, *argv, "--format", "tokens")
    assert code == 0
    assert out == "the|·|<unk>|·|sat\n"
    code, out, _ = run(capsys, *argv, "--format", "json")
    unknown = json.loads(out)[2]
    assert unknown["id"] == 0 and (unknown["start"], unknown["end"]) == (4, 7)


def test_compare_shows_the_lesson(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("Hello, world! The cat sat.\n", encoding="utf-8")
    text = "Hello, 🌍! The dog sat."
    code, out, err = run(
        capsys,
        *("compare", "--text", text, "--words-corpus", str(corpus)),
        *("--tokenizer", "bytes", "--tokenizer", "characters", "--tokenizer", "words", "--tokenizer", "gpt2"),
    )
    assert code == 0 and err == ""
    header, *rows, note = out.strip().splitlines()
    assert header.split()[:7] == ["input", "tokenizer", "bytes", "tokens", "bytes/token", "vocab", "unknown"]
    assert note == "special tokens in text: parsed as specials"
    table = {r.split()[1]: r.split() for r in rows}
    n_bytes = len(text.encode())
    assert table["bytes"][2:4] == [str(n_bytes), str(n_bytes)]
    assert table["characters"][3] == str(len(text)) and table["characters"][5] == "1,114,112"
    assert table["words"][6] == "2"  # 🌍 and "dog" were never in the corpus
    assert table["GPT-2"][5:7] == ["50,257", "0"]  # named as the app names it


def test_compare_words_without_a_corpus_says_why_nothing_is_unknown(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(capsys, "compare", "--text", "a b c", "--tokenizer", "words", "--format", "csv")
    assert code == 0
    row = next(csv.DictReader(io.StringIO(out)))
    assert (row["vocab_tokens"], row["id_range"], row["unknown"]) == ("5", "5", "0")  # a, b, c, " " and <unk>
    assert "--words-corpus" in err


def test_info_describes_the_lecture_tokenizers(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "info", "chars")
    assert code == 0
    assert "vocab size:     1114112" in out and "id = the code point" in out
    code, out, _ = run(capsys, "info", "words", "--format", "json")
    info = json.loads(out)
    assert info["special_tokens"] == {"<unk>": 0}
    assert "word list" in info["about"]


def test_a_missing_corpus_is_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    missing = tmp_path / "nope.txt"
    code, _, err = run(
        capsys, "encode", "--tokenizer", "words", "--words-corpus", str(missing), "--text", "x"
    )
    assert code == 1
    assert_one_line_error(err, "nope.txt")


def test_render_draws_the_four_side_by_side(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    pytest.importorskip("PySide6")
    out_png = tmp_path / "four.png"
    code, _, err = run(
        capsys,
        *("render", "--text", "Tokenizers split text.", "-o", str(out_png), "--scale", "1"),
        *("--tokenizer", "characters", "--tokenizer", "words", "--tokenizer", "bytes", "--tokenizer", "gpt2"),
    )
    assert code == 0, err
    assert out_png.stat().st_size > 1000
