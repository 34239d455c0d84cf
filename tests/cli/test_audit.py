"""``tokviz audit``: counts per class, the broken tokens listed, the corpus's unused ones, the weights."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import numpy as np
import pytest

from tests.core.test_audit import tiny_bpe
from tests.core.test_embedding_audit import trained_and_untrained, write_safetensors
from tokviz.core.formats.model_file import save_model

from .helpers import assert_one_line_error, run


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
