"""A file named on the command line is read even when it looks binary; folders sniff, ``--include-binary`` reads.

A log or a stress test may be valid UTF-8 that holds NUL bytes: ``compare`` and ``encode`` read it,
and so do ``eval``, ``usage``, ``count`` and ``train`` when it is named. Found by walking a folder
it is left out as binary unless ``--include-binary`` is given. The numbers are checked against
plain Python (the file's bytes) and tiktoken's own GPT-2 encoding.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import tiktoken

from .helpers import assert_one_line_error, run

STRESS = ("hello world \x00 null here\n" * 50 + "héllo wörld\n" * 20).encode("utf-8")


@pytest.fixture
def stress(tmp_path: Path) -> Path:
    path = tmp_path / "stress.txt"
    path.write_bytes(STRESS)
    return path


def test_eval_reads_a_named_utf8_file_with_nul_bytes(
    capsys: pytest.CaptureFixture[str], stress: Path, gpt2_tiktoken: tiktoken.Encoding
) -> None:
    code, out, err = run(capsys, "eval", str(stress), "--tokenizer", "gpt2", "--format", "json", "-q")
    assert code == 0, err
    (row,) = json.loads(out)["rows"]
    expected_tokens = len(gpt2_tiktoken.encode(STRESS.decode("utf-8"), disallowed_special=()))
    assert (row["files"], row["bytes"], row["tokens"]) == (1, len(STRESS), expected_tokens)


def test_usage_reads_a_named_utf8_file_with_nul_bytes(
    capsys: pytest.CaptureFixture[str], stress: Path, gpt2_tiktoken: tiktoken.Encoding
) -> None:
    code, out, err = run(capsys, "usage", "--tokenizer", "gpt2", str(stress), "--format", "json")
    assert code == 0, err
    assert "skipped" not in err
    expected_tokens = len(gpt2_tiktoken.encode(STRESS.decode("utf-8"), disallowed_special=()))
    assert f"{expected_tokens:,}" in out or str(expected_tokens) in out


def test_count_and_train_read_a_named_utf8_file_with_nul_bytes(
    capsys: pytest.CaptureFixture[str], stress: Path, tmp_path: Path
) -> None:
    table = tmp_path / "counts.tsv"
    code, _, err = run(capsys, "count", str(stress), "-o", str(table), "--workers", "1")
    assert code == 0, err
    model = tmp_path / "m.json"
    code, _, err = run(
        capsys, "train", str(stress), "--vocab-size", "270", "-o", str(model), "--workers", "1"
    )
    assert code == 0, err
    assert model.exists()


def test_a_folder_leaves_binary_looking_files_out_unless_include_binary(
    capsys: pytest.CaptureFixture[str], stress: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "logs"
    folder.mkdir()
    (folder / "a.txt").write_text("plain text here\n" * 10, encoding="utf-8")
    (folder / "stress.txt").write_bytes(STRESS)
    (folder / "mod.pyc").write_bytes(b"\xa7\r\r\n\x00\x00\x00\x00" + bytes(range(256)))  # not UTF-8

    code, out, err = run(capsys, "eval", str(folder), "--tokenizer", "gpt2", "--format", "json")
    assert code == 0, err
    assert json.loads(out)["rows"][0]["files"] == 1
    assert "skipped 2 binary files" in err

    code, out, err = run(
        capsys, "eval", str(folder), "--tokenizer", "gpt2", "--format", "json", "--include-binary"
    )
    assert code == 0, err
    row = json.loads(out)["rows"][0]
    assert (row["files"], row["bytes"]) == (2, 16 * 10 + len(STRESS))
    assert "not in UTF-8 (.pyc)" in err  # binary and not UTF-8: still left out, said so


@pytest.mark.parametrize("command", ["train", "count", "usage", "eval"])
def test_every_folder_walking_command_takes_include_binary(
    capsys: pytest.CaptureFixture[str], command: str
) -> None:
    code, out, _ = run(capsys, command, "--help")
    assert code == 0
    assert "--include-binary" in out


def test_a_named_file_that_is_binary_and_not_utf8_is_still_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    pyc = tmp_path / "mod.pyc"
    pyc.write_bytes(b"\xa7\r\r\n\x00\x00\x00\x00" + bytes(range(256)))
    code, _, err = run(capsys, "count", str(pyc), "-o", str(tmp_path / "c.tsv"))
    assert code != 0
    assert_one_line_error(err, "mod.pyc is a binary file, not text")
