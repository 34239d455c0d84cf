"""Pathological corpora in bounded memory: a 20 MB run of one letter, a small ``.gz`` of 100 MB of
it, a text file padded with NUL bytes to 60 MB.

Each runs ``tokviz`` in a child process whose address space is capped at what importing the CLI
and numpy takes plus 300 MB: a run that held the whole pre-token in the trainer's index (about 85
bytes a byte) or in one string stops with a MemoryError there. Each must end with exit status 0
and say what it did in one line.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from .helpers import address_cap, tokviz_capped


@pytest.fixture(scope="module")
def cap() -> int:
    """What the imports take, plus the headroom a corpus may use."""
    return address_cap("import numpy, tokviz.cli.train, tokviz.core.training.pairindex")


def warnings(err: str) -> list[str]:
    return [line for line in err.splitlines() if "warning:" in line]


def test_training_on_20_mb_of_one_letter_stays_within_the_cap(cap: int, tmp_path: Path) -> None:
    corpus = tmp_path / "a.txt"
    corpus.write_bytes(b"a" * 20_000_000)
    out = tmp_path / "model.tiktoken"
    done = tokviz_capped(cap, "train", str(corpus), "--vocab-size", "300", "-o", str(out), "--workers", "1")
    assert done.returncode == 0, done.stderr[-2000:]
    assert "MemoryError" not in done.stderr
    [line] = warnings(done.stderr)
    assert "cut into pieces of 65,536" in line
    assert out.exists()


def test_training_on_a_small_gz_of_100_mb_of_one_letter_stays_within_the_cap(
    cap: int, tmp_path: Path
) -> None:
    corpus = tmp_path / "a.txt.gz"
    with gzip.open(corpus, "wb", compresslevel=1) as fh:
        for _ in range(100):
            fh.write(b"a" * 1_000_000)
    out = tmp_path / "model.tiktoken"
    done = tokviz_capped(cap, "train", str(corpus), "--vocab-size", "260", "-o", str(out), "--workers", "1")
    assert done.returncode == 0, done.stderr[-2000:]
    assert len(warnings(done.stderr)) == 1


def test_a_text_padded_with_nul_bytes_in_a_folder_is_skipped_within_the_cap(cap: int, tmp_path: Path) -> None:
    folder = tmp_path / "corpus"
    folder.mkdir()
    (folder / "notes.txt").write_text("a short note about tokens\n" * 40, encoding="utf-8")
    padded = folder / "padded.log"
    padded.write_bytes(b"a log line with words in it\n" * 800)  # about 20 KB of text
    with open(padded, "ab") as fh:
        fh.truncate(60 << 20)  # as `truncate -s 60M` leaves it
    out = tmp_path / "model.tiktoken"
    done = tokviz_capped(cap, "train", str(folder), "--vocab-size", "280", "-o", str(out), "--workers", "1")
    assert done.returncode == 0, done.stderr[-2000:]
    assert "tokviz: skipped 1 binary file (.log)" in done.stderr
    evaluated = tokviz_capped(cap, "eval", str(folder))
    assert evaluated.returncode == 0, evaluated.stderr[-2000:]
    assert "skipped 1 binary file (.log)" in evaluated.stderr


def test_a_file_padded_with_nul_bytes_named_explicitly_is_read_within_the_cap(
    cap: int, tmp_path: Path
) -> None:
    padded = tmp_path / "padded.txt"
    padded.write_bytes(b"some text before the zeros\n" * 800)
    with open(padded, "ab") as fh:
        fh.truncate(60 << 20)
    out = tmp_path / "model.tiktoken"
    done = tokviz_capped(cap, "train", str(padded), "--vocab-size", "280", "-o", str(out), "--workers", "1")
    assert done.returncode == 0, done.stderr[-2000:]
    assert len(warnings(done.stderr)) == 1


def test_evaluating_a_named_file_padded_with_nul_bytes_stays_within_the_cap(cap: int, tmp_path: Path) -> None:
    padded = tmp_path / "padded.txt"
    padded.write_bytes(b"some text before the zeros\n" * 800)
    with open(padded, "ab") as fh:
        fh.truncate(20 << 20)
    done = tokviz_capped(cap, "eval", str(padded), "--tokenizer", "gpt2")
    assert done.returncode == 0, done.stderr[-2000:]
    [line] = warnings(done.stderr)
    assert "cut every 1,048,576 characters" in line
    assert "20,971,520" in done.stdout  # every byte is counted
