"""``tokviz train`` says when the corpus could not fill the vocabulary asked for (a note, exit 0)."""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import run


def test_an_unreachable_vocabulary_size_is_a_one_line_note(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    corpus = tmp_path / "tiny.txt"
    corpus.write_text("the cat in the hat", encoding="utf-8")
    model = tmp_path / "model.json"
    code, out, err = run(
        capsys, "train", str(corpus), "--vocab-size", "1000000", "-o", str(model), "--workers", "1"
    )
    assert code == 0, err
    assert model.exists() and out == ""
    notes = [line for line in err.splitlines() if "stopped early" in line]
    assert len(notes) == 1
    assert notes[0].startswith("tokviz: stopped early: the corpus has no pair left to merge after ")
    assert notes[0].endswith(" of 1,000,000")


def test_a_reachable_vocabulary_size_has_no_note(
    capsys: pytest.CaptureFixture[str], corpus: Path, tmp_path: Path
) -> None:
    code, _, err = run(
        capsys, "train", str(corpus), "--vocab-size", "300", "-o", str(tmp_path / "m.json"), "--workers", "1"
    )
    assert code == 0, err
    assert "stopped early" not in err
