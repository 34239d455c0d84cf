"""Run the core's trainer (``train_iter``) in a QThread and turn its progress into throttled signals.

The trainer is a plain Qt-free generator; :class:`TrainJob` drains it in a worker thread and sends
the GUI thread at most one progress report (with the merges made since the last one) every
``interval`` seconds, so a run that makes thousands of merges a second never floods the event loop.
Cancel is a ``threading.Event`` the generator checks every few milliseconds. Nothing here touches a
widget: the worker only emits signals, which Qt queues to the thread that owns the receivers.
"""

from __future__ import annotations

import sys
import threading
import time
import traceback
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QObject, QThread, Signal, Slot

from tokviz.core.errors import Cancelled, TokvizError
from tokviz.core.tokenizer import Tokenizer
from tokviz.core.train import MergeRecord, Progress, TrainResult, train_iter

# At most this many seconds between two progress signals (phase changes are sent at once).
EMIT_INTERVAL = 0.1


@dataclass(frozen=True)
class TrainSettings:
    """Everything one training run needs; ``source`` is a str of text, a path, or a list of paths."""

    source: object
    vocab_size: int
    special_tokens: tuple[str, ...] = ()
    pretokenizer: str = "gpt2"
    tie_break: str = "lexicographic"
    errors: str = "strict"
    workers: int | None = None
    name: str = "trained"


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


class _RateMeter:
    """Speed over the last few seconds, so the time left follows the merge loop as it slows down."""

    def __init__(self, window: float = 3.0) -> None:
        self.window = window
        self.samples: list[tuple[float, int]] = []

    def reset(self) -> None:
        self.samples.clear()

    def add(self, t: float, done: int) -> float:
        self.samples.append((t, done))
        while len(self.samples) > 2 and t - self.samples[1][0] >= self.window:
            self.samples.pop(0)
        t0, d0 = self.samples[0]
        return (done - d0) / (t - t0) if t > t0 else 0.0


class _Worker(QObject):
    """Lives in the training thread; ``run`` drains the generator and reports through signals."""

    status = Signal(object)
    merges = Signal(object)
    succeeded = Signal(object)
    failed = Signal(str)
    cancelled = Signal()
    done = Signal()

    def __init__(self, settings: TrainSettings, cancel: threading.Event, interval: float) -> None:
        super().__init__()
        self.settings = settings
        self.cancel = cancel
        self.interval = interval

    @Slot()
    def run(self) -> None:
        s = self.settings
        started = time.perf_counter()
        try:
            gen = train_iter(
                s.source,
                s.vocab_size,
                list(s.special_tokens),
                s.pretokenizer,
                s.tie_break,
                cancel=self.cancel,
                errors=s.errors,
                workers=s.workers,
            )
            result = self._drain(gen)
            tokenizer = result.tokenizer(s.name)
            tokenizer.merge_rank_of_id  # noqa: B018 - build the merge tables here, not in the GUI thread
            self.succeeded.emit(TrainOutcome(result, tokenizer, s, time.perf_counter() - started))
        except Cancelled:
            self.cancelled.emit()
        except TokvizError as exc:
            self.failed.emit(str(exc))
        except (ValueError, OSError, MemoryError) as exc:
            self.failed.emit(f"{type(exc).__name__}: {exc}")
        except Exception as exc:  # noqa: BLE001 - shown in the panel, never a crash
            traceback.print_exc()
            self.failed.emit(f"training failed unexpectedly ({type(exc).__name__}: {exc})")
        finally:
            self.done.emit()

    def _drain(self, gen: Any) -> TrainResult:
        pending: list[MergeRecord] = []
        last_emit = 0.0
        phase = ""
        meter = _RateMeter()
        merged = 0
        while True:
            try:
                item: Progress = next(gen)
            except StopIteration as stop:
                result: TrainResult = stop.value
                break
            now = time.perf_counter()
            if item.merges:
                pending.extend(item.merges)
                merged = pending[-1].step
            if item.phase != phase:
                meter.reset()
            rate = meter.add(now, item.done)
            changed = item.phase != phase
            phase = item.phase
            if changed or now - last_emit >= self.interval or item.phase == "done":
                last_emit = now
                self._emit(item, rate, merged, pending)
                pending = []
        if pending:
            self.merges.emit(tuple(pending))
        return result

    def _emit(self, item: Progress, rate: float, merged: int, pending: Iterable[MergeRecord]) -> None:
        left = item.total - item.done
        eta = left / rate if rate > 0 and item.phase in ("pre-tokenizing", "merging") else None
        if pending:
            self.merges.emit(tuple(pending))
        self.status.emit(TrainStatus(item.phase, item.done, item.total, item.elapsed, rate, eta, merged))


class TrainJob(QObject):
    """One training run in its own QThread.

    Signals, in order: ``progress(TrainStatus)`` and ``mergesBatch(tuple[MergeRecord, ...])`` while
    it runs (at most one of each per ``interval``), then exactly one of ``finished(TrainOutcome)``,
    ``failed(message)`` or ``cancelled()``, then ``stopped()`` once the thread has ended.
    """

    progress = Signal(object)
    mergesBatch = Signal(object)
    finished = Signal(object)
    failed = Signal(str)
    cancelled = Signal()
    stopped = Signal()

    def __init__(
        self, settings: TrainSettings, parent: QObject | None = None, interval: float = EMIT_INTERVAL
    ) -> None:
        super().__init__(parent)
        self.settings = settings
        self._cancel = threading.Event()
        self._thread = QThread(self)
        self._thread.setObjectName("trainThread")
        self._worker = _Worker(settings, self._cancel, interval)
        self._worker.moveToThread(self._thread)
        self._thread.started.connect(self._worker.run)
        # Queued connections: the slots run in this object's (the GUI) thread.
        self._worker.status.connect(self.progress)
        self._worker.merges.connect(self.mergesBatch)
        self._worker.succeeded.connect(self._on_succeeded)
        self._worker.failed.connect(self._on_failed)
        self._worker.cancelled.connect(self._on_cancelled)
        self._worker.done.connect(self._thread.quit)
        self._thread.finished.connect(self._on_thread_finished)
        self.outcome: TrainOutcome | None = None
        self.error: str | None = None
        self.was_cancelled = False
        self.cancel_requested_at: float | None = None
        self.ended = False

    def start(self) -> None:
        """Start training in the worker thread."""
        # Pure-Python training holds the GIL; a short switch interval lets the GUI thread take it
        # back within about a millisecond whenever it has an event to handle.
        sys.setswitchinterval(min(sys.getswitchinterval(), 0.001))
        self._thread.start()

    def cancel(self) -> None:
        """Ask the trainer to stop; ``cancelled`` follows within a few milliseconds of merge work."""
        if self.cancel_requested_at is None:
            self.cancel_requested_at = time.perf_counter()
        self._cancel.set()

    @property
    def running(self) -> bool:
        """True until the worker thread has ended."""
        return not self.ended

    def wait(self, msecs: int = 10000) -> bool:
        """Block until the worker thread has ended (for shutdown and tests)."""
        return self._thread.wait(msecs)

    def _on_succeeded(self, outcome: TrainOutcome) -> None:
        if self._cancel.is_set():
            # Cancel was pressed while the last merges were being made: honour it.
            self.was_cancelled = True
            self.cancelled.emit()
            return
        self.outcome = outcome
        self.finished.emit(outcome)

    def _on_failed(self, message: str) -> None:
        self.error = message
        self.failed.emit(message)

    def _on_cancelled(self) -> None:
        self.was_cancelled = True
        self.cancelled.emit()

    def _on_thread_finished(self) -> None:
        self.ended = True
        self.stopped.emit()
