"""Pre-token count tables: the unique pre-tokens of a corpus with their counts, saved and shared.

BPE's merge loop needs only this table, which stays small (millions of rows) however large the
corpus, so counting once and training many vocabulary sizes from the table saves the counting.
A table keeps its rows in the order each pre-token first appears in the corpus: the
``first-seen`` tie rule depends on it, so training from a table gives exactly the merges that
training from the text gives, under either tie rule.

Tables are written as Parquet (through the optional ``pyarrow``: columnar, compressed, readable
by every data tool) or as plain TSV (no dependency, for reading by eye). Both carry the same
metadata: the pre-tokenizer, the special tokens, how invalid UTF-8 was read, the corpus bytes,
the files with their sizes and SHA-256 hashes, and the tokviz version. Tables counted with the
same settings can be added (:func:`merge_tables`), so a corpus can be counted in parts.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import stat
import time
from collections.abc import Callable, Generator, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..corpus.documents import ReadOptions, ReadSummary
from ..corpus.fileselect import corpus_source
from ..corpus.sizes import text_and_file_size
from ..errors import CorpusError, PretokenizerError, TokvizError, VocabSizeError
from ..io.outputs import unfinished_problem
from ..io.path_record import path_fields, recorded_path
from ..pretok.normalize import Normalizer
from ..pretok.pretokenize import resolve_pretokenizer
from .count_schema import (
    MAX_COUNT,
    MAX_COUNT_TEXT,
    METADATA_SCHEMA,
    check_keys,
    count_problem,
    parse_count,
    shown_cell,
)
from .train import (
    TIE_RULES,
    CancelFlag,
    Progress,
    TrainResult,
    _check_cancel,
    _corpus_argument,
    _count_corpus,
    _special_tokens_argument,
    merge_counts,
    normalizer_argument,
    run_to_end,
)

FORMAT = "tokviz-counts"
FORMAT_VERSION = 1
METADATA_KEY = b"tokviz"
TSV_MAGIC = "# " + FORMAT
# The longest metadata line read (its list of corpus files: 100,000 files take about 15 MB).
MAX_HEADER_CHARS = 64 * 2**20
PARQUET_SUFFIXES = (".parquet", ".pq")
TSV_SUFFIXES = (".tsv",)
INSTALL_PYARROW = "pip install 'tokviz-desktop[parquet]' (or pip install pyarrow)"
_HASH_BLOCK = 1 << 20
_TSV_ESCAPES = {"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"}
_TSV_UNESCAPES = {"\\": "\\", "t": "\t", "n": "\n", "r": "\r"}


class CountTableError(TokvizError):
    """A count table cannot be read, written, merged or trained from; the message says why."""


class OverlapError(CountTableError):
    """Tables to add count the same source file (or are the same table): adding them would count it twice."""


@dataclass(frozen=True)
class CountedFile:
    """One corpus file a table was counted from: its path as given, its size and its SHA-256; for a
    file of records, its container and how many records gave text."""

    path: str
    size: int
    sha256: str | None = None
    container: str = "text"
    records: int | None = None

    def to_json(self) -> dict[str, Any]:
        """The file as the table's metadata stores it."""
        out = {**path_fields(self.path), "size": self.size, "sha256": self.sha256}
        if self.container != "text":
            out.update(container=self.container, records=self.records)
        return out


@dataclass
class CountTable:
    """Unique pre-tokens with their counts (in first-seen order) and how they were counted.

    ``invalid_utf8`` is ``"strict"`` (invalid UTF-8 stopped counting) or ``"replace"`` (read as
    U+FFFD). ``parts`` says how many tables were added to make this one. ``corpus_bytes`` is the
    corpus as stored on disk (compressed files by their compressed size); ``text_bytes`` the bytes
    of its text (see :mod:`tokviz.core.corpus.sizes`), None for a table written before it was recorded.
    ``long_pretokens`` is how many pre-tokens this count cut into pieces (as training does; not
    stored in the file; a pre-token split between two parts of the text counts once in each).
    ``records`` is what reading files of records saw, as stored (:meth:`ReadSummary.to_json`), and
    ``reading`` the same as the count saw it (with where each kind of skipped record was first met;
    not stored in the file).
    """

    counts: dict[str, int]
    pretokenizer: str
    special_tokens: tuple[str, ...] = ()
    invalid_utf8: str = "strict"
    corpus_bytes: int = 0
    files: tuple[CountedFile, ...] = ()
    tokviz_version: str = field(default_factory=lambda: tokviz_version())
    parts: int = 1
    long_pretokens: int = field(default=0, compare=False)
    text_bytes: int | None = None
    records: dict[str, Any] | None = None
    reading: ReadSummary | None = field(default=None, compare=False, repr=False)
    # What every document went through before it was cut (a normalizer's name; "none": nothing).
    normalizer: str = "none"

    @property
    def unique(self) -> int:
        """How many distinct pre-tokens the table holds (its rows)."""
        return len(self.counts)

    @property
    def total(self) -> int:
        """How many pre-tokens the corpus holds (the sum of the counts)."""
        return sum(self.counts.values())

    def metadata(self) -> dict[str, Any]:
        """Everything about the table but its rows, as stored beside them (JSON-ready)."""
        pre = resolve_pretokenizer(self.pretokenizer)
        return {
            "format": FORMAT,
            "version": FORMAT_VERSION,
            "order": "first-seen",
            "pretokenizer": self.pretokenizer,
            "pattern": pre.pattern,
            "special_tokens": list(self.special_tokens),
            "invalid_utf8": self.invalid_utf8,
            "corpus_bytes": self.corpus_bytes,
            **({"text_bytes": self.text_bytes} if self.text_bytes is not None else {}),
            "files": [f.to_json() for f in self.files],
            "tokviz_version": self.tokviz_version,
            "parts": self.parts,
            "unique": self.unique,
            "total": self.total,
            **({"records": self.records} if self.records else {}),
            **({"normalizer": self.normalizer} if self.normalizer != "none" else {}),
        }

    def settings_difference(self, other: CountTable) -> str | None:
        """Why ``other`` was counted differently from this table (None when the settings match)."""
        if self.pretokenizer != other.pretokenizer:
            return f"pre-tokenizer {self.pretokenizer!r} vs {other.pretokenizer!r}"
        if self.normalizer != other.normalizer:
            return f"normalizer {self.normalizer} vs {other.normalizer}"
        if set(self.special_tokens) != set(other.special_tokens):
            return f"special tokens {list(self.special_tokens)} vs {list(other.special_tokens)}"
        if self.invalid_utf8 != other.invalid_utf8:
            return f"invalid UTF-8 {_utf8_words(self.invalid_utf8)} vs {_utf8_words(other.invalid_utf8)}"
        return None

    def describe(self) -> str:
        """One line about the table: rows, corpus, files and settings."""
        return describe_metadata(self.metadata())


def describe_metadata(meta: Mapping[str, Any]) -> str:
    """One line about a table from its metadata (see :meth:`CountTable.metadata`)."""
    specials = meta.get("special_tokens") or []
    files = meta.get("files") or []
    parts = [
        f"{meta.get('unique', 0):,} unique pre-tokens ({meta.get('total', 0):,} in all)",
        f"{_corpus_size(meta)} from {len(files):,} file{'s' if len(files) != 1 else ''}"
        if files
        else f"{_mb(meta.get('corpus_bytes', 0))} of text",
        f"pre-tokenizer {meta.get('pretokenizer')}",
        *([f"normalizer {meta['normalizer']}"] if meta.get("normalizer", "none") != "none" else []),
        f"special tokens {', '.join(specials)}" if specials else "no special tokens",
        f"invalid UTF-8 {_utf8_words(str(meta.get('invalid_utf8')))}",
    ]
    return "; ".join(parts)


def _corpus_size(meta: Mapping[str, Any]) -> str:
    """The files' text and, where it differs, their size on disk (tables of old record the latter only)."""
    text_bytes = meta.get("text_bytes")
    file_bytes = meta.get("corpus_bytes", 0)
    return text_and_file_size(
        text_bytes if isinstance(text_bytes, int) else None,
        file_bytes if isinstance(file_bytes, int) else 0,
        _mb,
    )


def _mb(n: object) -> str:
    size = n if isinstance(n, int) else 0
    return f"{size / 1e6:,.1f} MB" if size >= 100_000 else f"{size:,} bytes"


def _utf8_words(mode: str) -> str:
    return "replaced by U+FFFD" if mode == "replace" else "refused"


def tokviz_version() -> str:
    """The installed tokviz version (or "unknown" when running from a checkout not installed)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("tokviz-desktop")
    except PackageNotFoundError:
        return "unknown"


# ---------------------------------------------------------------------------- counting
def file_sha256(path: str | os.PathLike[str], cancel: CancelFlag | Callable[[], bool] | None = None) -> str:
    """The SHA-256 of a file's bytes as stored (hex), read in blocks; checks ``cancel`` between them."""
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as fh:
            while block := fh.read(_HASH_BLOCK):
                digest.update(block)
                _check_cancel(cancel)
    except OSError as exc:
        raise CorpusError(f"cannot read {path}: {exc.strerror or exc}", path=str(path)) from None
    return digest.hexdigest()


def count_iter(
    *,
    text: str | None = None,
    files: Sequence[str | os.PathLike[str]] | None = None,
    special_tokens: Iterable[str] | None = None,
    pretokenizer: str | None = "gpt2",
    errors: str = "strict",
    workers: int | None = None,
    cancel: CancelFlag | Callable[[], bool] | None = None,
    report_every: float = 0.05,
    parallel: str = "auto",
    hashes: bool = True,
    reading: ReadOptions | None = None,
    normalizer: str | Normalizer | None = None,
) -> Generator[Progress, None, CountTable]:
    """Count a corpus into a :class:`CountTable`, yielding ``pre-tokenizing`` progress (bytes).

    The counting is training's own (same parts, same worker processes, same errors), so a table
    holds exactly what training from the text would merge. ``files`` may name folders, which
    are walked as training walks them; with ``hashes`` each file's SHA-256 is recorded.
    ``reading`` says how files of records are read and how much (see :func:`~tokviz.core.training.train.train_iter`);
    the table records what the reading saw (records, records skipped, where a limit stopped).
    ``normalizer`` normalizes every document before it is cut, as training does, and is recorded.
    """
    if errors not in ("strict", "replace"):
        raise CountTableError(f"errors must be 'strict' or 'replace', got {errors!r}")
    source = _corpus_argument("count_iter", (), text, files, errors)
    if not isinstance(source, str):
        # Folders become their text files here, so the metadata lists the files actually read.
        as_text = reading is not None and reading.as_text
        source = [str(f.path) for f in corpus_source(source, errors, as_text)[0]]
    specials = _special_tokens_argument(special_tokens)
    pre = resolve_pretokenizer(pretokenizer)
    norm = normalizer_argument(normalizer)
    t0 = time.perf_counter()
    counted = yield from _count_corpus(
        source, pre, specials, errors, workers, cancel, report_every, t0, parallel, reading, norm
    )
    # Sizes and hashes of the bytes counted, taken as they were read (not read again after).
    read = tuple(
        CountedFile(f.path, f.size, f.sha256 if hashes else None, f.container, f.records)
        for f in counted.files_read
    )
    yield Progress("pre-tokenizing", counted.bytes, counted.bytes, (), time.perf_counter() - t0)
    return CountTable(
        counts=dict(counted.counts),
        pretokenizer=pre.to_json(),
        special_tokens=tuple(specials),
        invalid_utf8=errors,
        corpus_bytes=counted.bytes,
        files=read,
        long_pretokens=counted.long_pretokens,
        text_bytes=counted.text_bytes,
        records=(counted.reading.to_json() or None) if counted.reading is not None else None,
        reading=counted.reading,
        normalizer=norm.name,
    )


def count_corpus(progress: Callable[[Progress], None] | None = None, **kwargs: Any) -> CountTable:
    """Count a corpus (the keywords of :func:`count_iter`), calling ``progress`` with each report."""
    return run_to_end(count_iter(**kwargs), progress)


# ---------------------------------------------------------------------------- merging
def merge_tables(tables: Sequence[CountTable], allow_overlap: bool = False) -> CountTable:
    """Add tables counted with the same settings; rows keep their first-seen order across them.

    The result is the table of the tables' corpora read one after the other, in the order given
    (so ``first-seen`` training on it equals training on those files in that order). Tables
    counted with different settings are refused, naming the first difference; so are tables that
    count the same source file (by SHA-256) unless ``allow_overlap``, and a sum past
    :data:`MAX_COUNT`, naming the table and row that reach it.
    """
    if not tables:
        raise CountTableError("no count tables to merge")
    first = tables[0]
    for k, other in enumerate(tables[1:], start=2):
        diff = first.settings_difference(other)
        if diff is not None:
            raise CountTableError(f"table 1 and table {k} were counted with different settings: {diff}")
    if not allow_overlap:
        _refuse_shared_files(tables)
    counts: dict[str, int] = dict(first.counts)
    for k, other in enumerate(tables[1:], start=2):
        _add_bounded(counts, other.counts, f"table {k}")
    return replace(
        first,
        counts=counts,
        corpus_bytes=sum(t.corpus_bytes for t in tables),
        text_bytes=None
        if any(t.text_bytes is None for t in tables)
        else sum(t.text_bytes or 0 for t in tables),
        files=tuple(f for t in tables for f in t.files),
        tokviz_version=tokviz_version(),
        parts=sum(t.parts for t in tables),
        records=added_records([t.records for t in tables]),
    )


def added_records(records: Sequence[Mapping[str, Any] | None]) -> dict[str, Any] | None:
    """What reading saw over several counts (see :meth:`~tokviz.core.corpus.documents.ReadSummary.to_json`),
    added up; the field is the first's. None when none of them read records."""
    present = [r for r in records if r]
    if not present:
        return None
    out: dict[str, Any] = {"field": present[0].get("field", "text"), "records": 0, "skipped": {}, "files": {}}
    for r in present:
        out["records"] += int(r.get("records", 0))
        for key in ("skipped", "files"):
            for name, n in dict(r.get(key) or {}).items():
                out[key][name] = out[key].get(name, 0) + int(n)
    stopped = [r["stopped"] for r in present if r.get("stopped")]
    if stopped:
        out["stopped"] = stopped[0]
    return out


def _refuse_shared_files(tables: Sequence[CountTable]) -> None:
    """Refuse tables of which two count a source file of the same SHA-256."""
    owner: dict[str, tuple[int, str]] = {}
    for k, table in enumerate(tables, start=1):
        for f in table.files:
            if f.sha256 is None:
                continue
            earlier = owner.setdefault(f.sha256, (k, f.path))
            if earlier[0] != k:
                raise OverlapError(
                    f"table {earlier[0]} and table {k} both count {earlier[1]} "
                    f"(SHA-256 {f.sha256[:12]}…): adding them would count it twice"
                )


def _add_bounded(counts: dict[str, int], other: Mapping[str, int], name: str) -> None:
    """Add ``other``'s rows into ``counts`` (new rows last), refusing a sum past :data:`MAX_COUNT`."""
    get = counts.get
    for row, (word, n) in enumerate(other.items(), start=1):
        total = get(word, 0) + n
        if total > MAX_COUNT:
            raise CountTableError(
                f"{name}: row {row} ({word!r}) brings its count to {total:,}, "
                f"past the largest a table holds ({MAX_COUNT_TEXT})"
            )
        counts[word] = total


def merge_table_files(paths: Sequence[str | os.PathLike[str]], allow_overlap: bool = False) -> CountTable:
    """Read the tables at ``paths`` and add them (see :func:`merge_tables`); messages name the files.

    The same table given twice (or a copy of it) is refused unless ``allow_overlap``: its rows
    would be counted twice even when it records no source file hashes.
    """
    shown = [os.fspath(p) for p in paths]
    tables = [load_table(p) for p in shown]
    try:
        if not allow_overlap:
            _refuse_same_table(shown)
        return merge_tables(tables, allow_overlap)
    except CountTableError as exc:
        # Name the tables by their paths rather than their positions.
        message = str(exc)
        for k, p in enumerate(shown, start=1):
            message = message.replace(f"table {k} ", f"{p} ").replace(f"table {k}:", f"{p}:")
        exc.args = (message,)
        raise


def _refuse_same_table(paths: Sequence[str]) -> None:
    seen: dict[str, str] = {}
    for p in paths:
        digest = file_sha256(p)
        if digest in seen:
            raise OverlapError(
                f"{seen[digest]} and {p} are the same table: adding them would count its rows twice"
            )
        seen[digest] = p


def add_ordered(left: dict[str, int], right: Mapping[str, int]) -> dict[str, int]:
    """Add ``right``'s counts into ``left`` (in place, and returned): new rows go after ``left``'s.

    Associative, so partial tables of consecutive corpus parts can be reduced in any tree shape
    as long as each step keeps left before right.
    """
    get = left.get
    for word, n in right.items():
        left[word] = get(word, 0) + n
    return left


# ---------------------------------------------------------------------------- training
def train_from_counts_iter(
    table: CountTable,
    vocab_size: int,
    tie_break: str = "lexicographic",
    cancel: CancelFlag | Callable[[], bool] | None = None,
    report_every: float = 0.05,
) -> Generator[Progress, None, TrainResult]:
    """Train on a count table: the merge loop of :func:`~tokviz.core.training.train.train_iter`, without counting.

    The special tokens and pre-tokenizer are the table's (they decided what was counted). The
    arguments are checked at the call, before the generator starts.
    """
    if tie_break not in TIE_RULES:
        raise CountTableError(f"unknown tie rule {tie_break!r}; use one of {', '.join(TIE_RULES)}")
    specials = list(table.special_tokens)
    if not isinstance(vocab_size, int) or isinstance(vocab_size, bool) or vocab_size < 256 + len(specials):
        raise VocabSizeError(
            f"vocab size {vocab_size!r} is too small: it must hold the 256 bytes"
            + (f" and {len(specials)} special tokens" if specials else "")
            + f" (at least {256 + len(specials)})"
        )
    return _merge_table(table, vocab_size, tie_break, cancel, report_every)


def _merge_table(
    table: CountTable,
    vocab_size: int,
    tie_break: str,
    cancel: CancelFlag | Callable[[], bool] | None,
    report_every: float,
    t0: float | None = None,
) -> Generator[Progress, None, TrainResult]:
    """The merges of ``table``; a run started at ``t0`` has said it is reading already."""
    if t0 is None:
        t0 = time.perf_counter()
        yield Progress("reading", 0, 1, (), 0.0)
    return (
        yield from merge_counts(
            table.counts,
            table.corpus_bytes,
            vocab_size,
            list(table.special_tokens),
            resolve_pretokenizer(table.pretokenizer),
            tie_break,
            cancel,
            report_every,
            t0,
            text_bytes=table.text_bytes,
            normalizer=table.normalizer,
        )
    )


def train_from_counts(
    table: CountTable,
    vocab_size: int,
    tie_break: str = "lexicographic",
    progress: Callable[[Progress], None] | None = None,
    cancel: CancelFlag | Callable[[], bool] | None = None,
) -> TrainResult:
    """Train on a count table to the end (see :func:`train_from_counts_iter`)."""
    return run_to_end(train_from_counts_iter(table, vocab_size, tie_break, cancel), progress)


def is_count_table(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a count table (``.parquet`` or ``.tsv`` written by :func:`save_table`).

    A ``.tsv`` of ordinary text stays a corpus file; only the header written by :func:`save_table`
    makes it a table. A Parquet file is a table when its metadata says so: other Parquet files are
    corpora of records (a shard of a pre-training set).
    """
    name = os.fspath(path).lower()
    if not name.endswith(PARQUET_SUFFIXES + TSV_SUFFIXES) or not os.path.isfile(path):
        return False
    try:
        with open(path, "rb") as fh:
            head = fh.read(len(TSV_MAGIC) + 1)
    except OSError:
        return False
    if head.startswith(b"PAR1"):
        return _parquet_table(path)
    return head == (TSV_MAGIC + " ").encode()


def _parquet_table(path: str | os.PathLike[str]) -> bool:
    """Whether a Parquet file's footer carries a count table's metadata."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        metadata = pq.read_schema(path).metadata or {}
    except (pa.ArrowException, OSError):
        return False
    return METADATA_KEY in metadata


def table_among(paths: Sequence[str | os.PathLike[str]]) -> str | None:
    """The count table named by ``paths`` (None when they are corpus files); a table with other files is refused."""
    tables = [os.fspath(p) for p in paths if is_count_table(p)]
    if not tables:
        return None
    if len(paths) > 1:
        raise CountTableError(
            f"{tables[0]} is a count table, which trains alone: remove the other files "
            "(or add tables together with tokviz count --merge)"
        )
    return tables[0]


def train_source_iter(
    source: str | Sequence[str | os.PathLike[str]],
    *,
    vocab_size: int,
    special_tokens: Iterable[str] = (),
    pretokenizer: str | None = "gpt2",
    tie_break: str = "lexicographic",
    cancel: CancelFlag | Callable[[], bool] | None = None,
    errors: str = "strict",
    workers: int | None = None,
    parallel: str = "auto",
    kept: dict[str, Any] | None = None,
    reading: ReadOptions | None = None,
    normalizer: str | None = None,
) -> Generator[Progress, None, TrainResult]:
    """Train on text (a ``str``), files, or a count table given as the only file; keep the table.

    Training on text or files counts first (as :func:`~tokviz.core.training.train.train_iter` does, with the
    same merges) and puts the :class:`CountTable` in ``kept["count_table"]``, so it can be saved
    afterwards without counting again. A count table trains with its own pre-tokenizer, special
    tokens and normalizer (``normalizer`` must then be None or the table's). Arguments are checked at the call, before the generator starts. ``reading`` says how
    files of records are read (see :func:`~tokviz.core.training.train.train_iter`).
    """
    from .train import train_iter

    table_path = None if isinstance(source, str) else table_among(list(source))
    if table_path is not None:
        if tie_break not in TIE_RULES:
            raise CountTableError(f"unknown tie rule {tie_break!r}; use one of {', '.join(TIE_RULES)}")
        return _train_table_file(table_path, vocab_size, tie_break, cancel, normalizer)
    corpus: dict[str, Any] = {"text": source} if isinstance(source, str) else {"files": list(source)}
    settings: dict[str, Any] = {
        "special_tokens": list(special_tokens),
        "pretokenizer": pretokenizer,
        "errors": errors,
        "workers": workers,
        "cancel": cancel,
        "parallel": parallel,
        "reading": reading,
        "normalizer": normalizer,
    }
    train_iter(
        **corpus, vocab_size=vocab_size, tie_break=tie_break, **settings
    ).close()  # checks every argument
    return _count_then_train(corpus, settings, vocab_size, tie_break, kept)


def _train_table_file(
    path: str,
    vocab_size: int,
    tie_break: str,
    cancel: CancelFlag | Callable[[], bool] | None,
    normalizer: str | None = None,
) -> Generator[Progress, None, TrainResult]:
    yield Progress("reading", 0, 1, (), 0.0)
    table = load_table(path)
    check_table_normalizer(table, normalizer, path)
    return (yield from train_from_counts_iter(table, vocab_size, tie_break, cancel))


def check_table_normalizer(table: CountTable, normalizer: str | None, path: str) -> None:
    """Refuse training ``table`` with a ``normalizer`` other than the one it was counted with: its
    pre-tokens were cut from text normalized (or not) already, which training cannot redo."""
    if normalizer is None or normalizer_argument(normalizer).name == table.normalizer:
        return
    raise CountTableError(
        f"{path} was counted with the normalizer {table.normalizer}, not {normalizer_argument(normalizer).name}: "
        "count the corpus again with that normalizer (tokviz count --normalizer) or train on the files"
    )


def _count_then_train(
    corpus: dict[str, Any],
    settings: dict[str, Any],
    vocab_size: int,
    tie_break: str,
    kept: dict[str, Any] | None,
) -> Generator[Progress, None, TrainResult]:
    t0 = time.perf_counter()
    yield Progress("reading", 0, 1, (), 0.0)
    table = yield from count_iter(**corpus, **settings)  # hashes of the bytes as they were read
    if kept is not None:
        kept["count_table"] = table
    result = yield from _merge_table(table, vocab_size, tie_break, settings["cancel"], 0.05, t0)
    result.reading = table.reading
    return result


def with_hashes(table: CountTable, cancel: CancelFlag | Callable[[], bool] | None = None) -> CountTable:
    """``table`` with each file's SHA-256 filled in, refusing files that changed size since counting."""
    files = []
    for f in table.files:
        try:
            size = os.stat(f.path).st_size
        except OSError as exc:
            raise CountTableError(f"cannot read {f.path}: {exc.strerror or exc}") from None
        if size != f.size:
            raise CountTableError(
                f"{f.path} changed since it was counted ({f.size:,} -> {size:,} bytes); train again to save its counts"
            )
        files.append(f if f.sha256 else replace(f, sha256=file_sha256(f.path, cancel)))
    return replace(table, files=tuple(files))


# ---------------------------------------------------------------------------- files
def table_format(path: str | os.PathLike[str]) -> str:
    """``parquet`` or ``tsv``, from the file name; any other suffix is refused with the choices."""
    name = os.fspath(path).lower()
    if name.endswith(PARQUET_SUFFIXES):
        return "parquet"
    if name.endswith(TSV_SUFFIXES):
        return "tsv"
    raise CountTableError(f"{os.fspath(path)}: a count table is named .parquet or .tsv")


def _pyarrow() -> tuple[Any, Any]:
    """pyarrow and pyarrow.parquet, or a one-line error saying how to install them."""
    try:
        import pyarrow
        import pyarrow.parquet
    except ImportError:
        raise CountTableError(
            f"Parquet count tables need pyarrow: {INSTALL_PYARROW}; a .tsv table needs nothing extra"
        ) from None
    return pyarrow, pyarrow.parquet


def table_bytes(table: CountTable, fmt: str) -> bytes:
    """The table as a file's bytes, in ``parquet`` or ``tsv`` (see :func:`table_format`).

    A count that a table cannot hold (see :data:`MAX_COUNT`), a pre-token UTF-8 cannot encode and
    metadata outside its schema are refused, naming the row or key, so every table written reads
    back.
    """
    _check_rows(table.counts)
    metadata = table.metadata()
    problem = check_keys(metadata, METADATA_SCHEMA, "")
    if problem:
        raise CountTableError(f"metadata {problem}, so the table cannot be written")
    meta = json.dumps(metadata, ensure_ascii=False, sort_keys=True)
    if fmt == "tsv":
        out = io.StringIO()
        out.write(f"{TSV_MAGIC} {meta}\n")
        out.write("count\tpretoken\n")
        esc = _tsv_escape
        for word, n in table.counts.items():
            out.write(f"{n}\t{esc(word)}\n")
        return out.getvalue().encode("utf-8")
    pa, pq = _pyarrow()
    arrow = pa.table(
        {
            "pretoken": pa.array(list(table.counts), pa.large_string()),
            "count": pa.array(list(table.counts.values()), pa.int64()),
        }
    ).replace_schema_metadata({METADATA_KEY: meta.encode("utf-8")})
    sink = pa.BufferOutputStream()
    pq.write_table(arrow, sink, compression="zstd")
    data: bytes = sink.getvalue().to_pybytes()
    return data


def _check_rows(counts: Mapping[str, int]) -> None:
    values = counts.values()
    if not (
        all(type(n) is int for n in values)
        and (not values or (min(values) >= 1 and max(values) <= MAX_COUNT))
    ):
        row, word, problem = next(
            (r, w, p) for r, (w, n) in enumerate(counts.items(), 1) if (p := count_problem(n))
        )
        raise CountTableError(f"row {row} ({word!r}): {problem}, so the table cannot be written")
    try:
        "".join(counts).encode("utf-8")
    except UnicodeEncodeError:
        row, word = next((r, w) for r, w in enumerate(counts, 1) if not _encodable(w))
        raise CountTableError(
            f"row {row} ({word!r}): the pre-token holds a lone surrogate, which UTF-8 cannot encode"
        ) from None


def _encodable(word: str) -> bool:
    try:
        word.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def save_table(table: CountTable, path: str | os.PathLike[str]) -> None:
    """Write ``table`` to ``path`` atomically, in the format its name says."""
    from ..io.atomic import atomic_write_bytes

    atomic_write_bytes(path, table_bytes(table, table_format(path)))


def _tsv_escape(word: str) -> str:
    if "\\" in word or "\t" in word or "\n" in word or "\r" in word:
        return "".join(_TSV_ESCAPES.get(c, c) for c in word)
    return word


def _tsv_unescape(text: str, where: str) -> str:
    if "\\" not in text:
        return text
    out: list[str] = []
    i = 0
    while i < len(text):
        c = text[i]
        if c == "\\":
            nxt = text[i + 1 : i + 2]
            if nxt not in _TSV_UNESCAPES:
                raise CountTableError(f"{where}: unknown escape \\{nxt} in a pre-token")
            out.append(_TSV_UNESCAPES[nxt])
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def read_metadata(path: str | os.PathLike[str]) -> dict[str, Any]:
    """A table's metadata without reading its rows (fast, for showing what a table holds)."""
    shown = os.fspath(path)
    head = _head(shown)
    if head.startswith(b"PAR1"):
        _pa, pq = _pyarrow()
        try:
            raw = (pq.read_schema(shown).metadata or {}).get(METADATA_KEY)
        except (OSError, ValueError) as exc:
            raise CountTableError(f"{shown}: not a readable Parquet file ({exc})") from None
        return _check_metadata(raw, shown)
    with _open_text(shown) as fh:
        first = fh.readline(MAX_HEADER_CHARS + 1)
    return _tsv_metadata(first, shown)


def load_table(path: str | os.PathLike[str]) -> CountTable:
    """Read a table written by :func:`save_table` (Parquet or TSV, told apart by content).

    Every row and metadata key is checked (see :mod:`tokviz.core.training.count_schema`); a refusal names
    the file and the row or key.
    """
    shown = os.fspath(path)
    if _head(shown).startswith(b"PAR1"):
        meta, counts = _read_parquet(shown)
    else:
        meta, counts = _read_tsv(shown)
    files = tuple(
        CountedFile(
            str(recorded_path(f)), f["size"], f.get("sha256"), f.get("container", "text"), f.get("records")
        )
        for f in meta.get("files", [])
    )
    result = CountTable(
        counts=counts,
        pretokenizer=meta["pretokenizer"],
        special_tokens=tuple(meta.get("special_tokens", [])),
        invalid_utf8=meta.get("invalid_utf8", "strict"),
        corpus_bytes=meta.get("corpus_bytes", 0),
        files=files,
        tokviz_version=meta.get("tokviz_version", "unknown"),
        parts=meta.get("parts", 1),
        text_bytes=meta.get("text_bytes"),
        records=meta.get("records"),
        normalizer=meta.get("normalizer", "none"),
    )
    try:  # a damaged or hostile pattern fails here, with the regex's message
        resolve_pretokenizer(result.pretokenizer)
    except PretokenizerError as exc:
        raise CountTableError(f"{shown}: {exc}") from None
    return result


def _head(path: str) -> bytes:
    """The first bytes of a count table, after checking it is a regular file (never a FIFO or device)
    and not one of a set of outputs a stopped run left half replaced."""
    unfinished = unfinished_problem(path)
    if unfinished is not None:
        raise CountTableError(unfinished)
    try:
        if not stat.S_ISREG(os.stat(path).st_mode) and not os.path.isdir(path):
            raise CountTableError(f"{path} is not a regular file (a FIFO or device), so not a count table")
        with open(path, "rb") as fh:
            return fh.read(4)
    except FileNotFoundError:
        raise CountTableError(f"count table not found: {path}") from None
    except IsADirectoryError:
        raise CountTableError(f"{path} is a folder, not a count table") from None
    except OSError as exc:
        raise CountTableError(f"cannot read {path}: {exc.strerror or exc}") from None


def _open_text(path: str) -> io.TextIOWrapper:
    # newline="" keeps "\r" inside lines: pre-tokens hold it escaped, and a stray one is an error.
    return open(path, encoding="utf-8", newline="")


def _check_metadata(raw: bytes | str | None, path: str) -> dict[str, Any]:
    if raw is None:
        raise CountTableError(f"{path} is not a tokviz count table (no tokviz metadata)")
    try:
        meta = json.loads(raw)
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise CountTableError(f"{path}: the table's metadata is not valid JSON") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise CountTableError(f"{path} is not a tokviz count table")
    if meta.get("version") != FORMAT_VERSION:
        raise CountTableError(
            f"{path} is a count table of format version {meta.get('version')!r}; "
            f"this tokviz reads version {FORMAT_VERSION}"
        )
    problem = check_keys(meta, METADATA_SCHEMA, "")
    if problem:
        raise CountTableError(f"{path}: metadata {problem}")
    return meta


def _tsv_metadata(first: str, path: str) -> dict[str, Any]:
    if not first.startswith(TSV_MAGIC + " "):
        raise CountTableError(f"{path} is not a tokviz count table (Parquet or TSV written by tokviz count)")
    if len(first) > MAX_HEADER_CHARS:
        raise CountTableError(f"{path}: the metadata line is longer than {MAX_HEADER_CHARS:,} characters")
    return _check_metadata(first[len(TSV_MAGIC) + 1 :].rstrip("\n"), path)


def _read_parquet(path: str) -> tuple[dict[str, Any], dict[str, int]]:
    pa, pq = _pyarrow()
    try:
        # The metadata and the row count come from the footer: a table whose rows are not the
        # ones its metadata says is refused before any row is read.
        footer = pq.read_metadata(path)
        meta = _check_metadata((footer.metadata or {}).get(METADATA_KEY), path)
        _RowsAsSaid(meta, path).check_rows(footer.num_rows)
        arrow = pq.read_table(path)
    except (OSError, ValueError) as exc:
        raise CountTableError(f"{path}: not a readable Parquet file ({exc})") from None
    if "pretoken" not in arrow.column_names or "count" not in arrow.column_names:
        raise CountTableError(f"{path}: a count table needs the columns 'pretoken' and 'count'")
    words_type = arrow.schema.field("pretoken").type
    counts_type = arrow.schema.field("count").type
    if not (pa.types.is_string(words_type) or pa.types.is_large_string(words_type)):
        raise CountTableError(f"{path}: the column 'pretoken' must hold strings, not {words_type}")
    if not pa.types.is_integer(counts_type):
        raise CountTableError(f"{path}: the column 'count' must hold whole numbers, not {counts_type}")
    words = arrow.column("pretoken").to_pylist()
    numbers = arrow.column("count").to_pylist()
    for row, (word, n) in enumerate(zip(words, numbers), start=1):
        if word is None or n is None:
            raise CountTableError(f"{path}: row {row} has an empty cell")
    counts = dict(zip(words, numbers))
    if len(counts) != len(words):
        raise CountTableError(f"{path}: row {_first_repeat(words)}")
    if numbers and (min(numbers) < 1 or max(numbers) > MAX_COUNT):
        row, word, n = next((r, w, c) for r, (w, c) in enumerate(counts.items(), 1) if count_problem(c))
        raise CountTableError(f"{path}: row {row} ({word!r}): {count_problem(n)}")
    _RowsAsSaid(meta, path).check_end(len(counts), sum(numbers))
    return meta, counts


class _RowsAsSaid:
    """Holds a table's rows to what its metadata says of them (``unique`` rows adding up to
    ``total``), as they are read: the first row past ``unique``, or a sum past ``total``, is
    refused at once, so a header that lies costs no more than the rows it promised."""

    def __init__(self, meta: dict[str, Any], path: str) -> None:
        self.unique: int | None = meta.get("unique")
        self.expected_total: int | None = meta.get("total")
        self.path = path
        self.rows = 0
        self.total = 0

    def add(self, count: int, where: str) -> None:
        """One more row of ``count``; ``where`` names it in a refusal ("line 9")."""
        self.rows += 1
        self.total += count
        if self.unique is not None and self.rows > self.unique:
            raise CountTableError(
                f"{self.path}: {where}: the metadata says {self.unique:,} unique pre-tokens, and this row is one more"
            )
        if self.expected_total is not None and self.total > self.expected_total:
            raise CountTableError(
                f"{self.path}: {where}: the counts add up to more than the metadata's total of {self.expected_total:,}"
            )

    def check_rows(self, rows: int) -> None:
        """The table holds ``rows`` rows: as many as said."""
        if self.unique is not None and rows != self.unique:
            raise CountTableError(
                f"{self.path}: the metadata says {self.unique:,} unique pre-tokens, but the table has "
                f"{rows:,} {'row' if rows == 1 else 'rows'}"
            )

    def check_end(self, rows: int, total: int) -> None:
        """All ``rows`` are read: as many as said, adding up to ``total``, the total said."""
        self.check_rows(rows)
        if self.expected_total is not None and total != self.expected_total:
            raise CountTableError(
                f"{self.path}: the counts add up to {total:,}, but the metadata's total is {self.expected_total:,}"
            )


def _first_repeat(words: Sequence[str]) -> str:
    """Where the first pre-token that is in an earlier row too sits: "ROW: the pre-token ... too"."""
    seen: set[str] = set()
    for row, word in enumerate(words, start=1):
        if word in seen:
            return f"{row}: the pre-token {word!r} is in an earlier row too"
        seen.add(word)
    raise AssertionError("no repeated pre-token")  # pragma: no cover


def _read_tsv(path: str) -> tuple[dict[str, Any], dict[str, int]]:
    counts: dict[str, int] = {}
    try:
        with _open_text(path) as fh:
            meta = _tsv_metadata(fh.readline(MAX_HEADER_CHARS + 1), path)
            if fh.readline(64) != "count\tpretoken\n":
                raise CountTableError(f"{path}: the second line must be the header 'count<TAB>pretoken'")
            rows = _RowsAsSaid(meta, path)
            for lineno, line in enumerate(fh, start=3):
                word, n = _tsv_row(line, f"{path}: line {lineno}")
                if word in counts:
                    raise CountTableError(
                        f"{path}: line {lineno}: the pre-token {word!r} is in an earlier row too"
                    )
                rows.add(n, f"line {lineno}")
                counts[word] = n
            rows.check_end(len(counts), rows.total)
    except UnicodeDecodeError as exc:
        raise CountTableError(f"{path} is not UTF-8 text (byte {exc.start} of a block)") from None
    except OSError as exc:
        raise CountTableError(f"cannot read {path}: {exc.strerror or exc}") from None
    return meta, counts


def _tsv_row(line: str, where: str) -> tuple[str, int]:
    """One TSV row as (pre-token, count); ``where`` names the file and line in a refusal."""
    if not line.endswith("\n"):
        raise CountTableError(f"{where} is cut short (the file is incomplete)")
    cell, tab, word = line[:-1].partition("\t")
    if not tab or "\r" in word:
        raise CountTableError(f"{where} is not 'count<TAB>pre-token'")
    n = parse_count(cell)
    if n is None:
        raise CountTableError(
            f"{where}: the count {shown_cell(cell)} is not a whole number from {MAX_COUNT_TEXT}"
        )
    return _tsv_unescape(word, where), n
