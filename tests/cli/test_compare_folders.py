"""``tokviz compare`` grown up: folders, empty files, markdown, rounded CSV and the app's names."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
import tiktoken

from tokviz.core.analysis.exchange import CSV_FIELDS
from tokviz.core.formats.model_file import model_file_bytes
from tokviz.core.training.train import train_bpe

from .helpers import assert_one_line_error, run

PROSE = "The exchange rate between text and sequence length decides what fits a context.\n" * 10


def test_a_folder_is_one_input_with_its_totals(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, gpt2_tiktoken: tiktoken.Encoding
) -> None:
    heldout = tmp_path / "heldout"
    (heldout / "sub").mkdir(parents=True)
    (heldout / "a.txt").write_text(PROSE, encoding="utf-8")
    (heldout / "sub" / "b.py").write_text("print('hi')\n" * 20, encoding="utf-8")
    (heldout / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00" + bytes(range(256)))
    code, out, err = run(capsys, "compare", str(heldout), "--tokenizer", "gpt2", "--format", "csv")
    assert code == 0, err
    [row] = list(csv.DictReader(io.StringIO(out)))
    expected = len(gpt2_tiktoken.encode(PROSE)) + len(gpt2_tiktoken.encode("print('hi')\n" * 20))
    assert (row["input"], row["tokenizer"], row["tokens"]) == (str(heldout), "GPT-2", str(expected))
    assert "skipped 1 binary file (.png)" in err


def test_empty_files_make_no_rows(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    empty, full = tmp_path / "empty.txt", tmp_path / "full.txt"
    empty.write_text("", encoding="utf-8")
    full.write_text("hello world", encoding="utf-8")
    code, out, err = run(capsys, "compare", str(empty), str(full), "--tokenizer", "gpt2")
    assert code == 0
    assert [line.split()[0] for line in out.splitlines()[1:-1]] == [str(full)]
    assert f"{empty} is empty: no rows for it" in err
    code, out, err = run(capsys, "compare", str(empty))
    assert (code, out) == (1, "")
    assert_one_line_error(err, "nothing to compare: every input is empty")


def test_markdown_for_a_design_doc(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "compare", "--text", "Hello, world!", "--format", "markdown")
    assert code == 0
    header, rule, *rows, _, note = out.splitlines()
    assert note == "special tokens in text: parsed as specials"
    assert header.startswith("| input | tokenizer |") and header.endswith("|")
    assert rule.startswith("| ----- | --------- |") and "-: |" in rule  # numbers aligned right
    assert [r.split("|")[2].strip() for r in rows] == ["bytes", "GPT-2", "cl100k"]


def test_csv_has_the_charts_columns_rounded_and_short_names(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    models = tmp_path / "models"
    models.mkdir()
    model = models / "py8k.json"
    model.write_bytes(model_file_bytes(train_bpe(text=PROSE, vocab_size=280).tokenizer("py8k")))
    code, out, _ = run(
        capsys,
        *(
            "compare",
            "--text",
            PROSE,
            "--tokenizer",
            "r50k_base",
            "--tokenizer",
            str(model),
            "--format",
            "csv",
        ),
    )
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    # The chart's CSV columns, its vocab_size named as eval names both sizes, and the specials setting.
    sizes = CSV_FIELDS.index("vocab_size")
    named = (*CSV_FIELDS[:sizes], "vocab_tokens", "id_range", *CSV_FIELDS[sizes + 1 :], "specials_in_text")
    assert tuple(rows[0]) == named
    assert [r["tokenizer"] for r in rows] == ["GPT-2", "py8k"]  # not r50k_base or models/py8k.json
    for r in rows:
        assert len(r["bytes_per_token"].partition(".")[2]) <= 3
        assert len(r["attention_multiplier"].partition(".")[2]) <= 3
