"""``tokviz`` never hangs or grows on a device, a FIFO or ``-``: a prompt one-line error instead.

Each command runs as a child process with a safety timeout (a regression is a failed test, not a
hung suite) and a memory limit where the platform has one (``/dev/zero`` once grew to 5.6 GB).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from .helpers import assert_one_line_error, child_env

SAFETY_SECONDS = 120
needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
needs_dev_zero = pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")


def _limit_memory() -> None:  # pragma: no cover - runs in the child
    import resource

    limit = 4 * 1024**3  # far above tokviz's needs, far below what /dev/zero would take
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def tokviz(cwd: Path, *argv: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``python -m tokviz ARGV`` in ``cwd``; the test fails (not hangs) if it does not end."""
    return subprocess.run(
        [sys.executable, "-m", "tokviz", *argv],
        cwd=cwd,
        env=child_env(),
        input=stdin.decode() if stdin is not None else None,
        capture_output=True,
        text=True,
        timeout=SAFETY_SECONDS,
        preexec_fn=_limit_memory if sys.platform.startswith("linux") else None,
    )


@pytest.mark.slow
@needs_dev_zero
@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["info", "/dev/zero"], "/dev/zero is a character device; a tokenizer file must be a regular file"),
        (["encode", "/dev/zero"], "the input /dev/zero is a character device; give a regular text file"),
        (["encode", "--tokenizer", "/dev/zero", "--text", "hi"], "/dev/zero is a character device"),
        (
            ["train", "/dev/zero", "--vocab-size", "300", "-o", "m.json"],
            "the corpus /dev/zero is a character device; a corpus must be regular files or folders",
        ),
    ],
)
def test_dev_zero_is_refused_at_once(tmp_path: Path, argv: list[str], message: str) -> None:
    done = tokviz(tmp_path, *argv)
    assert done.returncode == 1, done.stderr
    assert_one_line_error(done.stderr, message)
    assert not (tmp_path / "m.json").exists()


@pytest.mark.slow
@needs_fifo
@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["info", "pipe"], "pipe is a FIFO (named pipe); a tokenizer file must be a regular file"),
        (["encode", "--tokenizer", "pipe", "--text", "hi"], "pipe is a FIFO (named pipe)"),
        (["encode", "pipe"], "the input pipe is a FIFO (named pipe)"),
        (["train", "pipe", "--vocab-size", "300", "-o", "m.json"], "the corpus pipe is a FIFO (named pipe)"),
    ],
)
def test_a_fifo_is_refused_without_blocking(tmp_path: Path, argv: list[str], message: str) -> None:
    os.mkfifo(tmp_path / "pipe")
    done = tokviz(tmp_path, *argv)
    assert done.returncode == 1, done.stderr
    assert_one_line_error(done.stderr, message)


def test_a_dash_as_a_corpus_is_not_called_missing(tmp_path: Path) -> None:
    done = tokviz(tmp_path, "train", "-", "--vocab-size", "300", "-o", "m.json", stdin=b"some text")
    assert done.returncode == 1
    assert_one_line_error(done.stderr, "'-' (standard input) cannot be a corpus")
    assert "not found" not in done.stderr


def test_a_folder_as_a_tokenizer_file_or_input(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    done = tokviz(tmp_path, "encode", "sub")
    assert done.returncode == 1
    assert_one_line_error(done.stderr, "the input sub is a directory")
