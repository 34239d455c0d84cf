"""``tokviz sweep``: every vocabulary size of one merge list on held-out files, in every output form.

tokviz sweep model.json heldout/ --by language --sizes 300,400 --format csv
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from tokviz.core import load_tokenizer
from tokviz.core.analysis.sweep import SWEEP_FIELDS

from .helpers import assert_one_line_error, run, train_model

ENGLISH = "The exchange rate between text and sequence length decides what fits a context.\n" * 30
GERMAN = "Der Wechselkurs zwischen Text und Sequenzlänge entscheidet, was in einen Kontext passt.\n" * 30


@pytest.fixture()
def model(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    return train_model(capsys, tmp_path, ENGLISH + GERMAN, 400)


@pytest.fixture()
def flores(tmp_path: Path) -> Path:
    root = tmp_path / "flores"
    root.mkdir()
    (root / "eng_Latn.devtest").write_text(ENGLISH[:900], encoding="utf-8")
    (root / "deu_Latn.devtest").write_text(GERMAN[:900], encoding="utf-8")
    return root


def test_csv_has_a_row_per_language_and_size_with_the_encoders_counts(
    capsys: pytest.CaptureFixture[str], model: Path, flores: Path
) -> None:
    code, out, err = run(
        capsys,
        "sweep",
        str(model),
        str(flores),
        "--by",
        "language",
        "--sizes",
        "256,300,330",
        "--format",
        "csv",
        "-q",
    )
    assert code == 0, err
    rows = list(csv.DictReader(io.StringIO(out)))
    assert tuple(rows[0]) == SWEEP_FIELDS
    groups = {r["group"] for r in rows}
    assert groups == {"English", "German", "all"}
    tok = load_tokenizer(model)
    english = [r for r in rows if r["group"] == "English"]
    for row in english:
        merges = int(row["merges"])
        assert int(row["tokens"]) == len(tok.encode_with_merges(ENGLISH[:900], merges))
        assert float(row["bytes_per_token"]) == pytest.approx(900 / int(row["tokens"]), abs=1e-6)
    assert [int(r["vocab_size"]) for r in english][:3] == [256, 300, 330]


def test_the_table_marks_the_knee_and_says_where_each_curve_has_it(
    capsys: pytest.CaptureFixture[str], model: Path, flores: Path
) -> None:
    code, out, _ = run(capsys, "sweep", str(model), str(flores), "-q")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split()[:3] == ["vocab", "merges", "tokens"]  # one group: no group column
    assert lines[1].split()[:2] == ["256", "0"]
    assert lines[-2].startswith("knee (all): ")
    knee_rows = [line for line in lines if line.rstrip().endswith("knee")]
    assert len(knee_rows) <= 1


def test_json_and_markdown_carry_the_knees_and_the_rule(
    capsys: pytest.CaptureFixture[str], model: Path, flores: Path
) -> None:
    code, out, _ = run(capsys, "sweep", str(model), str(flores), "--by", "language", "--format", "json", "-q")
    assert code == 0
    document = json.loads(out)
    assert set(document["knees"]) == {"English", "German", "all"}
    knee_rows = {row["group"]: row["vocab_size"] for row in document["rows"] if row["knee"]}
    assert knee_rows == {group: size for group, size in document["knees"].items() if size is not None}
    assert document["alpha"] == 2.5 and document["merges"] == load_tokenizer(model).merge_count
    code, out, _ = run(
        capsys, "sweep", str(model), str(flores), "--format", "markdown", "--every", "50", "-q"
    )
    assert code == 0
    assert out.startswith("| vocab |") and "10% more vocabulary gains less than 1%" in out


def test_the_plot_is_drawn_with_a_curve_per_group(
    capsys: pytest.CaptureFixture[str], model: Path, flores: Path, tmp_path: Path
) -> None:
    pytest.importorskip("PySide6")
    picture = tmp_path / "sweep.svg"
    code, _, err = run(capsys, "sweep", str(model), str(flores), "--by", "language", "--plot", str(picture))
    assert code == 0, err
    svg = picture.read_text(encoding="utf-8")
    assert "English" in svg and "German" in svg and "bytes per token" in svg


def test_a_size_outside_the_merge_list_is_one_line(
    capsys: pytest.CaptureFixture[str], model: Path, flores: Path
) -> None:
    code, _, err = run(capsys, "sweep", str(model), str(flores), "--sizes", "100000", "-q")
    assert code == 1
    assert_one_line_error(err, "100,000", "outside")
    code, _, err = run(capsys, "sweep", "bytes", str(flores), "-q")
    assert code == 1
    assert_one_line_error(err, "BPE merge list")


def test_export_writes_the_vocabulary_of_one_size(
    capsys: pytest.CaptureFixture[str], model: Path, tmp_path: Path
) -> None:
    out = tmp_path / "m300.tiktoken"
    code, _, err = run(
        capsys, "export", str(model), "--vocab-size", "300", "--to", "tiktoken", "-o", str(out)
    )
    assert code == 0, err
    small = load_tokenizer(out)
    assert small.vocab_size == 300
    assert small.encode(ENGLISH) == load_tokenizer(model).encode_with_merges(ENGLISH, 300 - 256)
    code, _, err = run(
        capsys, "export", str(model), "--vocab-size", "5", "--to", "hf", "-o", str(tmp_path / "x")
    )
    assert code == 1
    assert_one_line_error(err, "not 5")


def test_curves_per_folder_and_per_category(
    capsys: pytest.CaptureFixture[str], model: Path, tmp_path: Path
) -> None:
    root = tmp_path / "heldout"
    (root / "prose").mkdir(parents=True)
    (root / "code").mkdir()
    (root / "prose" / "a.txt").write_text(ENGLISH[:500], encoding="utf-8")
    (root / "code" / "b.py").write_text("def f(x):\n    return x\n" * 20, encoding="utf-8")
    code, out, _ = run(capsys, "sweep", str(model), str(root), "--by", "folder", "--format", "json", "-q")
    assert code == 0
    assert set(json.loads(out)["knees"]) == {"prose", "code", "all"}
    kinds = tmp_path / "kinds.txt"
    kinds.write_text("python: *.py\n", encoding="utf-8")
    code, out, _ = run(
        capsys, "sweep", str(model), str(root), "--categories", str(kinds), "--format", "csv", "-q"
    )
    assert code == 0
    assert {row["group"] for row in csv.DictReader(io.StringIO(out))} == {"python", "other", "all"}
    code, _, err = run(capsys, "sweep", str(model), str(root), "--by", "category", "-q")
    assert code == 2 and "--categories" in err
