"""Any corpus file as documents, and documents as parts: what training, counting, evaluation and
usage all read.

A text file is one document; a file of records (JSON Lines, Parquet, Arrow: see
:mod:`tokviz.core.corpus.containers`) holds one document per record. A document boundary is a hard
cut: no pre-token and no merge crosses it, exactly as if the records were written to one text file
with a special token between them. :class:`CorpusReader` reads files as documents in order, counts
records and their text, and stops where a limit asks (the first ``max_bytes`` bytes of text, or
the first ``max_records`` documents), saying where; :func:`iter_parts` cuts the documents into
parts of bounded size where pre-tokenization cannot change.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import closing
from dataclasses import dataclass, replace
from typing import Any

from ..errors import CorpusError, InvalidArgument
from ..pretok.stretches import slices
from .containers import (
    ARROW,
    CONTAINER_NAMES,
    CONTAINERS,
    JSONL,
    PARQUET,
    TEXT_FILE,
    FieldPath,
    RecordTally,
    arrow_batches,
    column_indexes,
    jsonl_texts,
    open_arrow,
    open_parquet,
    parquet_batches,
    table_texts,
)
from .reading import (
    BLOCK_SIZE,
    CorpusFile,
    FileRead,
    ReadLog,
    both_counters,
    counted_text,
    hash_file,
    iter_file_blocks,
    iter_file_text,
    part_cutter,
)


@dataclass(frozen=True)
class ReadOptions:
    """How records are read and how much of a corpus: the text ``field`` (a dotted path reaches
    into nested objects), whether malformed lines are skipped and counted (``skip_bad``) rather
    than an error, whether JSON Lines are read as plain text (``as_text``), and the limits: the
    first ``max_bytes`` bytes of text or the first ``max_records`` documents (a text file is one)."""

    field: str = "text"
    skip_bad: bool = False
    as_text: bool = False
    max_bytes: int | None = None
    max_records: int | None = None

    def __post_init__(self) -> None:
        FieldPath(self.field)
        for name in ("max_bytes", "max_records"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
                raise InvalidArgument(f"{name} must be a whole number of 1 or more, got {value!r}")

    @property
    def limited(self) -> bool:
        """Whether a limit may stop the reading before the corpus ends."""
        return self.max_bytes is not None or self.max_records is not None


@dataclass(frozen=True)
class ReadSummary:
    """What a read saw: the records (see :class:`~tokviz.core.corpus.containers.RecordTally`), the
    documents and bytes of text, and where a limit stopped it (None when it read everything)."""

    tally: RecordTally
    documents: int
    text_bytes: int
    stopped: str | None = None

    @property
    def has_records(self) -> bool:
        """Whether any file of records was read (plain text alone needs no record note)."""
        return any(k != TEXT_FILE for k in self.tally.files)

    def note(self) -> str | None:
        """One line about the records: ``read 1,000 records of "text" from 2 JSON Lines files
        (4.20 MB of text); 12 records without "text" skipped (first: docs.jsonl:7)``, or None when
        only plain text was read and nothing was skipped."""
        if not self.has_records:
            return None
        tally = self.tally
        kinds = ", ".join(
            f"{n:,} {CONTAINER_NAMES[k]} {'file' if n == 1 else 'files'}"
            for k in CONTAINERS
            if (n := tally.files.get(k, 0))
        )
        said = (
            f'read {tally.records:,} {"record" if tally.records == 1 else "records"} of "{tally.field}" '
            f"from {kinds} ({self.text_bytes / 1e6:,.2f} MB of text)"
        )
        skipped = tally.skipped_note()
        return f"{said}; {skipped}" if skipped else said

    def to_json(self) -> dict[str, Any]:
        """The summary as provenance and count tables record it (records only when there were any)."""
        out: dict[str, Any] = self.tally.to_json() if self.has_records else {}
        if self.stopped is not None:
            out["stopped"] = self.stopped
        return out


def utf8_size(text: str) -> int:
    """Bytes of ``text`` in UTF-8 (a lone surrogate, which UTF-8 cannot hold, as U+FFFD would be)."""
    if text.isascii():
        return len(text)
    return len(text.encode("utf-8", "replace"))


class CorpusReader:
    """Reads corpus files as documents in order, counting records, and stops at the limits.

    ``errors`` is how invalid UTF-8 is read (``strict`` or ``replace``). One reader reads one
    corpus (its limits run across the files); :meth:`summary` says what it read.
    """

    def __init__(self, options: ReadOptions | None = None, errors: str = "strict") -> None:
        self.options = options or ReadOptions()
        self.errors = errors
        self.path = FieldPath(self.options.field)
        self.tally = RecordTally(self.options.field)
        self.documents = 0
        self.text_bytes = 0
        self.stopped: str | None = None

    def summary(self) -> ReadSummary:
        """What was read so far."""
        return ReadSummary(self.tally, self.documents, self.text_bytes, self.stopped)

    def corpus(
        self,
        files: Iterable[CorpusFile],
        on_read: Callable[[int], None] | None = None,
        on_content: Callable[[int], None] | None = None,
        log: ReadLog | None = None,
    ) -> Iterator[Iterable[str]]:
        """Every document of ``files`` in order, each as pieces of text, up to the limits.

        Each document must be read before the next is asked for. ``on_read`` receives the bytes of
        the files used (as stored), ``on_content`` the bytes of text, ``log`` each file as read
        (:class:`~tokviz.core.corpus.reading.FileRead`).
        """
        for file in files:
            if self.stopped is None:
                self._at_record_limit(str(file.path), "before it")
            if self.stopped is not None:
                return
            yield from self.file_documents(file, on_read, on_content, log)

    def file_documents(
        self,
        file: CorpusFile,
        on_read: Callable[[int], None] | None = None,
        on_content: Callable[[int], None] | None = None,
        log: ReadLog | None = None,
    ) -> Iterator[Iterable[str]]:
        """The documents of one file (see :meth:`corpus`)."""
        self.tally.files[file.container] = self.tally.files.get(file.container, 0) + 1
        to = _Reports(on_read, on_content, log)
        if file.container == TEXT_FILE:
            yield from self._text_file(file, to)
        elif file.container == JSONL:
            yield from self._jsonl_file(file, to)
        elif file.container in (PARQUET, ARROW):
            yield from self._table_file(file, to)
        else:
            raise InvalidArgument(f"unknown container {file.container!r} for {file.path}")

    # -- text files: one document each
    def _text_file(self, file: CorpusFile, to: _Reports) -> Iterator[Iterable[str]]:
        self.documents += 1
        if self.options.max_bytes is None:
            counted = both_counters(to.on_content, self._add_bytes)
            yield iter_file_text(file, self.errors, on_read=to.on_read, log=to.log, on_content=counted)
            return
        pieces = iter_file_text(file, self.errors, on_read=to.on_read, log=to.log)
        with closing(pieces):
            yield self._limited_pieces(pieces, str(file.path), to.on_content)

    def _add_bytes(self, n: int) -> None:
        self.text_bytes += n

    def _limited_pieces(
        self, pieces: Iterable[str], name: str, on_content: Callable[[int], None] | None
    ) -> Iterator[str]:
        """A text file's pieces up to the byte limit (counted as UTF-8 of the text read)."""
        limit = self.options.max_bytes or 0
        for piece in pieces:
            size = utf8_size(piece)
            if self.text_bytes + size >= limit:
                piece, size = self._cut(piece, f"{name}, byte {self.text_bytes:,} of the text read")
            self.text_bytes += size
            if on_content is not None:
                on_content(size)
            if piece:
                yield piece
            if self.stopped is not None:
                return

    def _cut(self, text: str, where: str) -> tuple[str, int]:
        """``text`` cut where the byte limit falls (on a character boundary), and its size in bytes;
        the read stops there, at ``where``."""
        limit = self.options.max_bytes or 0
        text = text.encode("utf-8", "replace")[: limit - self.text_bytes].decode("utf-8", "ignore")
        self.stopped = f"stopped at the limit of {limit:,} bytes of text, in {where}"
        return text, utf8_size(text)

    def _at_record_limit(self, name: str, where: str) -> bool:
        limit = self.options.max_records
        if limit is not None and self.documents >= limit:
            self.stopped = f"stopped at the limit of {limit:,} documents, in {name}, {where}"
            return True
        return False

    # -- records: one document each
    def records(
        self,
        texts: Iterable[tuple[str, int]],
        name: str,
        place: Callable[[int], str],
        on_content: Callable[[int], None] | None = None,
    ) -> Iterator[Iterable[str]]:
        """Each record's text (``(text, line or row)`` from a container's reader, see
        :mod:`tokviz.core.corpus.containers`) as a document in slices of at most a block, counted
        and limited; ``place`` says where a line or row is, for messages about the file ``name``.
        (A Dask worker reads its part of a file through this too.)"""
        max_records = self.options.max_records
        max_bytes = self.options.max_bytes
        tally = self.tally
        for text, at in texts:
            if max_records is not None and self._at_record_limit(name, f"before {place(at)}"):
                return
            if text.isascii():
                size = len(text)
            else:
                try:
                    size = len(text.encode("utf-8"))
                except UnicodeEncodeError:  # a lone surrogate, from a JSON escape
                    text = self._surrogates(text, f"{name}, {place(at)}")
                    size = len(text.encode("utf-8"))
            if max_bytes is not None and self.text_bytes + size >= max_bytes:
                text, size = self._cut(text, f"{name}, {place(at)}")
            self.text_bytes += size
            self.documents += 1
            tally.records += 1
            if on_content is not None:
                on_content(size)
            yield (text,) if len(text) <= BLOCK_SIZE else slices(text, BLOCK_SIZE)
            if self.stopped is not None:
                return

    def _surrogates(self, text: str, where: str) -> str:
        """A record's text with lone surrogates (``\\ud800`` escapes in JSON): U+FFFD, or an error."""
        if self.errors != "replace":
            raise CorpusError(
                f"{where}: the text holds a lone surrogate, which UTF-8 cannot encode; "
                "it can be read with replacement characters instead",
                path=where,
            )
        return text.encode("utf-8", "replace").decode("utf-8")

    def _jsonl_file(self, file: CorpusFile, to: _Reports) -> Iterator[Iterable[str]]:
        name = str(file.path)
        before = self.tally.records
        blocks = iter_file_blocks(file, None, to.on_read, to.log)
        with closing(blocks):
            yield from self.jsonl_records(blocks, name, to.on_content)
        if to.log is not None and to.log.files and to.log.files[-1].path == name:
            records = self.tally.records - before
            to.log.files[-1] = replace(
                to.log.files[-1], container=JSONL, field=self.path.name, records=records
            )

    def jsonl_records(
        self, blocks: Iterable[bytes], name: str, on_content: Callable[[int], None] | None = None
    ) -> Iterator[Iterable[str]]:
        """The records of JSON Lines content given in ``blocks`` (a whole file, or a range of one
        that starts at a line start: its lines are then numbered from there), as documents."""
        texts = jsonl_texts(blocks, name, self.path, self.tally, self.errors, self.options.skip_bad)
        return self.records(texts, name, _line, on_content)

    def table_records(
        self,
        source: Any,
        container: str,
        name: str,
        row_groups: Sequence[int] | None = None,
        progress: _ShareOfFile | None = None,
        on_content: Callable[[int], None] | None = None,
    ) -> Iterator[Iterable[str]]:
        """The records of a Parquet file (its ``row_groups``, or all) or an Arrow file open as
        ``source`` (a path, a pyarrow file or a Python file object), as documents; ``progress``
        follows the rows (Parquet) or the position in the file (Arrow)."""
        if container == PARQUET:
            parquet = open_parquet(source, name)
            indexes = column_indexes(parquet.schema_arrow, self.path, name)
            on_rows = None
            if progress is not None:
                progress.total_units = parquet.metadata.num_rows
                on_rows = progress.advance
            columns = parquet_batches(parquet, name, indexes, row_groups, on_rows)
        else:
            schema, batches = open_arrow(source, name)
            indexes = column_indexes(schema, self.path, name)
            on_batch = None if progress is None else (lambda: progress.to(source.tell()))
            columns = arrow_batches(batches, name, indexes, on_batch)
        return self.records(table_texts(columns, name, indexes, self.tally), name, _row, on_content)

    def _table_file(self, file: CorpusFile, to: _Reports) -> Iterator[Iterable[str]]:
        """A Parquet or Arrow file's records; progress in bytes follows the rows (or batches) read."""
        import pyarrow as pa

        name = str(file.path)
        before = _stat(file)
        records_before = self.tally.records
        progress = _ShareOfFile(file.size, to.on_read)
        with pa.memory_map(name) as source:
            yield from self.table_records(source, file.container, name, None, progress, to.on_content)
        finished = self.stopped is None
        if finished:
            progress.to(file.size)
        if _stat(file) != before:
            raise CorpusError(
                f"{name} changed while it was read; read it again once nothing writes to it", path=name
            )
        if to.log is not None:
            size, digest = hash_file(file.path)
            to.log.files.append(
                FileRead(
                    name,
                    size,
                    digest,
                    file.container,
                    self.path.name,
                    self.tally.records - records_before,
                    not finished,
                )
            )


@dataclass(frozen=True)
class _Reports:
    """Where reading one file reports: the bytes of it used (as stored), the bytes of text, the
    file as read (see :meth:`CorpusReader.corpus`)."""

    on_read: Callable[[int], None] | None
    on_content: Callable[[int], None] | None
    log: ReadLog | None


def _line(line: int) -> str:
    return f"line {line:,}"


def _row(row: int) -> str:
    return f"row {row:,}"


def _stat(file: CorpusFile) -> tuple[int, int]:
    try:
        st = os.stat(file.path)
    except OSError as exc:
        raise CorpusError(f"cannot read {file.path}: {exc.strerror or exc}", path=str(file.path)) from None
    return st.st_size, st.st_mtime_ns


class _ShareOfFile:
    """Progress through a file read by pyarrow, in bytes as stored: the share of its rows read so far
    (Parquet), or the position in the file (Arrow); ``on_read`` gets the bytes since the last call."""

    def __init__(self, size: int, on_read: Callable[[int], None] | None) -> None:
        self.size = size
        self.on_read = on_read
        self.total_units = 0
        self.units = 0
        self.told = 0

    def advance(self, units: int) -> None:
        self.units += units
        if self.total_units:
            self.to(self.size * self.units // self.total_units)

    def to(self, position: int) -> None:
        position = min(position, self.size)
        if self.on_read is not None and position > self.told:
            self.on_read(position - self.told)
        self.told = max(self.told, position)


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
    reader: CorpusReader | None = None,
) -> Iterator[str]:
    """Yield corpus text in parts of about ``part_size`` characters, cut only at safe places.

    Each document (a text file, a record) is cut on its own (see
    :class:`~tokviz.core.corpus.reading.PartCutter`), so no part spans two documents. ``on_bytes``
    receives the bytes consumed: of the text's UTF-8, or of the files as stored on disk; ``log``
    the size and SHA-256 of each file read (see :func:`~tokviz.core.corpus.reading.iter_file_text`).
    ``on_content`` receives the text's size in bytes: its UTF-8, or the files' content
    (decompressed, invalid bytes as they were; the records' text). ``reader`` reads the files
    (its options, counts and limits); a plain one when not given.
    """
    cutter = part_cutter(specials, safe_spaces, part_size, log, longest_part)
    if text is not None:
        yield from cutter.parts(counted_text(text, both_counters(on_bytes, on_content)))
        return
    reader = reader or CorpusReader(errors=errors)
    for document in reader.corpus(files, on_bytes, on_content, log):
        yield from cutter.parts(document)
