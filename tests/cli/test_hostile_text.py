"""Names and file names with control characters or formula prefixes reach no terminal or spreadsheet raw.

A model named ``evil<ESC>[31m…`` would recolour the terminal, a newline in a file name would
break a table row, and a CSV cell ``=cmd|calc`` would run in a spreadsheet. Every table,
markdown and CSV writer and ``tokviz info`` show such text escaped instead.
"""

from __future__ import annotations

import csv
import io
import json
import os
import sys
from pathlib import Path

import pytest

from tokviz.core.bpe.tokenizer import Tokenizer
from tokviz.core.formats import save_model
from tokviz.core.io.safe_text import csv_cell, encodable, terminal_text

from .helpers import run

EVIL_NAME = "evil\x1b[31mRED\nname: forged\x9b\x7f"
SHOWN_NAME = "evil\\x1b[31mRED\\nname: forged\\u009b\\u007f"
FORMULA = "=cmd|calc"


def evil_model(tmp_path: Path) -> Path:
    """A model file whose name holds an ESC sequence, a newline, a C1 control and DEL."""
    path = tmp_path / "evil.json"
    vocab = {i: bytes([i]) for i in range(256)}
    save_model(path, Tokenizer(vocab, [], pretokenizer="gpt2", name=EVIL_NAME))
    return path


def hostile_corpus(tmp_path: Path) -> Path:
    """A folder with a file whose name is a spreadsheet formula and one whose name holds a newline."""
    folder = tmp_path / "corpus"
    folder.mkdir()
    (folder / f"{FORMULA}.txt").write_text("x=1\n", encoding="utf-8")
    if os.name == "posix":
        (folder / "new\nline.txt").write_text("hello\n", encoding="utf-8")
    return folder


def no_controls(text: str) -> bool:
    """Whether ``text`` holds no control character but line ends (one row per line)."""
    return not any(ord(c) < 0x20 and c != "\n" or 0x7F <= ord(c) <= 0x9F for c in text)


# ------------------------------------------------------------------------------ the two rules
@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("plain text, Ünïcode 🌍 and a \\ backslash", "plain text, Ünïcode 🌍 and a \\ backslash"),
        ("\x1b[2J", "\\x1b[2J"),
        ("a\nb\rc\td", "a\\nb\\rc\\td"),
        ("\x00\x07\x7f\x85\x9b", "\\x00\\x07\\u007f\\u0085\\u009b"),
        ("\u202eevil\u2066 \u2028", "\\u202eevil\\u2066 \\u2028"),
        (os.fsdecode(b"z\xff.txt") if os.name == "posix" else "z\udcff.txt", "z\\xff.txt"),
        ("lone \ud800", "lone \\ud800"),
    ],
)
def test_terminal_text_escapes_controls_and_undecodable_bytes(text: str, shown: str) -> None:
    assert terminal_text(text) == shown


@pytest.mark.parametrize(
    ("value", "cell"),
    [
        ("=1+2", "'=1+2"),
        ("+1", "'+1"),
        ("-1", "'-1"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\tx", "\\tx"),
        ("\rx", "\\rx"),
        ("esc\x1b]0;t\x07\nx", "esc\\x1b]0;t\\x07\\nx"),
        ("-\x1b", "'-\\x1b"),
        ("a=b", "a=b"),
        ("", ""),
        (-1, -1),
        (2.5, 2.5),
        (None, None),
    ],
)
def test_csv_cell_escapes_controls_and_quotes_formula_text_only(value: object, cell: object) -> None:
    assert csv_cell(value) == cell


def test_encodable_keeps_json_structure() -> None:
    assert encodable({"k": ["z\udcff", 1, None]}) == {"k": ["z\\xff", 1, None]}


# ------------------------------------------------------------------------------ the writers
def test_info_shows_a_hostile_name_escaped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "info", str(evil_model(tmp_path)))
    assert code == 0, err
    assert f"name:           {SHOWN_NAME}\n" in out
    assert no_controls(out)
    assert not any(line.startswith("name: forged") for line in out.splitlines())


def test_info_json_keeps_the_name_exactly(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _err = run(capsys, "info", str(evil_model(tmp_path)), "--format", "json")
    assert code == 0
    assert json.loads(out)["name"] == EVIL_NAME


def test_eval_csv_quotes_a_formula_file_name(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "eval", str(hostile_corpus(tmp_path)), "--per-file", "-q", "--format", "csv")
    assert code == 0, err
    groups = [row["group"] for row in csv.DictReader(io.StringIO(out))]
    assert f"'{FORMULA}.txt" in groups
    assert not any(g.startswith(("=", "+", "-", "@")) for g in groups)
    numbers = next(csv.DictReader(io.StringIO(out)))
    assert numbers["files"] == "1", "numbers are left as they are"


@pytest.mark.skipif(os.name != "posix", reason="a newline in a file name")
@pytest.mark.parametrize("form", ["table", "markdown"])
def test_eval_tables_keep_one_row_per_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], form: str
) -> None:
    code, out, err = run(capsys, "eval", str(hostile_corpus(tmp_path)), "--per-file", "-q", "--format", form)
    assert code == 0, err
    rows = [line for line in out.splitlines() if "line.txt" in line]
    assert len(rows) == 2, out  # one per tokenizer, each whole on its line
    assert all("new\\" in row for row in rows)


def test_compare_writers_escape_a_hostile_tokenizer_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = evil_model(tmp_path)
    text = tmp_path / "t.txt"
    text.write_text("hello world", encoding="utf-8")
    for form in ("table", "markdown"):
        code, out, err = run(capsys, "compare", "--tokenizer", str(model), str(text), "--format", form)
        assert code == 0, err
        assert no_controls(out) and "evil\\x1b[31m" in out.replace("\\\\", "\\")
    (tmp_path / "=2+3.txt").write_text("hi", encoding="utf-8")
    code, out, err = run(
        capsys, "compare", "--tokenizer", "gpt2", str(tmp_path / "=2+3.txt"), "--format", "csv"
    )
    assert code == 0, err
    assert all(not cell.startswith("=") for row in csv.reader(io.StringIO(out)) for cell in row)


def test_usage_writers_escape_a_hostile_tokenizer_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = evil_model(tmp_path)
    for form in ("table", "markdown"):
        code, out, err = run(capsys, "usage", "--tokenizer", str(model), "--text", "a=b -c", "--format", form)
        assert code == 0, err
        assert no_controls(out) and "evil\\x1b[31m" in out.replace("\\\\", "\\")
    code, out, err = run(capsys, "usage", "--tokenizer", str(model), "--text", "a=b -c", "--format", "csv")
    assert code == 0, err
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[1][0].startswith("evil")
    tokens = [row[2] for row in rows[1:]]
    assert "'=" in tokens and "'-" in tokens
    assert not any(t.startswith(("=", "+", "-", "@")) for t in tokens)


@pytest.mark.skipif(sys.platform == "win32", reason="an ESC in a file name")
def test_an_error_naming_a_hostile_path_prints_it_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _out, err = run(capsys, "info", str(tmp_path / "no\x1b[2Jsuch.json"))
    assert code == 1
    assert "\x1b" not in err and "no\\x1b[2Jsuch.json" in err
