"""A corpus file whose name is not UTF-8 (``z\\xff.txt`` on Linux) never costs a finished run.

``train``, ``count`` and ``eval`` record such a name escaped (the model and the count table keep
its exact bytes as hex beside a readable ``z\\xff.txt``), and loading the file back gives the very
path that was read, so the file can be found and hashed again.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from tokviz.core.formats import load_model
from tokviz.core.training.counts import load_table

from .helpers import run

pytestmark = pytest.mark.skipif(
    sys.platform in ("win32", "darwin"), reason="file names are bytes only on Linux-like systems"
)

ODD_NAME = b"z\xff.txt"


def corpus_with_an_undecodable_name(tmp_path: Path) -> tuple[Path, str]:
    """A folder holding a UTF-8 file and one whose name's bytes are not UTF-8; returns the folder and that path."""
    folder = tmp_path / "corpus"
    folder.mkdir()
    (folder / "plain.txt").write_text("the plain file reads the same every time " * 20, encoding="utf-8")
    odd = os.path.join(os.fsencode(folder), ODD_NAME)
    with open(odd, "wb") as f:
        f.write(b"hello world, hello there, hello again " * 30)
    return folder, os.fsdecode(odd)


def test_train_saves_and_loads_back_the_exact_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder, odd = corpus_with_an_undecodable_name(tmp_path)
    model = tmp_path / "m.json"
    code, _out, err = run(capsys, "train", str(folder), "--vocab-size", "280", "-o", str(model))
    assert code == 0, err
    recorded = json.loads(model.read_bytes())["provenance"]["corpus"]["files"]
    odd_entry = next(f for f in recorded if "path_bytes" in f)
    assert odd_entry["path"].endswith("z\\xff.txt")
    assert bytes.fromhex(odd_entry["path_bytes"]) == os.fsencode(odd)
    files = load_model(model).provenance["corpus"]["files"]
    assert sorted(f["path"] for f in files) == sorted([odd, str(folder / "plain.txt")])
    assert all("path_bytes" not in f for f in files)


def test_train_with_exports_and_an_undecodable_output_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder, _odd = corpus_with_an_undecodable_name(tmp_path)
    model = os.fsdecode(os.path.join(os.fsencode(tmp_path), b"m\xff.json"))
    code, _out, err = run(
        capsys,
        "train",
        str(folder),
        "--vocab-size",
        "280",
        "-o",
        model,
        "--export-hf",
        str(tmp_path / "h.json"),
    )
    assert code == 0, err
    assert load_model(model).tokenizer.name == "m\\xff"


def test_a_name_that_is_not_utf8_is_refused_before_training(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder, _odd = corpus_with_an_undecodable_name(tmp_path)
    name = os.fsdecode(b"n\xff")
    code, _out, err = run(
        capsys, "train", str(folder), "--vocab-size", "280", "--name", name, "-o", str(tmp_path / "m.json")
    )
    assert code == 1
    assert "--name is not valid UTF-8 (byte 0xFF" in err


def test_count_writes_the_table_and_reads_the_path_back(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder, odd = corpus_with_an_undecodable_name(tmp_path)
    for table in ("counts.tsv", "counts.parquet"):
        code, _out, err = run(capsys, "count", str(folder), "-o", str(tmp_path / table))
        assert code == 0, err
        assert odd in [f.path for f in load_table(tmp_path / table).files]
    code, _out, err = run(
        capsys,
        "train",
        "--from-counts",
        str(tmp_path / "counts.tsv"),
        "--vocab-size",
        "280",
        "-o",
        str(tmp_path / "m.json"),
    )
    assert code == 0, err


@pytest.mark.parametrize("form", ["json", "csv", "markdown", "table"])
def test_eval_writes_every_format(tmp_path: Path, capsys: pytest.CaptureFixture[str], form: str) -> None:
    folder, _odd = corpus_with_an_undecodable_name(tmp_path)
    out = tmp_path / f"rows.{form}"
    code, _out, err = run(capsys, "eval", str(folder), "--per-file", "-q", "--format", form, "-o", str(out))
    assert code == 0, err
    text = out.read_text(encoding="utf-8")
    if form == "json":
        text = " ".join(row["group"] for row in json.loads(text)["rows"])
    if form == "markdown":
        text = text.replace("\\\\", "\\")  # markdown escapes the backslash itself
    assert "z\\xff.txt" in text


def test_info_shows_the_escaped_name(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder, _odd = corpus_with_an_undecodable_name(tmp_path)
    model = tmp_path / "m.json"
    assert run(capsys, "train", str(folder), "--vocab-size", "280", "-o", str(model))[0] == 0
    for form in ("text", "json"):
        code, out, err = run(capsys, "info", str(model), "--format", form)
        assert code == 0, err
        assert "z\\xff.txt" in out.replace("\\\\", "\\")
        out.encode("utf-8")
