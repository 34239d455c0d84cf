"""``tokviz train``, ``eval``, ``count``, ``usage`` and ``sweep`` on corpora as they ship: JSON Lines
(plain, gzip, zstd), Parquet (a file, a folder of shards) and a ``datasets`` folder, each record a
document. Every form trains the merges of the same documents in a text file separated by
``<|endoftext|>``, evaluates to the same totals and counts the same table; what was read is said in
one line, and what cannot be read is one line naming where.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tokviz.core.training.counts import load_table

from ..corpora import SEPARATOR, documents, write_corpora
from .helpers import assert_one_line_error, run

FORMS = ("jsonl", "jsonl.gz", "jsonl.zst", "parquet", "shards", "arrow")


@pytest.fixture(scope="module")
def corpora(tmp_path_factory: pytest.TempPathFactory, english_text: str, varied_text: str) -> dict[str, Path]:
    return write_corpora(tmp_path_factory.mktemp("corpora"), documents(english_text, varied_text))


def model(path: Path) -> dict[str, Any]:
    """The JSON model file at ``path``, parsed (its values nest to any depth, so they are not typed)."""
    return json.loads(path.read_text(encoding="utf-8"))


def test_train_gives_every_form_the_merges_of_the_text_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, corpora: dict[str, Path]
) -> None:
    settings = ["--vocab-size", "400", "--special-token", SEPARATOR, "--tie-break", "first-seen"]
    code, _, err = run(capsys, "train", str(corpora["txt"]), *settings, "-o", str(tmp_path / "txt.json"))
    assert code == 0, err
    expected = model(tmp_path / "txt.json")["merges"]
    for form in FORMS:
        out = tmp_path / f"{form}.json"
        code, _, err = run(capsys, "train", str(corpora[form]), *settings, "-o", str(out))
        assert code == 0, err
        assert model(out)["merges"] == expected, form
        assert 'read 40 records of "text" from ' in err, err
    files = model(tmp_path / "shards.json")["provenance"]["corpus"]["files"]
    assert [(f["container"], f["field"], f["records"]) for f in files] == [("parquet", "text", 20)] * 2
    assert model(tmp_path / "shards.json")["provenance"]["corpus"]["reading"]["records"] == 40


def test_eval_gives_every_form_the_totals_of_one_file_per_document(
    capsys: pytest.CaptureFixture[str], corpora: dict[str, Path]
) -> None:
    def totals(path: Path) -> list[tuple[object, ...]]:
        code, out, err = run(capsys, "eval", str(path), "--format", "json", "-q")
        assert code == 0, err
        document = json.loads(out)
        return [(r["tokenizer"], r["bytes"], r["tokens"]) for r in document["rows"]]

    expected = totals(corpora["one_per_file"])
    for form in FORMS:
        assert totals(corpora[form]) == expected, form
    code, out, err = run(capsys, "eval", str(corpora["shards"]), "--format", "json")
    assert json.loads(out)["records"]["records"] == 40
    assert 'read 40 records of "text" from 2 Parquet files' in err


def test_count_reads_records_into_the_table_of_the_text_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, corpora: dict[str, Path]
) -> None:
    settings = ["--special-token", SEPARATOR]
    assert run(capsys, "count", str(corpora["txt"]), *settings, "-o", str(tmp_path / "t.tsv"))[0] == 0
    code, _, err = run(capsys, "count", str(corpora["arrow"]), *settings, "-o", str(tmp_path / "a.tsv"))
    assert code == 0, err
    assert "files describing a dataset" in err and "read 40 records" in err
    plain, records = load_table(tmp_path / "t.tsv"), load_table(tmp_path / "a.tsv")
    assert list(records.counts.items()) == list(plain.counts.items())
    assert records.records is not None and records.records["files"] == {"arrow": 1}


def test_a_nested_field_and_records_without_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, corpora: dict[str, Path]
) -> None:
    settings = ["--vocab-size", "330", "--special-token", SEPARATOR]
    assert run(capsys, "train", str(corpora["txt"]), *settings, "-o", str(tmp_path / "t.json"))[0] == 0
    nested = [str(corpora["parquet"]), "--field", "meta.content", *settings, "-o", str(tmp_path / "p.json")]
    code, _, err = run(capsys, "train", *nested)
    assert code == 0, err
    assert model(tmp_path / "p.json")["merges"] == model(tmp_path / "t.json")["merges"]
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_text('{"text": "a b"}\n{"body": "c"}\n{"body": "d"}\n{"text": "e f"}\n', encoding="utf-8")
    code, _, err = run(capsys, "train", str(mixed), "--vocab-size", "260", "-o", str(tmp_path / "m.json"))
    assert code == 0, err
    assert 'read 2 records of "text" from 1 JSON Lines file' in err
    assert f'2 records without "text" skipped (first: {mixed}:2)' in err


def test_what_cannot_be_read_is_one_line_naming_where(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, corpora: dict[str, Path]
) -> None:
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"text": "fine"}\n{"text": "cut\n{"text": "after"}\n', encoding="utf-8")
    out = str(tmp_path / "m.json")
    code, _, err = run(capsys, "train", str(broken), "--vocab-size", "260", "-o", out)
    assert code == 1
    assert_one_line_error(err, f"{broken}:2: not valid JSON")
    code, _, err = run(capsys, "train", str(broken), "--vocab-size", "260", "--skip-bad-records", "-o", out)
    assert code == 0, err
    assert f"1 malformed record skipped ({broken}:2)" in err
    code, _, err = run(capsys, "eval", str(corpora["parquet"]), "--field", "body", "-q")
    assert code == 1
    assert_one_line_error(
        err, 'has no field "body"; its fields: text, url, meta.content, meta.lang, id (int64)'
    )


def test_a_json_file_read_as_plain_text_is_said(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, corpora: dict[str, Path]
) -> None:
    code, _, err = run(capsys, "eval", str(corpora["jsonl"]), "--as-text", "--tokenizer", "gpt2")
    assert code == 0, err
    assert "read 1 JSON file as plain text, as asked (" in err
    config = tmp_path / "config.json"
    config.write_text('{\n  "name": "x"\n}\n', encoding="utf-8")
    code, _, err = run(capsys, "usage", str(config), "--tokenizer", "gpt2", "--top", "0")
    assert code == 0, err
    assert "read 1 JSON file as plain text, not as JSON Lines" in err


def test_max_bytes_trains_on_the_start_and_says_where_it_stopped(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, corpora: dict[str, Path]
) -> None:
    limited = [
        str(corpora["shards"]),
        "--max-bytes",
        "10K",
        "--vocab-size",
        "300",
        "-o",
        str(tmp_path / "m.json"),
    ]
    code, _, err = run(capsys, "train", *limited)
    assert code == 0, err
    assert (
        "stopped at the limit of 10,240 bytes of text, in " in err
        and "train-00000-of-00002.parquet, row" in err
    )
    provenance = model(tmp_path / "m.json")["provenance"]["corpus"]
    assert provenance["text_bytes"] == 10_240 and provenance["files"][0]["partial"] is True
    code, _, err = run(
        capsys, "train", str(corpora["jsonl"]), "--max-records", "0", "--vocab-size", "300", "-o", "x.json"
    )
    assert code == 2 and "--max-records must be a whole number of 1 or more" in err


def test_sweep_and_usage_read_records(capsys: pytest.CaptureFixture[str], corpora: dict[str, Path]) -> None:
    code, out, err = run(capsys, "sweep", "gpt2", str(corpora["jsonl.zst"]), "--format", "json")
    assert code == 0, err
    assert 'read 40 records of "text"' in err
    code, out, err = run(capsys, "usage", str(corpora["arrow"]), "--tokenizer", "gpt2", "--format", "json")
    assert code == 0, err
    assert 'read 40 records of "text" from 1 Arrow file' in err


def test_count_on_a_local_cluster_writes_the_local_table_byte_for_byte(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, corpora: dict[str, Path]
) -> None:
    pytest.importorskip("distributed")
    from tokviz.core.training.dask_count import local_cluster

    inputs = [str(corpora["shards"]), str(corpora["jsonl"])]
    assert run(capsys, "count", *inputs, "-o", str(tmp_path / "local.tsv"))[0] == 0
    with local_cluster(2, processes=False) as cluster:  # no dashboard, free ports
        dask = ["--dask", cluster.scheduler_address, "--chunk-mb", "0.002", "-o", str(tmp_path / "dask.tsv")]
        code, _, err = run(capsys, "count", *inputs, *dask)
    assert code == 0, err
    assert 'read 80 records of "text" from 1 JSON Lines file, 2 Parquet files' in err
    assert (tmp_path / "dask.tsv").read_bytes() == (tmp_path / "local.tsv").read_bytes()
    code, _, err = run(
        capsys, "count", inputs[0], "--dask", "local", "--max-bytes", "1M", "-o", str(tmp_path / "x.tsv")
    )
    assert code == 2 and "--max-bytes and --max-records read the start of a corpus in order" in err
