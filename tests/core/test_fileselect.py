"""Choosing text files from folders, files and globs: filters, binaries counted, links and pipes safe.

A folder holds whatever is in it, so selection keeps text (compressed text too), leaves out the
rest with a count per reason, and matches ``--include`` / ``--exclude`` on the path relative to
the folder given.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import os
from pathlib import Path

import pytest

from tokviz.core.corpus.fileselect import (
    SKIP_BINARY,
    SKIP_DUPLICATE,
    SKIP_FILTERED,
    SKIP_NOT_UTF8,
    SKIP_SPECIAL,
    SKIP_TOO_LARGE,
    SKIP_UNREADABLE_FOLDER,
    PathFilter,
    corpus_source,
    glob_to_regex,
    parse_size,
    select_files,
)
from tokviz.core.corpus.reading import iter_file_text
from tokviz.core.errors import Cancelled, CorpusError, InvalidArgument

PYC_LIKE = b"\xa7\r\r\n\x00\x00\x00\x00" + bytes(range(256)) * 20
SO_LIKE = b"\x7fELF\x02\x01\x01\x00" + b"\x00" * 64 + bytes(range(256)) * 10
PNG_LIKE = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 4


def write(root: Path, relative: str, data: bytes | str) -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return path


@pytest.fixture()
def lib(tmp_path: Path) -> Path:
    """A folder like /usr/lib/python3.11: sources beside bytecode, libraries, images and a .git."""
    root = tmp_path / "lib"
    write(root, "os.py", "import sys\n" * 50)
    write(root, "json/__init__.py", "from .decoder import JSONDecoder\n")
    write(root, "json/decoder.py", "class JSONDecoder:\n    pass\n" * 30)
    write(root, "json/__pycache__/decoder.cpython-311.pyc", PYC_LIKE)
    write(root, "json/__pycache__/__init__.cpython-311.pyc", PYC_LIKE)
    write(root, "lib-dynload/_json.so", SO_LIKE)
    write(root, "tests/test_json.py", "def test():\n    assert True\n")
    write(root, "docs/logo.png", PNG_LIKE)
    write(root, "docs/README.txt", "read me\n")
    write(root, "docs/changes.txt.gz", gzip.compress(b"changes in gzip\n" * 100))
    write(root, "docs/news.bz2", bz2.compress(b"news in bzip2\n" * 100))
    write(root, "docs/notes.xz", lzma.compress(b"notes in xz\n" * 100))
    write(root, ".git/HEAD", "ref: refs/heads/main\n")
    write(root, ".hidden.py", "secret = 1\n")
    return root


def relatives(selection) -> list[str]:
    return [f.relative for f in selection.files]


def test_a_folder_gives_its_text_files_in_sorted_order_and_counts_the_binaries(lib: Path) -> None:
    selection = select_files([lib])
    assert relatives(selection) == [
        "docs/README.txt",
        "docs/changes.txt.gz",
        "docs/news.bz2",
        "docs/notes.xz",
        "json/__init__.py",
        "json/decoder.py",
        "os.py",
        "tests/test_json.py",
    ]
    assert selection.skipped_count(SKIP_BINARY) == 4
    binary = next(s for s in selection.skipped if s.reason == SKIP_BINARY)
    assert binary.kinds[0] == ".pyc"
    assert set(binary.kinds) == {".pyc", ".so", ".png"}
    assert selection.note() == "skipped 4 binary files (.pyc, .png, .so)"
    assert all(f.root == str(lib) for f in selection.files)


def test_compressed_files_are_read_transparently(lib: Path) -> None:
    selection = select_files([lib], include=["docs/*"])
    by_name = {f.relative: f for f in selection.files}
    assert by_name["docs/changes.txt.gz"].compression == "gzip"
    assert by_name["docs/news.bz2"].compression == "bzip2"
    assert by_name["docs/notes.xz"].compression == "xz"
    text = "".join(iter_file_text(by_name["docs/notes.xz"].corpus_file))
    assert text == "notes in xz\n" * 100


def test_include_matches_names_at_any_depth_and_exclude_removes_folders(lib: Path) -> None:
    assert relatives(select_files([lib], include=["*.py"])) == [
        "json/__init__.py",
        "json/decoder.py",
        "os.py",
        "tests/test_json.py",
    ]
    assert relatives(select_files([lib], include=["*.py"], exclude=["tests"])) == [
        "json/__init__.py",
        "json/decoder.py",
        "os.py",
    ]
    chosen = select_files([lib], include=["json/**"], exclude=["__init__.py"])
    assert relatives(chosen) == ["json/decoder.py"]
    assert chosen.skipped_count(SKIP_FILTERED) > 0
    # A pattern that ends in "/" names a folder: everything under it.
    assert relatives(select_files([lib], include=["docs/"], exclude=["*.gz", "*.bz2", "*.xz"])) == [
        "docs/README.txt"
    ]


def test_double_star_matches_any_number_of_folders() -> None:
    rx = glob_to_regex("src/**/*.py")
    assert rx.fullmatch("src/a.py")
    assert rx.fullmatch("src/x/y/a.py")
    assert not rx.fullmatch("lib/src/a.py")
    assert glob_to_regex("**/test_*.py").fullmatch("test_a.py")
    assert glob_to_regex("*.py").fullmatch("a.py") and not glob_to_regex("*.py").fullmatch("a/b.py")
    assert glob_to_regex("[!a]?.txt").fullmatch("b1.txt") and not glob_to_regex("[!a]?.txt").fullmatch(
        "a1.txt"
    )


def test_path_filter_rules_are_those_of_the_help_text() -> None:
    f = PathFilter(include=["*.md", "docs/"], exclude=["drafts", "*_old.md"])
    assert f.selects("README.md")
    assert f.selects("a/b/c.md")
    assert f.selects("docs/guide.txt")
    assert not f.selects("drafts/plan.md")
    assert not f.selects("a/drafts/plan.md")
    assert not f.selects("notes_old.md")
    assert not f.selects("setup.py")
    with pytest.raises(InvalidArgument, match="list of glob patterns"):
        PathFilter(include="*.py")  # a common mistake: one string, not a list


def test_a_size_cap_leaves_big_files_out_with_a_count(tmp_path: Path) -> None:
    write(tmp_path, "small.txt", "x" * 100)
    write(tmp_path, "big.txt", "y" * 5000)
    selection = select_files([tmp_path], max_size=1000)
    assert relatives(selection) == ["small.txt"]
    assert selection.skipped_count(SKIP_TOO_LARGE) == 1
    assert "1 file larger than" in (selection.note() or "")


def test_text_that_is_not_utf8_deep_inside_is_found_before_a_run(tmp_path: Path) -> None:
    write(tmp_path, "changelog.txt", b"a" * 20000 + "Fran\xe7ois".encode("latin-1"))
    write(tmp_path, "ok.txt", "fine\n")
    strict = select_files([tmp_path])
    assert relatives(strict) == ["ok.txt"]
    assert strict.skipped_count(SKIP_NOT_UTF8) == 1
    assert "--replace-invalid reads them" in (strict.note() or "")
    assert relatives(select_files([tmp_path], errors="replace")) == ["changelog.txt", "ok.txt"]


def test_link_loops_and_files_reached_twice_are_safe(tmp_path: Path) -> None:
    root = tmp_path / "corpus"
    write(root, "a/one.txt", "one\n")
    os.symlink(root, root / "a" / "loop")  # a -> corpus -> a -> ...
    os.symlink(root / "a", root / "b")  # the same folder under a second name
    os.symlink(root / "a" / "one.txt", root / "again.txt")
    selection = select_files([root])
    assert relatives(selection) == ["a/one.txt"]
    assert selection.skipped_count(SKIP_DUPLICATE) == 1


def test_fifos_in_a_folder_are_skipped_without_opening_them(tmp_path: Path) -> None:
    write(tmp_path, "text.txt", "hello\n")
    os.mkfifo(tmp_path / "pipe")  # opening it would block forever
    selection = select_files([tmp_path])
    assert relatives(selection) == ["text.txt"]
    assert selection.skipped_count(SKIP_SPECIAL) == 1
    with pytest.raises(CorpusError, match="FIFO"):
        select_files([tmp_path / "pipe"])


def test_globs_expand_and_named_files_keep_their_path(lib: Path) -> None:
    selection = select_files([str(lib / "json" / "*.py"), str(lib / "os.py")])
    assert [f.path.name for f in selection.files] == ["__init__.py", "decoder.py", "os.py"]
    assert all(f.root is None for f in selection.files)
    assert selection.files[0].folder == str(lib / "json").replace(os.sep, "/")
    recursive = select_files([str(lib / "**" / "*.py")])
    assert len(recursive.files) == 4
    with pytest.raises(CorpusError, match="no file or folder matches"):
        select_files([str(lib / "*.rs")])
    with pytest.raises(CorpusError, match="missing.txt: file or folder not found"):
        select_files([lib / "missing.txt"])
    with pytest.raises(CorpusError, match="standard input"):
        select_files(["-"])


def test_the_counts_and_corpus_files_feed_training(lib: Path) -> None:
    selection = select_files([lib])
    assert len(selection.files) == len(selection.corpus_files())
    assert selection.skipped_count(SKIP_BINARY) == selection.left_out() == 4
    assert selection.compressed == 3


def test_cancel_stops_between_files(lib: Path) -> None:
    with pytest.raises(Cancelled):
        select_files([lib], cancel=lambda: True)


def test_sizes_are_read_the_way_people_write_them() -> None:
    assert parse_size("500000") == 500000
    assert parse_size("64K") == 64 * 1024
    assert parse_size("10MB") == 10 * 2**20
    assert parse_size("1.5 GiB") == int(1.5 * 2**30)
    with pytest.raises(InvalidArgument, match="not a size"):
        parse_size("ten megs")


def test_a_folder_that_cannot_be_listed_is_counted_like_a_file_that_cannot_be_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path, "ok.txt", "readable text\n")
    write(tmp_path, "private/secret.txt", "never listed\n")
    real_scandir = os.scandir

    def scandir(path):  # what a folder without read permission does for a user who is not root
        if Path(path).name == "private":
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    selection = select_files([tmp_path])
    assert relatives(selection) == ["ok.txt"]
    assert selection.skipped_count(SKIP_UNREADABLE_FOLDER) == 1 == selection.left_out()
    assert selection.note() == "skipped 1 folder that could not be read"
    with pytest.raises(
        CorpusError, match=r"the corpus is empty: .*\(skipped 1 folder that could not be read\)"
    ):
        corpus_source([tmp_path / "private"])


def test_a_text_padded_with_nul_bytes_past_the_sniff_is_left_out_as_binary(tmp_path: Path) -> None:
    padded = write(tmp_path, "log.txt", "a real log line\n" * 1000)
    with open(padded, "ab") as fh:
        fh.truncate(5 << 20)  # what `truncate -s` does: zeros after the text
    write(tmp_path, "ok.txt", "fine\n")
    for errors in ("strict", "replace"):
        selection = select_files([tmp_path], errors=errors)
        assert relatives(selection) == ["ok.txt"]
        assert selection.skipped_count(SKIP_BINARY) == 1
        assert selection.note() == "skipped 1 binary file (.txt)"
    # Named explicitly, it was asked for: it is read (its NUL bytes are text to the trainer).
    assert relatives(select_files([padded])) == [str(padded).replace(os.sep, "/")]
