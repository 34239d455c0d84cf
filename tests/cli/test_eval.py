"""``tokviz eval``: the engineer's table over a held-out folder, in every output form.

tokviz eval heldout/ --include '*.py' --tokenizer gpt2 --tokenizer cl100k --format markdown
"""

from __future__ import annotations

import csv
import io
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import tiktoken

from tokviz.core.analysis.evaluation import EVAL_FIELDS

from .helpers import assert_one_line_error, child_env, run

CODE = "def square(x: int) -> int:\n    return x * x  # the square\n\n" * 40
PROSE = "The exchange rate between text and sequence length decides what fits a context.\n" * 30


@pytest.fixture()
def heldout(tmp_path: Path) -> Path:
    root = tmp_path / "heldout"
    files: dict[str, str | bytes] = {
        "app/main.py": CODE,
        "app/util.py": CODE[:700],
        "lib/core.py": CODE[100:900] + "# ünïcode ✓\n",
        "docs/guide.md": PROSE,
        "docs/empty.md": "",
        "app/__pycache__/main.cpython-311.pyc": b"\xa7\r\r\n\x00\x00\x00\x00" + bytes(range(256)) * 4,
    }
    for relative, data in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data if isinstance(data, bytes) else data.encode())
    return root


def python_texts(root: Path) -> list[str]:
    return [p.read_text(encoding="utf-8") for p in sorted(root.rglob("*.py"))]


def test_the_markdown_table_for_a_design_doc(
    capsys: pytest.CaptureFixture[str], heldout: Path, cl100k_tiktoken: tiktoken.Encoding
) -> None:
    code, out, err = run(
        capsys,
        *("eval", str(heldout), "--include", "*.py", "--tokenizer", "gpt2", "--tokenizer", "cl100k"),
        *("--format", "markdown"),
    )
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("| tokenizer | files |")
    assert lines[1].startswith("| --------- | ") and lines[1].endswith(
        ":|".replace(":|", ": |")
    )  # numbers right
    gpt2, cl100k = ([c.strip() for c in line.strip("|").split("|")] for line in lines[2:4])
    assert gpt2[0] == "GPT-2" and cl100k[0] == "cl100k"
    expected = sum(len(cl100k_tiktoken.encode(t)) for t in python_texts(heldout))
    assert cl100k[3] == f"{expected:,}"  # the token count is tiktoken's
    assert cl100k[5] == "1.00" and float(gpt2[5]) > 1  # tokens over the fewest
    assert lines[5].startswith("*3 files,")  # the caption under the table
    assert "skipped" in err  # the .md files and the .pyc are counted, not silently dropped


def test_csv_and_json_have_the_same_columns_and_rounded_numbers(
    capsys: pytest.CaptureFixture[str], heldout: Path
) -> None:
    code, out, _ = run(capsys, "eval", str(heldout), "--by", "folder", "--format", "csv", "-q")
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert tuple(rows[0]) == (*EVAL_FIELDS, "specials_in_text")
    assert [(r["group"], r["tokenizer"]) for r in rows] == [
        ("app", "GPT-2"),
        ("app", "cl100k"),
        ("docs", "GPT-2"),
        ("docs", "cl100k"),
        ("lib", "GPT-2"),
        ("lib", "cl100k"),
        ("all", "GPT-2"),
        ("all", "cl100k"),
    ]
    for r in rows:
        decimals = r["bytes_per_token"].partition(".")[2]
        assert len(decimals) <= 3, r["bytes_per_token"]
    assert next(r for r in rows if r["group"] == "docs")["files"] == "1"  # empty.md makes no row

    code, out, _ = run(capsys, "eval", str(heldout), "--by", "folder", "--format", "json", "-q")
    document = json.loads(out)
    assert [tuple(r) for r in document["rows"]] == [EVAL_FIELDS] * len(rows)
    assert [str(r["tokens"]) for r in document["rows"]] == [r["tokens"] for r in rows]
    assert document["skipped"] == {"binary": 1} and document["empty_files"] == 1


def test_per_file_rows_and_categories(
    capsys: pytest.CaptureFixture[str], heldout: Path, tmp_path: Path
) -> None:
    categories = tmp_path / "kinds.txt"
    categories.write_text("code: *.py\ndocs: docs/\n", encoding="utf-8")
    code, out, _ = run(
        capsys, "eval", str(heldout), "--categories", str(categories), "--per-file", "--format", "csv", "-q"
    )
    assert code == 0
    groups = [r["group"] for r in csv.DictReader(io.StringIO(out)) if r["tokenizer"] == "GPT-2"]
    assert groups == ["app/main.py", "app/util.py", "docs/guide.md", "lib/core.py", "code", "docs", "all"]


def test_rows_go_to_a_file_written_at_the_end(
    capsys: pytest.CaptureFixture[str], heldout: Path, tmp_path: Path
) -> None:
    target = tmp_path / "table.md"
    code, out, err = run(capsys, "eval", str(heldout), "--format", "markdown", "-o", str(target))
    assert code == 0 and out == ""
    assert target.read_text(encoding="utf-8").startswith("| tokenizer |")
    assert f"rows written to {target}" in err


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["--by", "category"], "--by category needs --categories FILE"),
        (["--max-file-size", "huge"], "is not a size"),
        (["--include", "*.rs"], "no text files to evaluate"),
        (["--plot", "no/such/folder/chart.png"], "folder"),
        (["-o", "no/such/folder/rows.csv"], "folder"),
    ],
)
def test_bad_requests_are_one_line(
    capsys: pytest.CaptureFixture[str], heldout: Path, argv: list[str], fragment: str
) -> None:
    code, out, err = run(capsys, "eval", str(heldout), *argv)
    assert code in (1, 2) and out == ""
    assert fragment in err and "Traceback" not in err


def test_a_missing_folder_is_named(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = run(capsys, "eval", str(tmp_path / "nowhere"))
    assert (code, out) == (1, "")
    assert_one_line_error(err, "nowhere: file or folder not found")


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process")
def test_ctrl_c_exits_130_and_writes_nothing(tmp_path: Path) -> None:
    root = tmp_path / "corpus"
    root.mkdir()
    for i in range(400):
        (root / f"f{i:03d}.txt").write_text(PROSE * 40, encoding="utf-8")
    target = tmp_path / "out.csv"
    child = subprocess.Popen(
        # GPT-2 takes many seconds on 40 MB (the byte tokenizer finishes before progress starts).
        [sys.executable, "-m", "tokviz", "eval", str(root), "--tokenizer", "gpt2", "-o", str(target)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=child_env(),
    )
    assert child.stderr is not None
    first = child.stderr.readline()  # progress starts after a second: the run is under way
    assert first.startswith("evaluating"), first
    child.send_signal(signal.SIGINT)
    _, err = child.communicate(timeout=60)
    assert child.returncode == 130, err
    assert "interrupted" in err
    assert not target.exists() and os.listdir(tmp_path) == ["corpus"]
