"""``tokviz export``: any tokenizer tokviz opens goes to another format, or the one line says why not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tokviz.core.formats.model_file import load_model, save_model
from tokviz.core.formats.provenance import corpus_record, make_provenance
from tokviz.core.formats.registry import load_tokenizer
from tokviz.core.training.train import train_bpe

from .helpers import assert_one_line_error, run


@pytest.fixture
def model(tmp_path: Path) -> Path:
    corpus = tmp_path / "notes.txt"
    corpus.write_text("the cat sat on the mat, the hat on the cat\n" * 50, encoding="utf-8")
    result = train_bpe(files=[corpus], vocab_size=290, special_tokens=["</s>"], pretokenizer="cl100k")
    path = tmp_path / "cats.json"
    provenance = make_provenance(corpus_record([str(corpus)]))
    save_model(path, result.tokenizer("cats"), result.settings(), result.history, provenance)
    return path


def test_a_trained_model_exports_to_a_transformers_folder(
    capsys: pytest.CaptureFixture[str], model: Path, tmp_path: Path
) -> None:
    code, _, err = run(capsys, "export", str(model), "--to", "hf", "-o", str(tmp_path / "hf"))
    assert code == 0, err
    assert f"tokviz: wrote cats as hf to {tmp_path / 'hf'}" in err
    config = json.loads((tmp_path / "hf" / "tokenizer_config.json").read_text(encoding="utf-8"))
    assert config["eos_token"] == "</s>" and config["tokenizer_class"] == "PreTrainedTokenizerFast"
    text = "the cat sat</s>"
    assert load_tokenizer(tmp_path / "hf").encode(text) == load_tokenizer(model).encode(text)


def test_a_model_file_keeps_its_provenance_and_a_tiktoken_gets_its_sidecar(
    capsys: pytest.CaptureFixture[str], model: Path, tmp_path: Path
) -> None:
    code, _, err = run(capsys, "export", str(model), "--to", "model", "-o", str(tmp_path / "copy.json"))
    assert code == 0, err
    assert load_model(tmp_path / "copy.json").provenance == load_model(model).provenance
    code, _, err = run(
        capsys, "export", str(model), "--to", "tiktoken", "-o", str(tmp_path / "cats.tiktoken")
    )
    assert code == 0, err
    assert "tiktoken needs the pattern and special tokens passed in" in err
    side = json.loads((tmp_path / "cats.tiktoken.json").read_text(encoding="utf-8"))
    assert side["special_tokens"] == load_model(model).tokenizer.special_tokens
    assert side["pretokenizer"] == "cl100k"


def test_a_format_a_tokenizer_cannot_go_to_is_one_line_naming_why(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, _, err = run(capsys, "export", "characters", "--to", "hf", "-o", str(tmp_path / "out"))
    assert code == 1
    assert_one_line_error(err, "cannot export characters as --to hf", "byte-level BPE")
    assert not (tmp_path / "out").exists()
