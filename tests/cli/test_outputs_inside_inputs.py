"""Found by playing the engineer: an output inside a corpus folder, and a count table that is a device."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from .helpers import assert_one_line_error, run


def test_eval_refuses_to_write_its_table_over_a_file_of_the_folder_it_reads(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "a.py").write_text("print('hello')\n", encoding="utf-8")
    (corpus / "b.py").write_text("x = 1\n", encoding="utf-8")

    code, out, err = run(capsys, "eval", str(corpus), "--tokenizer", "bytes", "-o", str(corpus / "a.py"))

    assert (code, out) == (1, "")
    assert_one_line_error(err, "would destroy the corpus")
    assert (corpus / "a.py").read_text(encoding="utf-8") == "print('hello')\n"


def test_eval_may_write_a_new_file_inside_the_folder(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "a.txt").write_text("hello world\n", encoding="utf-8")

    code, _, _ = run(capsys, "eval", str(corpus), "--tokenizer", "bytes", "-o", str(corpus / "results.csv"))

    assert code == 0 and (corpus / "results.csv").exists()


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
def test_a_device_is_not_read_as_a_count_table(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(
        capsys, "train", "--from-counts", "/dev/zero", "--vocab-size", "300", "-o", str(tmp_path / "m.json")
    )
    assert code == 1
    assert_one_line_error(err, "not a regular file")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs")
def test_a_fifo_is_not_opened_as_a_count_table(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    code, _, err = run(capsys, "count", "--merge", str(fifo), str(fifo), "-o", str(tmp_path / "all.tsv"))
    assert code == 1
    assert_one_line_error(err, "not a regular file")


def test_count_chooses_files_like_train(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    (corpus / "docs").mkdir(parents=True)
    (corpus / "a.py").write_text("hello world hello\n", encoding="utf-8")
    (corpus / "docs" / "b.txt").write_text("never counted\n", encoding="utf-8")
    table = tmp_path / "counts.tsv"

    code, _, err = run(capsys, "count", str(corpus), "--include", "*.py", "-o", str(table))

    assert code == 0, err
    assert "skipped 1 file by --include/--exclude" in err
    text = table.read_text(encoding="utf-8")
    assert " world" in text and "never" not in text


def test_count_filters_do_not_mix_with_merge(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(
        capsys, "count", "--merge", "a.tsv", "b.tsv", "--include", "*.py", "-o", str(tmp_path / "x.tsv")
    )
    assert code == 2 and "--include" in err
