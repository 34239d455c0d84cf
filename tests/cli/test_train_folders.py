"""``tokviz train FOLDER``: binary files are skipped with a one-line note, compressed text is read."""

from __future__ import annotations

import gzip
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ..core.test_corpus_folders import TEXTS, make_folder
from .helpers import assert_one_line_error, child_env, run


def test_a_folder_trains_on_its_text_and_notes_the_skipped_binaries(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from tokviz.core.formats.registry import load_tokenizer
    from tokviz.core.training.train import train_bpe

    folder = make_folder(tmp_path / "corpus")
    model = tmp_path / "model.json"
    code, _, err = run(
        capsys, "train", str(folder), "--vocab-size", "320", "-o", str(model), "--workers", "1"
    )
    assert code == 0, err
    notes = [line for line in err.splitlines() if line.startswith("tokviz: skipped")]
    assert len(notes) == 1
    assert notes[0].startswith("tokviz: skipped 3 binary files (")
    assert all(kind in notes[0] for kind in (".pyc", ".so", ".tar.gz"))
    texts = tmp_path / "texts"
    texts.mkdir()
    for i, text in enumerate(TEXTS):
        (texts / f"{i}.txt").write_text(text, encoding="utf-8")
    expected = train_bpe(files=[texts], vocab_size=320, workers=1)
    trained = load_tokenizer(str(model))
    assert trained.merges == expected.merges


def test_a_folder_of_text_only_prints_no_note(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    folder = tmp_path / "corpus"
    folder.mkdir()
    (folder / "a.txt").write_text("hello world, hello there\n" * 20, encoding="utf-8")
    (folder / "b.txt.gz").write_bytes(gzip.compress(b"compressed hello world\n" * 20))
    code, _, err = run(
        capsys, "train", str(folder), "--vocab-size", "270", "-o", str(tmp_path / "m.json"), "--workers", "1"
    )
    assert code == 0, err
    assert "skipped" not in err


def test_a_binary_file_named_on_the_command_line_is_a_one_line_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    pyc = tmp_path / "mod.pyc"
    pyc.write_bytes(b"\xa7\r\r\n\x00\x00\x00\x00" + bytes(range(256)))
    code, _, err = run(capsys, "train", str(pyc), "--vocab-size", "300", "-o", str(tmp_path / "m.json"))
    assert code != 0
    assert_one_line_error(err, "mod.pyc is a binary file, not text")
    assert not (tmp_path / "m.json").exists()


def test_not_utf8_files_in_a_folder_are_noted_with_the_flag_that_reads_them(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    folder = tmp_path / "corpus"
    folder.mkdir()
    (folder / "a.txt").write_text("hello world, hello there\n" * 20, encoding="utf-8")
    (folder / "old.txt").write_bytes("café crème\n".encode("latin-1") * 20)
    args = ["train", str(folder), "--vocab-size", "270", "-o", str(tmp_path / "m.json"), "--workers", "1"]
    code, _, err = run(capsys, *args)
    assert code == 0, err
    assert "tokviz: skipped 1 file not in UTF-8 (.txt) (--replace-invalid reads them)" in err
    code, _, err = run(capsys, *args, "--replace-invalid")
    assert code == 0, err
    assert "skipped" not in err


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0 or shutil.which("setpriv") is None,
    reason="needs root with setpriv, to drop the right to read any folder",
)
def test_a_folder_without_read_permission_is_counted_in_the_note(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    (corpus / "locked").mkdir(parents=True)
    (corpus / "a.txt").write_text("the quick brown fox jumps over the lazy dog\n" * 50, encoding="utf-8")
    (corpus / "locked" / "b.txt").write_text("never read\n", encoding="utf-8")
    (corpus / "locked").chmod(0)
    try:
        # Root reads every folder; without these two capabilities it is refused as a user is.
        drop = "-dac_override,-dac_read_search"
        done = subprocess.run(
            ["setpriv", f"--bounding-set={drop}", f"--inh-caps={drop}", "--", sys.executable, "-m", "tokviz"]
            + ["train", str(corpus), "--vocab-size", "270", "-o", str(tmp_path / "m.json")],
            capture_output=True,
            text=True,
            env=child_env(),
            timeout=120,
        )
    finally:
        (corpus / "locked").chmod(0o755)
    assert done.returncode == 0, done.stderr
    assert "tokviz: skipped 1 folder that could not be read" in done.stderr.splitlines()
