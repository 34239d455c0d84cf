"""The held-out files ``eval``, ``sweep`` and ``usage`` read: one set of options, one meaning.

tokviz eval heldout/ --tokenizer m.json --include '*.py' --exclude tests/ --max-file-size 1K
tokviz sweep m.json heldout/ --include '*.py' --exclude tests/ --max-file-size 1K
tokviz usage heldout/ --tokenizer m.json --include '*.py' --exclude tests/ --max-file-size 1K
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from .helpers import assert_one_line_error, run, train_model

LIMIT = 1024  # --max-file-size 1K


def _eval_read(out: str) -> tuple[int, int, int]:
    total = json.loads(out)["rows"][-1]
    return total["files"], total["bytes"], total["tokens"]


def _sweep_read(out: str) -> tuple[int, int, int]:
    rows = json.loads(out)["rows"]
    # With no merge every byte is a token; with all of them, the tokenizer's own count.
    unmerged = min(rows, key=lambda r: r["merges"])
    merged = max(rows, key=lambda r: r["merges"])
    assert unmerged["merges"] == 0
    return -1, unmerged["tokens"], merged["tokens"]


def _usage_read(out: str) -> tuple[int, int, int]:
    (report,) = json.loads(out)
    return report["files"], report["bytes"], report["tokens"]


# Each command as a user types it, and how its JSON says what it read: (files, bytes, tokens).
# The sweep does not count files (-1); its bytes are its tokens before the first merge.
COMMANDS: dict[str, tuple[Callable[[Path, Path], list[str]], Callable[[str], tuple[int, int, int]]]] = {
    "eval": (lambda model, folder: ["eval", str(folder), "--tokenizer", str(model)], _eval_read),
    "sweep": (lambda model, folder: ["sweep", str(model), str(folder)], _sweep_read),
    "usage": (lambda model, folder: ["usage", str(folder), "--tokenizer", str(model)], _usage_read),
}


@pytest.fixture()
def model(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    return train_model(capsys, tmp_path, "def f(x):\n    return x + 1\n" * 200, 300)


@pytest.fixture()
def heldout(tmp_path: Path) -> Path:
    """A file of exactly the limit, one a byte over it, one the include pattern leaves out and one
    in a folder the exclude pattern leaves out."""
    root = tmp_path / "heldout"
    (root / "tests").mkdir(parents=True)
    line = "    return x + 1\n"
    body = line * (LIMIT // len(line))
    at_limit = body + "#" * (LIMIT - len(body) - 1) + "\n"
    (root / "at_limit.py").write_text(at_limit, encoding="utf-8")
    (root / "over.py").write_text("#" + at_limit, encoding="utf-8")
    (root / "notes.md").write_text("not code\n", encoding="utf-8")
    (root / "tests" / "test_f.py").write_text("assert f(1) == 2\n", encoding="utf-8")
    assert (root / "at_limit.py").stat().st_size == LIMIT
    assert (root / "over.py").stat().st_size == LIMIT + 1
    return root


def held_out(
    capsys: pytest.CaptureFixture[str], command: str, model: Path, folder: Path, *options: str
) -> tuple[int, tuple[int, int, int] | None, str]:
    """Run ``command`` on ``folder`` with ``options``: its exit status, what it read, its standard error."""
    argv, read = COMMANDS[command]
    code, out, err = run(capsys, *argv(model, folder), *options, "--format", "json")
    return code, read(out) if code == 0 else None, err


FILTERS = ("--include", "*.py", "--exclude", "tests/")


def test_the_three_commands_read_the_same_files_and_say_the_same_about_the_rest(
    capsys: pytest.CaptureFixture[str], model: Path, heldout: Path
) -> None:
    seen: dict[str, Any] = {}
    for command in COMMANDS:
        code, read, err = held_out(capsys, command, model, heldout, *FILTERS, "--max-file-size", "1K")
        assert code == 0, err
        seen[command] = (read, err)
    (eval_read, note), (sweep_read, _), (usage_read, _) = seen.values()
    assert eval_read == usage_read
    assert sweep_read == (-1, *eval_read[1:])
    assert note == "tokviz: skipped 1 file larger than 1 KB (.py); 1 file by --include/--exclude\n"
    assert {err for _, err in seen.values()} == {note}


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize(
    ("limit", "bytes_read"),
    [(str(LIMIT - 1), 0), (str(LIMIT), LIMIT), ("1K", LIMIT), (str(LIMIT + 1), LIMIT + LIMIT + 1)],
)
def test_a_file_of_exactly_the_size_limit_is_read_and_one_byte_more_is_not(
    capsys: pytest.CaptureFixture[str], model: Path, heldout: Path, command: str, limit: str, bytes_read: int
) -> None:
    code, read, err = held_out(capsys, command, model, heldout, *FILTERS, "--max-file-size", limit)
    if not bytes_read:
        assert code == 1
        assert_one_line_error(err, "no text files to", "2 files larger than")
        return
    assert code == 0, err
    assert read is not None and read[1] == bytes_read


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("limit", ["huge", "", "-1"])
def test_a_size_that_is_not_one_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], model: Path, heldout: Path, command: str, limit: str
) -> None:
    code, _, err = held_out(capsys, command, model, heldout, "--max-file-size", limit)
    assert code == 2
    assert "--max-file-size: " in err and "is not a size" in err


@pytest.mark.parametrize("command", ["eval", "sweep"])
def test_the_rows_never_overwrite_a_file_of_the_folder_read(
    capsys: pytest.CaptureFixture[str], model: Path, heldout: Path, command: str
) -> None:
    target = heldout / "notes.md"
    argv, _ = COMMANDS[command]
    code, out, err = run(capsys, *argv(model, heldout), "-o", str(target))
    assert (code, out) == (1, "")
    assert_one_line_error(err, "would destroy the corpus")
    assert target.read_text(encoding="utf-8") == "not code\n"
