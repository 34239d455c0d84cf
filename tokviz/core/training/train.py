"""Byte-level BPE training: exact (checked against a slow reference) and fast.

The corpus is counted as a table of unique pre-tokens ("words") with their frequencies, in
parallel processes for large inputs. The merge loop keeps pair counts incrementally, an index
from each pair to the positions where it occurs (:mod:`tokviz.core.training.pairindex`) and a lazy
priority queue, so each merge costs its own occurrences, however long the words are. The loop
runs compiled where tokviz was built with a C compiler, else in Python, with the same results
(:mod:`tokviz.core.training.mergeloop`).

Tie rules, among the pairs with the highest count:
  * ``lexicographic``: the greatest ``(left bytes, right bytes)`` wins;
  * ``first-seen`` (the lecture's rule): the pair whose first occurrence in the current corpus
    sequence comes earliest wins.
Every adjacent pair is counted (``aaa`` has two ``(a, a)``); a merge replaces non-overlapping
occurrences left to right.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping
from concurrent.futures import Future
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Never, Protocol, TypeVar

from ..bpe.arguments import checked_special_names
from ..bpe.merges import MergeStep
from ..bpe.tokenizer import LONE_SURROGATE as _LONE_SURROGATE
from ..bpe.tokenizer import Tokenizer
from ..corpus.documents import CorpusReader, ReadOptions, ReadSummary, iter_parts
from ..corpus.fileselect import corpus_source
from ..corpus.reading import CorpusSource, FileRead, ReadLog
from ..errors import ArgumentTypeError, Cancelled, CorpusError, InvalidArgument, VocabSizeError
from ..io.procpool import process_context, stop_pool, worker_pool
from ..pretok.normalize import Normalizer, parse_normalizer
from ..pretok.pretokenize import (
    LONGEST_PRETOKEN,
    NAMED_PATTERNS,
    Pretokenizer,
    SpecialSplitter,
    compile_custom_pattern,
    cut_long_pretokens,
    long_pretokens_note,
    pattern_overrun,
    resolve_pretokenizer,
    time_limit,
)
from .mergeloop import new_loop
from .pairindex import preload_numpy

Report = TypeVar("Report")
Result = TypeVar("Result")

TIE_RULES = ("lexicographic", "first-seen")
# When pre-tokens are counted in worker processes: "auto" for corpora of PARALLEL_THRESHOLD or more
# with more than one worker, "always" (even for a small corpus, so that cancel can terminate a
# slow custom pattern at once instead of waiting for its regex call to end), "never".
PARALLEL_MODES = ("auto", "always", "never")
PHASES = ("reading", "pre-tokenizing", "merging", "done")

# Corpora larger than this (in characters) are pre-tokenized in worker processes.
PARALLEL_THRESHOLD = 4 << 20
# Text parts of about this many characters: small enough that any part is counted in well
# under 100 ms (so cancel is prompt), large enough that process overhead stays small.
PART_SIZE = 1 << 18


class CancelFlag(Protocol):
    def is_set(self) -> bool: ...


@dataclass(frozen=True, slots=True)
class Progress:
    """A progress report: the phase, how much of it is done, and merges made since the last one.

    While pre-tokenizing, ``done`` and ``total`` are bytes (of the files as stored, or of text
    when a byte limit is set) and ``records`` the records of JSON Lines, Parquet or Arrow files
    read so far.
    """

    phase: str
    done: int
    total: int
    merges: tuple[MergeStep, ...] = ()
    elapsed: float = 0.0
    records: int = 0


@dataclass
class TrainResult:
    """What training produces: the vocabulary, the ordered merges, and the merge history.

    ``stop_reason`` is None when training made every merge the requested vocabulary size asked
    for; otherwise it says, in one sentence, why it stopped sooner (see :attr:`stopped_early`).
    ``long_pretokens`` counts the pre-tokens longer than
    :data:`~tokviz.core.pretok.pretokenize.LONGEST_PRETOKEN` characters that were cut into pieces;
    ``files_read`` holds each corpus file's size and SHA-256 as training read it (for provenance);
    ``reading`` what reading the files saw (records, records skipped, where a limit stopped it).
    """

    vocab: dict[int, bytes]
    merges: list[tuple[bytes, bytes]]
    history: list[MergeStep]
    special_tokens: list[str]
    pretokenizer: str
    tie_break: str
    vocab_size_requested: int
    initial_tokens: int
    corpus_bytes: int
    unique_words: int
    timings: dict[str, float] = field(default_factory=dict)
    stop_reason: str | None = None
    long_pretokens: int = 0
    files_read: tuple[FileRead, ...] = ()
    text_bytes: int | None = None
    reading: ReadSummary | None = None
    # The normalizer every document went through before it was cut (its name; "none": none).
    normalizer: str = "none"

    @property
    def long_pretokens_note(self) -> str | None:
        """One line saying that long pre-tokens were cut (the CLI and the GUI show it), or None."""
        return long_pretokens_note(self.long_pretokens)

    @property
    def text_size(self) -> int:
        """Bytes of text trained on: the input's bytes after decompression (an invalid byte read
        as U+FFFD counts as the one byte it was). ``corpus_bytes`` is the files as stored; the
        two differ for compressed files. Falls back to ``corpus_bytes`` when not measured."""
        return self.text_bytes if self.text_bytes is not None else self.corpus_bytes

    @property
    def stopped_early(self) -> bool:
        """True when the corpus ran out of pairs before the requested vocabulary size was reached.

        A vocabulary size a corpus cannot reach is not an error (the model is still complete
        for that corpus), but the caller must be able to tell, so the CLI and GUI say so.
        """
        return self.stop_reason is not None

    def tokenizer(self, name: str = "trained") -> Tokenizer:
        """A :class:`~tokviz.core.bpe.tokenizer.Tokenizer` for this vocabulary."""
        return Tokenizer(
            self.vocab,
            self.merges,
            self.special_tokens,
            self.pretokenizer,
            name=name,
            normalizer=parse_normalizer(self.normalizer),
        )

    def settings(self) -> dict[str, Any]:
        settings: dict[str, Any] = {
            "vocab_size": self.vocab_size_requested,
            "special_tokens": list(self.special_tokens),
            "pretokenizer": self.pretokenizer,
            "tie_break": self.tie_break,
        }
        if self.normalizer != "none":
            settings["normalizer"] = self.normalizer
        return settings


# ---------------------------------------------------------------------------- counting
@dataclass(frozen=True)
class Counted:
    """A counted corpus: unique pre-tokens with their counts (first-seen order), its bytes as
    stored on disk, how many long pre-tokens were cut, each file as it was read (size and
    SHA-256), the bytes of its text (decompressed; see :attr:`TrainResult.text_size`) and what
    reading saw (records, skips, a limit)."""

    counts: Counter[str]
    bytes: int
    long_pretokens: int
    files_read: tuple[FileRead, ...]
    text_bytes: int
    reading: ReadSummary | None = None


# The unique pre-tokens of a text with their counts, and how many long ones were cut.
WordCounts = tuple[dict[str, int], int]
_WORKER_STATE: dict[str, Any] = {}


def _worker_count(
    pattern_spec: str, specials: tuple[str, ...], texts: tuple[str, ...], normalizer: str = "none"
) -> WordCounts:
    key = (pattern_spec, specials, normalizer)
    state = _WORKER_STATE.get("key")
    if state != key:
        _WORKER_STATE["key"] = key
        # Unbounded here, at full speed: the parent terminates a worker whose part overruns.
        _WORKER_STATE["pre"] = _worker_pretokenizer(pattern_spec)
        _WORKER_STATE["split"] = SpecialSplitter(specials)
        _WORKER_STATE["normalizer"] = parse_normalizer(normalizer)
    return count_texts(texts, _WORKER_STATE["pre"], _WORKER_STATE["split"], _WORKER_STATE["normalizer"])


def _worker_pretokenizer(spec: str) -> Pretokenizer:
    """The parent's pre-tokenizer rebuilt in a counting process, unbounded.

    The parent has already resolved (and tried) a custom pattern, so here it is only compiled:
    running the trial again would cost every process up to a quarter second per trial text.
    """
    if spec in NAMED_PATTERNS:
        return resolve_pretokenizer(spec).unbounded()
    return Pretokenizer("custom", spec, compile_custom_pattern(spec), False)


def count_words(
    text: str, pre: Pretokenizer, splitter: SpecialSplitter, normalizer: Normalizer | None = None
) -> WordCounts:
    """Unique pre-tokens of one text part with their counts, in order of first appearance, and how
    many pre-tokens longer than :data:`~tokviz.core.pretok.pretokenize.LONGEST_PRETOKEN` were cut."""
    return count_texts((text,), pre, splitter, normalizer)


def count_texts(
    texts: Iterable[str], pre: Pretokenizer, splitter: SpecialSplitter, normalizer: Normalizer | None = None
) -> WordCounts:
    """:func:`count_words` over several parts in order (many short records go to a worker together),
    each on its own: no pre-token spans two of them. The text between special tokens goes through
    ``normalizer`` first, as the tokenizer's encoder sends it."""
    counts: Counter[str] = Counter()
    cut = 0
    for text in texts:
        for doc in splitter.documents(text):
            if normalizer:
                doc = normalizer(doc)
            words = pre.split(doc)
            if len(doc) > LONGEST_PRETOKEN:
                words, n = cut_long_pretokens(words)
                cut += n
            counts.update(words)
    return counts, cut


def batched_parts(parts: Iterable[str], size: int) -> Iterator[tuple[str, ...]]:
    """Consecutive ``parts`` grouped until they hold ``size`` characters (a part of a text file is
    about that already; short records are many to a group), in order."""
    batch: list[str] = []
    held = 0
    for part in parts:
        batch.append(part)
        held += len(part)
        if held >= size:
            yield tuple(batch)
            batch, held = [], 0
    if batch:
        yield tuple(batch)


def _check_cancel(cancel: CancelFlag | Callable[[], bool] | None) -> None:
    if cancel is None:
        return
    flag = cancel.is_set() if hasattr(cancel, "is_set") else cancel()
    if flag:
        raise Cancelled("training was cancelled")


def _count_corpus(
    source: CorpusSource,
    pre: Pretokenizer,
    specials: list[str],
    errors: str,
    workers: int | None,
    cancel: CancelFlag | Callable[[], bool] | None,
    report_every: float,
    t0: float,
    parallel_mode: str = "auto",
    options: ReadOptions | None = None,
    normalizer: Normalizer | None = None,
) -> Generator[Progress, None, Counted]:
    """Count unique pre-tokens, yielding progress as parts are done (``options``: how records are
    read, and the limits; ``normalizer``: what each document goes through before it is cut)."""
    reader = CorpusReader(options, errors)
    files, text = corpus_source(source, errors, reader.options.as_text)
    total = sum(f.size for f in files) if text is None else len(text.encode("utf-8"))
    by_text = reader.options.max_bytes is not None and text is None
    if by_text:
        total = reader.options.max_bytes or 0
    splitter = SpecialSplitter(specials)
    safe_spaces = pre.name in NAMED_PATTERNS and pre.pattern is not None
    read = [0]
    content = [0]
    last = [0.0]

    def on_bytes(n: int) -> None:
        read[0] += n

    def on_content(n: int) -> None:
        content[0] += n

    def progress() -> Generator[Progress, None, None]:
        now = time.perf_counter()
        if now - last[0] >= report_every:
            last[0] = now
            done = reader.text_bytes if by_text else read[0]
            yield Progress("pre-tokenizing", min(done, total), total, (), now - t0, reader.tally.records)

    counts: Counter[str] = Counter()
    cut = [0]

    def add(found: WordCounts) -> None:
        counts.update(found[0])
        cut[0] += found[1]

    n_workers = workers if workers is not None else min(os.cpu_count() or 1, 8)
    log = ReadLog()
    parts = iter_parts(
        files,
        text,
        specials,
        safe_spaces,
        PART_SIZE,
        errors,
        on_bytes,
        log,
        on_content=on_content,
        reader=reader,
    )
    batches = batched_parts(parts, PART_SIZE)

    def counted() -> Counted:
        # A limit may leave files unread: the corpus is then the bytes read.
        stored = sum(f.size for f in log.files) if text is None and reader.options.limited else total
        summary = reader.summary() if text is None else None
        return Counted(counts, stored, cut[0], tuple(log.files), content[0], summary)

    if not _in_pool(parallel_mode, n_workers, total):
        # Not before a fork: a second thread would make the worker pool use a slower fork server.
        preload_numpy(total)
        for batch in batches:
            _check_cancel(cancel)
            add(count_texts(batch, pre, splitter, normalizer))
            yield from progress()
        return counted()
    yield from _count_in_pool(batches, n_workers, pre, specials, cancel, add, progress, normalizer)
    return counted()


def _in_pool(parallel_mode: str, n_workers: int, total: int) -> bool:
    """Whether pre-tokens are counted in worker processes (see :data:`PARALLEL_MODES`)."""
    if parallel_mode == "auto":
        return n_workers > 1 and total >= PARALLEL_THRESHOLD
    return parallel_mode == "always"


def _count_in_pool(
    batches: Iterable[tuple[str, ...]],
    n_workers: int,
    pre: Pretokenizer,
    specials: list[str],
    cancel: CancelFlag | Callable[[], bool] | None,
    add: Callable[[WordCounts], None],
    progress: Callable[[], Generator[Progress, None, None]],
    normalizer: Normalizer | None = None,
) -> Generator[Progress, None, None]:
    """Count ``batches`` in ``n_workers`` processes, adding each result in order with ``add``."""
    spec = pre.to_json()
    normalizer_name = normalizer.name if normalizer else "none"
    pending: list[tuple[Future[WordCounts], int]] = []
    pool = worker_pool(n_workers, process_context())
    # When the part waited for last was seen done (or the pool made): the next one started by then.
    started = [time.monotonic()]
    finished = False
    try:
        for batch in batches:
            _check_cancel(cancel)
            size = sum(len(part) for part in batch)
            pending.append((pool.submit(_worker_count, spec, tuple(specials), batch, normalizer_name), size))
            # Keep a bounded number of parts in flight: memory follows the unique-word table.
            while len(pending) >= 2 * n_workers:
                add(_wait(*pending.pop(0), pre, cancel, started))
                yield from progress()
        while pending:
            add(_wait(*pending.pop(0), pre, cancel, started))
            yield from progress()
        finished = True
    finally:
        # On cancel or error, nothing is left running: the workers are terminated and reaped
        # (a part with a slow pattern can take seconds), and they die with this process anyway.
        stop_pool(pool, finished)


def _wait(
    fut: Future[WordCounts],
    size: int,
    pre: Pretokenizer,
    cancel: CancelFlag | Callable[[], bool] | None,
    started: list[float],
) -> WordCounts:
    """The counts of one part, checking the cancel flag while waiting.

    A custom pattern runs unbounded in the workers, so the limit is kept here: a part still not
    done twice its :func:`~tokviz.core.pretok.pretokenize.time_limit` after ``started[0]`` (by when it
    had certainly started) ends the run with a :class:`PatternTimeoutError`, and the caller's
    ``stop_pool`` terminates the worker stuck in it.
    """
    limit = 2 * time_limit(size) if pre.bounded else None
    while True:
        _check_cancel(cancel)
        try:
            result = fut.result(timeout=0.05)
        except TimeoutError:
            if limit is not None and time.monotonic() - started[0] > limit:
                raise pattern_overrun(pre.pattern, limit, size) from None
            continue
        started[0] = time.monotonic()
        return result


# What ``files=`` takes: one path (a ``str`` here is always a path) or several paths.
CorpusFiles = str | os.PathLike[str] | Iterable[str | os.PathLike[str]]


def train_iter(
    *positional: Never,
    text: str | None = None,
    files: CorpusFiles | None = None,
    vocab_size: int | None = None,
    special_tokens: Iterable[str] | None = None,
    pretokenizer: str | Pretokenizer | None = "gpt2",
    tie_break: str = "lexicographic",
    cancel: CancelFlag | Callable[[], bool] | None = None,
    errors: str = "strict",
    workers: int | None = None,
    report_every: float = 0.05,
    parallel: str = "auto",
    reading: ReadOptions | None = None,
    normalizer: str | Normalizer | None = None,
) -> Generator[Progress, None, TrainResult]:
    """Train step by step: yields :class:`Progress` (with new merges) and returns the result.

    The corpus is given by keyword, exactly one of ``text=`` (the string itself is the corpus)
    or ``files=`` (a path, or a list of paths to files and folders). A bare positional string
    was once read as text even when it named a file, so it is refused with a message saying
    which keyword to use. Every argument is checked here, before the generator starts, so a
    mistake raises :class:`InvalidArgument` (or :class:`VocabSizeError`) at the call.

    While running it raises :class:`Cancelled` when ``cancel`` is set (checked at least every
    few milliseconds) and :class:`CorpusError` for an unreadable or empty corpus. ``parallel``
    (one of :data:`PARALLEL_MODES`) says when pre-tokens are counted in worker processes; a GUI
    passes ``"always"`` for a custom pattern, whose regex runs over a whole document in one call
    that only a process can be stopped in the middle of. ``reading``
    (:class:`~tokviz.core.corpus.documents.ReadOptions`) says how files of records are read (the
    text field, skipping bad records, JSON Lines as text) and how much (``max_bytes``,
    ``max_records``); each record is a document, as a file is. ``normalizer`` (a
    :class:`~tokviz.core.pretok.normalize.Normalizer` or its spec, ``"nfkc"``) normalizes every
    document before it is cut into pre-tokens, as the trained tokenizer's encoder will.
    """
    source = _corpus_argument("train_iter", positional, text, files, errors)
    norm = normalizer_argument(normalizer)
    if vocab_size is None:
        raise InvalidArgument("train_iter() needs vocab_size=... (256 bytes + merges + special tokens)")
    specials = _special_tokens_argument(special_tokens)
    _check_settings(vocab_size, specials, tie_break, errors, cancel, workers, report_every)
    if parallel not in PARALLEL_MODES:
        raise InvalidArgument(f"parallel= must be one of {', '.join(PARALLEL_MODES)}, got {parallel!r}")
    pre = resolve_pretokenizer(pretokenizer)
    if reading is not None and not isinstance(reading, ReadOptions):
        raise ArgumentTypeError(f"reading= must be a ReadOptions, got {type(reading).__name__}")
    return _train_steps(
        source,
        vocab_size,
        specials,
        pre,
        tie_break,
        cancel,
        errors,
        workers,
        report_every,
        parallel,
        reading,
        norm,
    )


def normalizer_argument(normalizer: object) -> Normalizer:
    """``normalizer=`` as a :class:`Normalizer`: one already, a spec (``"nfkc+lowercase"``), or None (none)."""
    if normalizer is None:
        return Normalizer(())
    if isinstance(normalizer, Normalizer):
        return normalizer
    if isinstance(normalizer, str):
        return parse_normalizer(normalizer)
    raise ArgumentTypeError(
        f"normalizer= must be a Normalizer or a spec such as 'nfkc', got {type(normalizer).__name__}"
    )


def _corpus_argument(
    caller: str, positional: tuple[object, ...], text: object, files: object, errors: str
) -> CorpusSource:
    """The corpus as :func:`~tokviz.core.corpus.fileselect.corpus_source` takes it, from ``text=``/``files=``.

    Text is returned as a ``str``; files always as a list, so that a single ``str`` path is never
    mistaken for text further down.
    """
    if positional:
        first = positional[0]
        if isinstance(first, str):
            shown = first if len(first) <= 40 else first[:37] + "..."
            hint = (
                f"{caller}() takes the corpus by keyword: text={shown!r} to train on this string, "
                f"or files=[{shown!r}] to read it as a file"
            )
        else:
            hint = (
                f"{caller}() takes the corpus by keyword: files=... for paths, text=... for a string "
                "of text, and every other setting (vocab_size=..., ...) by keyword too"
            )
        raise ArgumentTypeError(hint)
    if (text is None) == (files is None):
        raise InvalidArgument(
            f"{caller}() needs exactly one corpus: text=... (a string of text) or files=... (paths)"
        )
    if text is not None:
        if not isinstance(text, str):
            raise ArgumentTypeError(
                f"text= must be a str, got {type(text).__name__}; use files=... to read paths"
            )
        bad = _LONE_SURROGATE.search(text)
        if bad is not None:
            if errors != "replace":
                raise CorpusError(
                    f"the text holds a lone surrogate U+{ord(bad.group()):04X} at index {bad.start()}, "
                    "which UTF-8 cannot encode; pass errors='replace' to read it as U+FFFD",
                    offset=bad.start(),
                )
            text = _LONE_SURROGATE.sub("\ufffd", text)
        return text
    items = [files] if isinstance(files, (str, os.PathLike)) else files
    if isinstance(items, (bytes, bytearray)) or not isinstance(items, Iterable):
        raise ArgumentTypeError(f"files= must be a path or a list of paths, got {type(files).__name__}")
    paths = list(items)
    for item in paths:
        if not isinstance(item, (str, os.PathLike)):
            raise ArgumentTypeError(f"files= must hold paths (str or pathlib.Path), got {item!r}")
    return paths


def _special_tokens_argument(special_tokens: object) -> list[str]:
    """The special tokens, deduplicated in order; a bare ``str`` would be its characters, so it is refused."""
    if special_tokens is None:
        return []
    if isinstance(special_tokens, (str, bytes)) or not isinstance(special_tokens, Iterable):
        raise ArgumentTypeError(
            f"special_tokens= must be a list of strings, got {type(special_tokens).__name__}"
            + (f" (write [{special_tokens!r}] for one token)" if isinstance(special_tokens, str) else "")
        )
    return list(dict.fromkeys(s for s in checked_special_names(special_tokens) if s))


def _check_settings(
    vocab_size: object,
    specials: list[str],
    tie_break: object,
    errors: object,
    cancel: object,
    workers: object,
    report_every: object,
) -> None:
    """Refuse settings training cannot use, each with a message that names the setting."""
    if tie_break not in TIE_RULES:
        raise InvalidArgument(f"unknown tie rule {tie_break!r}; use one of {', '.join(TIE_RULES)}")
    if errors not in ("strict", "replace"):
        raise InvalidArgument(f"errors must be 'strict' or 'replace', got {errors!r}")
    if not isinstance(vocab_size, int) or isinstance(vocab_size, bool):
        raise VocabSizeError(f"vocab size must be a whole number, got {vocab_size!r}")
    if vocab_size < 256 + len(specials):
        raise VocabSizeError(
            f"vocab size {vocab_size!r} is too small: it must hold the 256 bytes"
            + (f" and {len(specials)} special tokens" if specials else "")
            + f" (at least {256 + len(specials)})"
        )
    if cancel is not None and not callable(cancel) and not callable(getattr(cancel, "is_set", None)):
        raise ArgumentTypeError(
            f"cancel= must be a threading.Event or a callable, got {type(cancel).__name__}"
        )
    if workers is not None and (not isinstance(workers, int) or isinstance(workers, bool) or workers < 1):
        raise InvalidArgument(f"workers= must be a whole number of 1 or more, got {workers!r}")
    if not isinstance(report_every, (int, float)) or isinstance(report_every, bool) or not report_every >= 0:
        raise InvalidArgument(f"report_every= must be a number of seconds >= 0, got {report_every!r}")


def _train_steps(
    source: CorpusSource,
    vocab_size: int,
    specials: list[str],
    pre: Pretokenizer,
    tie_break: str,
    cancel: CancelFlag | Callable[[], bool] | None,
    errors: str,
    workers: int | None,
    report_every: float,
    parallel: str = "auto",
    reading: ReadOptions | None = None,
    normalizer: Normalizer | None = None,
) -> Generator[Progress, None, TrainResult]:
    """The training generator behind :func:`train_iter`, on checked arguments."""
    t0 = time.perf_counter()
    yield Progress("reading", 0, 1, (), 0.0)
    counted = yield from _count_corpus(
        source, pre, specials, errors, workers, cancel, report_every, t0, parallel, reading, normalizer
    )
    yield Progress("pre-tokenizing", counted.bytes, counted.bytes, (), time.perf_counter() - t0)
    result = yield from merge_counts(
        counted.counts,
        counted.bytes,
        vocab_size,
        specials,
        pre,
        tie_break,
        cancel,
        report_every,
        t0,
        text_bytes=counted.text_bytes,
        normalizer=normalizer.name if normalizer else "none",
    )
    result.long_pretokens = counted.long_pretokens
    result.files_read = counted.files_read
    result.reading = counted.reading
    return result


def merge_counts(
    counts: Mapping[str, int],
    corpus_bytes: int,
    vocab_size: int,
    specials: list[str],
    pre: Pretokenizer,
    tie_break: str,
    cancel: CancelFlag | Callable[[], bool] | None,
    report_every: float = 0.05,
    t0: float | None = None,
    text_bytes: int | None = None,
    normalizer: str = "none",
) -> Generator[Progress, None, TrainResult]:
    """The merge loop on a table of unique pre-tokens and their counts (in first-seen order).

    Training from text counts first and then calls this; a saved count table can call it
    directly, and gets exactly the merges the text would give. ``corpus_bytes`` and
    ``text_bytes`` are recorded in the result (see :attr:`TrainResult.text_size`).
    """
    if t0 is None:
        t0 = time.perf_counter()
    num_merges = vocab_size - 256 - len(specials)
    t_count = time.perf_counter()
    if not counts:
        raise CorpusError("the corpus is empty: it holds no text to train on")

    words: list[bytes] = []
    freqs: list[int] = []
    for k, (word, freq) in enumerate(counts.items()):
        if k & 0x3FFF == 0:
            _check_cancel(cancel)
        words.append(word.encode("utf-8"))
        freqs.append(freq)
    initial_tokens = sum(len(w) * f for w, f in zip(words, freqs))
    yield Progress("merging", 0, num_merges, (), time.perf_counter() - t0)

    vocab: dict[int, bytes] = {i: bytes([i]) for i in range(256)}
    merges: list[tuple[bytes, bytes]] = []
    history: list[MergeStep] = []
    check = None if cancel is None else partial(_check_cancel, cancel)
    loop = new_loop(words, freqs, tie_break, check)
    unique_words = len(words)
    del words, freqs  # the index holds the corpus now (a 50 MB single line: 50 MB less)
    batch: list[MergeStep] = []
    last = time.perf_counter()
    while len(merges) < num_merges and not loop.exhausted:
        _check_cancel(cancel)
        budget = report_every - (time.perf_counter() - last)
        steps = loop.run(num_merges - len(merges), budget, check)
        for record in steps:
            vocab[record.new_id] = record.left + record.right
            merges.append((record.left, record.right))
        history.extend(steps)
        batch.extend(steps)
        now = time.perf_counter()
        if now - last >= report_every:
            last = now
            yield Progress("merging", len(merges), num_merges, tuple(batch), now - t0)
            batch = []
    # Every word is a single token when no pair is left: not an error, but said.
    stop_reason = (
        _ran_out_message(len(merges), len(vocab) + len(specials), vocab_size) if loop.exhausted else None
    )
    next_id = 256 + len(merges)
    for s in specials:
        vocab[next_id] = s.encode("utf-8")
        next_id += 1
    t_end = time.perf_counter()
    yield Progress("done", len(merges), num_merges, tuple(batch), t_end - t0)
    return TrainResult(
        vocab=vocab,
        merges=merges,
        history=history,
        special_tokens=specials,
        pretokenizer=pre.to_json(),
        tie_break=tie_break,
        vocab_size_requested=vocab_size,
        initial_tokens=initial_tokens,
        corpus_bytes=corpus_bytes,
        unique_words=unique_words,
        timings={"pretokenize": t_count - t0, "merge": t_end - t_count, "total": t_end - t0},
        stop_reason=stop_reason,
        text_bytes=text_bytes,
        normalizer=normalizer,
    )


def _ran_out_message(merges: int, reached: int, requested: int) -> str:
    """Why training stopped before the requested size, as the CLI and the GUI print it."""
    return (
        f"the corpus has no pair left to merge after {merges:,} merges; "
        f"vocabulary {reached:,} of {requested:,}"
    )


def run_to_end(gen: Generator[Report, None, Result], progress: Callable[[Report], None] | None) -> Result:
    """Drive a reporting generator (``train_iter`` and its kin) to its return value, handing each
    report to ``progress``: the blocking form of every ``*_iter`` function."""
    while True:
        try:
            item = next(gen)
        except StopIteration as stop:
            result: Result = stop.value
            return result
        if progress is not None:
            progress(item)


def train_bpe(
    *positional: Never,
    text: str | None = None,
    files: CorpusFiles | None = None,
    vocab_size: int | None = None,
    special_tokens: Iterable[str] | None = None,
    pretokenizer: str | Pretokenizer | None = "gpt2",
    tie_break: str = "lexicographic",
    progress: Callable[[Progress], None] | None = None,
    cancel: CancelFlag | Callable[[], bool] | None = None,
    errors: str = "strict",
    workers: int | None = None,
    reading: ReadOptions | None = None,
    normalizer: str | Normalizer | None = None,
) -> TrainResult:
    """Train a byte-level BPE vocabulary on ``text=`` (a string) or ``files=`` (a path or paths).

    Every argument is a keyword, so ``train_bpe(text="the cat", vocab_size=259)`` and
    ``train_bpe(files=["notes.txt"], vocab_size=1000)`` cannot be confused: a positional string
    raises :class:`~tokviz.core.errors.ArgumentTypeError` naming the keyword to use.
    ``progress`` receives :class:`Progress` reports (phase, done/total, new merges); ``cancel``
    is a ``threading.Event`` or a callable, checked often; a cancelled run raises
    :class:`Cancelled` and returns nothing half-made. When the corpus runs out of pairs before
    ``vocab_size``, the result's :attr:`TrainResult.stop_reason` says so. ``reading`` is as for
    :func:`train_iter` (JSON Lines, Parquet and Arrow files: each record a document), and so is
    ``normalizer`` (``"nfkc"``: every document normalized before it is cut).
    """
    if positional:
        _corpus_argument("train_bpe", positional, text, files, errors)
    if vocab_size is None:
        raise InvalidArgument("train_bpe() needs vocab_size=... (256 bytes + merges + special tokens)")
    if progress is not None and not callable(progress):
        raise ArgumentTypeError(f"progress= must be a callable, got {type(progress).__name__}")
    gen = train_iter(
        text=text,
        files=files,
        vocab_size=vocab_size,
        special_tokens=special_tokens,
        pretokenizer=pretokenizer,
        tie_break=tie_break,
        cancel=cancel,
        errors=errors,
        workers=workers,
        reading=reading,
        normalizer=normalizer,
    )
    return run_to_end(gen, progress)
