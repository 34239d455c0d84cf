"""Sizes say what they measure: the bytes of the text, and the bytes on disk where they differ.

A gzip corpus is smaller on disk than its text: ``train`` and ``count`` report the text's bytes
(``len`` of the decompressed file) with the compressed size beside it, and the model file and the
count table record both. Bytes per token divide the input's own bytes: an invalid byte read as
U+FFFD counts as the one byte it was in the file. Expected values come from plain Python
(``gzip``, ``len``, ``os.path.getsize``) and tiktoken's own GPT-2 encoding.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
import tiktoken

from tokviz.core.training.counts import CountedFile, CountTable, load_table, read_metadata, save_table

from .helpers import run


@pytest.fixture
def gz_corpus(tmp_path: Path, english_text: str) -> tuple[Path, bytes]:
    """A gzip file whose text is some 200 KB of English, with its decompressed bytes."""
    text = (english_text[:40_000] * 5).encode("utf-8")
    path = tmp_path / "corpus.txt.gz"
    path.write_bytes(gzip.compress(text))
    return path, text


def mb(n: int) -> str:
    return f"{n / 1e6:,.2f} MB"


def test_train_on_gzip_reports_and_records_the_text_size(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, gz_corpus: tuple[Path, bytes]
) -> None:
    path, text = gz_corpus
    stored = path.stat().st_size
    assert stored < len(text)
    model = tmp_path / "m.json"
    code, _, err = run(capsys, "train", str(path), "--vocab-size", "300", "-o", str(model), "--workers", "1")
    assert code == 0, err
    assert f"on {mb(len(text))} of text ({mb(stored)} compressed)" in err
    corpus = json.loads(model.read_text(encoding="utf-8"))["provenance"]["corpus"]
    assert (corpus["text_bytes"], corpus["total_bytes"]) == (len(text), stored)
    code, out, _ = run(capsys, "info", str(model))
    assert code == 0
    assert "of text (" in out and "compressed)" in out


def test_count_on_gzip_records_both_sizes_and_training_from_it_reports_the_text(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, gz_corpus: tuple[Path, bytes]
) -> None:
    path, text = gz_corpus
    stored = path.stat().st_size
    table = tmp_path / "counts.tsv"
    code, _, err = run(capsys, "count", str(path), "-o", str(table), "--workers", "1")
    assert code == 0, err
    meta = read_metadata(table)
    assert (meta["text_bytes"], meta["corpus_bytes"]) == (len(text), stored)
    assert "of text (" in err and "compressed) from 1 file" in err

    model = tmp_path / "m.json"
    code, _, err = run(capsys, "train", "--from-counts", str(table), "--vocab-size", "300", "-o", str(model))
    assert code == 0, err
    assert f"on {mb(len(text))} of text ({mb(stored)} compressed)" in err
    corpus = json.loads(model.read_text(encoding="utf-8"))["provenance"]["corpus"]
    assert corpus["text_bytes"] == len(text)


def test_a_plain_text_corpus_says_its_size_once(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "plain.txt"
    path.write_text("héllo wörld, hello there\n" * 400, encoding="utf-8")
    model = tmp_path / "m.json"
    code, _, err = run(capsys, "train", str(path), "--vocab-size", "270", "-o", str(model), "--workers", "1")
    assert code == 0, err
    assert f"on {mb(path.stat().st_size)} of text, " in err
    assert "compressed" not in err
    assert "text_bytes" not in json.loads(model.read_text(encoding="utf-8"))["provenance"]["corpus"]


def test_a_table_written_without_the_text_size_still_loads(tmp_path: Path) -> None:
    counted = (CountedFile("corpus.txt.gz", 12345, None),)
    old = CountTable(counts={"hello": 3, " world": 2}, pretokenizer="gpt2", corpus_bytes=12345, files=counted)
    path = tmp_path / "old.tsv"
    save_table(old, path)
    assert "text_bytes" not in read_metadata(path)
    loaded = load_table(path)
    assert loaded.text_bytes is None and loaded.corpus_bytes == 12345
    assert "12,345 bytes on disk from 1 file" in loaded.describe()


def test_eval_replace_invalid_divides_the_file_bytes(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, gpt2_tiktoken: tiktoken.Encoding
) -> None:
    raw = "café crème brûlée, déjà vu\n".encode("latin-1") * 400 + "naïve ünïcode\n".encode() * 50
    path = tmp_path / "latin1.txt"
    path.write_bytes(raw)
    code, out, err = run(
        capsys, "eval", str(path), "--tokenizer", "gpt2", "--replace-invalid", "--format", "json", "-q"
    )
    assert code == 0, err
    (row,) = json.loads(out)["rows"]
    tokens = len(gpt2_tiktoken.encode(raw.decode("utf-8", errors="replace"), disallowed_special=()))
    assert row["bytes"] == len(raw) == path.stat().st_size
    assert row["tokens"] == tokens
    assert row["bytes_per_token"] == round(len(raw) / tokens, 3)  # JSON rounds to 3 decimals


def test_eval_of_a_gzip_file_counts_its_text(
    capsys: pytest.CaptureFixture[str], gz_corpus: tuple[Path, bytes]
) -> None:
    path, text = gz_corpus
    code, out, err = run(capsys, "eval", str(path), "--tokenizer", "gpt2", "--format", "json", "-q")
    assert code == 0, err
    assert json.loads(out)["rows"][0]["bytes"] == len(text)


def test_usage_replace_invalid_counts_the_file_bytes(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    raw = "café crème\n".encode("latin-1") * 300
    path = tmp_path / "latin1.txt"
    path.write_bytes(raw)
    code, out, err = run(capsys, "usage", "--tokenizer", "gpt2", str(path), "--replace-invalid")
    assert code == 0, err
    assert f"on {len(raw):,} bytes" in out
