"""Reaching a Dask scheduler in bounded time, watching that a count still moves, and keeping Dask's log quiet.

``distributed`` waits for a scheduler's greeting without a time limit (a port that accepts and
never answers holds a client for good), takes whatever a port sends for its protocol (random
bytes read as a frame length ask for exabytes of memory), and waits for workers forever when the
last one dies, printing its warnings on the terminal meanwhile. Here a client is made within a
stated time, every failure is one line (:class:`DaskError`), a count with no worker left and no
task finishing stops after a stated time, and Dask's log records are kept for those messages
instead of being printed.
"""

from __future__ import annotations

import gc
import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from .counts import CountTableError

CONNECT_TIMEOUT = 10.0  # seconds for a scheduler to answer a new client
WORKER_TIMEOUT = 60.0  # seconds a count waits with no worker alive and no task finishing
# How much longer than its own time limit a new client is waited for (see connect).
_GRACE = 1.0
# How often the watchdog asks the scheduler for its workers (each answer takes one round trip).
_ASK_EVERY = 1.0


class DaskError(CountTableError):
    """The Dask scheduler could not be reached, did not speak Dask, or a count stopped moving."""


class _KeptRecords(logging.Handler):
    """Keeps Dask's log records (the last few) for our messages instead of printing them."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records = [*self.records[-19:], record]

    def last_warning(self) -> str | None:
        """The first line of the latest warning or error Dask logged, if any."""
        for record in reversed(self.records):
            if record.levelno >= logging.WARNING:
                lines = record.getMessage().strip().splitlines()
                return lines[0] if lines else None
        return None


# The loggers whose records Dask's client and its event loop make (asyncio's and tornado's report
# the loop's abandoned tasks, as when a worker holding a result dies).
_DASK_LOGGERS = ("distributed", "asyncio", "tornado")


@contextmanager
def dask_log_kept() -> Iterator[_KeptRecords]:
    """While inside, the log of Dask and its event loop goes to the returned keeper, not to the terminal.

    ``distributed`` gives several of its loggers a terminal handler of their own
    (``distributed.client`` among them); each is emptied here so every record reaches the keeper.
    On the way out, tasks the loop left behind are collected while their reports are still kept.
    """
    keeper = _KeptRecords()
    tops = [logging.getLogger(name) for name in _DASK_LOGGERS]
    named = [
        logger
        for name, logger in list(logging.root.manager.loggerDict.items())
        if isinstance(logger, logging.Logger) and name.startswith(tuple(f"{t}." for t in _DASK_LOGGERS))
    ]
    saved = [(logger, logger.handlers[:], logger.propagate) for logger in (*tops, *named)]
    for logger in named:
        logger.handlers = []
        logger.propagate = True
    for logger in tops:
        logger.handlers = [keeper]
        logger.propagate = False
    try:
        yield keeper
    finally:
        gc.collect()
        for logger, handlers, propagate in saved:
            logger.handlers = handlers
            logger.propagate = propagate


def connect(distributed: Any, scheduler: str, timeout: float) -> Any:
    """A ``distributed.Client`` of the scheduler at ``scheduler``, made within ``timeout`` seconds (and one more).

    The client is made on a thread of its own so that a scheduler which never answers cannot
    hold the caller: after ``timeout`` and a second the caller gets a :class:`DaskError`, and a
    client made later still is closed at once.
    """
    made: dict[str, Any] = {}
    lock = threading.Lock()
    finished = threading.Event()

    def make() -> None:
        try:
            client = distributed.Client(scheduler, timeout=f"{timeout}s")
        except BaseException as exc:  # noqa: BLE001 - reported to the caller below
            made["error"] = exc
            finished.set()
            return
        with lock:
            late = made.get("abandoned", False)
            made["client"] = client
        finished.set()
        if late:
            client.close()

    threading.Thread(target=make, name="tokviz-dask-connect", daemon=True).start()
    # A second more than the client's own limit, so a refused or unroutable address reports
    # distributed's reason; past it, the scheduler accepted but never answered.
    finished.wait(timeout + _GRACE)
    with lock:
        made["abandoned"] = "client" not in made
    if "client" in made:
        return made["client"]
    raise DaskError(_connect_failure(scheduler, timeout, made.get("error")))


def _connect_failure(scheduler: str, timeout: float, error: BaseException | None) -> str:
    """The one line for a client that could not be made (``error`` None: no answer in time)."""
    if error is None:
        return (
            f"the Dask scheduler at {scheduler} accepted the connection but did not answer "
            f"within {timeout:g} s; is a Dask scheduler listening there?"
        )
    if isinstance(error, (OSError, TimeoutError)):
        first = (str(error).strip().splitlines() or [type(error).__name__])[0]
        return f"cannot reach the Dask scheduler at {scheduler}: {first}"
    return (
        f"cannot reach the Dask scheduler at {scheduler}: what it sent is not Dask's protocol "
        f"({type(error).__name__}); is a Dask scheduler listening there?"
    )


class Watchdog:
    """Stops a count that has had no worker alive and no task finished for ``timeout`` seconds.

    Call :meth:`check` while waiting, saying whether a task finished since the last call. The
    scheduler is asked for its workers at most once a second; a scheduler that does not answer
    counts as a cluster with no worker.
    """

    def __init__(
        self,
        client: Any,
        scheduler: str,
        timeout: float,
        keeper: _KeptRecords | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.client = client
        self.scheduler = scheduler
        self.timeout = timeout
        self.keeper = keeper
        self.clock = clock
        self.moved = clock()  # when a task last finished or a worker was last seen
        self.asked = float("-inf")
        self.answered = True

    def check(self, progressed: bool) -> None:
        """Raise :class:`DaskError` when nothing has moved for ``timeout`` seconds."""
        now = self.clock()
        if progressed:
            self.moved = now
            return
        if now - self.asked >= min(_ASK_EVERY, self.timeout / 2):
            self.asked = now
            if self._workers_alive():
                self.moved = now
                return
        if now - self.moved >= self.timeout:
            raise DaskError(self._stalled_message())

    def _workers_alive(self) -> bool:
        try:
            ncores = self.client.sync(self.client.scheduler.ncores, callback_timeout=self.timeout / 2)
        except Exception:  # noqa: BLE001 - any failure to answer is a scheduler that is gone
            self.answered = False
            return False
        self.answered = True
        return bool(ncores)

    def _stalled_message(self) -> str:
        if self.answered:
            what = f"the Dask cluster at {self.scheduler} has had no worker for {self.timeout:g} s"
        else:
            what = f"the Dask scheduler at {self.scheduler} has not answered for {self.timeout:g} s"
        said = self.keeper.last_warning() if self.keeper is not None else None
        return f"{what} and no range was counted meanwhile" + (f" (Dask said: {said})" if said else "")
