"""Reading a training corpus as a stream of text parts cut where pre-tokenization cannot change.

Files are read in blocks and decoded incrementally, so memory follows the block size, not the
corpus size. Invalid UTF-8 is an error that names the file and byte offset, unless the caller
asked to continue with replacement characters.
"""

from __future__ import annotations

import codecs
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import regex

from .errors import CorpusError
from .filekind import not_regular_reason

# What training reads: the text itself, a path, or several paths (files or folders).
CorpusSource = str | os.PathLike[str] | Iterable[str | os.PathLike[str]]

BLOCK_SIZE = 1 << 20
# A space after a non-space is always a chunk boundary for the named GPT-2 / cl100k patterns.
_SAFE_SPACE = regex.compile(r"(?<=\S) ")


@dataclass(frozen=True)
class CorpusFile:
    """One file of a corpus and its size in bytes."""

    path: Path
    size: int


def resolve_source(source: CorpusSource) -> tuple[list[CorpusFile], str | None]:
    """Split ``source`` into files to read or literal text.

    A ``str`` is the text itself. A path (``os.PathLike``) or a list of paths (``str`` or
    ``PathLike`` items) is read from disk; folders contribute their files recursively in sorted
    order, skipping hidden ones.
    """
    if isinstance(source, str):
        return [], source
    items = [source] if isinstance(source, os.PathLike) else list(source)
    if not items:
        raise CorpusError("the corpus is empty: no files were given")
    files: list[CorpusFile] = []
    for item in items:
        path = Path(item)
        if path.is_dir():
            for sub in sorted(p for p in path.rglob("*") if p.is_file() and not _hidden(p, path)):
                files.append(CorpusFile(sub, sub.stat().st_size))
        elif path.is_file():
            files.append(CorpusFile(path, path.stat().st_size))
        else:
            raise CorpusError(_not_a_corpus_file(path), path=str(path))
    if not files:
        raise CorpusError("the corpus is empty: the folder holds no files")
    return files, None


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


def iter_file_text(file: CorpusFile, errors: str = "strict", block_size: int | None = None) -> Iterator[str]:
    """Decode one file block by block; a strict decode error names the file and byte offset."""
    block_size = block_size or BLOCK_SIZE
    decoder = codecs.getincrementaldecoder("utf-8")(errors=errors)
    offset = 0
    try:
        with open(file.path, "rb") as fh:
            while True:
                block = fh.read(block_size)
                final = not block
                pending = len(decoder.getstate()[0])  # bytes of an unfinished character, held back
                try:
                    text = decoder.decode(block, final=final)
                except UnicodeDecodeError as exc:
                    where = offset - pending + exc.start
                    raise CorpusError(
                        f"{file.path} is not valid UTF-8 (byte offset {max(where, 0)}); "
                        "it can be read with replacement characters instead",
                        path=str(file.path),
                        offset=max(where, 0),
                    ) from None
                if text:
                    yield text
                if final:
                    return
                offset += len(block)
    except OSError as exc:
        raise CorpusError(f"cannot read {file.path}: {exc.strerror or exc}", path=str(file.path)) from None


def iter_parts(
    files: list[CorpusFile],
    text: str | None,
    specials: list[str],
    safe_spaces: bool,
    part_size: int,
    errors: str = "strict",
    on_bytes: Callable[[int], None] | None = None,
) -> Iterator[str]:
    """Yield corpus text in parts of about ``part_size`` characters, cut only at safe places.

    Safe places are the start of a special token, a file boundary (files are separate
    documents), and, for the named patterns, a space that follows a non-space.
    """
    special_re = (
        regex.compile("|".join(regex.escape(s) for s in sorted(specials, key=len, reverse=True)))
        if specials
        else None
    )
    longest = max((len(s) for s in specials), default=0)

    def cut_point(buf: str) -> int:
        limit = len(buf) - max(longest, 1)
        if limit <= 0:
            return 0
        lo = max(0, limit - part_size)
        if safe_spaces:
            pos = buf.rfind(" ", lo, limit + 1)
            while pos > 0:
                if not buf[pos - 1].isspace() and not _inside_special(buf, pos):
                    return pos
                pos = buf.rfind(" ", lo, pos)
        if special_re is not None:
            last = 0
            for m in special_re.finditer(buf, 0, limit + longest):
                if m.start() <= limit:
                    last = m.start()
            return last
        return 0

    def _inside_special(buf: str, pos: int) -> bool:
        if special_re is None:
            return False
        lo = max(0, pos - longest)
        for m in special_re.finditer(buf, lo, min(len(buf), pos + longest)):
            if m.start() < pos < m.end():
                return True
        return False

    if text is not None:
        sources: Iterable[Iterable[str]] = [_chunks_of(text, BLOCK_SIZE)]
    else:
        sources = (iter_file_text(f, errors) for f in files)
    for pieces in sources:
        buf = ""
        for piece in pieces:
            if on_bytes is not None:
                on_bytes(len(piece.encode("utf-8")) if not piece.isascii() else len(piece))
            buf += piece
            while len(buf) >= part_size:
                cut = cut_point(buf)
                if cut <= 0:
                    break
                yield buf[:cut]
                buf = buf[cut:]
        if buf:
            yield buf


def _chunks_of(text: str, size: int) -> Iterator[str]:
    for i in range(0, len(text), size):
        yield text[i : i + size]
