"""Reading a training corpus as a stream of text parts cut where pre-tokenization cannot change.

Files are read in blocks and decoded incrementally, so memory follows the block size, not the
corpus size. Files compressed with gzip, bzip2 or xz (recognised by their first bytes, whatever
their name) are decompressed on the fly, block by block like any other file. Invalid UTF-8 is an
error that names the file and byte offset, unless the caller asked to continue with replacement
characters.

A folder is a collection of whatever happens to be in it (``/usr/lib/python3.11`` holds ``.pyc``
and ``.so`` files next to the sources), so a folder walk looks at the first few KB of each file
(decompressed first, when compressed) and leaves out those that are not text, counting them in a
:class:`CorpusSummary` the CLI and the GUI show. Unless invalid UTF-8 is to be replaced, a folder's
text files are also checked to the end, so a run never stops at a bad byte deep in one of them. A file named explicitly was asked for, so it
is read even when the sniff calls it binary (UTF-8 text with NUL bytes is text); only one that is
not UTF-8 either is an error, not a silent skip.
"""

from __future__ import annotations

import bz2
import codecs
import gzip
import io
import lzma
import os
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import regex

from .errors import CorpusError
from .filekind import not_regular_reason

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


@dataclass(frozen=True)
class CorpusSummary:
    """What a corpus scan found: the files it will read and those a folder walk left out.

    ``bytes`` counts the used files as stored (compressed files by their compressed size, as
    training's progress does). ``binary_kinds`` are the commonest suffixes of the binary files
    left out, most frequent first, to say what they were (".pyc", ".so").
    """

    files: int = 0
    bytes: int = 0
    compressed: int = 0
    skipped_binary: int = 0
    skipped_not_utf8: int = 0
    skipped_unreadable: int = 0
    skipped_bytes: int = 0
    binary_kinds: tuple[str, ...] = field(default=(), repr=False)

    @property
    def skipped(self) -> int:
        """How many files of the folders were left out, for any reason."""
        return self.skipped_binary + self.skipped_not_utf8 + self.skipped_unreadable

    def note(self, replace_hint: str = "--replace-invalid") -> str | None:
        """One line about the files left out ("skipped 1,406 binary files (.pyc, .so, …)"), or None.

        ``replace_hint`` names the way to read non-UTF-8 text anyway (a CLI flag, a checkbox).
        """
        parts = []
        if self.skipped_binary:
            parts.append(f"skipped {_files(self.skipped_binary, 'binary file')}{_kinds(self.binary_kinds)}")
        if self.skipped_not_utf8:
            parts.append(
                f"skipped {_files(self.skipped_not_utf8, 'file')} that "
                f"{'is' if self.skipped_not_utf8 == 1 else 'are'} not UTF-8 ({replace_hint} reads them)"
            )
        if self.skipped_unreadable:
            parts.append(f"skipped {_files(self.skipped_unreadable, 'unreadable file')}")
        return "; ".join(parts) or None


def _files(n: int, noun: str) -> str:
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def _kinds(kinds: tuple[str, ...]) -> str:
    if not kinds:
        return ""
    shown = kinds[:3]
    return f" ({', '.join(shown)}{', …' if len(kinds) > 3 else ''})"


@dataclass(frozen=True)
class CorpusScan:
    """A resolved corpus: the files to read (or the text itself) and what the scan found."""

    files: list[CorpusFile]
    text: str | None
    summary: CorpusSummary


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


def scan_source(source: CorpusSource, errors: str = "strict") -> CorpusScan:
    """Resolve ``source`` into files to read (or literal text), leaving out what is not text.

    A ``str`` is the text itself. A path (``os.PathLike``) or a list of paths (``str`` or
    ``PathLike`` items) is read from disk; folders contribute their files recursively in sorted
    order, skipping hidden ones, binary ones and (unless ``errors="replace"``) text that is not
    UTF-8; the summary counts them. A file named explicitly is read whatever the sniff says of it
    (a log with NUL bytes is still UTF-8 text); one that is binary and not UTF-8 raises
    :class:`CorpusError` unless ``errors="replace"``.
    """
    if isinstance(source, str):
        return CorpusScan([], source, CorpusSummary())
    items = [source] if isinstance(source, os.PathLike) else list(source)
    if not items:
        raise CorpusError("the corpus is empty: no files were given")
    files: list[CorpusFile] = []
    walk = _FolderWalk(errors)
    for item in items:
        path = Path(item)
        if path.is_dir():
            files.extend(walk.text_files(path))
        elif path.is_file():
            files.append(_named_file(path, errors))
        else:
            raise CorpusError(_not_a_corpus_file(path), path=str(path))
    summary = walk.summary(files)
    if not files:
        found = summary.note("replacing invalid UTF-8")
        holds = f"no text files ({found})" if found else "no files"
        raise CorpusError(f"the corpus is empty: the folder holds {holds}")
    return CorpusScan(files, None, summary)


def resolve_source(source: CorpusSource, errors: str = "strict") -> tuple[list[CorpusFile], str | None]:
    """Split ``source`` into files to read or literal text (see :func:`scan_source`)."""
    scan = scan_source(source, errors)
    return scan.files, scan.text


def _named_file(path: Path, errors: str = "strict") -> CorpusFile:
    """A file the user named: read it whatever its name or the control characters in it, but
    refuse (unless invalid UTF-8 is to be replaced) one that is binary and not UTF-8."""
    try:
        kind, compression = sniff_file(path)
    except OSError as exc:
        raise CorpusError(f"cannot read {path}: {exc.strerror or exc}", path=str(path)) from None
    packed = f"{compression}-compressed " if compression else ""
    file = CorpusFile(path, path.stat().st_size, compression)
    if kind == BINARY and errors != "replace" and decodes_to_end(file) != TEXT:
        raise CorpusError(
            f"{path} is a {packed}binary file, not text; a corpus file must hold UTF-8 text",
            path=str(path),
        )
    if kind == UNREADABLE:
        raise CorpusError(f"cannot decompress {path}: the file is damaged or cut short", path=str(path))
    return file


class _FolderWalk:
    """Walks folders for a scan, keeping the text files and counting the others by kind."""

    def __init__(self, errors: str) -> None:
        self.errors = errors
        self.counts: Counter[str] = Counter()
        self.skipped_bytes = 0
        self.binary_suffixes: Counter[str] = Counter()

    def text_files(self, root: Path) -> Iterator[CorpusFile]:
        """The files under ``root`` that are text, in sorted order; hidden ones are not looked at."""
        for sub in sorted(p for p in root.rglob("*") if not _hidden(p, root) and p.is_file()):
            try:
                size = sub.stat().st_size
                kind, compression = sniff_file(sub)
            except OSError:
                size, kind, compression = 0, UNREADABLE, None
            file = CorpusFile(sub, size, compression)
            if kind == TEXT and self.errors == "strict":
                kind = whole_file_kind(file)
            if kind == TEXT or (kind == NOT_UTF8 and self.errors == "replace"):
                yield file
                continue
            self.counts[kind] += 1
            self.skipped_bytes += size
            if kind == BINARY:
                self.binary_suffixes[suffix_kind(sub)] += 1

    def summary(self, files: list[CorpusFile]) -> CorpusSummary:
        """The counts of this walk with the files finally used."""
        return CorpusSummary(
            files=len(files),
            bytes=sum(f.size for f in files),
            compressed=sum(1 for f in files if f.compression),
            skipped_binary=self.counts[BINARY],
            skipped_not_utf8=self.counts[NOT_UTF8],
            skipped_unreadable=self.counts[UNREADABLE],
            skipped_bytes=self.skipped_bytes,
            binary_kinds=tuple(k for k, _ in self.binary_suffixes.most_common()),
        )


def whole_file_kind(file: CorpusFile) -> str:
    """``text`` when the whole file decodes as UTF-8, else ``not-utf8`` (or ``unreadable``).

    In strict mode a folder's file that is UTF-8 at its start but not further on (an old
    changelog with Latin-1 names) would stop a long run at its first bad byte, so it is checked
    to the end (streamed) before training and left out like any other non-UTF-8 file. A
    compressed file cut short is found here too. Files no longer than the sniff are known.
    """
    if file.compression is None and file.size <= SNIFF_SIZE:
        return TEXT
    return decodes_to_end(file)


def decodes_to_end(file: CorpusFile) -> str:
    """``text`` when the whole file (decompressed) decodes as UTF-8, else ``not-utf8`` (or
    ``unreadable`` for a damaged compressed file): whatever the sniff said, read to the end."""
    try:
        for _ in iter_file_text(file):
            pass
    except CorpusError as exc:
        return NOT_UTF8 if exc.offset is not None else UNREADABLE
    return TEXT


def suffix_kind(path: Path) -> str:
    """How a skipped file is named in the note: its suffix (".pyc"; ".tar.gz"), or its name."""
    suffixes = path.suffixes
    if not suffixes or len(path.suffix) > 8 or not path.suffix[1:].isalnum():
        return "no extension"
    if path.suffix in (".gz", ".bz2", ".xz") and len(suffixes) > 1 and len(suffixes[-2]) <= 5:
        return "".join(suffixes[-2:])
    return path.suffix


def _not_a_corpus_file(path: Path) -> str:
    """Why ``path`` cannot be read as a corpus file: missing, or what else it is (a FIFO would
    block the reader forever and a device such as /dev/zero never ends, so both are refused)."""
    reason = not_regular_reason(path)
    if reason == "does not exist":
        if str(path) == "-":
            return "'-' (standard input) cannot be a corpus: save the text to a file and give its path"
        return f"corpus file not found: {path}"
    return f"the corpus {path} {reason}; a corpus must be regular files or folders"


def _hidden(path: Path, root: Path) -> bool:
    return any(part.startswith(".") for part in path.relative_to(root).parts)


def iter_file_text(
    file: CorpusFile,
    errors: str = "strict",
    block_size: int | None = None,
    on_read: Callable[[int], None] | None = None,
    on_content: Callable[[int], None] | None = None,
) -> Iterator[str]:
    """Decode one file block by block; a strict decode error names the file and byte offset.

    A compressed file is decompressed as it is read (the offset is then one in its decompressed
    content). ``on_read`` receives the bytes of the file used since its last call, counted as
    stored on disk, so progress over compressed files is measured against their stored size.
    ``on_content`` receives the bytes of content decoded (decompressed, and before any invalid
    byte becomes U+FFFD): the input's own size, which bytes per token divide.
    """
    try:
        with open(file.path, "rb") as raw:
            yield from iter_stream_text(
                raw, str(file.path), file.compression, errors, block_size, on_read, on_content
            )
    except OSError as exc:
        raise CorpusError(f"cannot read {file.path}: {exc.strerror or exc}", path=str(file.path)) from None


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
    so a compressed file of any size costs a block of memory. The caller closes ``raw``.
    """
    block_size = block_size or BLOCK_SIZE
    decoder = codecs.getincrementaldecoder("utf-8")(errors=errors)
    offset = 0
    used = 0
    where_text = " of its decompressed content" if compression else ""
    try:
        with open_decompressed(Path(name), compression, raw) as fh:
            while True:
                block = fh.read(block_size)
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
                    where = max(offset - pending + exc.start, 0)
                    raise CorpusError(
                        f"{name} is not valid UTF-8 (byte offset {where}{where_text}); "
                        "it can be read with replacement characters instead",
                        path=name,
                        offset=where,
                    ) from None
                if text:
                    yield text
                if final:
                    return
                offset += len(block)
    except (EOFError, lzma.LZMAError, gzip.BadGzipFile) as exc:
        raise CorpusError(f"cannot decompress {name}: {exc}", path=name) from None
    except OSError as exc:
        raise CorpusError(f"cannot read {name}: {exc.strerror or exc}", path=name) from None


def iter_parts(
    files: list[CorpusFile],
    text: str | None,
    specials: list[str],
    safe_spaces: bool,
    part_size: int,
    errors: str = "strict",
    on_bytes: Callable[[int], None] | None = None,
    on_content: Callable[[int], None] | None = None,
) -> Iterator[str]:
    """Yield corpus text in parts of about ``part_size`` characters, cut only at safe places.

    Safe places are the start of a special token, a file boundary (files are separate
    documents), and, for the named patterns, a space that follows a non-space. ``on_bytes``
    receives the bytes consumed: of the text's UTF-8, or of the files as stored on disk.
    ``on_content`` receives the text's size in bytes: its UTF-8, or the files' content as
    :func:`iter_file_text` counts it (decompressed, invalid bytes as they were).
    """
    cut_point = safe_cut_finder(specials, safe_spaces, part_size)
    if text is not None:
        pieces: Iterable[str] = _chunks_of(text, BLOCK_SIZE)
        for counter in (on_bytes, on_content):
            if counter is not None:
                pieces = _counting_bytes(pieces, counter)
        yield from _cut_parts(pieces, cut_point, part_size)
        return
    # Files report the bytes read from disk themselves (compressed files by stored size).
    for f in files:
        pieces = iter_file_text(f, errors, on_read=on_bytes, on_content=on_content)
        yield from _cut_parts(pieces, cut_point, part_size)


def text_parts(
    pieces: Iterable[str], specials: list[str], safe_spaces: bool, part_size: int
) -> Iterator[str]:
    """One document's text, given in ``pieces`` of any size, in parts cut only at safe places.

    A pre-token split across two pieces is whole in one part, so counting each part counts the
    document exactly (see :func:`iter_parts`, which does this for every file of a corpus).
    """
    return _cut_parts(pieces, safe_cut_finder(specials, safe_spaces, part_size), part_size)


def _counting_bytes(pieces: Iterable[str], on_bytes: Callable[[int], None]) -> Iterator[str]:
    for piece in pieces:
        on_bytes(len(piece.encode("utf-8")) if not piece.isascii() else len(piece))
        yield piece


def _cut_parts(pieces: Iterable[str], cut_point: Callable[[str], int], part_size: int) -> Iterator[str]:
    """Gather ``pieces`` and yield parts of about ``part_size`` characters at ``cut_point``'s cuts."""
    buf = ""
    for piece in pieces:
        buf += piece
        while len(buf) >= part_size:
            cut = cut_point(buf)
            if cut <= 0:
                break
            yield buf[:cut]
            buf = buf[cut:]
    if buf:
        yield buf


def safe_cut_finder(specials: list[str], safe_spaces: bool, part_size: int) -> Callable[[str], int]:
    """A function giving the last safe cut in a buffer's final ``part_size`` characters (0: none).

    A buffer's last characters (as many as the longest special token) are never cut, as more
    text may complete a special token there.
    """
    special_re = (
        regex.compile("|".join(regex.escape(s) for s in sorted(specials, key=len, reverse=True)))
        if specials
        else None
    )
    longest = max((len(s) for s in specials), default=0)

    def inside_special(buf: str, pos: int) -> bool:
        if special_re is None:
            return False
        lo = max(0, pos - longest)
        return any(
            m.start() < pos < m.end() for m in special_re.finditer(buf, lo, min(len(buf), pos + longest))
        )

    def cut_point(buf: str) -> int:
        limit = len(buf) - max(longest, 1)
        if limit <= 0:
            return 0
        lo = max(0, limit - part_size)
        if safe_spaces:
            pos = buf.rfind(" ", lo, limit + 1)
            while pos > 0:
                if not buf[pos - 1].isspace() and not inside_special(buf, pos):
                    return pos
                pos = buf.rfind(" ", lo, pos)
        if special_re is None:
            return 0
        starts = [m.start() for m in special_re.finditer(buf, 0, limit + longest) if m.start() <= limit]
        return starts[-1] if starts else 0

    return cut_point


def _chunks_of(text: str, size: int) -> Iterator[str]:
    for i in range(0, len(text), size):
        yield text[i : i + size]
