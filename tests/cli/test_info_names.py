"""``tokviz info``: a file named by its file, the id space beside the distinct tokens, the tie rule."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import tiktoken

from tokviz.core.formats.hf_json import hf_file_bytes
from tokviz.core.training.train import train_bpe

from .helpers import run

CORPUS = "the cat in the hat sat on the mat with the hat\n" * 20


def test_cl100k_reports_the_id_space_so_v_times_d_is_right(
    capsys: pytest.CaptureFixture[str], cl100k_tiktoken: tiktoken.Encoding
) -> None:
    code, out, _ = run(capsys, "info", "cl100k", "--format", "json")
    info = json.loads(out)
    assert code == 0
    # Ids run to <|endofprompt|> = 100,276 with gaps: the embedding table needs n_vocab rows.
    assert info["vocab_size"] == cl100k_tiktoken.n_vocab == 100_277
    assert info["distinct_tokens"] == 100_261
    text = run(capsys, "info", "cl100k")[1]
    assert "vocab size:     100277 ids (highest id 100276 + 1; 100261 distinct tokens)" in text
    assert "vocab size:     50257\n" in run(capsys, "info", "gpt2")[1]  # no gaps, nothing to add


def test_a_tokenizer_json_is_named_by_its_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    trained = train_bpe(text=CORPUS, vocab_size=270).tokenizer("trained")
    models = tmp_path / "models"
    models.mkdir()
    (models / "py32k.json").write_bytes(hf_file_bytes(trained))
    code, out, err = run(capsys, "info", str(models / "py32k.json"))
    assert code == 0, err
    assert out.startswith("name:           py32k\n")  # not "models", the folder
    export = tmp_path / "py8k"
    export.mkdir()
    (export / "tokenizer.json").write_bytes(hf_file_bytes(trained))
    assert run(capsys, "info", str(export / "tokenizer.json"))[1].startswith("name:           py8k\n")


@pytest.mark.parametrize("rule", ["lexicographic", "first-seen"])
def test_a_tokviz_model_says_its_tie_rule(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, rule: str
) -> None:
    model = tmp_path / "cat.json"
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(CORPUS, encoding="utf-8")
    code, _, err = run(
        capsys, "train", str(corpus), "--vocab-size", "262", "--tie-break", rule, "-o", str(model)
    )
    assert code == 0, err
    code, out, _ = run(capsys, "info", str(model))
    assert code == 0
    line = next(x for x in out.splitlines() if x.startswith("tie rule:"))
    assert rule in line and "equal counts" in line
    info = json.loads(run(capsys, "info", str(model), "--format", "json")[1])
    assert info["tie_break"] == rule
    assert "tie_break" not in json.loads(run(capsys, "info", "gpt2", "--format", "json")[1])
