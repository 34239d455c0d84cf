"""Running ``tokviz`` in-process or as a program, and checking its one-line errors."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tokviz.cli import main

ROOT = Path(__file__).resolve().parents[2]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Run ``tokviz ARGV`` in-process; return the exit status, stdout and stderr."""
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def train_model(capsys: pytest.CaptureFixture[str], folder: Path, text: str, vocab_size: int) -> Path:
    """A model file in ``folder``, trained by ``tokviz train`` on ``text`` as a user would train it."""
    corpus = folder / "corpus.txt"
    corpus.write_text(text, encoding="utf-8")
    path = folder / "m.json"
    code, _, err = run(capsys, "train", str(corpus), "--vocab-size", str(vocab_size), "-o", str(path))
    assert code == 0, err
    return path


def assert_one_line_error(err: str, *fragments: str) -> None:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("tokviz: error: ")
    assert "Traceback" not in err
    for fragment in fragments:
        assert fragment in lines[0]


def child_env() -> dict[str, str]:
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    return dict(os.environ, PYTHONPATH=path)
