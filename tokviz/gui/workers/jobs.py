"""Run a plain function in Qt's thread pool and get its result back as a signal in the GUI thread.

Long work (encoding a 1 MB paste, loading cl100k, recovering a merge list) must not freeze the
window. The function is Qt-free core code; this wrapper only carries its result or its exception
back to the thread that owns the widgets.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import shiboken6
from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

from tokviz.core.io.interpreter import shorten_switch_interval

# While a job runs, a thread waiting for the GIL gets it after at most this long (seconds). A job
# running pure Python holds the GIL and the GUI thread re-takes it after every Qt call, so this keeps
# that wait (and so the window's latency) around a millisecond.
SWITCH_INTERVAL = 0.001


class Job(QObject):
    """One background call; ``returned`` or ``errored`` fires exactly once, then ``finished``."""

    # Whatever the job's function returns: a job runs any call, so its result has no one type.
    returned = Signal(object)
    errored = Signal(BaseException)
    finished = Signal()

    def __init__(self, fn: Callable[[], Any], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._fn = fn
        self.done = False
        self.result: Any = None
        self.error: BaseException | None = None

    def _finish(self, ok: bool, value: Any) -> None:
        self.done = True
        if ok:
            self.result = value
            self.returned.emit(value)
        else:
            self.error = value
            self.errored.emit(value)
        self.finished.emit()


class _Runner(QRunnable):
    def __init__(self, job: Job, relay: _Relay) -> None:
        super().__init__()
        self._job = job
        self._relay = relay
        self.setAutoDelete(True)

    def run(self) -> None:
        try:
            with shorten_switch_interval(SWITCH_INTERVAL):
                value = self._job._fn()
            ok = True
        except BaseException as exc:  # noqa: BLE001 - handed to the GUI thread, never lost
            value, ok = exc, False
        try:
            self._relay.done.emit(self._job, ok, value)
        except RuntimeError:
            pass  # the application is shutting down and the relay is gone


class _Relay(QObject):
    """Lives in the GUI thread: its queued signal moves results from the pool thread to the job."""

    # (job, whether it returned, its result or exception). Both objects travel as Python objects:
    # the queued signal then holds a reference to the job (a Job, as a QObject pointer, would not),
    # and the result has any type, as ``returned``'s.
    done = Signal(object, bool, object)

    def __init__(self) -> None:
        super().__init__()
        self.done.connect(self._deliver)
        self.pending: set[Job] = set()

    def _deliver(self, job: Job, ok: bool, value: Any) -> None:
        self.pending.discard(job)
        # A job whose owner (a closed window, say) is gone has nobody left to tell.
        if shiboken6.isValid(job):
            job._finish(ok, value)


_relay: _Relay | None = None
_pool: QThreadPool | None = None


def _get_relay() -> _Relay:
    global _relay, _pool
    if _relay is None:
        _relay = _Relay()
        _pool = QThreadPool()
        _pool.setMaxThreadCount(2)
    return _relay


def run_job(fn: Callable[[], Any], parent: QObject | None = None) -> Job:
    """Start ``fn()`` on a pool thread; connect to the returned job's signals to get the result."""
    relay = _get_relay()
    job = Job(fn, parent)
    relay.pending.add(job)
    assert _pool is not None
    _pool.start(_Runner(job, relay))
    return job


def wait_for_all(msecs: int = 30000) -> bool:
    """Block until every started job's function has returned (for tests and shutdown)."""
    if _pool is None:
        return True
    return _pool.waitForDone(msecs)
