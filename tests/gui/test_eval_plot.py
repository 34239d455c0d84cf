"""``tokviz eval --plot``: the totals drawn with the chart panel's code, legible for any number of files."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtGui import QImage

from tokviz.cli import main

PROSE = "The exchange rate between text and sequence length decides what fits a context.\n" * 30


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_the_plot_shows_totals_for_any_number_of_folders(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    root = tmp_path / "many"
    for i in range(30):
        (root / f"part{i:02d}").mkdir(parents=True)
        (root / f"part{i:02d}" / "a.txt").write_text(PROSE[: 200 + 40 * i], encoding="utf-8")
    chart = tmp_path / "eval.svg"
    code, _, err = run(capsys, "eval", str(root), "--by", "folder", "--plot", str(chart), "-q")
    assert code == 0, err
    labels = chart.read_text(encoding="utf-8")
    assert "all 30 files" in labels and "21 others" in labels  # 9 largest groups, the rest together


def test_the_totals_plot_as_a_slide_sized_png(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.txt").write_text(PROSE, encoding="utf-8")
    chart = tmp_path / "eval.png"
    code, out, err = run(capsys, "eval", str(tmp_path / "docs"), "--plot", str(chart), "--scale", "2")
    assert code == 0, err
    assert f"chart written to {chart}" in err and out.startswith("tokenizer")
    image = QImage(str(chart))
    assert (image.width(), image.height()) == (2560, 1440)


def test_compare_draws_the_total_of_many_files(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    files = []
    for i in range(15):
        path = tmp_path / f"note{i:02d}.txt"
        path.write_text(PROSE[: 100 + 10 * i], encoding="utf-8")
        files.append(str(path))
    chart = tmp_path / "many.svg"
    code, out, err = run(capsys, "compare", *files, "--tokenizer", "gpt2", "--plot", str(chart))
    assert code == 0, err
    assert len(out.splitlines()) == 1 + 15 + 1  # the table still has every file, then its specials note
    assert "'tokviz eval FOLDER'" in err
    drawn = chart.read_text(encoding="utf-8")
    assert "all 15 inputs" in drawn and "note07.txt" not in drawn
