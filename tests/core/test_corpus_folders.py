"""Folder corpora: text is read (compressed too), binary files are skipped and counted.

A folder holds whatever is in it (``/usr/lib/python3.11`` has ``.pyc`` and ``.so`` files beside
the sources, ``/usr/share/doc`` has ``.gz`` changelogs and images), so a folder walk reads the
text, decompresses gzip/bzip2/xz on the fly, and leaves out the rest with a count. A file named
explicitly was asked for: a binary one is an error.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
from pathlib import Path

import pytest

from tokviz.core.corpus.documents import iter_parts
from tokviz.core.corpus.fileselect import (
    SKIP_BINARY,
    SKIP_NOT_UTF8,
    SKIP_UNREADABLE,
    corpus_source,
    select_files,
)
from tokviz.core.corpus.reading import (
    SNIFF_SIZE,
    CorpusFile,
    classify_head,
    compression_of,
    iter_file_text,
)
from tokviz.core.errors import CorpusError
from tokviz.core.training.train import train_bpe

PLAIN = "the plain text file says hello world\n" * 40
GZ = "a gzip text: gzip gzip gzip compressed words\n" * 50
BZ = "a bzip2 text: bzip bzip words here\n" * 60
XZ = "an xz text with lzma lzma lzma inside\n" * 70
NESTED = "deep inside nested folders, more text\n" * 30
PYC_LIKE = b"\xa7\r\r\n\x00\x00\x00\x00" + bytes(range(256)) * 20
SO_LIKE = b"\x7fELF\x02\x01\x01\x00" + b"\x00" * 64 + bytes(range(256)) * 10
TEXTS = [PLAIN, GZ, BZ, XZ, NESTED]


def make_folder(root: Path) -> Path:
    """Text (plain, .gz, .bz2, .xz, nested), binaries (.pyc, .so) and a compressed binary."""
    (root / "sub" / "deeper").mkdir(parents=True)
    (root / "a.txt").write_text(PLAIN, encoding="utf-8")
    (root / "b.txt.gz").write_bytes(gzip.compress(GZ.encode()))
    (root / "c.md.bz2").write_bytes(bz2.compress(BZ.encode()))
    (root / "sub" / "d.rst.xz").write_bytes(lzma.compress(XZ.encode()))
    (root / "sub" / "deeper" / "e.py").write_text(NESTED, encoding="utf-8")
    (root / "mod.cpython-311.pyc").write_bytes(PYC_LIKE)
    (root / "sub" / "_speedups.so").write_bytes(SO_LIKE)
    (root / "sub" / "image.tar.gz").write_bytes(gzip.compress(SO_LIKE))
    (root / ".hidden").mkdir()
    (root / ".hidden" / "secret.txt").write_text("never read\n", encoding="utf-8")
    return root


def test_a_folder_scan_keeps_the_text_and_counts_the_binaries(tmp_path):
    scan = select_files([make_folder(tmp_path)])
    names = [f.path.name for f in scan.files]
    assert names == ["a.txt", "b.txt.gz", "c.md.bz2", "d.rst.xz", "e.py"]
    assert {f.path.name: f.compression for f in scan.files} == {
        "a.txt": None,
        "b.txt.gz": "gzip",
        "c.md.bz2": "bzip2",
        "d.rst.xz": "xz",
        "e.py": None,
    }
    counts = (
        len(scan.files),
        scan.compressed,
        scan.skipped_count(SKIP_BINARY),
        scan.skipped_count(SKIP_NOT_UTF8),
    )
    assert counts + (scan.left_out(),) == (5, 3, 3, 0, 3)
    assert scan.bytes == sum(f.size for f in scan.files)
    assert sum(s.bytes for s in scan.skipped) == (
        len(PYC_LIKE) + len(SO_LIKE) + (tmp_path / "sub" / "image.tar.gz").stat().st_size
    )
    note = scan.note()
    assert note is not None and note.startswith("skipped 3 binary files (")
    for kind in (".pyc", ".so", ".tar.gz"):
        assert kind in note


def test_training_on_the_folder_reads_exactly_the_text_files(tmp_path):
    folder = make_folder(tmp_path / "corpus")
    texts = tmp_path / "texts"
    texts.mkdir()
    for i, text in enumerate(TEXTS):
        (texts / f"{i}.txt").write_text(text, encoding="utf-8")
    from_folder = train_bpe(files=[folder], vocab_size=320, workers=1)
    from_texts = train_bpe(files=[texts], vocab_size=320, workers=1)
    assert from_folder.merges == from_texts.merges
    assert from_folder.unique_words == from_texts.unique_words


def test_compressed_files_stream_in_blocks_and_report_their_stored_size(tmp_path):
    text = "".join(f"line {i} of a long compressed text\n" for i in range(20_000))
    path = tmp_path / "long.txt.gz"
    path.write_bytes(gzip.compress(text.encode()))
    file = CorpusFile(path, path.stat().st_size, "gzip")
    seen: list[int] = []
    pieces = list(iter_file_text(file, block_size=4096, on_read=seen.append))
    assert "".join(pieces) == text
    assert len(pieces) > 10  # read block by block, never the whole file at once
    assert sum(seen) == path.stat().st_size
    parts = list(iter_parts([file], None, [], True, 8192))
    assert "".join(parts) == text


def test_a_binary_file_named_explicitly_is_an_error(tmp_path):
    pyc = tmp_path / "mod.pyc"
    pyc.write_bytes(PYC_LIKE)
    with pytest.raises(CorpusError, match=r"mod\.pyc is a binary file, not text"):
        select_files([pyc])
    packed = tmp_path / "blob.gz"
    packed.write_bytes(gzip.compress(SO_LIKE))
    with pytest.raises(CorpusError, match=r"blob\.gz is a gzip-compressed binary file"):
        train_bpe(files=[packed], vocab_size=300)
    # Explicit compressed text is read like any text.
    good = tmp_path / "good.txt.xz"
    good.write_bytes(lzma.compress(XZ.encode()))
    assert [f.compression for f in corpus_source([good])[0]] == ["xz"]


def test_text_that_is_not_utf8_is_skipped_in_folders_unless_replaced(tmp_path):
    (tmp_path / "ok.txt").write_text(PLAIN, encoding="utf-8")
    (tmp_path / "latin1.txt").write_bytes("café au lait, crème brûlée\n".encode("latin-1") * 20)
    # UTF-8 for the first kilobytes, Latin-1 much later: checked to the end in strict mode.
    late = ("ascii text\n" * 2000).encode() + "naïve\n".encode("latin-1")
    assert len(late) > SNIFF_SIZE
    (tmp_path / "late.txt").write_bytes(late)
    strict = select_files([tmp_path])
    assert [f.path.name for f in strict.files] == ["ok.txt"]
    assert strict.skipped_count(SKIP_NOT_UTF8) == 2 and strict.skipped_count(SKIP_BINARY) == 0
    assert "2 files not in UTF-8 (.txt) (--replace-invalid reads them)" in (strict.note() or "")
    replaced = select_files([tmp_path], errors="replace")
    assert sorted(f.path.name for f in replaced.files) == ["late.txt", "latin1.txt", "ok.txt"]
    assert replaced.note() is None
    # Training in strict mode no longer stops at the late bad byte.
    assert train_bpe(files=[tmp_path], vocab_size=300, workers=1).corpus_bytes == len(PLAIN)


def test_a_folder_with_only_binaries_says_what_it_skipped(tmp_path):
    (tmp_path / "x.so").write_bytes(SO_LIKE)
    with pytest.raises(CorpusError, match=r"no text files \(skipped 1 binary file \(\.so\)\)"):
        corpus_source([tmp_path])


def test_a_damaged_compressed_file_in_a_folder_is_skipped_as_unreadable(tmp_path):
    (tmp_path / "ok.txt").write_text(PLAIN, encoding="utf-8")
    (tmp_path / "cut.gz").write_bytes(gzip.compress(GZ.encode() * 50)[:40])
    # Cut far beyond the sniffed start: found when the folder's files are checked to the end.
    long = "".join(f"line {i}: {i * 7919 % 104729}\n" for i in range(40_000)).encode()
    (tmp_path / "late.gz").write_bytes(gzip.compress(long)[:-2000])
    scan = select_files([tmp_path])
    assert [f.path.name for f in scan.files] == ["ok.txt"]
    assert scan.skipped_count(SKIP_UNREADABLE) == 2
    assert "2 files that could not be read (.gz)" in (scan.note() or "")


@pytest.mark.parametrize(
    ("head", "complete", "kind"),
    [
        (b"hello world\n", True, "text"),
        ("héllo wörld\n".encode(), True, "text"),
        ("héllo".encode()[:2], False, "text"),  # a character cut by the sniff is not an error
        ("a text cut in the middle of an é".encode()[:-1], True, "not-utf8"),
        ("café crème\n".encode("latin-1") * 10, True, "not-utf8"),
        (b"text with a \x00 NUL", True, "binary"),
        (bytes(range(1, 32)) * 10, True, "binary"),
        (bytes(range(128, 256)) * 4, True, "binary"),
        (b"\x1b[31mred\x1b[0m log line\n", True, "text"),
        (b"", True, "text"),
    ],
)
def test_sniffing_tells_text_from_binary(head, complete, kind):
    assert classify_head(head, complete) == kind


def test_compression_is_recognised_by_content_not_name():
    assert compression_of(gzip.compress(b"x")) == "gzip"
    assert compression_of(bz2.compress(b"x")) == "bzip2"
    assert compression_of(bz2.compress(b"")) == "bzip2"
    assert compression_of(lzma.compress(b"x")) == "xz"
    assert compression_of(b"BZh is how this plain text starts") is None
    assert compression_of(b"plain") is None


def test_a_damaged_compressed_file_named_explicitly_is_an_error(tmp_path):
    cut = tmp_path / "cut.txt.gz"
    cut.write_bytes(gzip.compress(GZ.encode() * 50)[:40])
    with pytest.raises(CorpusError, match=r"cannot decompress .*cut\.txt\.gz"):
        select_files([cut])


def test_a_stretch_with_no_safe_place_to_cut_is_cut_at_a_bounded_length(monkeypatch):
    import tokviz.core.corpus.reading as corpus

    monkeypatch.setattr(corpus, "LONGEST_PART", 1000)
    monkeypatch.setattr(corpus, "BLOCK_SIZE", 300)  # the text arrives as a file's blocks do
    text = "a few words " * 20 + "b" * 3500 + " and the end"
    parts = list(iter_parts([], text, [], True, 100))
    assert "".join(parts) == text
    runs = [p for p in parts if set(p) == {"b"} or p.startswith(" b")]
    # Cut after the last safe place before the run, then every 1,000 characters as it is read.
    assert [len(p) for p in runs[:3]] == [1000, 1000, 1000]
    assert runs[0] == " " + "b" * 999
    assert max(len(p) for p in parts) <= 1000
