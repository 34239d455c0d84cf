"""The parts of a process pool's private state that stopping a run early needs, kept in one place.

:class:`~concurrent.futures.ProcessPoolExecutor` has no public way (before Python 3.14's
``terminate_workers``) to reach its worker processes, nor to end its manager thread's wait on a
message that a terminated worker left half-sent, nor to unblock the thread that feeds the workers'
call pipe once nobody reads it. These are CPython attributes, read here and nowhere else;
tests/core/test_pool_internals.py pins them on the running Python, so an upgrade that renames them
fails that test instead of leaving a cancelled run's workers behind.
"""

from __future__ import annotations

import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess


@dataclass(frozen=True)
class PoolInternals:
    """A pool's worker processes and the ends of its pipes that this process holds, read before
    shutdown forgets them."""

    processes: list[BaseProcess]
    result_writer: Connection | None
    call_reader: Connection | None = None

    @classmethod
    def of(cls, pool: ProcessPoolExecutor) -> PoolInternals:
        """Read ``pool``'s workers and pipes; missing attributes read as none (never raise)."""
        processes = getattr(pool, "_processes", None) or {}
        results = getattr(pool, "_result_queue", None)
        calls = getattr(pool, "_call_queue", None)
        return cls(
            list(processes.values()), getattr(results, "_writer", None), getattr(calls, "_reader", None)
        )

    def close_result_pipe(self) -> None:
        """Close this process's write end, so a reader waiting for the rest of a message sees the end."""
        if self.result_writer is not None:
            self.result_writer.close()

    def copy_call_pipe(self) -> int | None:
        """A descriptor of this caller's own for the read end of the call pipe, or None without one.

        The pool's own reader may be closed by its threads once they run (Python 3.11.7 and later
        do when a worker dies), so this is for a pool that has none yet; the copy stays valid until
        the caller closes it, whoever closes theirs.
        """
        if self.call_reader is None or self.call_reader.closed:
            return None
        try:
            return os.dup(self.call_reader.fileno())
        except OSError:
            return None
