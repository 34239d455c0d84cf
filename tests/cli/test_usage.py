"""``tokviz usage``: the share of a vocabulary a held-out folder uses, its unused long tokens, idle merges."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from tokviz.core.analysis.usage import vocabulary_usage
from tokviz.core.formats.model_file import save_model
from tokviz.core.formats.registry import load_tokenizer
from tokviz.core.training.train import train_bpe

from .helpers import assert_one_line_error, run


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory, english_text: str) -> Path:
    """A small trained vocabulary whose training text has a long table border held-out text lacks."""
    path = tmp_path_factory.mktemp("models") / "py32k.json"
    text = english_text[:60_000] + ("\n+" + "-" * 40 + "+") * 30
    save_model(path, train_bpe(text=text, vocab_size=700).tokenizer("py32k"))
    return path


@pytest.fixture
def heldout(tmp_path: Path, english_text: str) -> Path:
    folder = tmp_path / "heldout"
    (folder / "docs").mkdir(parents=True)
    (folder / "a.py").write_text(english_text[100_000:120_000], encoding="utf-8")
    (folder / "docs" / "b.md").write_text(english_text[120_000:130_000], encoding="utf-8")
    (folder / "module.pyc").write_bytes(bytes(range(256)) * 4)
    return folder


def test_headline_matches_the_core_on_the_folder_text(
    capsys: pytest.CaptureFixture[str], model: Path, heldout: Path
) -> None:
    code, out, err = run(capsys, "usage", str(heldout), "--tokenizer", str(model), "--top", "5")

    texts = [(heldout / "a.py").read_text(), (heldout / "docs" / "b.md").read_text()]
    expected = vocabulary_usage(load_tokenizer(str(model)), texts)
    assert code == 0
    assert out.splitlines()[0].startswith(f"py32k: {expected.headline()} on 2 files, ")
    assert "skipped 1 binary file (.pyc)" in err
    assert "length (bytes)  in vocabulary  used  occurrences" in out
    assert "likely under-trained tokens" in out
    assert "never applied, longest first:" in out


def test_include_glob_and_json_report(capsys: pytest.CaptureFixture[str], model: Path, heldout: Path) -> None:
    code, out, _ = run(
        capsys, "usage", str(heldout), "--include", "*.py", "--tokenizer", str(model), "--format", "json"
    )

    report = json.loads(out)[0]
    expected = vocabulary_usage(load_tokenizer(str(model)), [(heldout / "a.py").read_text()])
    assert code == 0
    assert (report["tokenizer"], report["files"], report["used"]) == ("py32k", 1, expected.used)
    assert report["vocabulary"] == expected.vocabulary
    assert report["never_applied"] == len(expected.merge_firing().never_applied)
    border = [t for t in report["undertrained"] if set(t["text"]) <= set("+-")]
    assert border and border[0]["count"] == 0  # the table border never occurs in held-out prose
    assert sum(row["vocabulary"] for row in report["length_histogram"]) == expected.vocabulary


def test_markdown_is_a_table_for_a_design_doc(capsys: pytest.CaptureFixture[str], model: Path) -> None:
    code, out, _ = run(
        capsys, "usage", "--text", "the cat | sat", "--tokenizer", "gpt2", "--tokenizer", str(model), "--format",
        "markdown", "--top", "3",
    )  # fmt: skip

    assert code == 0
    assert out.startswith("## GPT-2\n\n")
    assert "\n## py32k\n" in out
    assert "| length (bytes) | in vocabulary | used | occurrences |\n|---|---:|---:|---:|" in out


def test_csv_has_one_row_per_token(capsys: pytest.CaptureFixture[str], model: Path) -> None:
    code, out, _ = run(
        capsys, "usage", "--text", "hello hello world", "--tokenizer", str(model), "--format", "csv"
    )

    rows = list(csv.DictReader(io.StringIO(out)))
    tok = load_tokenizer(str(model))
    assert code == 0
    assert len(rows) == tok.vocab_size
    counted = {int(r["id"]): int(r["count"]) for r in rows if int(r["count"])}
    ids = tok.encode_ordinary("hello hello world")
    assert counted == {i: ids.count(i) for i in set(ids)}
    first_merge = next(r for r in rows if r["step"] == "1")
    assert bytes.fromhex(first_merge["hex"]) == b"".join(tok.merges[0])


def test_bad_input_is_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, "usage", str(tmp_path / "missing"), "--tokenizer", "gpt2")
    assert code == 1
    assert_one_line_error(err, "missing")

    (tmp_path / "only.pyc").write_bytes(bytes(range(256)))
    code, _, err = run(capsys, "usage", str(tmp_path), "--tokenizer", "gpt2")
    assert code == 1
    assert "no text files" in err.splitlines()[-1]

    code, _, err = run(capsys, "usage", "--text", "x", "--tokenizer", "gpt2", "--top", "-1")
    assert code == 2 and "--top must be 0 (no lists) or more" in err


def test_top_0_leaves_the_lists_out_and_quiet_says_nothing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (tmp_path / "a.txt").write_text("the cat sat on the mat", encoding="utf-8")
    (tmp_path / "b.bin").write_bytes(bytes(range(256)))
    code, out, err = run(capsys, "usage", str(tmp_path), "--tokenizer", "gpt2", "--top", "0", "-q")
    assert code == 0 and err == ""
    assert "under-trained" not in out and "never applied, longest first" not in out
