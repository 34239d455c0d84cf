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

from PySide6.QtCore import QObject, Signal, Slot

from tokviz.core.bpe.tokenizer import Tokenizer
from tokviz.core.corpus.documents import CorpusReader, ReadOptions
from tokviz.core.corpus.fileselect import corpus_source
from tokviz.core.errors import Cancelled, TokvizError
from tokviz.core.training.engine_options import EngineOptions
from tokviz.core.training.engine_run import EngineModel, EngineProgress, train_engine
from tokviz.gui.workers.thread_job import ThreadJob
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


class EngineJob(ThreadJob):
    """One library training run in its own QThread.

    Signals, in order: ``progress(EngineProgress)`` while it runs (throttled), then exactly one of
    ``finished(EngineOutcome)``, ``failed(message)`` or ``cancelled()``, then ``stopped()`` once
    the thread has ended.
    """

    progress = Signal(EngineProgress)

    def __init__(
        self, settings: EngineSettings, parent: QObject | None = None, interval: float = EMIT_INTERVAL
    ) -> None:
        super().__init__(parent, "engineThread")
        self.settings = settings
        self.outcome: EngineOutcome | None = None
        self._worker = _EngineWorker(settings, self._cancel, interval)
        self._worker.status.connect(self.progress)
        self.run_in_thread(self._worker)


def sized(settings: EngineSettings, vocab_size: int) -> EngineSettings:
    """The same run at another vocabulary size (a Unigram round's model)."""
    from dataclasses import replace

    return replace(settings, options=replace(settings.options, vocab_size=vocab_size))


__all__: Sequence[str] = ["EngineJob", "EngineOutcome", "EngineSettings", "engine_documents", "sized"]
