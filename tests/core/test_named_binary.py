"""The binary sniff is for files a folder walk finds; a file named explicitly is read when it is UTF-8.

A stress-test file or a log may hold NUL bytes and still be UTF-8 text: named in ``select_files``
or in ``train_bpe(files=...)`` it is read; found in a folder it is left out as binary unless
``include_binary``. A file that is binary and not UTF-8 stays out (or an error, when named).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tokviz.core.corpus.fileselect import SKIP_BINARY, SKIP_NOT_UTF8, corpus_source, select_files
from tokviz.core.errors import CorpusError
from tokviz.core.training.train import train_bpe

NUL_TEXT = ("cat\x00dog\x00bird " * 200).encode("utf-8")
MACHINE_CODE = b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 4


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "data"
    root.mkdir()
    (root / "nul.txt").write_bytes(NUL_TEXT)
    (root / "prog").write_bytes(MACHINE_CODE)
    (root / "plain.txt").write_text("plain text\n", encoding="utf-8")
    return root


def test_a_named_utf8_file_with_nul_bytes_is_selected_and_trained_on(folder: Path) -> None:
    named = folder / "nul.txt"
    selection = select_files([named])
    assert [f.path for f in selection.files] == [named] and selection.skipped_count() == 0
    assert [f.path for f in corpus_source([named])[0]] == [named]
    result = train_bpe(files=[named], vocab_size=260)
    assert result.corpus_bytes == result.text_size == len(NUL_TEXT)


def test_a_folder_leaves_binary_looking_files_out_unless_include_binary(folder: Path) -> None:
    walked = select_files([folder])
    assert [f.path.name for f in walked.files] == ["plain.txt"]
    assert walked.skipped_count(SKIP_BINARY) == 2

    included = select_files([folder], include_binary=True)
    assert [f.path.name for f in included.files] == ["nul.txt", "plain.txt"]
    assert included.skipped_count(SKIP_NOT_UTF8) == 1  # the machine code is not UTF-8

    replaced = select_files([folder], include_binary=True, errors="replace")
    assert [f.path.name for f in replaced.files] == ["nul.txt", "plain.txt", "prog"]


def test_a_named_file_that_is_binary_and_not_utf8_is_still_refused(folder: Path) -> None:
    with pytest.raises(CorpusError, match=r"prog is a binary file, not text"):
        select_files([folder / "prog"])
    assert [f.path.name for f in corpus_source([folder / "prog"], errors="replace")[0]] == ["prog"]


def test_include_binary_keeps_a_folder_file_that_turns_into_a_run_of_nul_bytes(tmp_path: Path) -> None:
    padded = tmp_path / "padded.log"
    padded.write_bytes(b"a line of log\n" * 1000 + b"\0" * 4096 + b"the end\n")
    assert select_files([tmp_path]).skipped_count(SKIP_BINARY) == 1
    assert [f.path for f in select_files([tmp_path], include_binary=True).files] == [padded]
