"""Run a library trainer (Unigram, SentencePiece BPE, WordPiece) from a QThread, with throttled progress.

The core's :func:`~tokviz.core.training.engine_run.train_engine` runs the library in a child
process and reads its log; this thread only feeds it the corpus's documents and waits, so the
window keeps its event loop (the library holds the GIL in its own process, not in ours). Cancel is
the ``threading.Event`` the core watches: it kills the child and nothing is left behind. Progress
reaches the GUI thread at most once per ``interval`` (a change of stage at once).
"""

from __future__ import annotations

import threading
import time
import traceback
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from PySide6.QtCore import QObject, Qt, QThread, Signal, Slot

from tokviz.core.bpe.tokenizer import Tokenizer
from tokviz.core.corpus.documents import CorpusReader, ReadOptions
from tokviz.core.corpus.fileselect import corpus_source
from tokviz.core.errors import Cancelled, TokvizError
from tokviz.core.training.engine_options import EngineOptions
from tokviz.core.training.engine_run import EngineModel, EngineProgress, train_engine
from tokviz.gui.workers.training import EMIT_INTERVAL, CorpusSource, selected_files


@dataclass(frozen=True)
class EngineSettings:
    """One library training run: the corpus (text, or paths chosen by the filters, as for byte-level
    BPE), the library's options, and the name the model gets in the pickers."""

    source: CorpusSource
    options: EngineOptions
    name: str = "trained"
    replace: bool = False
    errors: str = "strict"
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    max_file_size: int | None = None
    field: str = "text"

    @property
    def vocab_size(self) -> int:
        """The vocabulary size asked for."""
        return self.options.vocab_size


def engine_documents(s: EngineSettings) -> Iterator[str]:
    """The corpus's documents as the byte-level BPE trainer reads them: the text as one document, or
    each text file and each record of JSON Lines, Parquet and Arrow files as one."""
    if isinstance(s.source, str):
        yield s.source
        return
    paths = [str(p) for p in s.source]
    if s.include or s.exclude or s.max_file_size is not None:
        paths = selected_files(paths, s)
    files, _ = corpus_source(paths, s.errors)
    for document in CorpusReader(ReadOptions(field=s.field), s.errors).corpus(files):
        yield "".join(document)


@dataclass
class EngineOutcome:
    """A finished library run: the model, its tokenizer (opened in the worker) and the settings."""

    model: EngineModel
    tokenizer: Tokenizer
    settings: EngineSettings
    wall_time: float = 0.0


class _EngineWorker(QObject):
    """Lives in the run's thread: trains, then reports through signals."""

    status = Signal(EngineProgress)
    succeeded = Signal(EngineOutcome)
    failed = Signal(str)
    cancelled = Signal()
    done = Signal()

    def __init__(self, settings: EngineSettings, cancel: threading.Event, interval: float) -> None:
        super().__init__()
        self.settings = settings
        self.cancel = cancel
        self.interval = interval
        self._last_emit = 0.0
        self._stage = ""

    @Slot()
    def run(self) -> None:
        s = self.settings
        started = time.perf_counter()
        try:
            model = train_engine(engine_documents(s), s.options, progress=self._report, cancel=self.cancel)
            tokenizer = model.tokenizer(s.name)
            self.succeeded.emit(EngineOutcome(model, tokenizer, s, time.perf_counter() - started))
        except Cancelled:
            self.cancelled.emit()
        except TokvizError as exc:
            if self.cancel.is_set():
                self.cancelled.emit()
            else:
                self.failed.emit(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
        except (ValueError, OSError, MemoryError) as exc:
            self.failed.emit(f"{type(exc).__name__}: {exc}".splitlines()[0])
        except Exception as exc:  # noqa: BLE001 - shown in the panel, never a crash
            traceback.print_exc()
            self.failed.emit(f"training failed unexpectedly ({type(exc).__name__}: {exc})".splitlines()[0])
        finally:
            self.done.emit()

    def _report(self, progress: EngineProgress) -> None:
        now = time.perf_counter()
        if progress.stage != self._stage or now - self._last_emit >= self.interval:
            self._stage = progress.stage
            self._last_emit = now
            self.status.emit(progress)


_detached: set[EngineJob] = set()


class EngineJob(QObject):
    """One library training run in its own QThread.

    Signals, in order: ``progress(EngineProgress)`` while it runs (throttled), then exactly one of
    ``finished(EngineOutcome)``, ``failed(message)`` or ``cancelled()``, then ``stopped()`` once
    the thread has ended.
    """

    progress = Signal(EngineProgress)
    finished = Signal(EngineOutcome)
    failed = Signal(str)
    cancelled = Signal()
    stopped = Signal()

    def __init__(
        self, settings: EngineSettings, parent: QObject | None = None, interval: float = EMIT_INTERVAL
    ) -> None:
        super().__init__(parent)
        self.settings = settings
        self._cancel = threading.Event()
        self._thread = QThread(self)
        self._thread.setObjectName("engineThread")
        self._worker = _EngineWorker(settings, self._cancel, interval)
        self._worker.moveToThread(self._thread)
        self._thread.started.connect(self._worker.run)
        self._worker.status.connect(self.progress)
        self._worker.succeeded.connect(self._on_succeeded)
        self._worker.failed.connect(self._on_failed)
        self._worker.cancelled.connect(self._on_cancelled)
        self._worker.done.connect(self._thread.quit, Qt.ConnectionType.DirectConnection)
        self._thread.finished.connect(self._on_thread_finished)
        self.outcome: EngineOutcome | None = None
        self.error: str | None = None
        self.was_cancelled = False
        self.ended = False

    def start(self) -> None:
        """Start training in the worker thread."""
        self._thread.start()

    def cancel(self) -> None:
        """Ask the core to stop: it kills the library's process; ``cancelled`` follows."""
        self._cancel.set()

    @property
    def running(self) -> bool:
        """True until the worker thread has ended."""
        return not self.ended

    def wait(self, msecs: int = 10000) -> bool:
        """Block until the worker thread has ended (for shutdown and tests)."""
        return self._thread.wait(msecs)

    def outlive_parent(self) -> None:
        """Keep this job (and its QThread) alive after its parent is gone, until its thread ends:
        Qt aborts the process when a running QThread is destroyed."""
        self.cancel()
        if self.ended:
            return
        self.setParent(None)
        _detached.add(self)

    def _on_succeeded(self, outcome: EngineOutcome) -> None:
        if self._cancel.is_set():
            self._on_cancelled()
            return
        self.outcome = outcome

    def _on_failed(self, message: str) -> None:
        self.error = message
        self.failed.emit(message)

    def _on_cancelled(self) -> None:
        self.was_cancelled = True
        self.cancelled.emit()

    def _on_thread_finished(self) -> None:
        self.ended = True
        if self.outcome is not None:
            self.finished.emit(self.outcome)
        self.stopped.emit()


def sized(settings: EngineSettings, vocab_size: int) -> EngineSettings:
    """The same run at another vocabulary size (a Unigram round's model)."""
    from dataclasses import replace

    return replace(settings, options=replace(settings.options, vocab_size=vocab_size))


__all__: Sequence[str] = ["EngineJob", "EngineOutcome", "EngineSettings", "engine_documents", "sized"]
