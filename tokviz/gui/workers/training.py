"""Run the core's trainer (``train_iter``) in a QThread and turn its progress into throttled signals.

The trainer is a plain Qt-free generator; :class:`TrainJob` drains it in a worker thread and sends
the GUI thread at most one progress report (with the merges made since the last one) every
``interval`` seconds, so a run that makes thousands of merges a second never floods the event loop.
Cancel is a ``threading.Event`` the generator checks every few milliseconds. Nothing here touches a
widget: the worker only emits signals, which Qt queues to the thread that owns the receivers.

Pure-Python training shares the GIL with the GUI thread, so the window stays responsive only with
care (each measure was needed, see ``benchmarks/bench_gui_training.py``): automatic garbage
collection pauses while training, the GIL switch interval is short, the trainer naps whenever the
GUI thread's event loop falls behind (:class:`GuiFirst`), the trainer's big tables are freed in
slices, and the pre-tokenizer processes run at a low CPU priority.
"""

from __future__ import annotations

import os
import sys
import threading
import time
import traceback
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from PySide6.QtCore import QObject, QTimer, Signal, Slot

from tokviz.core.bpe.merges import MergeStep
from tokviz.core.bpe.tokenizer import Tokenizer
from tokviz.core.corpus.documents import ReadOptions
from tokviz.core.errors import Cancelled, TokvizError
from tokviz.core.io.interpreter import pause_automatic_gc, shorten_switch_interval
from tokviz.core.pretok.pretokenize import resolve_pretokenizer
from tokviz.core.training.counts import train_source_iter
from tokviz.core.training.train import Progress, TrainResult
from tokviz.gui.workers.rates import RateMeter, time_left
from tokviz.gui.workers.release import release_gradually
from tokviz.gui.workers.thread_job import ThreadJob

# At most this many seconds between two progress signals (phase changes are sent at once).
EMIT_INTERVAL = 0.1
# While training, a thread waiting for the GIL gets it after at most this long (seconds). The GUI
# thread takes the GIL once per call from Qt into Python (every table cell, every paint), so this
# bounds what each of those calls can cost while the trainer runs.
SWITCH_INTERVAL = 0.0002
# The trainer naps when the GUI thread's event loop has not turned for this long (seconds); None
# turns the courtesy off (see GuiFirst).
GUI_MAX_LAG: float | None = 0.006
# Nice value of the pre-tokenizer processes (Linux): they yield the CPU to the window.
PRETOKENIZER_NICE = 10

_server_lock = threading.Lock()
_server_started = False


def start_pretokenizer_server() -> None:
    """Start multiprocessing's fork server at a low CPU priority (Linux), once per process.

    The core pre-tokenizes large corpora in processes forked from this server (the window has
    threads, so plain fork is unsafe). They inherit the server's nice value, so when all cores are
    busy the scheduler runs the window's thread first. Elsewhere this does nothing.
    """
    global _server_started
    if not sys.platform.startswith("linux"):
        return
    with _server_lock:
        if _server_started:
            return
        _server_started = True

    def run() -> None:
        try:
            import multiprocessing.forkserver

            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), PRETOKENIZER_NICE)
            # The server imports the trainer once; every process it forks starts with it loaded.
            multiprocessing.set_forkserver_preload(["tokviz.core.training.train"])
            multiprocessing.forkserver.ensure_running()
        except (OSError, ValueError, RuntimeError):
            pass  # the core starts the server itself, at normal priority

    thread = threading.Thread(target=run, name="tokviz-forkserver-start", daemon=True)
    thread.start()
    thread.join()


def counting_mode(pretokenizer: str) -> str:
    """How the core should count pre-tokens for this pre-tokenizer (``train_iter(parallel=...)``).

    A custom pattern runs over a whole document in one regex call, which cannot be interrupted:
    in this thread, cancel would wait for it (up to its time limit, 31 s on 3 MB). Counting in
    worker processes, even for a small corpus, lets cancel terminate them at once. The named
    patterns cut the text into small parts and check cancel between them, so they keep "auto".
    """
    try:
        bounded = resolve_pretokenizer(pretokenizer).bounded
    except TokvizError:
        return "auto"  # train_iter raises the same error with its message
    return "always" if bounded else "auto"


# What a run trains on: the text itself, or the paths of files, folders or one count table.
CorpusSource = str | Sequence[str | os.PathLike[str]]


@dataclass(frozen=True)
class TrainSettings:
    """Everything one training run needs; ``source`` is a str of text or a list of paths (whose files
    ``include``, ``exclude`` and ``max_file_size`` choose, as ``tokviz train``'s options do)."""

    source: CorpusSource
    vocab_size: int
    special_tokens: tuple[str, ...] = ()
    pretokenizer: str = "gpt2"
    tie_break: str = "lexicographic"
    errors: str = "strict"
    workers: int | None = None
    name: str = "trained"
    replace: bool = False  # put the model in place of the one of the same name (else a new one)
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    max_file_size: int | None = None
    field: str = "text"  # the text field of JSON Lines, Parquet and Arrow records
    normalizer: str | None = None  # a normalizer spec ("nfkc"); None: none (a count table: its own)


class FileChoice(Protocol):
    """What chooses a run's files among its folders: the settings of either kind of run."""

    @property
    def include(self) -> tuple[str, ...]: ...
    @property
    def exclude(self) -> tuple[str, ...]: ...
    @property
    def max_file_size(self) -> int | None: ...
    @property
    def errors(self) -> str: ...


def selected_files(paths: list[str], s: FileChoice) -> list[str]:
    """The files the settings' filters keep of ``paths`` (the Train panel showed the same selection)."""
    from tokviz.core.corpus.fileselect import select_files
    from tokviz.core.errors import CorpusError

    selection = select_files(paths, s.include, s.exclude, max_size=s.max_file_size, errors=s.errors)
    if not selection.files:
        raise CorpusError(f"no file is left to train on ({selection.note('Replace invalid UTF-8')})")
    return [str(f.path) for f in selection.files]


@dataclass(frozen=True)
class TrainStatus:
    """What the progress bar shows: the phase, how far it is, its speed and the time it still needs.

    ``rate`` is merges per second while merging and bytes per second while pre-tokenizing;
    ``eta`` is None until there is a rate to estimate from.
    """

    phase: str
    done: int
    total: int
    elapsed: float
    rate: float = 0.0
    eta: float | None = None
    merges_done: int = 0
    records: int = 0  # records of JSON Lines, Parquet or Arrow files read so far

    @property
    def fraction(self) -> float:
        """Progress of the whole run in [0, 1]: pre-tokenizing counts for the first fifth."""
        part = self.done / self.total if self.total else 0.0
        part = min(max(part, 0.0), 1.0)
        if self.phase == "reading":
            return 0.0
        if self.phase == "pre-tokenizing":
            return 0.2 * part
        if self.phase == "merging":
            return 0.2 + 0.8 * part
        return 1.0


@dataclass
class TrainOutcome:
    """A finished run: the core's result and the tokenizer built from it (in the worker thread)."""

    result: TrainResult
    tokenizer: Tokenizer
    settings: TrainSettings
    wall_time: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)


class GuiFirst:
    """The trainer's cancel check, which also lets the GUI thread go first when it falls behind.

    The core calls it every few milliseconds. A timer in the GUI thread (see :class:`TrainJob`)
    stamps ``beat`` every few milliseconds while the event loop turns; when the stamp is older than
    ``max_lag`` the GUI thread is busy or waiting for the GIL, so the trainer sleeps for ``nap``,
    which hands the GIL over. Pure-Python training otherwise takes half the GUI thread's time and
    makes every call from Qt into Python (each table cell, each paint) wait for the GIL.
    """

    def __init__(self, event: threading.Event, max_lag: float | None = 0.006, nap: float = 0.002) -> None:
        self.event = event
        self.beat = time.perf_counter()
        self.max_lag = max_lag
        self.nap = nap
        self.naps = 0

    def stamp(self) -> None:
        """Called by the GUI thread's timer: the event loop is turning."""
        self.beat = time.perf_counter()

    def __call__(self) -> bool:
        if self.event.is_set():
            return True
        self.courtesy()
        return self.event.is_set()

    def courtesy(self) -> None:
        """Nap if the GUI thread has fallen behind (also used between steps outside the trainer)."""
        if self.max_lag is not None and time.perf_counter() - self.beat > self.max_lag:
            self.naps += 1
            time.sleep(self.nap)


class _Worker(QObject):
    """Lives in the training thread; ``run`` drains the generator and reports through signals."""

    status = Signal(TrainStatus)
    merges = Signal(tuple)  # tuple[MergeStep, ...]
    succeeded = Signal(TrainOutcome)
    failed = Signal(str)
    cancelled = Signal()
    done = Signal()

    def __init__(self, settings: TrainSettings, cancel: GuiFirst, interval: float) -> None:
        super().__init__()
        self.settings = settings
        self.cancel = cancel
        self.interval = interval
        self.leftovers: list[Any] = []

    @Slot()
    def run(self) -> None:
        """Train with automatic garbage collection paused and a short GIL switch interval.

        The trainer builds millions of small lists and sets, and a full collection walks all of
        them while holding the GIL, which froze the window for up to 130 ms and doubled the
        training time. Reference counting still frees everything the trainer drops; cycles wait
        until the run ends. Both settings come back when the run ends, even if it fails.
        """
        try:
            with pause_automatic_gc(), shorten_switch_interval(SWITCH_INTERVAL):
                self._train()
        finally:
            self.done.emit()

    def _train(self) -> None:
        s = self.settings
        started = time.perf_counter()
        gen = None
        kept: dict[str, Any] = {}
        try:
            start_pretokenizer_server()
            # The panel's source is the text itself (a str) or the paths to read (a list), which may
            # be one count table; a run on text keeps its count table for "Save counts…".
            source = s.source if isinstance(s.source, str) else [str(p) for p in s.source]
            if not isinstance(source, str) and (s.include or s.exclude or s.max_file_size is not None):
                source = selected_files(source, s)
            gen = train_source_iter(
                source,
                vocab_size=s.vocab_size,
                special_tokens=list(s.special_tokens),
                pretokenizer=s.pretokenizer,
                tie_break=s.tie_break,
                cancel=self.cancel,
                errors=s.errors,
                workers=s.workers,
                parallel=counting_mode(s.pretokenizer),
                kept=kept,
                reading=ReadOptions(field=s.field),
                normalizer=s.normalizer,
            )
            result = self._drain(gen)
            self.cancel.courtesy()
            tokenizer = result.tokenizer(s.name)
            tokenizer.merge_rank_of_id  # noqa: B018 - build the merge tables here, not in the GUI thread
            self.succeeded.emit(TrainOutcome(result, tokenizer, s, time.perf_counter() - started, kept))
        except Cancelled:
            self.cancelled.emit()
        except TokvizError as exc:
            # Cancel pressed while a slow pattern ran out its time limit: the user asked to stop.
            if self.cancel.event.is_set():
                self.cancelled.emit()
            else:
                self.failed.emit(str(exc))
        except (ValueError, OSError, MemoryError) as exc:
            self.failed.emit(f"{type(exc).__name__}: {exc}")
        except Exception as exc:  # noqa: BLE001 - shown in the panel, never a crash
            traceback.print_exc()
            self.failed.emit(f"training failed unexpectedly ({type(exc).__name__}: {exc})")
        finally:
            gen = None
            release_gradually(self.leftovers, self.cancel.courtesy)

    def _drain(self, gen: Any) -> TrainResult:
        pending: list[MergeStep] = []
        last_emit = 0.0
        phase = ""
        meter = RateMeter()
        merged = 0
        while True:
            try:
                item: Progress = next(gen)
            except StopIteration as stop:
                result: TrainResult = stop.value
                break
            if item.phase == "merging" and item.done > 0 and not self.leftovers and gen.gi_frame is not None:
                # Hold the trainer's working tables (the word list, the pair index) past its end,
                # whether it returns or is cancelled, and free them in slices afterwards.
                self.leftovers = list(gen.gi_frame.f_locals.values())
            if item.merges:
                pending.extend(item.merges)
                merged = pending[-1].step
            if item.phase != phase:
                meter.reset()
            rate = meter.add(now := time.perf_counter(), item.done)
            changed = item.phase != phase
            phase = item.phase
            if changed or now - last_emit >= self.interval or item.phase == "done":
                last_emit = now
                self._emit(item, rate, merged, pending)
                pending = []
        if pending:
            self.merges.emit(tuple(pending))
        return result

    def _emit(self, item: Progress, rate: float, merged: int, pending: Iterable[MergeStep]) -> None:
        eta = time_left(item.phase, item.done, item.total, rate)
        if pending:
            self.merges.emit(tuple(pending))
        self.status.emit(
            TrainStatus(item.phase, item.done, item.total, item.elapsed, rate, eta, merged, item.records)
        )


class TrainJob(ThreadJob):
    """One training run in its own QThread.

    Signals, in order: ``progress(TrainStatus)`` and ``mergesBatch(tuple[MergeStep, ...])`` while
    it runs (at most one of each per ``interval``), then exactly one of ``finished(TrainOutcome)``,
    ``failed(message)`` or ``cancelled()``, then ``stopped()`` once the thread has ended.
    """

    progress = Signal(TrainStatus)
    mergesBatch = Signal(tuple)  # tuple[MergeStep, ...]

    def __init__(
        self, settings: TrainSettings, parent: QObject | None = None, interval: float = EMIT_INTERVAL
    ) -> None:
        super().__init__(parent, "trainThread")
        self.settings = settings
        self.outcome: TrainOutcome | None = None
        self.gui_first = GuiFirst(self._cancel, GUI_MAX_LAG)
        self._beat = QTimer(self)
        self._beat.setInterval(3)
        self._beat.timeout.connect(self.gui_first.stamp)
        self._worker = _Worker(settings, self.gui_first, interval)
        self._worker.status.connect(self.progress)
        self._worker.merges.connect(self.mergesBatch)
        self.run_in_thread(self._worker)

    def start(self) -> None:
        """Start training in the worker thread."""
        self._beat.start()
        super().start()

    def _on_thread_finished(self) -> None:
        self._beat.stop()
        super()._on_thread_finished()
