"""Records on Dask workers: a Parquet row group, a range of a JSON Lines file or an Arrow file read as
documents, and what each worker read added up in corpus order.

A worker reads its part of a file of records exactly as a local count reads the whole file
(:class:`~tokviz.core.corpus.documents.CorpusReader`: the same field, skips and errors), so the
table and the counts of records it returns add up to the local ones. A JSON Lines range starts and
ends at line starts; its lines are numbered from the range's start, and :func:`shift_lines` turns
such numbers into the file's once the lines before the range are counted (only for a message).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ..corpus.containers import JSONL, RecordTally
from ..corpus.documents import CorpusReader
from ..corpus.reading import BLOCK_SIZE, iter_stream_blocks

# How far past a range's end a worker first reads to find the next line start (doubled as needed).
_LINE_WINDOW = 1 << 16


@dataclass(frozen=True)
class RecordPlace:
    """Where a worker reads records: the file (its URL, the name messages use, its container and
    compression, its size), and the part of it: a byte range of JSON Lines (``start``, ``end``,
    moved to line starts unless ``whole``), a Parquet ``row_group``, or the whole file."""

    url: str
    name: str
    container: str
    compression: str | None
    size: int
    start: int = 0
    end: int = 0
    whole: bool = True
    row_group: int | None = None


@dataclass
class RecordPart:
    """What workers read of records, added up in corpus order: the counts of records and skips, the
    bytes of text, the records of each file (by URL), and for each kind of skip first met in a JSON
    Lines range, that range's start (its line numbers count from there; 0: from the file's start)."""

    tally: RecordTally
    text_bytes: int = 0
    per_file: dict[str, int] = field(default_factory=dict)
    starts: dict[str, tuple[str, int]] = field(default_factory=dict)

    def add(self, other: RecordPart) -> None:
        """Add ``other``, read after this part."""
        for reason in other.tally.first:
            if reason not in self.tally.first and reason in other.starts:
                self.starts[reason] = other.starts[reason]
        self.tally.add(other.tally)
        self.text_bytes += other.text_bytes
        for url, n in other.per_file.items():
            self.per_file[url] = self.per_file.get(url, 0) + n


def line_start(read: Callable[[int, int], bytes], pos: int, size: int) -> int:
    """The first line start at or after byte ``pos`` of a file of ``size`` bytes (``size`` if none);
    ``read(offset, length)`` returns the file's bytes there."""
    if pos <= 0:
        return 0
    if pos >= size:
        return size
    lo = pos - 1
    window = _LINE_WINDOW
    while True:
        buf = read(lo, window)
        at = buf.find(b"\n")
        if at >= 0:
            return lo + at + 1
        if not buf or lo + len(buf) >= size:
            return size
        lo += len(buf)
        window *= 2


def lines_before(fh: Any, offset: int) -> int:
    """How many lines end before byte ``offset`` of the open file ``fh`` (read in blocks)."""
    fh.seek(0)
    count = 0
    left = offset
    while left > 0:
        block = fh.read(min(BLOCK_SIZE, left))
        if not block:
            break
        count += block.count(b"\n")
        left -= len(block)
    return count


def shift_lines(text: str, name: str, base: int) -> str:
    """``text`` (a message or a place) with the line numbers it gives in ``name`` moved on by
    ``base`` lines (``docs.jsonl:3`` -> ``docs.jsonl:1003``; ``docs.jsonl, line 3`` too)."""
    if not base:
        return text
    escaped = re.escape(name)

    def moved(m: re.Match[str]) -> str:
        line = int(m.group(2).replace(",", "")) + base
        # A place is written name:7; a message says "line 1,007".
        return f"{m.group(1)}{line}" if m.group(1).endswith(":") else f"{m.group(1)}{line:,}"

    return re.sub(rf"({escaped}:|{escaped}, line )([\d,]+)", moved, text)


def record_documents(fh: Any, place: RecordPlace, reader: CorpusReader) -> Iterator[Iterable[str]]:
    """The documents of one part of a file of records open as ``fh``, read by ``reader`` as a
    local read reads the whole file."""
    if place.container != JSONL:
        groups = None if place.row_group is None else [place.row_group]
        return reader.table_records(fh, place.container, place.name, groups)
    if place.whole:
        return reader.jsonl_records(iter_stream_blocks(fh, place.name, place.compression), place.name)
    return reader.jsonl_records(_range_blocks(fh, place), place.name)


def _range_blocks(fh: Any, place: RecordPlace) -> Iterator[bytes]:
    """The bytes of a JSON Lines range, its ends moved to the next line starts, in blocks."""

    def read(offset: int, length: int) -> bytes:
        fh.seek(offset)
        data: bytes = fh.read(length)
        return data

    start = line_start(read, place.start, place.size)
    end = line_start(read, place.end, place.size)
    fh.seek(start)
    left = end - start
    while left > 0:
        block = fh.read(min(BLOCK_SIZE, left))
        if not block:
            return
        left -= len(block)
        yield block


def range_start(fh: Any, place: RecordPlace) -> int:
    """Where a JSON Lines range's lines begin (0 for a whole file): its line numbers count from there."""
    if place.whole or place.container != JSONL:
        return 0

    def read(offset: int, length: int) -> bytes:
        fh.seek(offset)
        data: bytes = fh.read(length)
        return data

    return line_start(read, place.start, place.size)


def record_part(reader: CorpusReader, url: str, start: int) -> RecordPart:
    """What ``reader`` read of one part (beginning at byte ``start`` of the file at ``url``)."""
    starts = {reason: (url, start) for reason in reader.tally.first} if start else {}
    return RecordPart(reader.tally, reader.text_bytes, {url: reader.tally.records}, starts)
