"""``tokviz diff A B``: an 8K-style vocabulary against its 32K-style sibling, and two unrelated lists."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tokviz.core.formats.model_file import save_model
from tokviz.core.training.train import train_bpe

from .helpers import assert_one_line_error, run


@pytest.fixture(scope="module")
def siblings(tmp_path_factory: pytest.TempPathFactory, english_text: str) -> tuple[Path, Path]:
    """Two vocabularies trained on one text, small and large: the small one's merges are a prefix."""
    folder = tmp_path_factory.mktemp("models")
    text = english_text[:60_000] + ("\n+" + "-" * 40 + "+") * 30
    small, large = folder / "py8k.json", folder / "py32k.json"
    save_model(small, train_bpe(text=text, vocab_size=400).tokenizer("py8k"))
    save_model(large, train_bpe(text=text, vocab_size=700).tokenizer("py32k"))
    return small, large


def test_smaller_vocabulary_is_a_prefix_of_the_larger(
    capsys: pytest.CaptureFixture[str], siblings: tuple[Path, Path]
) -> None:
    small, large = siblings
    code, out, _ = run(capsys, "diff", str(small), str(large), "--top", "3")

    lines = out.splitlines()
    assert code == 0
    assert lines[0] == "py8k: 144 merges; py32k: 444 merges (· is a space)"
    assert lines[1] == "the 144 merges of py8k are the first 144 of the 444 of py32k"
    assert "first divergence" not in out
    assert "merges only in py32k (300; first 3)" in out
    assert "tokens only in py32k (300; longest 3)" in out
    assert "merges only in py8k" not in out


@pytest.mark.slow
def test_json_names_the_first_divergence_of_gpt2_and_cl100k(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "diff", "gpt2", "cl100k", "--format", "json", "--top", "2")

    report = json.loads(out)
    assert code == 0
    assert (report["a"], report["b"], report["a_merges"], report["b_merges"]) == (
        "GPT-2",
        "cl100k",
        50_000,
        100_000,
    )
    assert report["first_divergence"]["step"] == 1
    assert report["first_divergence"]["a"]["token"]["text"] == " t"  # GPT-2's first merge
    assert report["shared"] + report["only_a"] == 50_000
    assert len(report["shifts"]) == 2 and report["moved"] > 2


def test_markdown_tables(capsys: pytest.CaptureFixture[str], siblings: tuple[Path, Path]) -> None:
    small, large = siblings
    code, out, _ = run(capsys, "diff", str(large), str(small), "--format", "markdown", "--top", "2")

    assert code == 0
    assert "### merges only in py32k (300; first 2)" in out
    assert "| step | merge |\n|---:|---|\n| 145 |" in out


def test_a_missing_file_is_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, "diff", "gpt2", str(tmp_path / "nope.json"))
    assert code == 1
    assert_one_line_error(err, "nope.json")
