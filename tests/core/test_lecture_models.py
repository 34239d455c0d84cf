"""The lecture's bundled Unigram and BPE models are what sentencepiece makes from the recorded corpus and options."""

from __future__ import annotations

import hashlib
import importlib.util
import platform
import re
from pathlib import Path
from types import ModuleType

import pytest

from tokviz.core.formats.sentencepiece_file import read_model_facts
from tokviz.core.io.resources import resource_path

ROOT = Path(__file__).resolve().parents[2]
README = resource_path("models", "README.md").read_text(encoding="utf-8")


def script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "make_lecture_models", ROOT / "packaging" / "make_lecture_models.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_both_models_are_trained_at_the_same_size_with_the_options_the_readme_gives() -> None:
    make = script()
    unigram, bpe = (
        read_model_facts(resource_path("models", name).read_bytes()) for name in make.MODELS.values()
    )

    assert (unigram.model_type, bpe.model_type) == ("unigram", "BPE")
    assert unigram.piece_count == bpe.piece_count == make.VOCAB_SIZE == 2000
    assert unigram.normalizer == bpe.normalizer == "identity"
    for key, value in make.OPTIONS.items():
        assert f"{key}={value!r}" in README


def test_the_readme_gives_each_file_s_sha256() -> None:
    for name in script().MODELS.values():
        digest = hashlib.sha256(resource_path("models", name).read_bytes()).hexdigest()
        assert f"{digest}  {name}" in README


def test_the_script_makes_the_same_bytes_again(tmp_path: Path) -> None:
    made_with = re.search(r"with Python (\S+):", README)
    assert made_with is not None
    if made_with.group(1) != platform.python_version():
        pytest.skip(
            f"the documentation topics of Python {platform.python_version()} differ from the corpus's"
        )
    make = script()

    make.main(tmp_path)

    for name in make.MODELS.values():
        assert (tmp_path / name).read_bytes() == resource_path("models", name).read_bytes()
