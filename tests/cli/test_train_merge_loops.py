"""``tokviz train`` writes the same model file with the compiled merge loop and with the pure one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ..merge_loop import build_in_checkout
from .helpers import tokviz_child


@pytest.mark.parametrize("tie_break", ["lexicographic", "first-seen"])
def test_both_loops_write_the_same_model_file(english_text: str, tmp_path: Path, tie_break: str) -> None:
    """Byte for byte but for the time the file says it was made."""
    if why := build_in_checkout():
        pytest.skip(f"the compiled merge loop is not built: {why}")
    (tmp_path / "corpus.txt").write_text(english_text[:50_000] + "<|endoftext|>" + english_text[-30_000:])
    assert "(merge loop: compiled)" in tokviz_child(tmp_path, "--version").stdout
    models = []
    for loop, env in (("compiled", {}), ("pure", {"TOKVIZ_PURE_PYTHON": "1"})):
        (tmp_path / loop).mkdir()
        done = tokviz_child(
            tmp_path,
            *("train", "corpus.txt", "--vocab-size", "1200", "--special-token", "<|endoftext|>"),
            *("--tie-break", tie_break, "-o", f"{loop}/model.json"),
            **env,
        )
        assert done.returncode == 0, done.stderr
        text = (tmp_path / loop / "model.json").read_text(encoding="utf-8")
        created = json.loads(text)["provenance"]["created"]
        models.append(text.replace(created, "CREATED"))
    assert models[0] == models[1]
    assert len(json.loads(models[0])["merges"]) == 1200 - 257
