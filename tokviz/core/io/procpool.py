"""Worker processes that never outlive the run that started them.

Training counts large corpora in a :class:`~concurrent.futures.ProcessPoolExecutor`. Two things
go wrong with a plain pool: a cancelled or failed run that only calls ``shutdown(wait=False)``
leaves its workers counting (and the interpreter waits for them at exit, so Ctrl+C seemed to do
nothing), and a parent killed by SIGTERM or SIGKILL leaves them behind for good: a fork-server
worker keeps the server alive, and one stuck in a slow regex spins at 100 % CPU.

So :func:`worker_pool` starts workers that ignore SIGINT (the parent decides when to stop) and
watch their parent, exiting within :data:`PARENT_CHECK_INTERVAL` of its death, and
:func:`stop_pool` terminates and reaps every worker of a run that did not finish.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing.context import BaseContext
from multiprocessing.process import BaseProcess

from .pool_internals import PoolInternals

# How often a worker checks that the process that started the pool is still alive (seconds).
PARENT_CHECK_INTERVAL = 0.2
# How long stop_pool waits for terminated workers before it kills them (seconds).
TERMINATE_GRACE = 2.0
# A worker whose parent died exits with this status (nobody reads it; it marks the cause).
ORPHAN_EXIT_STATUS = 3

_HAVE_PROC = os.path.isdir("/proc/self")


def process_context() -> BaseContext:
    """How to start a worker process: fork when this process has one thread (cheap, and safe
    then); otherwise a fork server (or spawn where there is none)."""
    import multiprocessing

    methods = multiprocessing.get_all_start_methods()
    if "fork" in methods and _thread_count() == 1:
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")


def _thread_count() -> int:
    """The threads this process runs, native ones included.

    ``threading`` sees only threads Python started: a Qt thread (a training job's ``QThread``) or
    a library's thread pool runs unseen, and forking beside one can copy a lock it holds. Linux
    lists every thread under ``/proc/self/task``; elsewhere Python's own count is all there is.
    """
    if _HAVE_PROC:
        try:
            return len(os.listdir("/proc/self/task"))
        except OSError:
            pass
    return threading.active_count()


class WorkerPool(ProcessPoolExecutor):
    """A process pool that keeps a read end of its call pipe of its own, for :func:`stop_pool`.

    The copy is made here, before the pool has threads, as no thread of the pool may close the
    original while it is copied (Python 3.11.7 and later close it when a worker dies).
    """

    def __init__(self, max_workers: int, mp_context: BaseContext) -> None:
        me = os.getpid()
        super().__init__(
            max_workers=max_workers,
            mp_context=mp_context,
            initializer=_init_worker,
            initargs=(me, _start_time(me)),
        )
        self.call_pipe = PoolInternals.of(self).copy_call_pipe()


def worker_pool(max_workers: int, mp_context: BaseContext) -> WorkerPool:
    """A process pool whose workers exit on their own when this process dies."""
    return WorkerPool(max_workers, mp_context)


def stop_pool(pool: WorkerPool, finished: bool) -> None:
    """End a pool: wait for a finished run's workers; terminate and reap those of any other run.

    A run that was cancelled or failed must not leave work behind: queued parts are dropped, and
    a worker busy with a part (a slow pattern can take seconds) is terminated rather than waited
    for, then joined so no zombie or orphan is left.
    """
    call_pipe, pool.call_pipe = pool.call_pipe, None
    if finished:
        pool.shutdown(wait=True)
        if call_pipe is not None:
            os.close(call_pipe)
        return
    internals = PoolInternals.of(pool)  # read first: shutdown() forgets the result pipe
    try:
        pool.shutdown(wait=False, cancel_futures=True)
        _end_workers(internals.processes)
    finally:
        # A worker terminated while sending its counts leaves half a message in the result pipe;
        # the pool's manager thread would wait for the rest forever, and the interpreter for it at
        # exit (Ctrl+C then printed "cancelled" and hung). With every worker gone, closing this
        # process's end of the pipe turns that wait into an end of file, which the manager takes
        # for a broken pool: it fails what is left and exits.
        internals.close_result_pipe()
        if call_pipe is not None:
            _drain_in_background(call_pipe)


def _end_workers(processes: list[BaseProcess]) -> None:
    """Terminate ``processes`` and reap them, killing any still alive after the grace time."""
    for proc in processes:
        if proc.is_alive():
            proc.terminate()
    deadline = time.monotonic() + TERMINATE_GRACE
    for proc in processes:
        proc.join(max(0.0, deadline - time.monotonic()))
        if proc.is_alive():
            proc.kill()
            proc.join(TERMINATE_GRACE)


def _drain_in_background(call_pipe: int) -> None:
    """Read and drop what is still sent to the dead workers, until the pool closes its end.

    The pool's feeder thread writes queued parts (megabytes each) to the call pipe; with the
    workers gone nobody reads it, so a write blocks for good once the pipe is full. The manager
    thread waits for the feeder when the pool ends, and the interpreter for the manager at exit:
    on Python 3.11.2 (which, unlike 3.11.7, does not close its own reader then, nor when a
    worker killed by a terminal's Ctrl+C before it could ignore it breaks the pool) a cancelled
    run printed "cancelled" and hung. Reading the pipe lets each write finish; the feeder then
    meets the pool's close and closes its end, which ends this thread (a daemon, so a pipe still
    held open elsewhere never delays exit).
    """
    threading.Thread(target=_drain, args=(call_pipe,), name="tokviz-call-pipe-drain", daemon=True).start()


def _drain(fd: int) -> None:
    """Read ``fd`` to its end, dropping the bytes, then close it."""
    try:
        while os.read(fd, 1 << 16):
            pass
    except OSError:
        pass
    finally:
        os.close(fd)


def _init_worker(parent_pid: int, parent_start: str | None) -> None:
    """Runs first in each worker: leave Ctrl+C to the parent, and die with the parent."""
    # A terminal's Ctrl+C reaches the whole process group; the parent cancels and stops the
    # workers itself, and a worker interrupted mid-wait would only print a traceback.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    watcher = threading.Thread(
        target=_watch_parent,
        args=(parent_pid, parent_start, os.getppid()),
        name="tokviz-parent-watch",
        daemon=True,
    )
    watcher.start()


def _watch_parent(parent_pid: int, parent_start: str | None, first_ppid: int) -> None:
    """Exit this worker at once when the pool's owner is gone (its pid dead, a zombie, or reused).

    The owner is not always the direct parent: fork-server workers are children of the server,
    which the workers themselves keep alive, so the owner's pid is checked too.
    """
    while True:
        time.sleep(PARENT_CHECK_INTERVAL)
        if os.getppid() != first_ppid or not process_alive(parent_pid, parent_start):
            os._exit(ORPHAN_EXIT_STATUS)


def process_alive(pid: int, start: str | None = None) -> bool:
    """Whether process ``pid`` runs (not a zombie) and, given ``start``, is the one that started then.

    Read from /proc on Linux; elsewhere a signal 0 tells whether the pid exists (on Windows, where
    that would end the process, it is taken as alive: the parent-pid check still applies).
    """
    if not _HAVE_PROC:
        return _signal_alive(pid)
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return False
    except (OSError, IndexError):
        return _signal_alive(pid)
    state, started = fields[0], fields[19] if len(fields) > 19 else None
    if state in ("Z", "X", "x"):
        return False
    return start is None or started == start


def _start_time(pid: int) -> str | None:
    """The kernel's start time of ``pid`` (Linux), which tells a reused pid from the original."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        return fields[19]
    except (OSError, IndexError):
        return None


def _signal_alive(pid: int) -> bool:
    """Whether ``pid`` exists, where there is no /proc to read."""
    if os.name == "nt":
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
