"""Reading a training corpus as a stream of text parts cut where pre-tokenization cannot change.

Files are read in blocks and decoded incrementally, so memory follows the block size, not the
corpus size. Files compressed with gzip, bzip2 or xz (recognised by their first bytes, whatever
their name) are decompressed on the fly, block by block like any other file. Invalid UTF-8 is an
error that names the file and byte offset, unless the caller asked to continue with replacement
characters.

Which files make a corpus is chosen by :mod:`tokviz.core.corpus.fileselect`, with the tools here: the
first few KB of each file (decompressed first, when compressed) tell text from binary
(:func:`sniff_file`), and :func:`iter_file_text` reads a file to its end.
"""

from __future__ import annotations

import bz2
import codecs
import gzip
import hashlib
import io
import lzma
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import regex

from ..errors import CorpusError
from ..pretok.stretches import CutCount, PartCutter, slices

# What training reads: the text itself, a path, or several paths (files or folders).
CorpusSource = str | os.PathLike[str] | Iterable[str | os.PathLike[str]]

BLOCK_SIZE = 1 << 20
# How much of each file (decompressed) is looked at to tell text from binary.
SNIFF_SIZE = 8192
# Above this share of control characters, or of control characters and undecodable bytes
# together, a file is binary, not text (Latin-1 prose has a few accents, machine code many).
_CONTROL_SHARE = 0.1
_BINARY_SHARE = 0.3
# Control characters that text holds: tab, newline, vertical tab, form feed, carriage return,
# backspace and escape (terminal colours in logs).
_TEXT_CONTROLS = frozenset(b"\t\n\x0b\x0c\r\x08\x1b")
_CONTROL_BYTES = bytes(b for b in range(32) if b not in _TEXT_CONTROLS) + b"\x7f"
# A space after a non-space is always a chunk boundary for the named GPT-2 / cl100k patterns.
_SAFE_SPACE = regex.compile(r"(?<=\S) ")

# What a sniffed file is: text, binary, or text in another encoding than UTF-8.
TEXT, BINARY, NOT_UTF8, UNREADABLE = "text", "binary", "not-utf8", "unreadable"


@dataclass(frozen=True)
class CorpusFile:
    """One file of a corpus: its path, its size on disk, and how it is compressed (or None)."""

    path: Path
    size: int
    compression: str | None = None


def compression_of(head: bytes) -> str | None:
    """The compression a file's first bytes announce: ``gzip``, ``bzip2``, ``xz`` or None.

    bzip2's "BZh" is checked with the block level and the block (or end-of-stream) magic after
    it, so a text that happens to start with "BZh" stays text.
    """
    if head.startswith(b"\x1f\x8b"):
        return "gzip"
    if head.startswith(b"\xfd7zXZ\x00"):
        return "xz"
    if (
        head.startswith(b"BZh")
        and head[3:4] in (b"1", b"2", b"3", b"4", b"5", b"6", b"7", b"8", b"9")
        and head[4:10] in (b"\x31\x41\x59\x26\x53\x59", b"\x17\x72\x45\x38\x50\x90")
    ):
        return "bzip2"
    return None


def classify_head(head: bytes, complete: bool) -> str:
    """Whether the start of a file is ``text``, ``binary`` or text ``not-utf8``.

    Binary: a NUL byte, more than a tenth control characters, or more than 30% control
    characters and undecodable bytes together (what machine code, images and archives look like). Text in another encoding (Latin-1 accents)
    decodes badly here and there: that is ``not-utf8``. ``complete`` says ``head`` is the whole
    file, so a character cut at its end is an error rather than the cut of the sniff.
    """
    if not head:
        return TEXT
    if b"\x00" in head:
        return BINARY
    controls = len(head) - len(head.translate(None, _CONTROL_BYTES))
    try:
        codecs.getincrementaldecoder("utf-8")().decode(head, final=complete)
    except UnicodeDecodeError:
        bad = head.decode("utf-8", errors="replace").count("\ufffd")
        binary = controls > _CONTROL_SHARE * len(head) or controls + bad > _BINARY_SHARE * len(head)
        return BINARY if binary else NOT_UTF8
    return BINARY if controls > _CONTROL_SHARE * len(head) else TEXT


def open_decompressed(
    path: Path, compression: str | None, raw: io.BufferedReader | None = None
) -> io.BufferedIOBase:
    """A binary stream of the file's content, decompressed on the fly when ``compression`` is set.

    ``raw`` is the open file to read from (its position tells how much of the file was used);
    the caller closes it. Without it, the returned stream owns the file it opens.
    """
    source: Path | io.BufferedReader = raw if raw is not None else path
    if compression == "gzip":
        return gzip.GzipFile(fileobj=raw, mode="rb") if raw is not None else gzip.open(path, "rb")
    if compression == "bzip2":
        return bz2.BZ2File(source, mode="rb")
    if compression == "xz":
        return lzma.LZMAFile(source, mode="rb")
    return raw if raw is not None else open(path, "rb")  # noqa: SIM115 - returned to the caller


# What a decompressor raises on damaged data (gzip.BadGzipFile is an OSError).
_DECOMPRESS_ERRORS = (OSError, EOFError, lzma.LZMAError)


def sniff_file(path: Path) -> tuple[str, str | None]:
    """What the file is (``text``, ``binary``, ``not-utf8`` or ``unreadable``) and its compression.

    Reads at most :data:`SNIFF_SIZE` bytes of content (decompressed, for a compressed file).
    ``unreadable`` is a compressed file that cannot be decompressed; a file that cannot be
    opened or read at all raises ``OSError``.
    """
    with open(path, "rb") as fh:
        head = fh.read(SNIFF_SIZE)
        compression = compression_of(head)
        if compression is None:
            return classify_head(head, len(head) < SNIFF_SIZE), None
        fh.seek(0)
        try:
            with open_decompressed(path, compression, fh) as stream:
                content = stream.read(SNIFF_SIZE)
        except _DECOMPRESS_ERRORS:
            return UNREADABLE, compression
        return classify_head(content, len(content) < SNIFF_SIZE), compression


@dataclass(frozen=True)
class FileRead:
    """One corpus file as a run read it: its path, its bytes as stored and their SHA-256.

    The hash is of the bytes actually read (compressed files: the stored, compressed bytes), so a
    model's provenance names what it was trained on even if the file changes afterwards.
    """

    path: str
    size: int
    sha256: str


class ReadLog:
    """What a run's reading saw: a :class:`FileRead` for each file :func:`iter_file_text` read to
    its end, and how often :func:`iter_parts` cut text where it found no safe place."""

    def __init__(self) -> None:
        self.files: list[FileRead] = []
        self.cuts = CutCount()

    @property
    def forced_cuts(self) -> int:
        """Parts cut where no safe place was in reach."""
        return self.cuts.stretches


class _WitnessReader(io.RawIOBase):
    """A file read through this counts its bytes as they go by, and hashes them with ``hashing``."""

    def __init__(self, raw: io.BufferedReader, hashing: bool) -> None:
        super().__init__()
        self.raw = raw
        self.digest = hashlib.sha256() if hashing else None
        self.count = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        n = self.raw.readinto(buffer) or 0
        if n and self.digest is not None:
            self.digest.update(memoryview(buffer)[:n])
        self.count += n
        return n

    def tell(self) -> int:
        return self.count


def iter_file_text(
    file: CorpusFile,
    errors: str = "strict",
    block_size: int | None = None,
    on_read: Callable[[int], None] | None = None,
    log: ReadLog | None = None,
    on_content: Callable[[int], None] | None = None,
) -> Iterator[str]:
    """Decode one file block by block; a strict decode error names the file and byte offset.

    A compressed file is decompressed as it is read (the offset is then one in its decompressed
    content). ``on_read`` receives the bytes of the file used since its last call, counted as
    stored on disk, so progress over compressed files is measured against their stored size.
    A file whose size or modification time changed while it was read (cut short or written to by
    another program) is a :class:`CorpusError` that names it: what was read is no version of the
    file. ``log`` receives the size and SHA-256 of the bytes read once the file is read to its end.
    ``on_content`` receives the bytes of content decoded (decompressed, and before any invalid
    byte becomes U+FFFD): the input's own size, which bytes per token divide.
    """
    try:
        with open(file.path, "rb") as raw:
            before = os.fstat(raw.fileno())
            witness = _WitnessReader(raw, hashing=log is not None)
            yield from iter_stream_text(
                witness, str(file.path), file.compression, errors, block_size, on_read, on_content
            )
            _check_unchanged(file, before, os.fstat(raw.fileno()), witness.count)
    except OSError as exc:
        raise CorpusError(f"cannot read {file.path}: {exc.strerror or exc}", path=str(file.path)) from None
    if log is not None and witness.digest is not None:
        log.files.append(FileRead(str(file.path), witness.count, witness.digest.hexdigest()))


def _check_unchanged(file: CorpusFile, before: os.stat_result, after: os.stat_result, read: int) -> None:
    """Refuse a file that changed while it was read: its size or time differ, or fewer bytes came."""
    changed = (after.st_size, after.st_mtime_ns) != (before.st_size, before.st_mtime_ns)
    if changed or read != before.st_size:
        raise CorpusError(
            f"{file.path} changed while it was read ({before.st_size:,} bytes when reading began, "
            f"{after.st_size:,} when it ended); read it again once nothing writes to it",
            path=str(file.path),
        )


def iter_stream_text(
    raw: Any,
    name: str,
    compression: str | None,
    errors: str = "strict",
    block_size: int | None = None,
    on_read: Callable[[int], None] | None = None,
    on_content: Callable[[int], None] | None = None,
) -> Iterator[str]:
    """:func:`iter_file_text` for a file already open as ``raw`` (a local file or an fsspec one).

    ``name`` is how messages name the file; ``raw`` is read in blocks and decompressed on the fly,
    so a compressed file of any size costs a block of memory. ``on_read`` receives the bytes of
    ``raw`` used since its last call. The caller closes ``raw``.
    """
    decoder = codecs.getincrementaldecoder("utf-8")(errors=errors)
    offset = 0
    used = 0
    try:
        with open_decompressed(Path(name), compression, raw) as fh:
            while True:
                block = fh.read(block_size or BLOCK_SIZE)
                final = not block
                if on_content is not None:
                    on_content(len(block))
                if on_read is not None:
                    now = raw.tell() if compression else used + len(block)
                    if now > used:
                        on_read(now - used)
                        used = now
                pending = len(decoder.getstate()[0])  # bytes of an unfinished character, held back
                try:
                    text = decoder.decode(block, final=final)
                except UnicodeDecodeError as exc:
                    raise _not_utf8(name, compression, offset - pending + exc.start) from None
                if text:
                    yield text
                if final:
                    return
                offset += len(block)
    except (EOFError, lzma.LZMAError, gzip.BadGzipFile) as exc:
        raise CorpusError(f"cannot decompress {name}: {exc}", path=name) from None
    except OSError as exc:
        raise CorpusError(f"cannot read {name}: {exc.strerror or exc}", path=name) from None


def _not_utf8(name: str, compression: str | None, where: int) -> CorpusError:
    where_text = " of its decompressed content" if compression else ""
    return CorpusError(
        f"{name} is not valid UTF-8 (byte offset {max(where, 0)}{where_text}); "
        "it can be read with replacement characters instead",
        path=name,
        offset=max(where, 0),
    )


def iter_parts(
    files: list[CorpusFile],
    text: str | None,
    specials: list[str],
    safe_spaces: bool,
    part_size: int,
    errors: str = "strict",
    on_bytes: Callable[[int], None] | None = None,
    log: ReadLog | None = None,
    longest_part: int | None = None,
    on_content: Callable[[int], None] | None = None,
) -> Iterator[str]:
    """Yield corpus text in parts of about ``part_size`` characters, cut only at safe places.

    Safe places are the start of a special token, a file boundary (files are separate
    documents), and, for the named patterns, a space that follows a non-space. A stretch with no
    safe place (20 MB of "a", a whole document under ``none``) is cut after the last safe place
    before it and then every ``longest_part`` (:data:`LONGEST_PART`) characters, so a part is never
    much longer than that; ``log`` counts those cuts. ``on_bytes`` receives the bytes consumed: of the text's UTF-8, or of the files as stored
    on disk; ``log`` the size and SHA-256 of each file read (see :func:`iter_file_text`).
    ``on_content`` receives the text's size in bytes: its UTF-8, or the files' content as
    :func:`iter_file_text` counts it (decompressed, invalid bytes as they were).
    """
    cuts = _CorpusCuts(specials, safe_spaces)
    log = log or ReadLog()
    if text is not None:
        counted = _counted(slices(text, BLOCK_SIZE), _both(on_bytes, on_content))
        yield from cuts.cutter(part_size, longest_part or LONGEST_PART, log).parts(counted)
        return
    for f in files:
        # Files report the bytes read from disk themselves (compressed files by stored size).
        pieces = iter_file_text(f, errors, on_read=on_bytes, log=log, on_content=on_content)
        yield from cuts.cutter(part_size, longest_part or LONGEST_PART, log).parts(pieces)


def _counted(pieces: Iterable[str], count_text: Callable[[int], None] | None) -> Iterator[str]:
    """``pieces``, telling ``count_text`` each one's UTF-8 size as it goes by."""
    for piece in pieces:
        if count_text is not None:
            count_text(len(piece.encode("utf-8")) if not piece.isascii() else len(piece))
        yield piece


def _both(
    first: Callable[[int], None] | None, second: Callable[[int], None] | None
) -> Callable[[int], None] | None:
    """One byte counter that tells both ``first`` and ``second`` (either may be None)."""
    if first is None or second is None:
        return first or second

    def tell_both(n: int) -> None:
        first(n)
        second(n)

    return tell_both


def text_parts(
    pieces: Iterable[str],
    specials: list[str],
    safe_spaces: bool,
    part_size: int,
    log: ReadLog | None = None,
    longest_part: int | None = None,
) -> Iterator[str]:
    """One document's text, given in ``pieces`` of any size, in parts cut as :func:`iter_parts`
    cuts each file (a Dask worker reads a whole file this way).

    A pre-token split across two pieces is whole in one part, so counting each part counts the
    document exactly as a local count does; ``log`` counts the cuts made where no safe place was.
    """
    cutter = _CorpusCuts(specials, safe_spaces).cutter(
        part_size, longest_part or LONGEST_PART, log or ReadLog()
    )
    return cutter.parts(pieces)


# A part with no safe place to cut is cut anyway at this many characters (see iter_parts): the
# pre-tokens it holds are cut at LONGEST_PRETOKEN characters anyway, 64 times fewer.
LONGEST_PART = 1 << 22


class _CorpusCuts:
    """Where corpus text may be cut into parts without changing how it pre-tokenizes: before a
    special token, and (``safe_spaces``) at a space after a non-space outside a special token."""

    def __init__(self, specials: list[str], safe_spaces: bool) -> None:
        self.special_re = (
            regex.compile("|".join(regex.escape(s) for s in sorted(specials, key=len, reverse=True)))
            if specials
            else None
        )
        self.longest = max((len(s) for s in specials), default=0)
        self.safe_spaces = safe_spaces

    def cutter(self, part_size: int, longest_part: int, log: ReadLog) -> PartCutter:
        """The part cutter that cuts by these rules (counting its forced cuts in ``log``)."""
        return PartCutter(self.cut_point, part_size, longest_part, self.longest, log.cuts)

    def cut_point(self, buf: str) -> int:
        """The last safe place in ``buf`` before its end (less the longest special token, which
        may still be incomplete), or 0."""
        limit = len(buf) - max(self.longest, 1)
        if limit <= 0:
            return 0
        if self.safe_spaces:
            pos = self._space_cut(buf, limit)
            if pos > 0:
                return pos
        return self._special_cut(buf, limit)

    def _space_cut(self, buf: str, limit: int) -> int:
        pos = buf.rfind(" ", 0, limit + 1)
        while pos > 0:
            if not buf[pos - 1].isspace() and not self._inside_special(buf, pos):
                return pos
            pos = buf.rfind(" ", 0, pos)
        return 0

    def _special_cut(self, buf: str, limit: int) -> int:
        if self.special_re is None:
            return 0
        last = 0
        for m in self.special_re.finditer(buf, 0, limit + self.longest):
            if m.start() <= limit:
                last = m.start()
        return last

    def _inside_special(self, buf: str, pos: int) -> bool:
        if self.special_re is None:
            return False
        lo = max(0, pos - self.longest)
        return any(
            m.start() < pos < m.end()
            for m in self.special_re.finditer(buf, lo, min(len(buf), pos + self.longest))
        )
