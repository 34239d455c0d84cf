"""Counting pre-tokens on a Dask cluster: byte ranges counted on workers, partial tables reduced.

Each file is split into byte ranges of about ``chunk_bytes``. A worker counts the text from the
first safe cut at or after its range's start to the first safe cut at or after its end, so the
ranges tile the file and every pre-token is counted exactly once. A safe cut (in bytes) is a
space after a printable ASCII character (named GPT-2/cl100k patterns only: pre-tokens never
cross it, see :mod:`tokviz.core.cuts`) or the start of a special token, in either case with no
special token straddling it; decoding is unchanged by such a cut, with or without replacement
of invalid UTF-8. Compressed files, and files with no safe cut rule (pre-tokenizer ``none`` or a
custom pattern without special tokens), are one range each.

Partial tables are added in corpus order (on a big cluster a worker first adds runs of
consecutive ranges; the client adds the results one at a time, as they come), so the result keeps the corpus's first-seen
order and equals the local table exactly, and the client's memory follows the table, not the
corpus. Tables travel between processes packed into two byte strings (:func:`pack`), which costs
a copy rather than a pickle of every row. Inputs may be local paths or any
``fsspec`` URL the workers can read. ``dask.distributed`` and ``fsspec`` are imported only here,
and only when a Dask count runs.
"""

from __future__ import annotations

import codecs
import hashlib
import os
import time
from array import array
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from .corpus import (
    BINARY,
    NOT_UTF8,
    SNIFF_SIZE,
    TEXT,
    classify_head,
    compression_of,
    iter_parts,
    open_decompressed,
)
from .counts import CountedFile, CountTable, CountTableError
from .errors import Cancelled, CorpusError
from .fileselect import corpus_source
from .pretokenize import NAMED_PATTERNS, Pretokenizer, SpecialSplitter, resolve_pretokenizer
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
    """A corpus file as the workers read it: a local path or an fsspec URL, its size, its compression."""

    url: str
    size: int
    compression: str | None = None
    shown: str = ""

    @property
    def name(self) -> str:
        """The file as the user named it (a local path as given, a URL as resolved)."""
        return self.shown or self.url


@dataclass(frozen=True)
class ByteRange:
    """The part of a file one task counts: nominally ``[start, end)``, moved to the next safe cuts."""

    file: InputFile
    start: int
    end: int
    whole: bool = False


def _is_url(item: str) -> bool:
    return "://" in item and not item.startswith("file://")


def resolve_inputs(inputs: Sequence[str | os.PathLike[str]], errors: str = "strict") -> list[InputFile]:
    """The files to count, in order: local items exactly as training scans them, URLs through fsspec.

    A URL naming a folder contributes its files in sorted order, hidden ones and those that do not
    look like text left out (as for a local folder); a URL naming a file that is not text is refused.
    """
    files: list[InputFile] = []
    for item in inputs:
        text = os.fspath(item)
        if not _is_url(text):
            local = text[len("file://") :] if text.startswith("file://") else text
            # Workers read the absolute path (their working folder may differ); the table names
            # the path as given, as a local count does.
            files += [
                InputFile(str(f.path.resolve()), f.size, f.compression, str(f.path))
                for f in corpus_source([Path(local)], errors)[0]
            ]
            continue
        files += _remote_files(text, errors)
    if not files:
        raise CorpusError("the corpus is empty: no files were given")
    return files


def _remote_files(url: str, errors: str) -> list[InputFile]:
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
            kind = TEXT if compression else classify_head(head, len(head) < SNIFF_SIZE)
            if kind == BINARY and named:
                raise CorpusError(
                    f"{url} is a binary file, not text; a corpus file must hold UTF-8 text", path=url
                )
            if kind == BINARY or (kind == NOT_UTF8 and errors == "strict" and not named):
                continue
            found.append(InputFile(fs.unstrip_protocol(name), int(info["size"]), compression))
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
        if f.compression or not splittable or f.size <= chunk_bytes:
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
_Partial = tuple[str, Any]
# Joins the pre-tokens of a packed table: a lone surrogate, which text decoded from UTF-8 never holds.
_SEP = "\ud800"


def pack(counts: dict[str, int]) -> tuple[bytes, bytes]:
    """A table as two byte strings (the pre-tokens joined, the counts as int64), in row order.

    Pickling a dict of a million strings costs a second at each end of every transfer between
    processes; two byte strings cost a copy.
    """
    words = _SEP.join(counts).encode("utf-8", "surrogatepass")
    return words, array("q", counts.values()).tobytes()


def unpack(packed: tuple[bytes, bytes]) -> dict[str, int]:
    """The table :func:`pack` packed, rows in the same order."""
    words, numbers = packed
    values = array("q")
    values.frombytes(numbers)
    if not values:
        return {}
    return dict(zip(words.decode("utf-8", "surrogatepass").split(_SEP), values))


def count_range(rng: ByteRange, spec: str, specials: tuple[str, ...], errors: str) -> _Partial:
    """(On a worker.) One byte range's counts: ``("ok", packed table)`` or ``("error", (message, path, offset))``.

    Errors are returned rather than raised so the reduction keeps the corpus's first one.
    """
    import fsspec

    f = rng.file
    pre = _pretokenizer_on_worker(spec)
    splitter = SpecialSplitter(specials)
    safe_spaces = pre.name in NAMED_PATTERNS and pre.pattern is not None
    try:
        with fsspec.open(f.url, "rb") as fh:
            if f.compression:
                with open_decompressed(Path(f.url), f.compression, cast(Any, fh)) as stream:
                    data = stream.read()
                base = 0
            else:

                def read(offset: int, length: int) -> bytes:
                    fh.seek(offset)
                    return cast(bytes, fh.read(length))

                encoded = [s.encode("utf-8") for s in specials]
                start = 0 if rng.whole else find_cut(read, rng.start, f.size, safe_spaces, encoded)
                end = f.size if rng.whole else find_cut(read, rng.end, f.size, safe_spaces, encoded)
                data = read(start, end - start) if end > start else b""
                base = start
    except (OSError, EOFError, ValueError) as exc:
        return "error", (f"cannot read {f.name}: {exc}", f.name, None)
    try:
        text = codecs.decode(data, "utf-8", errors)
    except UnicodeDecodeError as exc:
        where = " of its decompressed content" if f.compression else ""
        offset = base + exc.start
        message = (
            f"{f.name} is not valid UTF-8 (byte offset {offset}{where}); "
            "it can be read with replacement characters instead"
        )
        return "error", (message, f.name, offset)
    del data
    counts: Counter[str] = Counter()
    for part in iter_parts([], text, list(specials), safe_spaces, PART_SIZE):
        counts.update(count_words(part, pre, splitter)[0])
    return "ok", pack(counts)


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
    """(On a worker.) Consecutive partial tables added in order, earlier rows first; the first error wins."""
    acc: dict[str, int] = {}
    for part in parts:
        if part[0] != "ok":
            return part
        add_packed(acc, part[1])
    return "ok", pack(acc)


def add_packed(acc: dict[str, int], packed: tuple[bytes, bytes]) -> None:
    """Add a :func:`pack`-ed table into ``acc`` in place; its new rows go after ``acc``'s."""
    words, numbers = packed
    values = array("q")
    values.frombytes(numbers)
    if not values:
        return
    get = acc.get
    for word, n in zip(words.decode("utf-8", "surrogatepass").split(_SEP), values):
        acc[word] = get(word, 0) + n


def sha256_of(url: str) -> str:
    """(On a worker.) The SHA-256 of a file's stored bytes, read through fsspec."""
    import fsspec

    digest = hashlib.sha256()
    with fsspec.open(url, "rb") as fh:
        while block := fh.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


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
    connect_timeout: float = 10.0,
) -> CountTable:
    """Count ``inputs`` on a Dask cluster and return the table (equal to :func:`~tokviz.core.counts.count_iter`'s).

    ``scheduler`` is an address (``tcp://host:8786``) or ``local`` for a ``LocalCluster`` of
    ``n_workers`` (default: the CPUs, at most 8) started and stopped here; ``processes`` chooses
    worker processes (the default, as pre-tokenizing holds the GIL) or threads. ``progress``
    receives (bytes counted, total bytes) as ranges finish; ``cancel`` stops the count. A
    scheduler that does not answer within ``connect_timeout`` seconds is a one-line error.
    """
    distributed = require_dask()
    if errors not in ("strict", "replace"):
        raise CountTableError(f"errors must be 'strict' or 'replace', got {errors!r}")
    specials = tuple(_special_tokens_argument(special_tokens))
    pre = resolve_pretokenizer(pretokenizer)
    files = resolve_inputs(inputs, errors)
    splittable = (pre.name in NAMED_PATTERNS and pre.pattern is not None) or bool(specials)
    total = sum(f.size for f in files)
    with _Connection(distributed, scheduler, n_workers, processes, connect_timeout) as client:
        # Ranges no larger than a quarter of each worker thread's share (down to 1 MB), so that no
        # worker is left counting a long last range alone.
        threads = max(1, sum(client.nthreads().values()))
        chunk = min(chunk_bytes, max(1 << 20, total // (4 * threads) + 1))
        ranges = plan_ranges(files, chunk, splittable)
        spec = pre.to_json()
        leaves = [client.submit(count_range, r, spec, specials, errors, pure=False) for r in ranges]
        # This process adds the ranges' tables in order as they come, while the workers count on
        # (its memory is the table and one range's table). It adds about a million rows a second,
        # so for more than four worker threads, workers first add runs of consecutive ranges.
        group = max(1, min(MAX_GROUP, threads // 4))
        starts = range(0, len(leaves), group)
        tops: list[Any] = [
            leaves[i]
            if len(leaves[i : i + group]) == 1
            else client.submit(add_partials, *leaves[i : i + group], pure=False)
            for i in starts
        ]
        digests = [client.submit(sha256_of, f.url, pure=False) for f in files] if hashes else []
        meter = _Meter(leaves, ranges, total, progress)
        del leaves
        counts: dict[str, int] = {}
        status: str = "ok"
        payload: Any = None
        try:
            for k, start in enumerate(starts):
                _wait(tops[k], meter, cancel)
                status, payload = tops[k].result()
                tops[k] = None  # the workers may drop it now
                meter.forget(range(start, start + group))
                if status != "ok":
                    break
                add_packed(counts, payload)
                payload = None
            hashes_found = [d.result() for d in digests] if status == "ok" else []
        except BaseException:
            client.cancel([f for f in (*tops, *meter.pending.values(), *digests) if f is not None])
            raise
    if status != "ok":
        message, path, offset = payload
        raise CorpusError(message, path=path, offset=offset)
    counted = tuple(
        CountedFile(f.name, f.size, hashes_found[k] if hashes else None) for k, f in enumerate(files)
    )
    return CountTable(
        counts=counts,
        pretokenizer=spec,
        special_tokens=specials,
        invalid_utf8=errors,
        corpus_bytes=total,
        files=counted,
    )


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

    def poll(self) -> None:
        """Count the ranges finished since the last poll, and report."""
        self.forget([k for k, fut in self.pending.items() if fut.done()])

    def forget(self, indexes: Iterable[int]) -> None:
        """Count these ranges as done and let go of their tasks (their group has added them)."""
        for k in indexes:
            if self.pending.pop(k, None) is not None:
                self.done += self.ranges[k].end - self.ranges[k].start
        if self.progress is not None:
            self.progress(min(self.done, self.total), self.total)


def _wait(future: Any, meter: _Meter, cancel: CancelFlag | Callable[[], bool] | None) -> None:
    """Wait for ``future``, reporting progress and checking ``cancel`` ten times a second."""
    while True:
        try:
            _check_cancel(cancel)
        except Cancelled:
            raise Cancelled("counting was cancelled") from None
        meter.poll()
        if future.done():
            return
        time.sleep(0.1)


def local_cluster(n_workers: int | None = None, processes: bool = True) -> Any:
    """A ``LocalCluster`` for counting: ``n_workers`` (default: the CPUs, at most 8) of one thread each.

    The workers' statistical profiler is off: it samples every thread's stack every 10 ms, which
    costs a CPU-bound pre-tokenizer a noticeable share of its time for a dashboard nobody opens.
    The scheduler hands every range to a worker at once rather than as workers free up: it runs
    in this process, whose thread adding tables would otherwise keep idle workers waiting.
    """
    import dask
    import dask.distributed

    n = n_workers or min(os.cpu_count() or 1, 8)
    settings = {"distributed.worker.profile.enabled": False, "distributed.scheduler.worker-saturation": "inf"}
    with dask.config.set(settings):
        return dask.distributed.LocalCluster(
            n_workers=n, threads_per_worker=1, processes=processes, dashboard_address=None, silence_logs=40
        )


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
        d = self.distributed
        try:
            if self.scheduler == "local":
                self.cluster = local_cluster(self.n_workers, self.processes)
                self.client = d.Client(self.cluster)
            else:
                self.client = d.Client(self.scheduler, timeout=f"{self.timeout}s")
        except (OSError, TimeoutError, ValueError) as exc:
            self.__exit__(None, None, None)
            raise CountTableError(f"cannot reach the Dask scheduler at {self.scheduler}: {exc}") from None
        return self.client

    def __exit__(self, *exc: object) -> None:
        if self.client is not None:
            self.client.close()
        if self.cluster is not None:
            self.cluster.close()
