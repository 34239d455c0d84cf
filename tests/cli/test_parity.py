"""``tokviz parity``: which languages pay, from a folder of parallel text or the bundled sample.

tokviz parity flores200_dataset/devtest --tokenizer gpt2 --tokenizer o200k --format markdown
"""

from __future__ import annotations

import csv
import io
import json
import os
from pathlib import Path

import pytest
import tiktoken

from tokviz.core.analysis.parity import PARITY_FIELDS, bundled_sample

from .helpers import assert_one_line_error, run


@pytest.fixture()
def flores(tmp_path: Path) -> Path:
    devtest = tmp_path / "flores200_dataset" / "devtest"
    devtest.mkdir(parents=True)
    for name, lines in {
        "eng_Latn.devtest": ["The cat sleeps.", "It is raining today."],
        "hin_Deva.devtest": ["बिल्ली सो रही है।", "आज बारिश हो रही है।"],
        "kor_Hang.devtest": ["고양이가 잔다.", "오늘은 비가 온다."],
    }.items():
        (devtest / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return tmp_path / "flores200_dataset"


def test_without_a_folder_the_bundled_sample_is_measured_and_said_to_be_one(capsys) -> None:
    code, out, err = run(capsys, "parity", "--tokenizer", "gpt2")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split() == [
        "tokenizer",
        "language",
        "code",
        "lines",
        "tokens",
        "bytes/token",
        "chars/token",
        "premium",
    ]
    assert "English" in out and "Amharic" in out and "1.00×" in out
    assert any(line.startswith("dearest under GPT-2: ") for line in lines)
    assert "bundled sample" in err and "FLORES-200" in err


def test_the_counts_are_tiktokens_per_line_encodings(capsys, o200k_tiktoken: tiktoken.Encoding) -> None:
    code, out, _ = run(capsys, "parity", bundled_sample(), "--tokenizer", "o200k", "--format", "json")
    assert code == 0
    document = json.loads(out)
    rows = {r["code"]: r for r in document["rows"]}
    english = sum(
        len(o200k_tiktoken.encode(line))
        for line in Path(bundled_sample(), "en.txt").read_text("utf-8").splitlines()
    )
    for lang, row in rows.items():
        lines = Path(bundled_sample(), f"{lang}.txt").read_text("utf-8").splitlines()
        tokens = sum(len(o200k_tiktoken.encode(line)) for line in lines)
        assert row["tokens"] == tokens, lang
        assert row["premium"] == round(tokens / english, 4)
    assert document["reference"] == {"language": "English", "code": "en"}
    assert document["lines"] == 5
    assert [r["premium"] for r in document["dearest"]["o200k"]] == sorted(
        (r["premium"] for r in document["rows"] if r["code"] != "en"), reverse=True
    )[:3]


def test_flores_names_a_reference_and_a_choice_of_languages_as_csv(capsys, flores: Path) -> None:
    code, out, _ = run(
        capsys,
        "parity",
        str(flores),
        "--tokenizer",
        "cl100k",
        "--reference",
        "kor_Hang",
        "--language",
        "hi",
        "--format",
        "csv",
    )
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert list(rows[0]) == list(PARITY_FIELDS)
    assert {r["code"] for r in rows} == {"kor_Hang", "hin_Deva"}
    assert {r["code"]: r["premium"] for r in rows}["kor_Hang"] == "1.0"


def test_markdown_has_the_caption_and_the_dearest_languages(capsys, flores: Path) -> None:
    code, out, _ = run(
        capsys,
        "parity",
        str(flores / "devtest"),
        "--tokenizer",
        "gpt2",
        "--format",
        "markdown",
        "--worst",
        "1",
    )
    assert code == 0
    assert out.startswith("| tokenizer") and "*premium: tokens over English's (eng_Latn)" in out
    assert "dearest under GPT-2: Hindi " in out


def test_rows_go_to_a_file(capsys, tmp_path: Path) -> None:
    target = tmp_path / "parity.csv"
    code, out, err = run(capsys, "parity", "--tokenizer", "gpt2", "--format", "csv", "-o", str(target))
    assert code == 0 and out == ""
    assert target.read_text(encoding="utf-8").startswith("tokenizer,language,code")
    assert "rows written to" in err


# ----------------------------------------------------------------------------- bad input
def test_an_empty_folder(capsys, tmp_path: Path) -> None:
    code, _, err = run(capsys, "parity", str(tmp_path))
    assert code == 1
    assert_one_line_error(err, "is empty", "en.txt", "eng_Latn.devtest")


def test_a_folder_without_language_files(capsys, tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("hello\n", encoding="utf-8")
    code, _, err = run(capsys, "parity", str(tmp_path))
    assert code == 1
    assert_one_line_error(err, "no language files")


def test_a_file_that_is_not_utf8(capsys, tmp_path: Path) -> None:
    (tmp_path / "en.txt").write_text("hello\n", encoding="utf-8")
    (tmp_path / "de.txt").write_bytes(b"gr\xfc\xdfe\n")
    code, _, err = run(capsys, "parity", str(tmp_path))
    assert code == 1
    assert_one_line_error(err, "de.txt is not valid UTF-8")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo(capsys, tmp_path: Path) -> None:
    (tmp_path / "en.txt").write_text("hello\n", encoding="utf-8")
    os.mkfifo(tmp_path / "fr.txt")
    code, _, err = run(capsys, "parity", str(tmp_path))
    assert code == 1
    assert_one_line_error(err, "fr.txt is a FIFO")


def test_a_fifo_given_as_the_folder(capsys, tmp_path: Path) -> None:
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs here")
    os.mkfifo(tmp_path / "pipe")
    code, _, err = run(capsys, "parity", str(tmp_path / "pipe"))
    assert code == 1
    assert_one_line_error(err, "is not a folder")


def test_files_that_are_not_aligned(capsys, tmp_path: Path) -> None:
    (tmp_path / "en.txt").write_text("one\ntwo\n", encoding="utf-8")
    (tmp_path / "fr.txt").write_text("un\n", encoding="utf-8")
    code, _, err = run(capsys, "parity", str(tmp_path))
    assert code == 1
    assert_one_line_error(err, "has 1 line where the other file has 2", "aligned line by line")


def test_a_reference_the_folder_lacks(capsys, flores: Path) -> None:
    code, _, err = run(capsys, "parity", str(flores), "--reference", "French")
    assert code == 1
    assert_one_line_error(err, "no file for the language 'French'", "eng_Latn")


def test_chart_options_need_a_chart(capsys) -> None:
    code, _, err = run(capsys, "parity", "--scale", "2")
    assert code == 2 and "--plot" in err


def test_a_long_run_says_how_far_it_is_in_a_log() -> None:
    from tokviz.cli.parity import ParityMeter

    log = io.StringIO()
    meter = ParityMeter(log, delay=0.0)
    for done in range(1, 61):
        meter(done, 60)
    lines = log.getvalue().splitlines()
    assert lines[0].startswith("measuring   1.7%  (1 of 60 languages x tokenizers)")
    assert lines[-1].startswith("measuring 100.0%") and len(lines) == 11
