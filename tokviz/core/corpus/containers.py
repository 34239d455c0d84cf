"""Files of records: JSON Lines, Parquet and Arrow, told apart by content and read record by record.

Pre-training corpora ship as records, not as text files: JSON Lines (``.jsonl``, ``.ndjson``, often
compressed with gzip or zstd), Parquet shards (``train-00000-of-00042.parquet``) and the Arrow
files of Hugging Face ``datasets`` (a ``save_to_disk`` folder's ``data-*.arrow``, or its cache).
Each record is one document; its text is one field (``text`` unless told otherwise; a dotted path
such as ``meta.content`` reaches into nested objects and struct columns).

:func:`container_of` says what holds a file's text from its first bytes: Parquet and Arrow by their
magic, JSON Lines by name (``.jsonl``, ``.ndjson``, ``.jsonlines``, compressed or not) or, for a
``.json`` file or one without a suffix, by content (its first two lines are JSON objects). Anything
else is plain text, read as before.

The readers yield each record's text with where it is (a line, a row); a record without the field,
with a null or with a value that is not a string is skipped and counted in a :class:`RecordTally`
(with the first place of each kind), a malformed line or a line that is not an object stops the
read naming file and line unless bad records are to be skipped too. Parquet is read by row group in
batches and Arrow by record batch (memory follows a batch, not the file); pyarrow and zstandard
are imported only when such a file is read. A file without the field names the fields it has.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from pathlib import Path
from typing import Any, BinaryIO

from ..errors import CorpusError, InvalidArgument
from .reading import NOT_UTF8, TEXT, Sniffed, open_decompressed

TEXT_FILE, JSONL, PARQUET, ARROW = "text", "jsonl", "parquet", "arrow"
CONTAINERS = (TEXT_FILE, JSONL, PARQUET, ARROW)
# How people read the containers' names in notes.
CONTAINER_NAMES = {TEXT_FILE: "text", JSONL: "JSON Lines", PARQUET: "Parquet", ARROW: "Arrow"}
JSONL_SUFFIXES = (".jsonl", ".ndjson", ".jsonlines")
COMPRESSED_SUFFIXES = (".gz", ".bz2", ".xz", ".zst", ".zstd")
PARQUET_MAGIC = b"PAR1"
ARROW_FILE_MAGIC = b"ARROW1"
# An Arrow IPC stream (what `datasets` writes) starts with a continuation marker.
ARROW_STREAM_MARKER = b"\xff\xff\xff\xff"
# How far into a .json file (decompressed) its first two lines are looked for.
JSONL_SNIFF_LIMIT = 4 << 20
# Rows per batch read from a Parquet row group or handed on from an Arrow batch.
BATCH_ROWS = 4096

# Why a record gave no text, in the order a note names them.
SKIP_MISSING, SKIP_NULL, SKIP_NOT_STRING, SKIP_BAD = "missing", "null", "not-string", "bad"
RECORD_SKIPS = (SKIP_MISSING, SKIP_NULL, SKIP_NOT_STRING, SKIP_BAD)


# ----------------------------------------------------------------------------- what a file holds
def inner_suffix(path: Path) -> str:
    """A file's suffix once compression suffixes are taken off (``docs.jsonl.zst`` -> ``.jsonl``), lower case."""
    name = path.name.lower()
    while True:
        stem, dot, suffix = name.rpartition(".")
        if not dot or f".{suffix}" not in COMPRESSED_SUFFIXES:
            break
        name = stem
    return Path(name).suffix


def container_of(path: Path, sniffed: Sniffed, as_text: bool = False) -> str:
    """What holds the text of the file at ``path``, from its sniffed start: one of :data:`CONTAINERS`.

    Parquet and Arrow are known by their magic bytes (an Arrow stream by opening its schema). JSON
    Lines by name, or for ``.json`` and suffix-less files by content; ``as_text`` reads JSON Lines
    as plain text (the caller says so). Binary files other than these stay ``text`` (and are left
    out or refused as binary by the file selector).
    """
    head = sniffed.head
    if sniffed.compression is None:
        if head.startswith(PARQUET_MAGIC) and _ends_with(path, PARQUET_MAGIC):
            return PARQUET
        if head.startswith(ARROW_FILE_MAGIC) or (
            head.startswith(ARROW_STREAM_MARKER) and _opens_as_arrow_stream(path)
        ):
            return ARROW
    if as_text or sniffed.kind not in (TEXT, NOT_UTF8):
        return TEXT_FILE
    suffix = inner_suffix(path)
    if suffix in JSONL_SUFFIXES:
        return JSONL
    if suffix in (".json", "") and looks_like_json_lines(path, sniffed):
        return JSONL
    return TEXT_FILE


def json_named(path: Path) -> bool:
    """Whether the file's name says JSON (``.json``, ``.jsonl``, ``.ndjson``, compressed or not):
    reading it as plain text must be said."""
    return inner_suffix(path) in (".json", *JSONL_SUFFIXES)


def _ends_with(path: Path, magic: bytes) -> bool:
    try:
        with open(path, "rb") as fh:
            fh.seek(-len(magic), os.SEEK_END)
            return fh.read(len(magic)) == magic
    except OSError:
        return False


def _opens_as_arrow_stream(path: Path) -> bool:
    """Whether pyarrow reads an Arrow stream's schema from the file (its first message)."""
    import pyarrow as pa

    try:
        with pa.memory_map(str(path)) as source:
            pa.ipc.open_stream(source)
    except (pa.ArrowException, OSError, ValueError):
        return False
    return True


def looks_like_json_lines(path: Path, sniffed: Sniffed) -> bool:
    """Whether a file's first two non-empty lines are each a JSON object (one record per line).

    A file of one line is one JSON document (a minified ``package.json``), not JSON Lines. When the
    sniffed start holds no two whole lines, up to :data:`JSONL_SNIFF_LIMIT` bytes are read.
    """
    content = sniffed.content
    if not content.lstrip().startswith(b"{"):
        return False
    if content.count(b"\n") < 2 and not sniffed.complete:
        content = _read_start(path, sniffed.compression, JSONL_SNIFF_LIMIT)
    lines = [line for line in content.split(b"\n")[:-1] if line.strip()]
    if len(lines) < 2:
        return False
    for line in lines[:2]:
        try:
            if not isinstance(json.loads(line), dict):
                return False
        except ValueError:
            return False
    return True


def _read_start(path: Path, compression: str | None, limit: int) -> bytes:
    from .reading import decompress_errors

    try:
        with open_decompressed(path, compression) as fh:
            data = bytearray()
            while len(data) < limit and data.count(b"\n") < 3:
                block = fh.read(1 << 16)
                if not block:
                    break
                data += block
            return bytes(data)
    except decompress_errors():
        return b""


# ----------------------------------------------------------------------------- the field
_MISSING = object()


class FieldPath:
    """The field a record's text is in: a name, or a dotted path into nested objects (``meta.content``).

    A top-level key that holds the dots itself (``"meta.content": ...``) is taken first.
    """

    def __init__(self, name: str) -> None:
        if not isinstance(name, str) or not name.strip() or any(not k for k in name.split(".")):
            raise InvalidArgument(
                f"the field {name!r} names nothing; give a name such as text or meta.content"
            )
        self.name = name
        self.keys = tuple(name.split("."))

    def get(self, record: dict[str, Any]) -> object:
        """The value at this path in ``record``, or the marker for "no such field"."""
        value = record.get(self.name, _MISSING)
        if value is not _MISSING or len(self.keys) == 1:
            return value
        found: object = record
        for key in self.keys:
            if not isinstance(found, dict):
                return _MISSING
            found = found.get(key, _MISSING)
            if found is _MISSING:
                return _MISSING
        return found


# ----------------------------------------------------------------------------- counting records
@dataclass
class RecordTally:
    """Records read and skipped, over one or many files of records.

    ``records`` gave text (an empty string too: it is a document with no text); ``skipped`` counts
    the others by reason (:data:`RECORD_SKIPS`) and ``first`` names where each reason was met first
    (``docs.jsonl:7``, ``train-00001.parquet row 12``). ``files`` counts the files read by container.
    """

    field: str = "text"
    records: int = 0
    skipped: dict[str, int] = dataclass_field(default_factory=dict)
    first: dict[str, str] = dataclass_field(default_factory=dict)
    files: dict[str, int] = dataclass_field(default_factory=dict)

    def skip(self, reason: str, place: str) -> None:
        """Count one record skipped for ``reason`` at ``place``."""
        self.skipped[reason] = self.skipped.get(reason, 0) + 1
        self.first.setdefault(reason, place)

    def add(self, other: RecordTally) -> None:
        """Add ``other``'s counts (read after this one: its first places come later)."""
        self.records += other.records
        for reason, n in other.skipped.items():
            self.skipped[reason] = self.skipped.get(reason, 0) + n
        for reason, place in other.first.items():
            self.first.setdefault(reason, place)
        for kind, n in other.files.items():
            self.files[kind] = self.files.get(kind, 0) + n

    @property
    def skipped_total(self) -> int:
        """How many records gave no text, for any reason."""
        return sum(self.skipped.values())

    def skipped_note(self) -> str | None:
        """``12 records without "text" skipped (first: docs.jsonl:7); 1 malformed record skipped
        (docs.jsonl:9)``, or None when nothing was skipped."""
        parts = []
        name = f'"{self.field}"'
        words = {
            SKIP_MISSING: f"without {name}",
            SKIP_NULL: f"with {name} null",
            SKIP_NOT_STRING: f"whose {name} is not a string",
        }
        for reason in RECORD_SKIPS:
            n = self.skipped.get(reason, 0)
            if n:
                first = self.first.get(reason)
                where = f" (first: {first})" if first and n > 1 else f" ({first})" if first else ""
                records = "record" if n == 1 else "records"
                what = f"malformed {records}" if reason == SKIP_BAD else f"{records} {words[reason]}"
                parts.append(f"{n:,} {what} skipped{where}")
        return "; ".join(parts) or None

    def to_json(self) -> dict[str, Any]:
        """The counts as provenance and count tables record them."""
        return {
            "field": self.field,
            "records": self.records,
            "skipped": {r: self.skipped[r] for r in RECORD_SKIPS if self.skipped.get(r)},
            "files": {k: self.files[k] for k in CONTAINERS if self.files.get(k)},
        }


def bad_record(tally: RecordTally, skip_bad: bool, place: str, why: str) -> None:
    """A line that is no record: counted when ``skip_bad``, else an error naming where it is."""
    if skip_bad:
        tally.skip(SKIP_BAD, place)
        return
    raise CorpusError(f"{place}: {why} (skipping bad records reads on past such lines)", path=place)


def _kind_of(value: object) -> str:
    return {list: "an array", str: "a string", bool: "a boolean", type(None): "null"}.get(
        type(value), f"a {type(value).__name__}"
    )


# ----------------------------------------------------------------------------- JSON Lines
def jsonl_texts(
    blocks: Iterable[bytes],
    name: str,
    path: FieldPath,
    tally: RecordTally,
    errors: str = "strict",
    skip_bad: bool = False,
    first_line: int = 1,
) -> Iterator[tuple[str, int]]:
    """Each record's text in a JSON Lines file's content (given in ``blocks``), with its line number.

    Blank lines are no records. Invalid UTF-8 in a line is an error naming the file and line,
    unless ``errors="replace"``. ``first_line`` is the number of the first line of ``blocks`` (a
    Dask worker reads a range of the file).
    """
    decode = json.JSONDecoder().decode  # str in: no encoding to detect line by line
    line_no = first_line - 1
    for line in _lines(blocks):
        line_no += 1
        try:
            record = decode(line) if type(line) is str else json.loads(line)
        except ValueError as exc:  # UnicodeDecodeError is one too
            record = _damaged(line, exc, f"{name}:{line_no}", tally, errors, skip_bad)
            if record is None:
                continue
        if type(record) is not dict:
            why = f"{_kind_of(record)}, not a JSON object (each line of JSON Lines is one record)"
            bad_record(tally, skip_bad, f"{name}:{line_no}", why)
            continue
        value = path.get(record)
        if type(value) is str:
            yield value, line_no
        else:
            reason = SKIP_MISSING if value is _MISSING else SKIP_NULL if value is None else SKIP_NOT_STRING
            tally.skip(reason, f"{name}:{line_no}")


def _lines(blocks: Iterable[bytes]) -> Iterator[str | bytes]:
    """The lines of content given in ``blocks`` (without their ``\\n``), the last one too: as text
    where a run of whole lines decodes as UTF-8 (decoded once, not line by line), else as bytes
    (so that the line with invalid UTF-8 is found and named)."""
    rest = b""
    first = True
    for block in blocks:
        data = rest + block if rest else block
        end = data.rfind(b"\n") + 1
        rest = data[end:]
        if end:
            yield from _decoded_lines(data[: end - 1], first)
            first = False
    if rest:
        yield from _decoded_lines(rest, first)


def _decoded_lines(data: bytes, first: bool) -> list[str] | list[bytes]:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return data.split(b"\n")
    if first:
        text = text.removeprefix("\ufeff")  # a byte order mark, as json.loads reads bytes
    return text.split("\n")


def _damaged(
    line: str | bytes, exc: ValueError, place: str, tally: RecordTally, errors: str, skip_bad: bool
) -> object:
    """What a line ``json.loads`` refused is: nothing (a blank line), a record read with U+FFFD for
    invalid UTF-8 (``errors="replace"``), or a bad record (counted, or an error naming ``place``)."""
    if not line.strip():
        return None
    if isinstance(exc, UnicodeDecodeError) and isinstance(line, bytes):
        if errors != "replace":
            raise CorpusError(
                f"{place} is not valid UTF-8 (byte {exc.start} of the line); "
                "it can be read with replacement characters instead",
                path=place.rpartition(":")[0],
            )
        try:
            return json.loads(line.decode("utf-8", "replace"))
        except ValueError as again:
            exc = again
    bad_record(tally, skip_bad, place, f"not valid JSON ({exc})")
    return None


# ----------------------------------------------------------------------------- Parquet and Arrow
def _string_type(pa: Any, kind: Any) -> bool:
    return bool(
        pa.types.is_string(kind)
        or pa.types.is_large_string(kind)
        or getattr(pa.types, "is_string_view", lambda _k: False)(kind)
        or (pa.types.is_dictionary(kind) and _string_type(pa, kind.value_type))
    )


def field_names(schema: Any) -> list[str]:
    """Every field of an Arrow schema that can hold text, as a dotted path (struct fields inside),
    with the others after them marked by their type: what a message offers to choose from."""
    import pyarrow as pa

    texts: list[str] = []
    others: list[str] = []

    def walk(fields: Iterable[Any], prefix: str) -> None:
        for f in fields:
            name = f"{prefix}{f.name}"
            if pa.types.is_struct(f.type):
                walk(f.type, name + ".")
            elif _string_type(pa, f.type):
                texts.append(name)
            else:
                others.append(f"{name} ({f.type})")

    walk(schema, "")
    return texts + others


def text_field_names(schema: Any) -> list[str]:
    """The fields of an Arrow schema that hold text (dotted paths into structs)."""
    return [n for n in field_names(schema) if not n.endswith(")")]


def column_indexes(schema: Any, path: FieldPath, name: str) -> tuple[int, ...]:
    """Where the field is in ``schema``: the top-level column's index and, into structs, each
    nested field's. No such field, or one that does not hold text, is an error naming the fields
    there are."""
    import pyarrow as pa

    names = schema.names
    if path.name in names:
        steps: Sequence[str] = (path.name,)
    else:
        steps = path.keys
    indexes: list[int] = []
    fields: Any = schema
    kind: Any = None
    for step in steps:
        at = fields.get_field_index(step) if kind is None or pa.types.is_struct(kind) else -1
        if at < 0:
            raise CorpusError(
                f'{name} has no field "{path.name}"; its fields: {", ".join(field_names(schema)) or "none"}',
                path=name,
            )
        indexes.append(at)
        kind = fields.field(at).type
        fields = kind if pa.types.is_struct(kind) else None
    if not _string_type(pa, kind):
        raise CorpusError(
            f'the field "{path.name}" of {name} holds {kind}, not text; fields with text: '
            f"{', '.join(text_field_names(schema)) or 'none'}",
            path=name,
        )
    return tuple(indexes)


def _texts_of(column: Any, nested: tuple[int, ...]) -> Any:
    """The text array at ``nested`` in a top-level ``column`` (structs unpacked, dictionaries decoded)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    array = column
    if nested:
        array = pc.struct_field(array, list(nested))
    if pa.types.is_dictionary(array.type):
        array = array.dictionary_decode()
    if not (pa.types.is_string(array.type) or pa.types.is_large_string(array.type)):
        array = array.cast(pa.large_string())
    return array


def table_texts(
    columns: Iterable[tuple[int, Any]], name: str, indexes: tuple[int, ...], tally: RecordTally
) -> Iterator[tuple[str, int]]:
    """Each row's text from ``columns`` (``(first row, the field's top-level column in a batch)``),
    with its row number (0-based, in the file); a null is skipped and counted."""
    for first_row, column in columns:
        array = _texts_of(column, indexes[1:])
        values = array.to_pylist()
        if array.null_count == 0:
            yield from zip(values, range(first_row, first_row + len(values)))
            continue
        for row, value in enumerate(values, start=first_row):
            if value is None:
                tally.skip(SKIP_NULL, f"{name} row {row:,}")
            else:
                yield value, row


def open_parquet(source: str | BinaryIO, name: str) -> Any:
    """A ``pyarrow.parquet.ParquetFile`` over ``source``; a damaged file is an error naming it."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        return pq.ParquetFile(source, memory_map=isinstance(source, str))
    except (pa.ArrowException, OSError) as exc:
        raise CorpusError(f"cannot read {name} as Parquet: {exc}", path=name) from None


def parquet_batches(
    parquet: Any,
    name: str,
    indexes: tuple[int, ...],
    row_groups: Sequence[int] | None = None,
    on_rows: Callable[[int], None] | None = None,
) -> Iterator[tuple[int, Any]]:
    """``(first row, the field's top-level column)`` row group by row group (all, or ``row_groups``)
    in batches of :data:`BATCH_ROWS`; only that column is read. ``on_rows`` receives the rows of
    each batch."""
    import pyarrow as pa

    meta = parquet.metadata
    groups = list(range(meta.num_row_groups)) if row_groups is None else list(row_groups)
    column = parquet.schema_arrow.names[indexes[0]]
    try:
        for group in groups:
            row = sum(meta.row_group(g).num_rows for g in range(group))
            for batch in parquet.iter_batches(
                batch_size=BATCH_ROWS, row_groups=[group], columns=[column], use_threads=False
            ):
                yield row, batch.column(0)
                row += batch.num_rows
                if on_rows is not None:
                    on_rows(batch.num_rows)
    except (pa.ArrowException, OSError) as exc:
        raise CorpusError(f"cannot read {name} as Parquet: {exc}", path=name) from None


def open_arrow(source: Any, name: str) -> tuple[Any, Any]:
    """An Arrow IPC file or stream over ``source`` (a pyarrow input): ``(schema, batches)``.

    ``datasets`` writes streams (``data-00000-of-00001.arrow``, its cache files); other tools write
    the IPC file format (``ARROW1``); both are read, batch by batch.
    """
    import pyarrow as pa

    try:
        try:
            reader = pa.ipc.open_file(source)
            batches = (reader.get_batch(i) for i in range(reader.num_record_batches))
            return reader.schema, batches
        except pa.ArrowInvalid:
            source.seek(0)
            stream = pa.ipc.open_stream(source)
            return stream.schema, iter(stream)
    except (pa.ArrowException, OSError) as exc:
        raise CorpusError(f"cannot read {name} as Arrow: {exc}", path=name) from None


def arrow_batches(
    batches: Iterable[Any], name: str, indexes: tuple[int, ...], on_batch: Callable[[], None] | None = None
) -> Iterator[tuple[int, Any]]:
    """``(first row, the field's top-level column)`` for each of an Arrow file's batches (``on_batch``
    is told after each one); a damaged batch is an error naming the file."""
    import pyarrow as pa

    row = 0
    try:
        for batch in batches:
            yield row, batch.column(indexes[0])
            if on_batch is not None:
                on_batch()
            row += batch.num_rows
    except (pa.ArrowException, OSError) as exc:
        raise CorpusError(f"cannot read {name} as Arrow: {exc}", path=name) from None


def arrow_schema(path: Path) -> Any:
    """The schema of an Arrow or Parquet file (for a field picker), or a :class:`CorpusError`."""
    import pyarrow as pa

    with open(path, "rb") as fh:
        magic = fh.read(4)
    if magic == PARQUET_MAGIC:
        return open_parquet(str(path), str(path)).schema_arrow
    with pa.memory_map(str(path)) as source:
        return open_arrow(source, str(path))[0]


# ----------------------------------------------------------------------------- choosing the field
def record_fields(path: Path, container: str, compression: str | None, records: int = 20) -> list[str]:
    """The fields that hold text in a file of records, as dotted paths, in the order they first
    appear: a Parquet or Arrow file's text columns (struct fields inside), or the string values
    of the first ``records`` JSON Lines records (nested objects inside). A field picker offers them."""
    if container in (PARQUET, ARROW):
        return text_field_names(arrow_schema(path))
    found: dict[str, None] = {}
    with open_decompressed(path, compression) as fh:
        for _ in range(records):
            line = fh.readline(JSONL_SNIFF_LIMIT)  # a longer record is not looked into
            if not line:
                break
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if isinstance(record, dict):
                _string_paths(record, "", found)
    return list(found)


def _string_paths(record: dict[str, Any], prefix: str, found: dict[str, None]) -> None:
    for key, value in record.items():
        if isinstance(value, str):
            found.setdefault(f"{prefix}{key}")
        elif isinstance(value, dict):
            _string_paths(value, f"{prefix}{key}.", found)


# ----------------------------------------------------------------------------- datasets folders
DATASET_DESCRIPTIONS = ("dataset_info.json", "state.json", "dataset_dict.json")


def dataset_data_files(folder: Path) -> list[str] | None:
    """The data files a ``datasets`` ``save_to_disk`` folder lists in its ``state.json``
    (``data-00000-of-00002.arrow``, ...), or None when the folder is no such dataset."""
    state = folder / "state.json"
    if not state.is_file() or not (folder / "dataset_info.json").is_file():
        return None
    try:
        with open(state, "rb") as fh:
            data = json.loads(fh.read(1 << 20))
        listed = [entry["filename"] for entry in data["_data_files"]]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return [name for name in listed if isinstance(name, str)]
