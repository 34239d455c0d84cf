"""Counting pre-tokens on a Dask cluster: byte ranges counted on workers, partial tables reduced.

Each file is split into byte ranges of about ``chunk_bytes``. A worker counts the text from the
first safe cut at or after its range's start to the first safe cut at or after its end, so the
ranges tile the file and every pre-token is counted exactly once. A safe cut (in bytes) is a
space after a printable ASCII character (named GPT-2/cl100k patterns only: pre-tokens never
cross it, see :mod:`tokviz.core.bpe.cuts`) or the start of a special token, in either case with no
special token straddling it; decoding is unchanged by such a cut, with or without replacement
of invalid UTF-8. Compressed files, and files with no safe cut rule (pre-tokenizer ``none`` or a
custom pattern without special tokens), are one range each.

Files of records are cut where records are: a Parquet file into its row groups, a JSON Lines file
into byte ranges moved to the next line start (compressed, one range), an Arrow file is one range;
each worker reads its records as a local count does (:class:`~tokviz.core.corpus.documents.CorpusReader`),
each record a document, and returns what it read (records, records skipped, bytes of text) with its
table. Where a skipped record was first met is a line counted from its range's start; the client
counts the lines before it for the one it names.

Partial tables are added in corpus order (on a big cluster a worker first adds runs of
consecutive ranges; the client adds the results one at a time, as they come), so the result keeps the corpus's first-seen
order and equals the local table exactly, and the client's memory follows the table, not the
corpus. Tables travel between processes packed into two byte strings (:func:`pack`), which costs
a copy rather than a pickle of every row. Inputs may be local paths or any
``fsspec`` URL the workers can read. ``dask.distributed`` and ``fsspec`` are imported only here,
and only when a Dask count runs. A compressed file is read by its worker in blocks through the
local count's stream reader. Reaching the scheduler, a count that stops moving and Dask's log are
handled by :mod:`tokviz.core.training.dask_client`, each failure in bounded time and one line.
"""

from __future__ import annotations

import codecs
import hashlib
import os
import time
from array import array
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from ..corpus.containers import (
    ARROW,
    JSONL,
    PARQUET,
    PARQUET_MAGIC,
    TEXT_FILE,
    RecordTally,
    inner_suffix,
    open_parquet,
)
from ..corpus.documents import CorpusReader, ReadOptions, ReadSummary, iter_parts
from ..corpus.fileselect import corpus_source
from ..corpus.reading import (
    BINARY,
    NOT_UTF8,
    SNIFF_SIZE,
    TEXT,
    classify_head,
    compression_of,
    iter_stream_text,
    open_decompressed,
    text_parts,
)
from ..errors import Cancelled, CorpusError
from ..pretok.normalize import parse_normalizer
from ..pretok.pretokenize import NAMED_PATTERNS, Pretokenizer, SpecialSplitter, resolve_pretokenizer
from .counts import CountedFile, CountTable, CountTableError
from .dask_client import CONNECT_TIMEOUT, WORKER_TIMEOUT, DaskError, Watchdog, connect, dask_log_kept
from .dask_records import (
    RecordPart,
    RecordPlace,
    lines_before,
    range_start,
    record_documents,
    record_part,
    shift_lines,
)
from .train import (
    PART_SIZE,
    CancelFlag,
    _check_cancel,
    _special_tokens_argument,
    _worker_pretokenizer,
    count_words,
)

INSTALL_DASK = "pip install 'tokviz-desktop[dask]'"
DEFAULT_CHUNK_BYTES = 32 << 20
# How far past a range's end a worker reads at first when looking for its cut (doubled as needed).
_CUT_WINDOW = 1 << 16
_ASCII_GRAPHIC = frozenset(range(0x21, 0x7F))
# At most this many consecutive ranges are added together on a worker (see count_on_dask).
MAX_GROUP = 16


class DaskUnavailable(CountTableError):
    """Dask (or fsspec) is not installed: the message says how to install it."""


def require_dask() -> Any:
    """``dask.distributed``, or :class:`DaskUnavailable` naming the extra to install."""
    try:
        import dask.distributed
        import fsspec  # noqa: F401 - the workers read through it
    except ImportError as exc:
        missing = exc.name or "dask"
        raise DaskUnavailable(
            f"counting on Dask needs {missing}, which is not installed: {INSTALL_DASK}"
        ) from None
    return dask.distributed


@dataclass(frozen=True)
class InputFile:
    """A corpus file as the workers read it: a local path or an fsspec URL, its size, its compression,
    what holds its text (see :mod:`tokviz.core.corpus.containers`) and, for Parquet, its row groups."""

    url: str
    size: int
    compression: str | None = None
    shown: str = ""
    container: str = TEXT_FILE
    row_groups: int = 0

    @property
    def name(self) -> str:
        """The file as the user named it (a local path as given, a URL as resolved)."""
        return self.shown or self.url


@dataclass(frozen=True)
class ByteRange:
    """The part of a file one task counts: nominally ``[start, end)``, moved to the next safe cuts
    (for JSON Lines, to the next line starts); for Parquet, the ``row_group`` (``start`` and ``end``
    then only measure progress: its share of the file)."""

    file: InputFile
    start: int
    end: int
    whole: bool = False
    row_group: int | None = None


def _is_url(item: str) -> bool:
    return "://" in item and not item.startswith("file://")


def resolve_inputs(
    inputs: Sequence[str | os.PathLike[str]], errors: str = "strict", as_text: bool = False
) -> list[InputFile]:
    """The files to count, in order: local items exactly as training scans them, URLs through fsspec.

    A URL naming a folder contributes its files in sorted order, hidden ones and those that do not
    look like text or records left out (as for a local folder); a URL naming a file that is neither
    is refused. A remote file's records are known by their magic (Parquet) or by name (JSON Lines).
    """
    files: list[InputFile] = []
    for item in inputs:
        text = os.fspath(item)
        if not _is_url(text):
            local = text[len("file://") :] if text.startswith("file://") else text
            # Workers read the absolute path (their working folder may differ); the table names
            # the path as given, as a local count does.
            files += [
                InputFile(str(f.path.resolve()), f.size, f.compression, str(f.path), f.container)
                for f in corpus_source([Path(local)], errors, as_text)[0]
            ]
            continue
        files += _remote_files(text, errors, as_text)
    if not files:
        raise CorpusError("the corpus is empty: no files were given")
    return [_with_row_groups(f) for f in files]


def _with_row_groups(f: InputFile) -> InputFile:
    """A Parquet file with its number of row groups (read from its footer), each one range."""
    if f.container != PARQUET:
        return f
    import fsspec

    with fsspec.open(f.url, "rb") as fh:
        groups = open_parquet(fh, f.name).metadata.num_row_groups
    return InputFile(f.url, f.size, f.compression, f.shown, f.container, groups)


def _remote_files(url: str, errors: str, as_text: bool) -> list[InputFile]:
    import fsspec

    try:
        fs, path = fsspec.core.url_to_fs(url)
        if fs.isdir(path):
            names = sorted(
                p
                for p in fs.find(path)
                if not any(part.startswith(".") for part in p[len(path) :].split("/"))
            )
            named = False
        else:
            names, named = [path], True
        found: list[InputFile] = []
        for name in names:
            info = fs.info(name)
            head = fs.cat_file(name, 0, SNIFF_SIZE)
            compression = compression_of(head)
            if head.startswith(PARQUET_MAGIC):
                found.append(InputFile(fs.unstrip_protocol(name), int(info["size"]), None, container=PARQUET))
                continue
            kind = TEXT if compression else classify_head(head, len(head) < SNIFF_SIZE)
            if kind == BINARY and named:
                raise CorpusError(
                    f"{url} is a binary file, not text; a corpus file must hold UTF-8 text", path=url
                )
            if kind == BINARY or (kind == NOT_UTF8 and errors == "strict" and not named):
                continue
            jsonl = not as_text and inner_suffix(Path(name)) in (".jsonl", ".ndjson", ".jsonlines")
            container = JSONL if jsonl else TEXT_FILE
            found.append(
                InputFile(fs.unstrip_protocol(name), int(info["size"]), compression, container=container)
            )
    except (OSError, ValueError, ImportError) as exc:
        raise CorpusError(f"cannot read {url}: {exc}", path=url) from None
    if not found:
        raise CorpusError(f"the corpus is empty: {url} holds no text files", path=url)
    return found


def plan_ranges(files: Iterable[InputFile], chunk_bytes: int, splittable: bool) -> list[ByteRange]:
    """Nominal byte ranges of about ``chunk_bytes`` for every file, in corpus order.

    Compressed files, and every file when no safe cut rule applies (``splittable`` False), are
    one range each.
    """
    if chunk_bytes < 1:
        raise CountTableError(f"the chunk size must be 1 byte or more, got {chunk_bytes}")
    ranges: list[ByteRange] = []
    for f in files:
        if f.container == PARQUET and f.row_groups:
            n = f.row_groups
            ranges += [ByteRange(f, f.size * g // n, f.size * (g + 1) // n, False, g) for g in range(n)]
            continue
        lines = f.container == JSONL  # a line start is always a safe cut
        if (
            f.compression
            or f.container in (PARQUET, ARROW)
            or not (splittable or lines)
            or f.size <= chunk_bytes
        ):
            ranges.append(ByteRange(f, 0, f.size, whole=True))
            continue
        ranges += [ByteRange(f, s, min(s + chunk_bytes, f.size)) for s in range(0, f.size, chunk_bytes)]
    return ranges


def find_cut(
    read: Callable[[int, int], bytes], pos: int, size: int, safe_spaces: bool, specials: Sequence[bytes]
) -> int:
    """The first safe cut at or after byte ``pos`` of a file of ``size`` bytes (``size`` if none).

    ``read(offset, length)`` returns the file's bytes there. A cut is a space after a printable
    ASCII byte (when ``safe_spaces``) or the start of a special token, with no special token
    occurrence straddling it.
    """
    if pos <= 0:
        return 0
    if pos >= size:
        return size
    back = max((len(s) for s in specials), default=0)
    lo = max(0, pos - max(back, 1))
    window = _CUT_WINDOW
    while True:
        buf = read(lo, pos - lo + window + back)
        at_end = lo + len(buf) >= size
        limit = len(buf) if at_end else len(buf) - back  # candidates need ``back`` bytes after them
        for p in _candidates(buf, pos - lo, limit, safe_spaces, specials):
            if not _straddled(buf, p, specials):
                return lo + p
        if at_end:
            return size
        window *= 2


def _candidates(
    buf: bytes, start: int, limit: int, safe_spaces: bool, specials: Sequence[bytes]
) -> list[int]:
    """Every possible cut in ``buf[start:limit]``, in order (before the straddle check)."""
    found: set[int] = set()
    if safe_spaces:
        i = buf.find(b" ", max(start, 1), limit)
        while i != -1:
            if buf[i - 1] in _ASCII_GRAPHIC:
                found.add(i)
            i = buf.find(b" ", i + 1, limit)
    for s in specials:
        i = buf.find(s, start, limit + len(s) - 1)
        while i != -1:
            found.add(i)
            i = buf.find(s, i + 1, limit + len(s) - 1)
    return sorted(found)


def _straddled(buf: bytes, p: int, specials: Sequence[bytes]) -> bool:
    """Whether an occurrence of a special token starts before ``p`` and ends after it."""
    for s in specials:
        for q in range(max(0, p - len(s) + 1), p):
            if buf.startswith(s, q):
                return True
    return False


# ---------------------------------------------------------------------------- on the workers
# ("ok", packed table, what was read of records or None) or ("error", (message, path, offset), None).
_Partial = tuple[str, Any, RecordPart | None]
# A table packed to travel between processes: its pre-tokens joined, its counts as int64, and how
# many long pre-tokens its count cut into pieces (see :func:`~tokviz.core.training.train.count_words`).
Packed = tuple[bytes, bytes, int]
# Joins the pre-tokens of a packed table: a lone surrogate, which text decoded from UTF-8 never holds.
_SEP = "\ud800"


def pack(counts: dict[str, int], long_pretokens: int = 0) -> Packed:
    """A table as two byte strings (the pre-tokens joined, the counts as int64), in row order,
    with the number of long pre-tokens its count cut.

    Pickling a dict of a million strings costs a second at each end of every transfer between
    processes; two byte strings cost a copy.
    """
    words = _SEP.join(counts).encode("utf-8", "surrogatepass")
    return words, array("q", counts.values()).tobytes(), long_pretokens


def unpack(packed: Packed) -> dict[str, int]:
    """The table :func:`pack` packed, rows in the same order."""
    words, numbers, _cut = packed
    values = array("q")
    values.frombytes(numbers)
    if not values:
        return {}
    return dict(zip(words.decode("utf-8", "surrogatepass").split(_SEP), values))


def count_range(
    rng: ByteRange,
    spec: str,
    specials: tuple[str, ...],
    errors: str,
    reading: tuple[str, bool] = ("text", False),
    normalizer: str = "none",
) -> _Partial:
    """(On a worker.) One range's counts: ``("ok", packed table, records read)`` or
    ``("error", (message, path, offset), None)``.

    Errors are returned rather than raised so the reduction keeps the corpus's first one. A whole
    file (every compressed one among them) is read and counted in blocks, as a local count reads
    it, so a worker's memory follows the table, not the decompressed file. A file of records is
    read with ``reading`` (the field and whether to skip bad records), each record a document, and
    every document goes through ``normalizer`` (a spec) before it is cut, as a local count does.
    """
    import fsspec

    pre = _pretokenizer_on_worker(spec)
    norm = parse_normalizer(normalizer)
    safe_spaces = pre.name in NAMED_PATTERNS and pre.pattern is not None
    counts: Counter[str] = Counter()
    cut = 0
    f = rng.file
    part: RecordPart | None = None
    try:
        with fsspec.open(f.url, "rb") as fh:
            reader = CorpusReader(ReadOptions(field=reading[0], skip_bad=reading[1]), errors)
            place = _record_place(rng)
            if f.container == TEXT_FILE:
                parts = (
                    _stream_parts(fh, f, specials, safe_spaces, errors)
                    if rng.whole
                    else _range_parts(fh, rng, specials, safe_spaces, errors)
                )
            else:
                documents = record_documents(fh, place, reader)
                parts = (
                    p for doc in documents for p in text_parts(doc, list(specials), safe_spaces, PART_SIZE)
                )
            splitter = SpecialSplitter(specials)
            try:
                for text in parts:
                    found, n = count_words(text, pre, splitter, norm)
                    counts.update(found)
                    cut += n
            except CorpusError as exc:
                start = range_start(fh, place)
                base = lines_before(fh, start) if start else 0
                return "error", (shift_lines(str(exc), f.name, base), exc.path, exc.offset), None
            if f.container != TEXT_FILE:
                part = record_part(reader, f.url, range_start(fh, place))
    except CorpusError as exc:
        return "error", (str(exc), exc.path, exc.offset), None
    except (OSError, EOFError, ValueError) as exc:
        return "error", (f"cannot read {f.name}: {exc}", f.name, None), None
    return "ok", pack(counts, cut), part


def _record_place(rng: ByteRange) -> RecordPlace:
    f = rng.file
    return RecordPlace(
        f.url, f.name, f.container, f.compression, f.size, rng.start, rng.end, rng.whole, rng.row_group
    )


def _stream_parts(
    fh: Any, f: InputFile, specials: tuple[str, ...], safe_spaces: bool, errors: str
) -> Iterator[str]:
    """A whole file's text in parts, decompressed (when it is) and decoded block by block."""
    pieces = iter_stream_text(fh, f.name, f.compression, errors)
    return text_parts(pieces, list(specials), safe_spaces, PART_SIZE)


def _range_parts(
    fh: Any, rng: ByteRange, specials: tuple[str, ...], safe_spaces: bool, errors: str
) -> Iterator[str]:
    """A part of a file's text (its ends moved to the safe cuts at or after them) in parts."""
    f = rng.file

    def read(offset: int, length: int) -> bytes:
        fh.seek(offset)
        return cast(bytes, fh.read(length))

    encoded = [s.encode("utf-8") for s in specials]
    start = find_cut(read, rng.start, f.size, safe_spaces, encoded)
    end = find_cut(read, rng.end, f.size, safe_spaces, encoded)
    data = read(start, end - start) if end > start else b""
    try:
        text = codecs.decode(data, "utf-8", errors)
    except UnicodeDecodeError as exc:
        offset = start + exc.start
        message = (
            f"{f.name} is not valid UTF-8 (byte offset {offset}); "
            "it can be read with replacement characters instead"
        )
        raise CorpusError(message, path=f.name, offset=offset) from None
    del data
    return iter_parts([], text, list(specials), safe_spaces, PART_SIZE)


_PRETOKENIZERS: dict[str, Pretokenizer] = {}


def _pretokenizer_on_worker(spec: str) -> Pretokenizer:
    """The pre-tokenizer for ``spec``, made once per worker process.

    The named patterns run at full speed; a custom pattern keeps its time limit (a part that
    overruns it is an error naming the pattern), as no parent watches a Dask worker.
    """
    pre = _PRETOKENIZERS.get(spec)
    if pre is None:
        pre = _worker_pretokenizer(spec) if spec in NAMED_PATTERNS else resolve_pretokenizer(spec)
        _PRETOKENIZERS[spec] = pre
    return pre


def add_partials(*parts: _Partial) -> _Partial:
    """(On a worker.) Consecutive partial tables added in order, earlier rows first, with what they
    read of records; the first error wins."""
    acc: dict[str, int] = {}
    cut = 0
    read: RecordPart | None = None
    for part in parts:
        if part[0] != "ok":
            return part
        cut += add_packed(acc, part[1])
        read = _added(read, part[2])
    return "ok", pack(acc, cut), read


def _added(read: RecordPart | None, more: RecordPart | None) -> RecordPart | None:
    """``read`` with ``more`` added after it (either may be None: no records)."""
    if more is None:
        return read
    if read is None:
        read = RecordPart(RecordTally(more.tally.field))  # a copy: a thread worker's result is shared
    read.add(more)
    return read


def add_packed(acc: dict[str, int], packed: Packed) -> int:
    """Add a :func:`pack`-ed table into ``acc`` in place (its new rows go after ``acc``'s); how
    many long pre-tokens its count cut."""
    words, numbers, cut = packed
    values = array("q")
    values.frombytes(numbers)
    if not values:
        return cut
    get = acc.get
    for word, n in zip(words.decode("utf-8", "surrogatepass").split(_SEP), values):
        acc[word] = get(word, 0) + n
    return cut


def sha256_of(url: str) -> str:
    """(On a worker.) The SHA-256 of a file's stored bytes, read through fsspec."""
    import fsspec

    digest = hashlib.sha256()
    with fsspec.open(url, "rb") as fh:
        while block := fh.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def content_size(url: str, compression: str) -> int:
    """(On a worker.) The bytes of a compressed file's content, decompressed block by block."""
    import fsspec

    size = 0
    with fsspec.open(url, "rb") as fh, open_decompressed(Path(url), compression, fh) as stream:
        while block := stream.read(1 << 20):
            size += len(block)
    return size


# ---------------------------------------------------------------------------- on the client
def count_on_dask(
    inputs: Sequence[str | os.PathLike[str]],
    *,
    scheduler: str = "local",
    special_tokens: Iterable[str] | None = None,
    pretokenizer: str | None = "gpt2",
    errors: str = "strict",
    chunk_bytes: int = DEFAULT_CHUNK_BYTES,
    progress: Callable[[int, int], None] | None = None,
    cancel: CancelFlag | Callable[[], bool] | None = None,
    hashes: bool = True,
    n_workers: int | None = None,
    processes: bool = True,
    connect_timeout: float = CONNECT_TIMEOUT,
    worker_timeout: float = WORKER_TIMEOUT,
    reading: ReadOptions | None = None,
    normalizer: str | None = None,
) -> CountTable:
    """Count ``inputs`` on a Dask cluster and return the table (equal to :func:`~tokviz.core.training.counts.count_iter`'s).

    ``scheduler`` is an address (``tcp://host:8786``) or ``local`` for a ``LocalCluster`` of
    ``n_workers`` (default: the CPUs, at most 8) started and stopped here; ``processes`` chooses
    worker processes (the default, as pre-tokenizing holds the GIL) or threads. ``progress``
    receives (bytes counted, total bytes) as ranges finish; ``cancel`` stops the count. A
    scheduler that does not answer within ``connect_timeout`` seconds (10 by default), or that
    answers with something other than Dask's protocol, is a one-line :class:`DaskError`; so is
    a count that has had no worker alive and no range finished for ``worker_timeout`` seconds
    (60 by default). Dask's own log is kept off the terminal meanwhile. ``reading`` says how files
    of records are read (the field, skipping bad records, JSON Lines as text); a limit
    (``max_bytes``, ``max_records``) reads a corpus in order, which a cluster does not, and is refused.
    ``normalizer`` (a spec such as ``"nfkc"``) normalizes every document before it is cut.
    """
    distributed = require_dask()
    if errors not in ("strict", "replace"):
        raise CountTableError(f"errors must be 'strict' or 'replace', got {errors!r}")
    for name, value in (("connect_timeout", connect_timeout), ("worker_timeout", worker_timeout)):
        if not value > 0:
            raise CountTableError(f"{name} must be more than 0 seconds, got {value!r}")
    options = reading or ReadOptions()
    if options.limited:
        raise CountTableError("max_bytes and max_records read a corpus in order; count it locally")
    specials = tuple(_special_tokens_argument(special_tokens))
    pre = resolve_pretokenizer(pretokenizer)
    files = resolve_inputs(inputs, errors, options.as_text)
    job = _Job(files, pre.to_json(), specials, errors, chunk_bytes, progress, cancel)
    job.reading = (options.field, options.skip_bad)
    job.normalizer = parse_normalizer(normalizer or "none").name
    job.splittable = (pre.name in NAMED_PATTERNS and pre.pattern is not None) or bool(specials)
    with dask_log_kept() as keeper:
        with _Connection(distributed, scheduler, n_workers, processes, connect_timeout) as client:
            watchdog = Watchdog(client, scheduler, worker_timeout, keeper)
            counts, digests = job.run(client, watchdog, hashes)
    summary = job.summary()
    per_file = job.records.per_file if job.records is not None else {}
    counted = tuple(
        CountedFile(
            f.name,
            f.size,
            digests[k] if hashes else None,
            f.container,
            per_file.get(f.url, 0) if f.container != TEXT_FILE else None,
        )
        for k, f in enumerate(files)
    )
    return CountTable(
        counts=counts,
        pretokenizer=job.spec,
        special_tokens=specials,
        invalid_utf8=errors,
        corpus_bytes=job.total,
        files=counted,
        long_pretokens=job.long_pretokens,
        text_bytes=job.text_bytes,
        records=summary.to_json() or None,
        reading=summary,
        normalizer=job.normalizer,
    )


@dataclass
class _Job:
    """One count on a cluster: what to count and how; :meth:`run` submits it and adds the results."""

    files: list[InputFile]
    spec: str
    specials: tuple[str, ...]
    errors: str
    chunk_bytes: int
    progress: Callable[[int, int], None] | None
    cancel: CancelFlag | Callable[[], bool] | None
    splittable: bool = False
    long_pretokens: int = 0  # how many the workers cut, once the count is gathered
    text_bytes: int = 0  # the corpus's bytes of text, known once :meth:`run` is done
    reading: tuple[str, bool] = ("text", False)  # the field, and whether bad records are skipped
    normalizer: str = "none"  # what each document goes through before it is cut
    records: RecordPart | None = None  # what the workers read of records, once gathered

    def summary(self) -> ReadSummary:
        """What reading saw, as a local count's reader says it: records, skips (named where the
        first of each kind is, in the file's own line numbers) and the files by container."""
        tally = RecordTally(self.reading[0])
        if self.records is not None:
            tally.add(self.records.tally)
            for reason, (url, start) in self.records.starts.items():
                tally.first[reason] = shift_lines(
                    tally.first[reason], _name_of(self.files, url), _lines_to(url, start)
                )
        for f in self.files:
            tally.files[f.container] = tally.files.get(f.container, 0) + 1
        text_files = sum(1 for f in self.files if f.container == TEXT_FILE)
        return ReadSummary(tally, tally.records + text_files, self.text_bytes)

    @property
    def total(self) -> int:
        """The corpus's bytes as stored."""
        return sum(f.size for f in self.files)

    def run(self, client: Any, watchdog: Watchdog, hashes: bool) -> tuple[dict[str, int], list[str]]:
        """Count on ``client``'s cluster: the table, and the files' SHA-256 (when ``hashes``)."""
        # Ranges no larger than a quarter of each worker thread's share (down to 1 MB), so that no
        # worker is left counting a long last range alone.
        threads = max(1, sum(client.nthreads().values()))
        chunk = min(self.chunk_bytes, max(1 << 20, self.total // (4 * threads) + 1))
        ranges = plan_ranges(self.files, chunk, self.splittable)
        leaves = [
            client.submit(
                count_range,
                r,
                self.spec,
                self.specials,
                self.errors,
                self.reading,
                self.normalizer,
                pure=False,
            )
            for r in ranges
        ]
        # This process adds the ranges' tables in order as they come, while the workers count on
        # (its memory is the table and one range's table). It adds about a million rows a second,
        # so for more than four worker threads, workers first add runs of consecutive ranges.
        group = max(1, min(MAX_GROUP, threads // 4))
        tops: list[Any] = [
            leaves[i]
            if len(leaves[i : i + group]) == 1
            else client.submit(add_partials, *leaves[i : i + group], pure=False)
            for i in range(0, len(leaves), group)
        ]
        digests = [client.submit(sha256_of, f.url, pure=False) for f in self.files] if hashes else []
        # An uncompressed file is its own text (an invalid byte counts as the byte it was); the text
        # of a file of records is what its records hold, as the workers count it.
        packed = [f for f in self.files if f.compression and f.container == TEXT_FILE]
        sizes = [client.submit(content_size, f.url, f.compression, pure=False) for f in packed]
        meter = _Meter(leaves, ranges, self.total, self.progress)
        del leaves
        try:
            counts = self._gather(tops, group, meter, watchdog)
            hashed = [_result(d, meter, self.cancel, watchdog) for d in digests]
            unpacked = sum(_result(s, meter, self.cancel, watchdog) for s in sizes)
        except BaseException:
            client.cancel([f for f in (*tops, *meter.pending.values(), *digests, *sizes) if f is not None])
            raise
        plain = sum(f.size for f in self.files if f.container == TEXT_FILE and not f.compression)
        in_records = self.records.text_bytes if self.records is not None else 0
        self.text_bytes = plain + unpacked + in_records
        return counts, hashed

    def _gather(self, tops: list[Any], group: int, meter: _Meter, watchdog: Watchdog) -> dict[str, int]:
        """Add the groups' tables in corpus order as they finish; the corpus's first error is raised."""
        counts: dict[str, int] = {}
        for k in range(len(tops)):
            status, payload, read = _result(tops[k], meter, self.cancel, watchdog)
            tops[k] = None  # the workers may drop it now
            meter.forget(range(k * group, (k + 1) * group))
            if status != "ok":
                message, path, offset = payload
                raise CorpusError(message, path=path, offset=offset)
            self.long_pretokens += add_packed(counts, payload)
            self.records = _added(self.records, read)
            del payload
        return counts


class _Meter:
    """Reports the bytes of the ranges counted so far, from the leaf tasks still held."""

    def __init__(
        self,
        leaves: list[Any],
        ranges: list[ByteRange],
        total: int,
        progress: Callable[[int, int], None] | None,
    ) -> None:
        self.pending = dict(enumerate(leaves))
        self.ranges = ranges
        self.total = total
        self.progress = progress
        self.done = 0

    def poll(self) -> bool:
        """Count the ranges finished since the last poll, and report; whether any had finished."""
        finished = [k for k, fut in self.pending.items() if fut.done()]
        self.forget(finished)
        return bool(finished)

    def forget(self, indexes: Iterable[int]) -> None:
        """Count these ranges as done and let go of their tasks (their group has added them)."""
        for k in indexes:
            if self.pending.pop(k, None) is not None:
                self.done += self.ranges[k].end - self.ranges[k].start
        if self.progress is not None:
            self.progress(min(self.done, self.total), self.total)


def _result(
    future: Any, meter: _Meter, cancel: CancelFlag | Callable[[], bool] | None, watchdog: Watchdog
) -> Any:
    """``future``'s result, reporting progress, checking ``cancel`` and the watchdog ten times a second.

    A finished task's result may live on a worker that has died since: fetching it then sends the
    task back to be counted again, so the fetch too is given a tenth of a second at a time.
    """
    while True:
        try:
            _check_cancel(cancel)
        except Cancelled:
            raise Cancelled("counting was cancelled") from None
        watchdog.check(meter.poll())
        if not future.done():
            time.sleep(0.1)
            continue
        try:
            return future.result(timeout=0.1)
        except TimeoutError:
            continue
        except Exception as exc:  # the scheduler went away, or a task's workers died too often
            raise DaskError(
                f"counting on the Dask cluster at {watchdog.scheduler} failed: "
                f"{type(exc).__name__}: {_first_line(exc)}"
            ) from None


def _name_of(files: Sequence[InputFile], url: str) -> str:
    return next((f.name for f in files if f.url == url), url)


def _lines_to(url: str, offset: int) -> int:
    """How many lines of the file at ``url`` end before byte ``offset`` (read through fsspec)."""
    import fsspec

    with fsspec.open(url, "rb") as fh:
        return lines_before(fh, offset)


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [""])[0]


def local_cluster(n_workers: int | None = None, processes: bool = True, **options: Any) -> Any:
    """A ``LocalCluster`` for counting: ``n_workers`` (default: the CPUs, at most 8) of one thread each.

    The workers' statistical profiler is off: it samples every thread's stack every 10 ms, which
    costs a CPU-bound pre-tokenizer a noticeable share of its time for a dashboard nobody opens.
    The scheduler hands every range to a worker at once rather than as workers free up: it runs
    in this process, whose thread adding tables would otherwise keep idle workers waiting.
    There is no dashboard, and the scheduler's HTTP server (which it starts even so) listens on a
    free port of the loopback interface: Dask's default, port 8787 on every interface, may be
    another program's, and is then a warning on every count. ``options`` go to ``LocalCluster``.
    """
    import dask
    import dask.distributed

    n = min(os.cpu_count() or 1, 8) if n_workers is None else n_workers
    settings = {"distributed.worker.profile.enabled": False, "distributed.scheduler.worker-saturation": "inf"}
    cluster_options: dict[str, Any] = {
        "n_workers": n,
        "threads_per_worker": 1,
        "processes": processes,
        "dashboard_address": "127.0.0.1:0",
        "scheduler_kwargs": {"dashboard": False},
        "silence_logs": 40,
    }
    with dask.config.set(settings):
        return dask.distributed.LocalCluster(**(cluster_options | options))


class _Connection:
    """A Dask client for ``scheduler`` (and the LocalCluster it needs), closed on exit."""

    def __init__(
        self, distributed: Any, scheduler: str, n_workers: int | None, processes: bool, timeout: float
    ) -> None:
        self.distributed = distributed
        self.timeout = timeout
        self.scheduler = scheduler
        self.n_workers = n_workers
        self.processes = processes
        self.cluster: Any = None
        self.client: Any = None

    def __enter__(self) -> Any:
        if self.scheduler != "local":
            self.client = connect(self.distributed, self.scheduler, self.timeout)
            return self.client
        try:
            self.cluster = local_cluster(self.n_workers or None, self.processes)  # 0: the default too
            self.client = self.distributed.Client(self.cluster)
        except (OSError, TimeoutError, ValueError) as exc:
            self.__exit__(None, None, None)
            raise DaskError(f"cannot start a local Dask cluster: {_first_line(exc)}") from None
        return self.client

    def __exit__(self, *exc: object) -> None:
        if self.client is not None:
            self.client.close()
        if self.cluster is not None:
            self.cluster.close()
