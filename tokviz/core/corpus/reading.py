"""Reading a training corpus as a stream of text parts cut where pre-tokenization cannot change.

Files are read in blocks and decoded incrementally, so memory follows the block size, not the
corpus size. Files compressed with gzip, bzip2, xz or zstd (recognised by their first bytes,
whatever their name) are decompressed on the fly, block by block like any other file. Invalid
UTF-8 is an error that names the file and byte offset, unless the caller asked to continue with
replacement characters.

Which files make a corpus is chosen by :mod:`tokviz.core.corpus.fileselect`, with the tools here: the
first few KB of each file (decompressed first, when compressed) tell text from binary
(:func:`sniff`), and :func:`iter_file_text` reads a file to its end. Files of records (JSON Lines,
Parquet, Arrow) are read by :mod:`tokviz.core.corpus.containers` over the same blocks
(:func:`iter_file_blocks`), and :mod:`tokviz.core.corpus.documents` turns any corpus file into
documents and parts.
"""

from __future__ import annotations

import bz2
import codecs
import gzip
import hashlib
import io
import lzma
import os
from collections.abc import Callable, Generator, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import regex

from ..errors import Cancelled, CorpusError
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

# A zstd frame's first four bytes (RFC 8878).
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
# What a sniffed file is: text, binary, or text in another encoding than UTF-8.
TEXT, BINARY, NOT_UTF8, UNREADABLE = "text", "binary", "not-utf8", "unreadable"


@dataclass(frozen=True)
class CorpusFile:
    """One file of a corpus: its path, its size on disk, how it is compressed (or None), and what
    holds its text: ``text`` (the file is one document), ``jsonl``, ``parquet`` or ``arrow`` (each
    record a document; see :mod:`tokviz.core.corpus.containers`)."""

    path: Path
    size: int
    compression: str | None = None
    container: str = "text"


def compression_of(head: bytes) -> str | None:
    """The compression a file's first bytes announce: ``gzip``, ``bzip2``, ``xz``, ``zstd`` or None.

    bzip2's "BZh" is checked with the block level and the block (or end-of-stream) magic after
    it, so a text that happens to start with "BZh" stays text.
    """
    if head.startswith(b"\x1f\x8b"):
        return "gzip"
    if head.startswith(b"\xfd7zXZ\x00"):
        return "xz"
    if head.startswith(ZSTD_MAGIC):
        return "zstd"
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
    if compression == "zstd":
        return _zstd_reader(path, raw)
    return raw if raw is not None else open(path, "rb")  # noqa: SIM115 - returned to the caller


def _zstd_reader(path: Path, raw: io.BufferedReader | None) -> io.BufferedIOBase:
    """A zstd stream decompressed on the fly, buffered so that reading lines or small blocks
    stays cheap (see :class:`_ZstdStream`)."""
    source: Any = raw if raw is not None else open(path, "rb")  # noqa: SIM115 - closed with the reader
    return io.BufferedReader(_ZstdStream(source, close_source=raw is None), buffer_size=BLOCK_SIZE)


class _ZstdStream(io.RawIOBase):
    """The content of a zstd file, every frame of it (``zstd`` and ``pzstd`` write several).

    zstandard's own stream reader ends quietly where a file is cut short; here a frame left
    unfinished at the end of the file raises ``zstandard.ZstdError``, as gzip and xz raise on a
    cut file. zstandard is imported only here: most runs read no zstd file.
    """

    def __init__(self, source: Any, close_source: bool) -> None:
        import zstandard

        super().__init__()
        self.source = source
        self.close_source = close_source
        self.zstd = zstandard
        self.context = zstandard.ZstdDecompressor()
        self.frame = self.context.decompressobj()
        self.started = False  # the current frame has been given data
        self.pending = memoryview(b"")
        self.at = 0
        self.ended = False

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        while self.at >= len(self.pending) and not self.ended:
            self.pending, self.at = memoryview(self._next_output()), 0
        n = min(len(buffer), len(self.pending) - self.at)
        memoryview(buffer)[:n] = self.pending[self.at : self.at + n]  # a view: one copy, not two
        self.at += n
        return n

    def _next_output(self) -> bytes:
        chunk = self.source.read(BLOCK_SIZE)
        if not chunk:
            self.ended = True
            if self.started and not self.frame.eof:
                raise self.zstd.ZstdError("the zstd data is cut short (its last frame does not end)")
            return b""
        out = []
        while chunk:
            out.append(self.frame.decompress(chunk))
            self.started = True
            if not self.frame.eof:
                break
            chunk = self.frame.unused_data
            self.frame = self.context.decompressobj()
            self.started = False
        return b"".join(out)

    def tell(self) -> int:
        return int(self.source.tell())

    def close(self) -> None:
        if self.close_source and not self.closed:
            self.source.close()
        super().close()


def decompress_errors() -> tuple[type[BaseException], ...]:
    """What a decompressor raises on damaged data (gzip.BadGzipFile is an OSError; zstandard's
    ZstdError is its own). Called where such an error is caught, so zstandard loads only then."""
    import zstandard

    return (OSError, EOFError, lzma.LZMAError, zstandard.ZstdError)


@dataclass(frozen=True)
class Sniffed:
    """What the first bytes of a file say: its kind (``text``, ``binary``, ``not-utf8`` or
    ``unreadable``), its compression, its first bytes as stored (``head``) and, decompressed, the
    first bytes of its content (``content``; ``complete`` when that is the whole content)."""

    kind: str
    compression: str | None
    head: bytes
    content: bytes
    complete: bool


def sniff(path: Path) -> Sniffed:
    """Look at the start of a file: at most :data:`SNIFF_SIZE` bytes of content (decompressed, for
    a compressed file). ``unreadable`` is a compressed file that cannot be decompressed; a file
    that cannot be opened or read at all raises ``OSError``.
    """
    with open(path, "rb") as fh:
        head = fh.read(SNIFF_SIZE)
        compression = compression_of(head)
        if compression is None:
            complete = len(head) < SNIFF_SIZE
            return Sniffed(classify_head(head, complete), None, head, head, complete)
        fh.seek(0)
        try:
            with open_decompressed(path, compression, fh) as stream:
                content = stream.read(SNIFF_SIZE)
        except decompress_errors():
            return Sniffed(UNREADABLE, compression, head, b"", False)
        complete = len(content) < SNIFF_SIZE
        return Sniffed(classify_head(content, complete), compression, head, content, complete)


def sniff_file(path: Path) -> tuple[str, str | None]:
    """What the file is (``text``, ``binary``, ``not-utf8`` or ``unreadable``) and its compression
    (see :func:`sniff`)."""
    found = sniff(path)
    return found.kind, found.compression


@dataclass(frozen=True)
class FileRead:
    """One corpus file as a run read it: its path, its bytes as stored and their SHA-256.

    The hash is of the bytes actually read (compressed files: the stored, compressed bytes), so a
    model's provenance names what it was trained on even if the file changes afterwards. A file of
    records also names its ``container`` (``jsonl``, ``parquet``, ``arrow``), the ``field`` read and
    how many ``records`` gave text. ``partial`` is a file a size limit stopped in: ``size`` and
    ``sha256`` are then those of the stored bytes read up to there (a JSON Lines or text file), or
    of the whole file (Parquet and Arrow, read by row group).
    """

    path: str
    size: int
    sha256: str
    container: str = "text"
    field: str | None = None
    records: int | None = None
    partial: bool = False

    def to_json(self) -> dict[str, Any]:
        """The file as a model's provenance lists it: path, bytes, SHA-256, and for records the
        container, the field and the record count."""
        out: dict[str, Any] = {"path": self.path, "bytes": self.size, "sha256": self.sha256}
        if self.container != "text":
            out.update(container=self.container, field=self.field, records=self.records)
        if self.partial:
            out["partial"] = True
        return out


def hash_file(path: str | os.PathLike[str], cancel: Callable[[], bool] | None = None) -> tuple[int, str]:
    """The size in bytes and SHA-256 (hex) of a file as stored, read in blocks; ``cancel`` is polled
    between blocks (:class:`~tokviz.core.errors.Cancelled` when it returns True). A file that
    cannot be read is a :class:`CorpusError` naming it."""
    digest = hashlib.sha256()
    size = 0
    try:
        with open(path, "rb") as fh:
            while block := fh.read(BLOCK_SIZE):
                if cancel is not None and cancel():
                    raise Cancelled("cancelled while hashing the corpus")
                digest.update(block)
                size += len(block)
    except OSError as exc:
        raise CorpusError(f"cannot read {path}: {exc.strerror or exc}", path=str(path)) from None
    return size, digest.hexdigest()


class ReadLog:
    """What a run's reading saw: a :class:`FileRead` for each file :func:`iter_file_text` read to
    its end, and how often :func:`~tokviz.core.corpus.documents.iter_parts` cut text where it found
    no safe place."""

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
) -> Generator[str, None, None]:
    """Decode one file block by block; a strict decode error names the file and byte offset.

    A compressed file is decompressed as it is read (the offset is then one in its decompressed
    content). ``on_read`` receives the bytes of the file used since its last call, counted as
    stored on disk, so progress over compressed files is measured against their stored size.
    A file whose size or modification time changed while it was read (cut short or written to by
    another program) is a :class:`CorpusError` that names it: what was read is no version of the
    file. ``log`` receives the size and SHA-256 of the bytes read once the file is read to its end
    (or, marked partial, of the bytes read so far when the reader stops early).
    ``on_content`` receives the bytes of content decoded (decompressed, and before any invalid
    byte becomes U+FFFD): the input's own size, which bytes per token divide.
    """
    blocks = iter_file_blocks(file, block_size, on_read, log)
    return decode_blocks(blocks, str(file.path), file.compression, errors, on_content)


def iter_file_blocks(
    file: CorpusFile,
    block_size: int | None = None,
    on_read: Callable[[int], None] | None = None,
    log: ReadLog | None = None,
) -> Generator[bytes, None, None]:
    """One file's content in blocks of bytes, decompressed as it is read (see :func:`iter_file_text`
    for ``on_read``, ``log`` and the check that the file did not change while it was read)."""
    witness: _WitnessReader | None = None
    try:
        with open(file.path, "rb") as raw:
            before = os.fstat(raw.fileno())
            witness = _WitnessReader(raw, hashing=log is not None)
            yield from iter_stream_blocks(witness, str(file.path), file.compression, block_size, on_read)
            _check_unchanged(file, before, os.fstat(raw.fileno()), witness.count)
    except OSError as exc:
        raise CorpusError(f"cannot read {file.path}: {exc.strerror or exc}", path=str(file.path)) from None
    except GeneratorExit:
        # The reader stopped early (a size limit): the file is named by the bytes it used.
        if log is not None and witness is not None and witness.digest is not None and witness.count:
            log.files.append(
                FileRead(str(file.path), witness.count, witness.digest.hexdigest(), partial=True)
            )
        raise
    if log is not None and witness is not None and witness.digest is not None:
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
    blocks = iter_stream_blocks(raw, name, compression, block_size, on_read)
    return decode_blocks(blocks, name, compression, errors, on_content)


def iter_stream_blocks(
    raw: Any,
    name: str,
    compression: str | None,
    block_size: int | None = None,
    on_read: Callable[[int], None] | None = None,
) -> Iterator[bytes]:
    """The content of ``raw`` in blocks of bytes, decompressed on the fly (see :func:`iter_stream_text`).

    A damaged compressed file is a :class:`CorpusError` naming it. Ends with no empty block.
    """
    used = 0
    try:
        with open_decompressed(Path(name), compression, raw) as fh:
            while True:
                block = fh.read(block_size or BLOCK_SIZE)
                if on_read is not None:
                    now = raw.tell() if compression else used + len(block)
                    if now > used:
                        on_read(now - used)
                        used = now
                if not block:
                    return
                yield block
    except OSError as exc:
        if isinstance(exc, gzip.BadGzipFile):
            raise CorpusError(f"cannot decompress {name}: {exc}", path=name) from None
        raise CorpusError(f"cannot read {name}: {exc.strerror or exc}", path=name) from None
    except decompress_errors() as exc:
        raise CorpusError(f"cannot decompress {name}: {exc}", path=name) from None


def decode_blocks(
    blocks: Iterable[bytes],
    name: str,
    compression: str | None,
    errors: str = "strict",
    on_content: Callable[[int], None] | None = None,
) -> Generator[str, None, None]:
    """UTF-8 text of ``blocks`` (a file's content), decoded incrementally; a strict decode error
    names ``name`` and the byte offset (in the decompressed content, when ``compression``).
    ``on_content`` receives each block's size before decoding."""
    decoder = codecs.getincrementaldecoder("utf-8")(errors=errors)
    offset = 0
    for block in blocks:
        if on_content is not None:
            on_content(len(block))
        pending = len(decoder.getstate()[0])  # bytes of an unfinished character, held back
        try:
            text = decoder.decode(block)
        except UnicodeDecodeError as exc:
            raise _not_utf8(name, compression, offset - pending + exc.start) from None
        if text:
            yield text
        offset += len(block)
    pending = len(decoder.getstate()[0])
    try:
        text = decoder.decode(b"", final=True)
    except UnicodeDecodeError as exc:
        raise _not_utf8(name, compression, offset - pending + exc.start) from None
    if text:
        yield text


def _not_utf8(name: str, compression: str | None, where: int) -> CorpusError:
    where_text = " of its decompressed content" if compression else ""
    return CorpusError(
        f"{name} is not valid UTF-8 (byte offset {max(where, 0)}{where_text}); "
        "it can be read with replacement characters instead",
        path=name,
        offset=max(where, 0),
    )


def both_counters(
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
    """One document's text, given in ``pieces`` of any size, in parts cut as
    :func:`~tokviz.core.corpus.documents.iter_parts` cuts each document (a Dask worker reads a
    whole file this way).

    A pre-token split across two pieces is whole in one part, so counting each part counts the
    document exactly as a local count does; ``log`` counts the cuts made where no safe place was.
    """
    return part_cutter(specials, safe_spaces, part_size, log, longest_part).parts(pieces)


def part_cutter(
    specials: list[str],
    safe_spaces: bool,
    part_size: int,
    log: ReadLog | None = None,
    longest_part: int | None = None,
) -> PartCutter:
    """A cutter of documents into parts (each document given to its ``parts`` on its own) by the
    corpus's rules (``longest_part`` :data:`LONGEST_PART` unless given; ``log`` counts the cuts
    made where no safe place was)."""
    return _CorpusCuts(specials, safe_spaces).cutter(
        part_size, longest_part or LONGEST_PART, log or ReadLog()
    )


def counted_text(text: str, count_text: Callable[[int], None] | None) -> Iterator[str]:
    """``text`` in blocks of :data:`BLOCK_SIZE` characters (as a file's blocks come), telling
    ``count_text`` each one's UTF-8 size as it goes by."""
    for piece in slices(text, BLOCK_SIZE):
        if count_text is not None:
            count_text(len(piece.encode("utf-8")) if not piece.isascii() else len(piece))
        yield piece


# A part with no safe place to cut is cut anyway at this many characters (see part_cutter): the
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
