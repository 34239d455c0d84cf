"""``tokviz count`` and ``tokviz train --from-counts``: count once, train any vocabulary size from the table.

The model trained from a table has exactly the merges of the model trained on the text; tables of
parts add up with ``--merge`` and refuse to mix settings; an output that is an input is refused;
``--dask`` counts on a cluster (or says how to install Dask); every mistake is one line.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tokviz.core.training.counts import load_table
from tokviz.core.training.dask_count import local_cluster

from ..core.test_counts import SPECIAL, make_corpus
from .helpers import assert_one_line_error, run


@pytest.fixture
def files(tmp_path: Path, english_text: str) -> list[str]:
    return [str(p) for p in make_corpus(tmp_path / "corpus", english_text)]


def merges_of(model: Path) -> list[object]:
    return json.loads(model.read_text(encoding="utf-8"))["merges"]


@pytest.mark.parametrize("tie_break", ["lexicographic", "first-seen"])
def test_a_model_trained_from_the_table_equals_the_model_trained_on_the_text(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, files: list[str], tie_break: str
) -> None:
    settings = ["--special-token", SPECIAL, "--replace-invalid"]
    table = tmp_path / "counts.parquet"
    code, _out, err = run(capsys, "count", *files, *settings, "-o", str(table))
    assert code == 0, err
    assert "unique pre-tokens" in err and f"wrote {table}" in err
    common = ["--vocab-size", "600", "--tie-break", tie_break]
    code, _, err = run(capsys, "train", *files, *settings, *common, "-o", str(tmp_path / "text.json"))
    assert code == 0, err
    code, _, err = run(
        capsys, "train", "--from-counts", str(table), *common, "-o", str(tmp_path / "table.json")
    )
    assert code == 0, err
    assert merges_of(tmp_path / "table.json") == merges_of(tmp_path / "text.json")


def test_merge_adds_tables_counted_with_the_same_settings(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, files: list[str]
) -> None:
    parts = []
    for k, f in enumerate(files):
        parts.append(str(tmp_path / f"part{k}.tsv"))
        assert run(capsys, "count", f, "--replace-invalid", "-o", parts[-1])[0] == 0
    whole = tmp_path / "whole.tsv"
    assert run(capsys, "count", *files, "--replace-invalid", "-o", str(whole))[0] == 0
    code, _, err = run(capsys, "count", "--merge", *parts, "-o", str(tmp_path / "all.parquet"))
    assert code == 0, err
    assert "added 3 tables" in err
    assert list(load_table(tmp_path / "all.parquet").counts.items()) == list(load_table(whole).counts.items())


def test_merge_refuses_tables_counted_differently(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, files: list[str]
) -> None:
    run(capsys, "count", files[0], "-o", str(tmp_path / "a.tsv"))
    run(capsys, "count", files[0], "--pretokenizer", "cl100k", "-o", str(tmp_path / "b.tsv"))
    code, _, err = run(
        capsys,
        "count",
        "--merge",
        str(tmp_path / "a.tsv"),
        str(tmp_path / "b.tsv"),
        "-o",
        str(tmp_path / "c.tsv"),
    )
    assert code == 1
    assert_one_line_error(
        err, "a.tsv and", "b.tsv were counted with different settings", "pre-tokenizer 'gpt2' vs 'cl100k'"
    )
    assert not (tmp_path / "c.tsv").exists()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["count", "{corpus}", "-o", "{corpus}"], "named .parquet or .tsv"),
        (["count", "{table}", "-o", "{table}"], "would destroy the corpus"),
        (["count", "{corpus}", "-o", "out.csv"], "named .parquet or .tsv"),
        (["count", "--merge", "{table}", "-o", "out.tsv"], "two or more count tables"),
        (
            ["count", "--merge", "{table}", "{table}", "--special-token", "x", "-o", "o.tsv"],
            "--special-token cannot apply",
        ),
        (["count", "s3://bucket/corpus.txt", "-o", "out.tsv"], "add --dask"),
        (["count", "{corpus}", "--worker-timeout", "5", "-o", "out.tsv"], "are for counting with --dask"),
        (
            ["count", "{corpus}", "--dask", "local", "--connect-timeout", "0", "-o", "o.tsv"],
            "more than 0 seconds",
        ),
        (["count", "{corpus}", "--allow-overlap", "-o", "out.tsv"], "--allow-overlap is for --merge"),
        (["train", "--vocab-size", "300", "-o", "m.json"], "or --from-counts TABLE"),
        (
            ["train", "{corpus}", "--from-counts", "{table}", "--vocab-size", "300", "-o", "m.json"],
            "not both",
        ),
        (
            [
                "train",
                "--from-counts",
                "{table}",
                "--special-token",
                "<x>",
                "--vocab-size",
                "300",
                "-o",
                "m.json",
            ],
            "differs from the table's",
        ),
        (
            ["train", "--from-counts", "{table}", "--replace-invalid", "--vocab-size", "300", "-o", "m.json"],
            "applies to counting",
        ),
        (
            ["train", "--from-counts", "{corpus}", "--vocab-size", "300", "-o", "m.json"],
            "not a tokviz count table",
        ),
        (["train", "--from-counts", "{table}", "--vocab-size", "256", "-o", "m.json"], "too small"),
    ],
)
def test_every_mistake_is_one_line(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    files: list[str],
    argv: list[str],
    message: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    table = tmp_path / "t.tsv"
    assert run(capsys, "count", files[0], "--special-token", SPECIAL, "-o", str(table))[0] == 0
    before = table.read_bytes()
    args = [a.format(corpus=files[0], table=table) for a in argv]
    code, _, err = run(capsys, *args)
    assert code in (1, 2)
    assert message in err and "Traceback" not in err
    assert table.read_bytes() == before


def test_dask_without_dask_installed_says_how_to_install_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, files: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "dask.distributed", None)
    code, _, err = run(capsys, "count", files[0], "--dask", "local", "-o", str(tmp_path / "t.tsv"))
    assert code == 1
    assert_one_line_error(err, "pip install 'tokviz-desktop[dask]'")


def test_dask_counts_on_a_scheduler_with_progress_in_bytes(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, files: list[str]
) -> None:
    pytest.importorskip("distributed")
    settings = ["--special-token", SPECIAL, "--replace-invalid"]
    with local_cluster(2, processes=False) as cluster:
        code, _, err = run(
            capsys,
            "count",
            *files,
            *settings,
            "--dask",
            cluster.scheduler_address,
            "--chunk-mb",
            "0.004",
            "-o",
            str(tmp_path / "d.tsv"),
        )
    assert code == 0, err
    assert "pre-tokenizing" in err and "MB" in err
    assert run(capsys, "count", *files, *settings, "-o", str(tmp_path / "l.tsv"))[0] == 0
    assert list(load_table(tmp_path / "d.tsv").counts.items()) == list(
        load_table(tmp_path / "l.tsv").counts.items()
    )


@pytest.mark.slow
def test_dask_local_starts_a_cluster_of_processes(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, files: list[str]
) -> None:
    settings = ["--special-token", SPECIAL, "--replace-invalid"]
    code, _, err = run(
        capsys,
        "count",
        *files,
        *settings,
        "--dask",
        "local",
        "--chunk-mb",
        "0.004",
        "-o",
        str(tmp_path / "d.tsv"),
    )
    assert code == 0, err
    assert run(capsys, "count", *files, *settings, "-o", str(tmp_path / "l.tsv"))[0] == 0
    assert list(load_table(tmp_path / "d.tsv").counts.items()) == list(
        load_table(tmp_path / "l.tsv").counts.items()
    )


def _table_tsv(path: Path, rows: str, **meta: object) -> Path:
    header = {"format": "tokviz-counts", "version": 1, "pretokenizer": "none", **meta}
    path.write_text(f"# tokviz-counts {json.dumps(header)}\ncount\tpretoken\n{rows}", encoding="utf-8")
    return path


def test_merge_refuses_a_table_given_twice_unless_overlap_is_allowed(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, files: list[str]
) -> None:
    part = str(tmp_path / "part1.parquet")
    assert run(capsys, "count", files[0], "-o", part)[0] == 0
    out = tmp_path / "twice.parquet"
    code, _, err = run(capsys, "count", "--merge", part, part, "-o", str(out))
    assert code == 1 and not out.exists()
    assert_one_line_error(err, "are the same table", "--allow-overlap")
    code, _, err = run(capsys, "count", "--merge", part, part, "--allow-overlap", "-o", str(out))
    assert code == 0, err
    once = load_table(part).counts
    assert load_table(out).counts == {w: 2 * n for w, n in once.items()}


def test_merge_refuses_tables_that_count_the_same_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, files: list[str]
) -> None:
    a, b = str(tmp_path / "a.tsv"), str(tmp_path / "b.tsv")
    assert run(capsys, "count", files[0], "--replace-invalid", "-o", a)[0] == 0
    assert run(capsys, "count", files[1], files[0], "--replace-invalid", "-o", b)[0] == 0
    code, _, err = run(capsys, "count", "--merge", a, b, "-o", str(tmp_path / "c.tsv"))
    assert code == 1
    assert_one_line_error(err, f"{a} and {b} both count {files[0]}", "twice", "--allow-overlap")


def test_merge_never_writes_a_table_train_refuses(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    a = _table_tsv(tmp_path / "a.tsv", f"{2**62}\tab\n")
    b = _table_tsv(tmp_path / "b.tsv", f"1\tcd\n{2**62}\tab\n")
    code, _, err = run(capsys, "count", "--merge", str(a), str(b), "-o", str(tmp_path / "c.tsv"))
    assert code == 1 and not (tmp_path / "c.tsv").exists()
    assert_one_line_error(err, f"{b}: row 2 ('ab')", "2^63-1")


def test_training_from_counts_near_2_to_the_63_is_exact(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    table = _table_tsv(tmp_path / "big.tsv", f"{2**63 - 1}\tab\n{2**60}\tzy\n1\t{'q' * 120_000}\n")
    model = tmp_path / "m.json"
    code, _, err = run(capsys, "train", "--from-counts", str(table), "--vocab-size", "258", "-o", str(model))
    assert code == 0, err
    assert merges_of(model)[:2] == [["61", "62"], ["7a", "79"]]  # a+b first, then z+y (bytes in hex)


@pytest.mark.parametrize(
    ("rows", "meta", "message"),
    [
        ("1\tab\n", {"special_tokens": "abc"}, "metadata 'special_tokens' must be a list of strings"),
        ("1\tab\n", {"special_tokens": ["", "a"]}, "metadata 'special_tokens'[1] must be a non-empty string"),
        ("1\tab\n", {"corpus_bytes": -1}, "metadata 'corpus_bytes' must be a whole number of 0 or more"),
        ("\u00b2\tab\n", {}, "line 3: the count '\u00b2'"),
        ("9" * 5000 + "\tab\n", {}, "line 3: the count"),
        (f"{2**64}\tab\n", {}, "line 3: the count"),
    ],
    ids=["specials-string", "empty-special", "negative-bytes", "superscript", "5000-digits", "2^64"],
)
def test_a_damaged_table_for_training_is_one_line_naming_the_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, rows: str, meta: dict[str, object], message: str
) -> None:
    table = _table_tsv(tmp_path / "t.tsv", rows, **meta)
    code, _, err = run(
        capsys, "train", "--from-counts", str(table), "--vocab-size", "300", "-o", str(tmp_path / "m.json")
    )
    assert code == 1
    assert_one_line_error(err, f"{table}: {message}")
