"""The two parts of a process pool's private state that stopping a run early needs, kept in one place.

:class:`~concurrent.futures.ProcessPoolExecutor` has no public way (before Python 3.14's
``terminate_workers``) to reach its worker processes, nor to end its manager thread's wait on a
message that a terminated worker left half-sent. Both are CPython attributes, read here and nowhere
else; tests/core/test_pool_internals.py pins them on the running Python, so an upgrade that renames
them fails that test instead of leaving a cancelled run's workers behind.
"""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess


@dataclass(frozen=True)
class PoolInternals:
    """A pool's worker processes and the write end of its result pipe, read before shutdown forgets them."""

    processes: list[BaseProcess]
    result_writer: Connection | None

    @classmethod
    def of(cls, pool: ProcessPoolExecutor) -> PoolInternals:
        """Read ``pool``'s workers and result pipe; missing attributes read as none (never raise)."""
        processes = getattr(pool, "_processes", None) or {}
        results = getattr(pool, "_result_queue", None)
        return cls(list(processes.values()), getattr(results, "_writer", None))

    def close_result_pipe(self) -> None:
        """Close this process's write end, so a reader waiting for the rest of a message sees the end."""
        if self.result_writer is not None:
            self.result_writer.close()
