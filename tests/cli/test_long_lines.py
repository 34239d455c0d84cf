"""A file that is one very long line, through every command that encodes files, in bounded memory.

tiktoken merges a pre-token in one native call whose memory grows with it: a 200 MB line of
``ab`` asked for 6.4 GB and aborted the process with a Rust backtrace. Each command runs here as a
child process capped at its own peak on an ordinary file plus 300 MB, on lines of several kinds
(letters, a two-letter repeat, accented letters, digits, punctuation, spaces) under several
tokenizers; each must end with exit status 0, its usual output, and one warning line saying what
was encoded in pieces, with no traceback or backtrace.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import cap_above_normal, needs_proc_status, tokviz_capped

pytestmark = needs_proc_status

ORDINARY = "The quick brown fox jumps over the lazy dog; 12 sheep, 3 hens.\n" * 200


def folder_with(root: Path, name: str, text: str, files: tuple[str, ...] = ("line.txt",)) -> Path:
    folder = root / name
    folder.mkdir()
    for file in files:
        (folder / file).write_text(text, encoding="utf-8")
    return folder


def assert_bounded_run(done_stderr: str, code: int) -> None:
    assert code == 0, done_stderr[-3000:]
    for sign in ("Traceback", "panicked", "backtrace", "memory allocation", "MemoryError"):
        assert sign not in done_stderr, done_stderr[-3000:]
    [warning] = [line for line in done_stderr.splitlines() if "warning:" in line]
    # A run of digits under o200k is pre-tokens of three: only the stretch is cut, no pre-token.
    assert "characters were encoded in pieces of 65,536" in warning or "cut every 1,048,576" in warning


@pytest.mark.slow
def test_usage_on_a_12_mb_line_of_ab_stays_within_its_normal_peak_plus_300_mb(tmp_path: Path) -> None:
    folder_with(tmp_path, "plain", ORDINARY)
    folder_with(tmp_path, "d", "ab" * 6_000_000)
    cap = cap_above_normal(tmp_path, "usage", "plain", "--tokenizer", "gpt2")

    done = tokviz_capped(cap, "usage", "d", "--tokenizer", "gpt2", cwd=tmp_path)

    assert_bounded_run(done.stderr, done.returncode)
    assert "12,000,000" in done.stdout  # every byte is counted


# (command arguments with {d} for the folder and {f} for its file, the repeated unit of the line)
CASES = [
    (["eval", "{d}", "--tokenizer", "cl100k"], "é"),
    (["encode", "--tokenizer", "o200k", "{f}", "-o", "ids.txt"], "7"),
    (["compare", "{f}", "--tokenizer", "gpt2"], "-"),
    (["sweep", "gpt2", "{d}", "--sizes", "1000,50000"], "a"),
    (["audit", "cl100k", "--corpus", "{d}"], "ab"),
    (["usage", "{d}", "--tokenizer", "o200k"], " "),
    (["parity", "{d}", "--tokenizer", "gpt2"], "xy"),
]


@pytest.mark.slow
@pytest.mark.long_pole
@pytest.mark.parametrize(("argv", "unit"), CASES, ids=[f"{a[0]}-{len(u)}x{u[0]!r}" for a, u in CASES])
def test_every_command_that_encodes_files_takes_a_16_mb_line_in_bounded_memory(
    tmp_path: Path, argv: list[str], unit: str
) -> None:
    # 16 MB is past the cap for a whole-line encoder: tiktoken asked 32 bytes a byte of one
    # pre-token (6.4 GB for 200 MB), 512 MB here; a line of short pre-tokens held whole is some
    # 60 bytes a pre-token of Python strings and ids.
    files = ("en.txt", "fr.txt") if argv[0] == "parity" else ("line.txt",)
    plain = folder_with(tmp_path, "plain", ORDINARY, files)
    hostile = folder_with(tmp_path, "d", unit * (16_000_000 // len(unit.encode())), files)

    def filled(folder: Path) -> list[str]:
        return [a.format(d=folder.name, f=f"{folder.name}/{files[0]}") for a in argv]

    cap = cap_above_normal(tmp_path, *filled(plain))
    done = tokviz_capped(cap, *filled(hostile), cwd=tmp_path)

    assert_bounded_run(done.stderr, done.returncode)


@pytest.mark.slow
def test_a_trained_model_encodes_a_long_line_in_bounded_memory(tmp_path: Path) -> None:
    folder_with(tmp_path, "plain", ORDINARY)
    trained = tokviz_capped(0, "train", "plain", "--vocab-size", "320", "-o", "m.json", cwd=tmp_path)
    assert trained.returncode == 0, trained.stderr
    folder_with(tmp_path, "d", "ab" * 15_000_000 + " " + "z" * (3 << 20))
    cap = cap_above_normal(tmp_path, "usage", "plain", "--tokenizer", "m.json")

    done = tokviz_capped(cap, "usage", "d", "--tokenizer", "m.json", cwd=tmp_path)

    assert_bounded_run(done.stderr, done.returncode)
