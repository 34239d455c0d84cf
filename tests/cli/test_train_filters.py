"""``tokviz train CORPUS --include/--exclude/--max-file-size --name``, and its exports as a user checks them.

A folder such as ``/usr/lib/python3.11`` holds ``.pyc`` and ``.so`` files beside the sources:
training keeps the text, says what it skipped and why, and records the files it read.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from tokviz.core.formats.model_file import load_model

from .helpers import assert_one_line_error, run

PYC = b"\xa7\r\r\n\x00\x00\x00\x00" + bytes(range(256)) * 4


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A small source tree: code, tests, docs, a big generated file, compiled files and a .git folder."""
    root = tmp_path / "project"
    for rel, text in {
        "pkg/core.py": "def add(a, b):\n    return a + b\n\n" * 30,
        "pkg/util.py": "import os\n\ndef home():\n    return os.environ['HOME']\n" * 20,
        "tests/test_core.py": "from pkg.core import add\n\ndef test_add():\n    assert add(1, 2) == 3\n" * 20,
        "docs/index.md": "# Project\n\nThe project adds numbers.\n" * 20,
        "pkg/generated_pb2.py": "DESCRIPTOR = b'" + "x" * 4000 + "'\n",
        ".git/config": "[core]\n\tbare = false\n",
    }.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    (root / "pkg/__pycache__").mkdir()
    (root / "pkg/__pycache__/core.cpython-311.pyc").write_bytes(PYC)
    (root / "pkg/_speedups.so").write_bytes(b"\x7fELF\x02\x01\x01\x00" + bytes(1000))
    return root


def train(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code, _, err = run(capsys, "train", *args, "--vocab-size", "300", "--workers", "1")
    return code, err


def corpus_paths(model: Path) -> list[str]:
    return [f["path"] for f in load_model(model).provenance["corpus"]["files"]]


def test_binaries_in_a_folder_are_skipped_and_counted_not_fatal(
    capsys: pytest.CaptureFixture[str], project: Path, tmp_path: Path
) -> None:
    model = tmp_path / "m.json"
    code, err = train(capsys, str(project), "-o", str(model))
    assert code == 0, err
    assert "tokviz: skipped 2 binary files (.pyc, .so)" in err
    used = corpus_paths(model)
    assert [Path(p).relative_to(project).as_posix() for p in used] == [
        "docs/index.md",
        "pkg/core.py",
        "pkg/generated_pb2.py",
        "pkg/util.py",
        "tests/test_core.py",
    ]  # hidden folders (.git) are not corpus


def test_include_exclude_and_a_size_cap_choose_the_files_and_the_model_records_them(
    capsys: pytest.CaptureFixture[str], project: Path, tmp_path: Path
) -> None:
    model = tmp_path / "py.json"
    code, err = train(
        capsys,
        str(project),
        "--include",
        "*.py",
        "--exclude",
        "tests/",
        "--max-file-size",
        "2K",
        "--name",
        "py300",
        "-o",
        str(model),
    )
    assert code == 0, err
    assert "larger than" in err and "by --include/--exclude" in err
    loaded = load_model(model)
    assert loaded.tokenizer.name == "py300"
    used = [Path(p) for p in corpus_paths(model)]
    assert [p.relative_to(project).as_posix() for p in used] == ["pkg/core.py", "pkg/util.py"]
    files = loaded.provenance["corpus"]["files"]
    assert [f["sha256"] for f in files] == [hashlib.sha256(p.read_bytes()).hexdigest() for p in used]
    assert loaded.provenance["selection"]["include"] == ["*.py"]
    assert loaded.provenance["selection"]["exclude"] == ["tests/"]
    assert loaded.provenance["selection"]["max_file_size"] == "2K"

    code, out, _ = run(capsys, "info", str(model))
    assert code == 0
    assert "name:           py300" in out
    assert "corpus:         2 files" in out and "selection:      --include *.py; --exclude tests/" in out


def test_filters_that_leave_nothing_say_what_they_left_out(
    capsys: pytest.CaptureFixture[str], project: Path, tmp_path: Path
) -> None:
    code, err = train(capsys, str(project), "--include", "*.rs", "-o", str(tmp_path / "m.json"))
    assert code == 1
    assert_one_line_error(err, "the corpus is empty", "by --include/--exclude")
    assert not (tmp_path / "m.json").exists()


def test_a_bad_size_or_name_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], project: Path, tmp_path: Path
) -> None:
    code, err = train(capsys, str(project), "--max-file-size", "lots", "-o", str(tmp_path / "m.json"))
    assert code == 2 and "--max-file-size" in err and "10MB" in err
    code, err = train(capsys, str(project), "--name", " ", "-o", str(tmp_path / "m.json"))
    assert code == 2 and "--name must not be empty" in err


def test_the_name_defaults_to_the_model_file_name(
    capsys: pytest.CaptureFixture[str], project: Path, tmp_path: Path
) -> None:
    code, err = train(capsys, str(project / "pkg" / "core.py"), "-o", str(tmp_path / "adder.json"))
    assert code == 0, err
    assert load_model(tmp_path / "adder.json").tokenizer.name == "adder"


@pytest.mark.slow
def test_cl100k_exports_load_in_transformers_and_tiktoken_as_a_user_would(
    capsys: pytest.CaptureFixture[str], project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The issue's afternoon: train with cl100k chunks and a special token, export every way, load each."""
    transformers = pytest.importorskip("transformers")
    tiktoken = pytest.importorskip("tiktoken")
    from tiktoken.load import load_tiktoken_bpe

    monkeypatch.chdir(tmp_path)
    code, err = train(
        capsys,
        str(project),
        "--include",
        "*.py",
        "--pretokenizer",
        "cl100k",
        "--special-token",
        "<|endoftext|>",
        "-o",
        "py.json",
        "--export-gpt2",
        "gpt2",
        "--export-hf",
        "hf/",
        "--export-tiktoken",
        "py.tiktoken",
    )
    assert code == 0, err
    assert "--export-gpt2: vocab.json + merges.txt cannot hold the cl100k pre-tokenizer" in err
    assert "tiktoken needs the pattern and special tokens passed in" in err
    from tokviz.core.formats.registry import load_tokenizer

    model = load_tokenizer("py.json")
    texts = [p.read_text(encoding="utf-8") for p in sorted(project.rglob("*.py"))]
    texts += ["x = 1234567 # ÄÖÜ 你好 <|endoftext|> next", "<|endoftext|>"]
    eot = model.special_tokens["<|endoftext|>"]
    for folder in ("gpt2", "hf"):
        auto = transformers.AutoTokenizer.from_pretrained(folder)
        assert auto.eos_token == "<|endoftext|>" and auto.eos_token_id == eot
        assert [auto.encode(t, add_special_tokens=False) for t in texts] == [model.encode(t) for t in texts]
    side = json.loads(Path("py.tiktoken.json").read_text(encoding="utf-8"))
    enc = tiktoken.Encoding(
        side["name"],
        pat_str=side["pattern"],
        mergeable_ranks=load_tiktoken_bpe(os.path.abspath("py.tiktoken"), side["sha256"]),
        special_tokens=side["special_tokens"],
    )
    assert [enc.encode(t, allowed_special="all") for t in texts] == [model.encode(t) for t in texts]
