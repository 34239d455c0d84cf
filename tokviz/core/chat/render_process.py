"""Render a chat template in a worker process that cannot pass its memory, CPU and time limits.

The sandbox (:mod:`.sandbox`) refuses what it sees coming, but work inside one Python operation
runs to its end before any check can look: ``'%*s' % (1000000000, 'x')`` builds a gigabyte,
``(10**4096)**4096`` multiplies for half a minute in C, ``tojson(indent=1000000000)`` fills the
memory. So every render runs in a worker process, under limits the kernel enforces while the
work runs, whatever Python does inside:

- ``RLIMIT_AS``: the worker's address space when the render starts, plus :data:`RENDER_MEMORY`
  and eight bytes per byte of the request (the messages themselves). An allocation past it fails
  and the render stops: "the chat template used more than 256 MB".
- ``RLIMIT_CPU``: the CPU time used so far plus the render's seconds and one; the kernel ends a
  worker that computes on in C.
- A wall clock here: no answer within the render's seconds plus :data:`GRACE_SECONDS`, and the
  worker is killed: "the chat template ran for more than 5 s".
- The answer is read with a size cap (four bytes a character of the output limit).

The worker is started once and kept, since the chat panel renders again after every edit: a
render costs a pickle of the variables and a round trip through a pipe (well under a millisecond
for a chat of a few messages); starting a worker takes a fork, or a fork server's fork and the
import of Jinja2 (tens of milliseconds), once. A worker that reached a limit is replaced.
Where ``resource`` is missing (Windows), the wall clock and the sandbox's own checks remain.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import sys
import threading
from collections.abc import Mapping
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any

from ..io.procpool import process_context
from .errors import ChatTemplateError

if sys.platform != "win32":
    import resource

RENDER_MEMORY = 256 * 2**20
"""Memory a render may use beyond what the worker holds when it starts (and its request's share)."""
GRACE_SECONDS = 1.0
"""How long past its seconds a render may take before the worker is killed (the sandbox's own
clock stops a template's Python loops at the seconds; this catches work inside one C call)."""
START_SECONDS = 60.0
"""How long a new worker may take to start (a loaded machine, a fresh interpreter)."""

_OK, _FAILED, _NO_MEMORY = b"R", b"E", b"M"
_KEEP, _LEAVING = b"k", b"x"


class _Lost(Exception):
    """The worker gave no answer (killed at the wall clock, ended by a limit, or its answer too
    long); the message says which, for the user."""


class _Worker:
    """One worker process and the pipe to it."""

    def __init__(self) -> None:
        context: Any = process_context()  # typeshed's BaseContext lacks the Process it has
        here, there = context.Pipe(duplex=True)
        process = context.Process(target=_serve, args=(there, here), name="tokviz-chat-template", daemon=True)
        process.start()
        there.close()
        self.process: BaseProcess = process
        self.conn: Connection = here
        if not here.poll(START_SECONDS) or _receive(here, 16) != b"ready":
            self.stop()
            raise ChatTemplateError("the chat template renderer did not start")

    def render(self, request: bytes, seconds: float, max_chars: int) -> tuple[bytes, bool]:
        """The worker's answer and whether the worker stays; :class:`_Lost` when it gave none."""
        too_long = f"the chat template ran for more than {seconds:g} s and was stopped"
        try:
            self.conn.send_bytes(request)
            if not self.conn.poll(seconds + GRACE_SECONDS):
                raise _Lost(too_long)
            reply = self.conn.recv_bytes(4 * max_chars + 4096)
        except EOFError:
            self.process.join(1)
            if self.process.exitcode == -getattr(signal, "SIGXCPU", -1):
                raise _Lost(too_long) from None
            raise _Lost(
                f"the chat template stopped its renderer (exit status {self.process.exitcode})"
            ) from None
        except OSError:  # the answer is longer than the cap
            raise _Lost(f"the chat template builds an output longer than {max_chars:,} characters") from None
        return reply[:1] + reply[2:], reply[1:2] == _KEEP

    def stop(self) -> None:
        """Kill the worker (if it still runs) and forget it."""
        with contextlib.suppress(OSError):
            self.conn.close()
        if self.process.is_alive():
            self.process.kill()
        self.process.join(5)


_lock = threading.Lock()
_worker: _Worker | None = None


def render_process_id() -> int | None:
    """The process id of the render worker now kept for the next render, or None when none runs.

    One worker serves many renders and is replaced after it reaches a limit; the id tells which.
    """
    with _lock:
        alive = _worker is not None and _worker.process.is_alive()
        return _worker.process.pid if alive and _worker is not None else None


def render_template(
    text: str,
    variables: Mapping[str, Any],
    *,
    seconds: float,
    max_chars: int,
) -> str:
    """``text`` rendered with ``variables`` in the worker, under its limits.

    Raises :class:`ChatTemplateError` for a template that does not parse, fails, reaches one of
    the sandbox's limits, or uses more memory, CPU or time than the worker may.
    """
    global _worker
    request = pickle.dumps((text, dict(variables), seconds, max_chars), protocol=pickle.HIGHEST_PROTOCOL)
    with _lock:
        if _worker is None or not _worker.process.is_alive():
            _worker = _Worker()
        worker = _worker
        try:
            reply, stays = worker.render(request, seconds, max_chars)
        except _Lost as lost:
            worker.stop()
            _worker = None
            raise ChatTemplateError(str(lost)) from None
        if not stays:
            worker.process.join(5)
            _worker = None
    kind, payload = reply[:1], reply[1:]
    if kind == _OK:
        return payload.decode("utf-8", "surrogatepass")
    if kind == _NO_MEMORY:
        raise ChatTemplateError(f"the chat template used more than {RENDER_MEMORY >> 20} MB and was stopped")
    raise ChatTemplateError(payload.decode("utf-8", "replace"))


def _receive(conn: Connection, cap: int) -> bytes:
    try:
        return conn.recv_bytes(cap)
    except (EOFError, OSError):
        return b""


# ---------------------------------------------------------------------------------- the worker
def _serve(conn: Connection, parent_end: Connection) -> None:
    """The worker's loop: render each request under the limits, answer, and leave after a
    render that ran out of memory (or left the worker much larger than it started)."""
    parent_end.close()  # a forked worker holds both ends; only the parent's may stay open
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl+C is the parent's to handle
    from .sandbox import render_in_sandbox

    conn.send_bytes(b"ready")
    start_size = _address_space()
    while True:
        try:
            request = conn.recv_bytes()
        except (EOFError, OSError):
            return
        text, variables, seconds, max_chars = pickle.loads(request)
        limits = _limit(len(request), seconds)
        leaving = False
        try:
            reply = _OK + render_in_sandbox(text, variables, seconds=seconds, max_chars=max_chars).encode(
                "utf-8", "surrogatepass"
            )
        except ChatTemplateError as exc:
            reply = _FAILED + str(exc).encode("utf-8", "replace")
        except MemoryError:
            reply, leaving = _NO_MEMORY, True
        finally:
            _unlimit(limits)
        size = _address_space()
        if size is not None and start_size is not None and size > start_size + RENDER_MEMORY:
            leaving = True
        conn.send_bytes(reply[:1] + (_LEAVING if leaving else _KEEP) + reply[1:])
        if leaving:
            return


def _address_space() -> int | None:
    """This process's address space in bytes (Linux), or None where it cannot be read."""
    try:
        with open("/proc/self/statm", encoding="ascii") as fh:
            return int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


def _limit(request_bytes: int, seconds: float) -> tuple[tuple[int, int], tuple[int, int]] | None:
    """Cap this worker's address space and CPU time for one render; the limits before, to put back."""
    if sys.platform == "win32":  # pragma: no cover - no resource limits there
        return None
    before = resource.getrlimit(resource.RLIMIT_AS), resource.getrlimit(resource.RLIMIT_CPU)
    size = _address_space()
    if size is not None:
        soft, hard = before[0]
        wanted = size + RENDER_MEMORY + 8 * request_bytes
        ceiling = hard if hard != resource.RLIM_INFINITY else wanted
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_AS, (min(wanted, ceiling), hard))
    usage = resource.getrusage(resource.RUSAGE_SELF)
    cpu = int(usage.ru_utime + usage.ru_stime + seconds) + 2
    soft, hard = before[1]
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(
            resource.RLIMIT_CPU, (cpu if hard == resource.RLIM_INFINITY else min(cpu, hard), hard)
        )
    return before


def _unlimit(before: tuple[tuple[int, int], tuple[int, int]] | None) -> None:
    if sys.platform == "win32" or before is None:  # pragma: no cover - Windows
        return
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_AS, before[0])
        resource.setrlimit(resource.RLIMIT_CPU, before[1])


__all__ = ["GRACE_SECONDS", "RENDER_MEMORY", "render_template"]
