"""``tokviz audit``: counts per class, the broken tokens listed, the corpus's unused ones, the weights."""

from __future__ import annotations

import csv
import io
import json
import os
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.core.test_audit import tiny_bpe
from tests.core.test_embedding_audit import trained_and_untrained, write_safetensors
from tokviz.core.formats.model_file import save_model

from .helpers import assert_one_line_error, cap_above_normal, child_env, needs_proc_status, run, run_capped


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.json"
    save_model(path, tiny_bpe())
    return path


def test_the_table_counts_each_class_and_lists_the_broken_tokens(
    capsys: pytest.CaptureFixture[str], tiny: Path
) -> None:
    code, out, _ = run(capsys, "audit", str(tiny))
    assert code == 0
    assert "261 tokens audited" in out
    lines = {line.split("  ")[0]: line for line in out.splitlines()}
    assert "1" in lines["unreachable"].split()  # one unreachable token
    assert "128" in lines["partial UTF-8"].split()
    assert "unreachable (1):" in out and "abc" in out


def test_json_and_markdown_carry_the_same_counts(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "audit", "gpt2", "--format", "json")
    assert code == 0
    report = json.loads(out)
    assert report["classes"] == {
        "ok": 49912,
        "special": 1,
        "partial_utf8": 344,
        "sequence_only": 0,
        "unreachable": 0,
    }
    assert report["listed"]["special"][0]["text"] == "<|endoftext|>"
    code, out, _ = run(capsys, "audit", "gpt2", "--format", "markdown", "--top", "0")
    assert "| partial UTF-8" in out and "344" in out


def test_the_corpus_adds_the_tokens_it_never_produces(
    capsys: pytest.CaptureFixture[str], tiny: Path, tmp_path: Path
) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "a.txt").write_text("bcbc a", encoding="utf-8")
    code, out, _ = run(capsys, "audit", str(tiny), "--corpus", str(corpus), "--format", "csv")
    assert code == 0
    rows = {int(r["id"]): r for r in csv.DictReader(io.StringIO(out))}
    assert rows[256]["count"] == "2" and rows[258]["count"] == "0"
    assert rows[258]["class"] == "unreachable"
    code, out, _ = run(capsys, "audit", str(tiny), "--corpus", str(corpus))
    assert "never produced on the corpus" in out


def test_weights_rank_the_tokens_whose_rows_look_untrained(
    capsys: pytest.CaptureFixture[str], tiny: Path, tmp_path: Path
) -> None:
    untrained = [258, 100, 101, 102]
    weights = write_safetensors(
        tmp_path / "model.safetensors", {"wte": trained_and_untrained(261, untrained)}
    )
    code, out, _ = run(
        capsys,
        "audit",
        str(tiny),
        "--weights",
        str(weights),
        "--unused-ids",
        "258,100-101",
        "--format",
        "json",
    )
    assert code == 0
    found = json.loads(out)["weights"]
    assert found["tensor"] == "wte" and found["reference"] == 3
    assert {row["id"] for row in found["most_suspect"]} == set(untrained)
    code, out, _ = run(capsys, "audit", str(tiny), "--weights", str(weights), "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    likely = {int(r["id"]) for r in rows if r["likely_undertrained"] == "yes"}
    assert 258 in likely  # the unreachable token is the default reference
    assert np.isfinite(float(rows[0]["norm"]))


def test_bad_weights_and_options_are_one_line(
    capsys: pytest.CaptureFixture[str], tiny: Path, tmp_path: Path
) -> None:
    code, _, err = run(capsys, "audit", str(tiny), "--weights", str(tmp_path / "none.safetensors"))
    assert code == 1
    assert_one_line_error(err, "no such file")
    weights = write_safetensors(tmp_path / "m.safetensors", {"w": np.ones((10, 4), dtype=np.float32)})
    code, _, err = run(capsys, "audit", str(tiny), "--weights", str(weights))
    assert code == 1
    assert_one_line_error(err, "no tensor has one row per token", "--tensor")
    code, _, err = run(capsys, "audit", str(tiny), "--tensor", "wte")
    assert code == 2 and "give --weights" in err
    code, _, err = run(capsys, "audit", str(tiny), "--weights", str(weights), "--unused-ids", "x")
    assert code == 2 and "--unused-ids" in err


def test_rows_that_are_not_finite_are_reported_apart_in_every_form(
    capsys: pytest.CaptureFixture[str], tiny: Path, tmp_path: Path
) -> None:
    matrix = trained_and_untrained(261, [258, 100, 101, 102])
    matrix[[3, 4]] = np.nan
    matrix[5, 0] = np.inf
    weights = write_safetensors(tmp_path / "model.safetensors", {"wte": matrix})

    code, out, err = run(capsys, "audit", str(tiny), "--weights", str(weights))
    assert code == 0 and err == ""
    [line] = [line for line in out.splitlines() if line.startswith("embedding wte")]
    assert "3 rows not finite (a NaN or an infinite value), left out" in line and "nan" not in line
    listed = [
        row.split() for row in out.splitlines() if "not finite" in row and not row.startswith("embedding")
    ]
    assert [row[0] for row in listed] == ["3", "4", "5"]  # no rank: they are not compared
    code, out, _ = run(capsys, "audit", str(tiny), "--weights", str(weights), "--format", "json")
    found = json.loads(out)["weights"]
    assert found["not_finite"] == 3 and found["not_finite_ids"] == [3, 4, 5]
    code, out, _ = run(capsys, "audit", str(tiny), "--weights", str(weights), "--format", "csv")
    rows = {int(r["id"]): r for r in csv.DictReader(io.StringIO(out))}
    assert [rows[i]["likely_undertrained"] for i in (3, 4, 5, 6)] == ["not finite"] * 3 + ["no"]


@pytest.mark.skipif(
    not hasattr(os, "mkfifo") or not Path("/dev/zero").exists(), reason="needs FIFOs and /dev/zero"
)
def test_a_fifo_or_a_device_given_as_weights_is_named_as_what_it_is(tiny: Path, tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.safetensors")
    for weights, kind in (
        (tmp_path / "pipe.safetensors", "is a FIFO (named pipe)"),
        (Path("/dev/zero"), "is a character device"),
    ):
        done = subprocess.run(
            [sys.executable, "-m", "tokviz", "audit", str(tiny), "--weights", str(weights)],
            capture_output=True,
            text=True,
            env=child_env(),
            timeout=60,  # a FIFO opened for reading would block here forever
        )
        assert done.returncode == 1
        assert_one_line_error(
            done.stderr, f"{weights} {kind}; model weights must be a regular .safetensors file"
        )


@pytest.mark.slow
@needs_proc_status
@pytest.mark.parametrize(("dtype", "width"), [("F32", 20_000), ("BF16", 30_000)])
def test_a_sparse_4_gb_embedding_is_read_in_blocks_within_the_normal_peak_plus_300_mb(
    tmp_path: Path, dtype: str, width: int
) -> None:
    rows = 50_257  # GPT-2's ids
    ordinary = write_safetensors(
        tmp_path / "small.safetensors", {"wte": np.ones((rows, 8), dtype=np.float32)}
    )
    size = rows * width * (4 if dtype == "F32" else 2)
    header = json.dumps({"wte": {"dtype": dtype, "shape": [rows, width], "data_offsets": [0, size]}}).encode()
    big = tmp_path / "big.safetensors"
    with big.open("wb") as fh:
        fh.write(struct.pack("<Q", len(header)) + header)
        fh.truncate(8 + len(header) + size)  # sparse: 3-4 GB of zeros that take no disk space
    cap = cap_above_normal(tmp_path, "audit", "gpt2", "--weights", ordinary.name)

    done = run_capped(cap, tmp_path, "audit", "gpt2", "--weights", big.name)

    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stderr == ""
    assert f"embedding wte [{rows}, {width}]: 0 likely under-trained" in done.stdout
