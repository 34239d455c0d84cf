"""Fixtures of the ``tokviz`` command's tests."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def corpus(tmp_path: Path, english_text: str) -> Path:
    path = tmp_path / "corpus.txt"
    path.write_text(english_text[:30_000], encoding="utf-8")
    return path
