"""One long run in its own QThread: what a byte-level BPE run and a library run share.

A worker object (moved to the thread) does the work and reports through its signals
``succeeded(outcome)``, ``failed(message)``, ``cancelled()`` and finally ``done()``. The job lives
in the GUI thread, turns those into ``finished(outcome)`` (once the thread has ended), ``failed``
or ``cancelled``, then ``stopped()``, and keeps its QThread alive past a closing window.
"""

from __future__ import annotations

import atexit
import threading
import time
from typing import Any

import shiboken6
from PySide6.QtCore import QObject, Qt, QThread, Signal

_detached: set[ThreadJob] = set()


def wait_for_detached(msecs_each: int = 60000) -> bool:
    """Wait for the threads of runs whose window has closed (see :meth:`ThreadJob.outlive_parent`).

    Their cancel flag is set and every run they do ends on it, so they end; registered with
    ``atexit`` so the interpreter never tears down a running QThread. True when all ended.
    """
    ended = True
    for job in list(_detached):
        if shiboken6.isValid(job) and not job.ended:
            ended = job.wait(msecs_each) and ended
    return ended


atexit.register(wait_for_detached)


class ThreadJob(QObject):
    """A run in its own QThread. Signals, in order: exactly one of ``finished(outcome)``,
    ``failed(message)`` or ``cancelled()``, then ``stopped()`` once the thread has ended."""

    finished = Signal(object)
    failed = Signal(str)
    cancelled = Signal()
    stopped = Signal()

    def __init__(self, parent: QObject | None, thread_name: str) -> None:
        super().__init__(parent)
        self._cancel = threading.Event()
        self._thread = QThread(self)
        self._thread.setObjectName(thread_name)
        self.outcome: Any = None
        self.error: str | None = None
        self.was_cancelled = False
        self.cancel_requested_at: float | None = None
        self.ended = False

    def run_in_thread(self, worker: Any) -> None:
        """Move ``worker`` (a QObject with ``run`` and the signals above) to the thread and follow it."""
        worker.moveToThread(self._thread)
        self._thread.started.connect(worker.run)
        # Queued connections: the slots run in this object's (the GUI) thread.
        worker.succeeded.connect(self._on_succeeded)
        worker.failed.connect(self._on_failed)
        worker.cancelled.connect(self._on_cancelled)
        # Direct: QThread.quit is thread-safe, and the GUI thread may be blocked in wait() (closing).
        worker.done.connect(self._thread.quit, Qt.ConnectionType.DirectConnection)
        self._thread.finished.connect(self._on_thread_finished)

    def start(self) -> None:
        """Start the run in its thread."""
        self._thread.start()

    def cancel(self) -> None:
        """Ask the run to stop; ``cancelled`` follows."""
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

    def outlive_parent(self) -> None:
        """Keep this job (and its QThread) alive after its parent is gone, until the thread ends.

        A window that closes while a cancelled run is still ending (inside one bounded regex call,
        say) must not destroy a running QThread: Qt aborts the process with "QThread: Destroyed
        while thread is still running". The job is detached and held for the rest of the process
        (dropping it as it stops could destroy the QThread before its thread has quite returned),
        and :func:`wait_for_detached`, run at exit, waits for it.
        """
        self.cancel()
        if self.ended:
            return
        self.setParent(None)
        _detached.add(self)

    def _on_succeeded(self, outcome: object) -> None:
        if self._cancel.is_set():
            # Cancel was pressed while the run was ending: honour it.
            self._on_cancelled()
            return
        # Announced once the thread has ended (it may still free the run's tables): the GUI's work
        # for a new model (pickers, timeline, plot) then does not compete with it for the GIL.
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
