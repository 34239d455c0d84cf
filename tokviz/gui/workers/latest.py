"""One background computation at a time for a view, where only the newest request's result counts.

A panel that recomputes on every pause in typing (the streaming decoder's ids, the pre-tokenizer's
chunks) runs its regex work off the GUI thread with :func:`~tokviz.gui.workers.jobs.run_job`.
A custom pattern can take seconds before its time limit stops it, so requests must not pile up
in the thread pool: while one job runs, a newer request waits (replacing any older waiting one),
and the running job's result, now stale, is dropped when it ends.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Signal

from tokviz.gui.workers.jobs import Job, run_job

_Request = tuple[int, Callable[[], Any], Callable[[Any], None], Callable[[BaseException], None]]


class LatestJob(QObject):
    """Runs a view's computations one at a time in the background; only the latest is delivered.

    ``submit(fn, on_result, on_error)`` asks for ``fn()``; ``on_result`` (or ``on_error`` with the
    exception) is called in the GUI thread, and only if no newer request or :meth:`drop` came
    meanwhile. ``idle`` fires when nothing is running or waiting any more.
    """

    idle = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._job: Job | None = None
        self._running: _Request | None = None
        self._next: _Request | None = None
        self._serial = 0

    @property
    def busy(self) -> bool:
        """True while a requested result has not been delivered (or dropped) yet."""
        return self._job is not None or self._next is not None

    def submit(
        self,
        fn: Callable[[], Any],
        on_result: Callable[[Any], None],
        on_error: Callable[[BaseException], None],
    ) -> None:
        """Compute ``fn()`` in the background; any earlier request's result will be dropped."""
        self._serial += 1
        request: _Request = (self._serial, fn, on_result, on_error)
        if self._job is not None:
            self._next = request  # starts when the running job ends; an older waiting one is gone
            return
        self._start(request)

    def drop(self) -> None:
        """Forget every pending request: a running job finishes, but its result is not delivered."""
        self._serial += 1
        self._next = None
        if self._job is None:
            self.idle.emit()

    def _start(self, request: _Request) -> None:
        self._job = run_job(request[1], self)
        self._running = request
        # A bound method, not a closure over the job: a connection of the job's own signal to a
        # function that holds the job is a cycle that PySide may break inside the job's deletion.
        self._job.finished.connect(self._finished)

    def _finished(self) -> None:
        job, self._job = self._job, None
        assert job is not None and self._running is not None
        serial, _fn, on_result, on_error = self._running
        self._running = None
        job.deleteLater()
        waiting, self._next = self._next, None
        if waiting is not None:
            self._start(waiting)  # a newer request came: this result is stale
            return
        try:
            if serial == self._serial:
                if job.error is None:
                    on_result(job.result)
                else:
                    on_error(job.error)
        finally:
            if self._job is None:
                self.idle.emit()


__all__ = ["LatestJob"]
