"""The pool's private state that stopping a run early relies on is where this Python keeps it.

If an upgrade of Python renames or reshapes ``ProcessPoolExecutor._processes`` or the result
queue's ``_writer`` or the call queue's ``_reader``, :class:`PoolInternals` quietly finds nothing
and a cancelled run would leave its workers counting or hang: these tests fail first.
"""

from __future__ import annotations

import multiprocessing
import os
from multiprocessing.connection import Connection

from tokviz.core.io.pool_internals import PoolInternals
from tokviz.core.io.procpool import worker_pool

SAFETY = 60.0


def test_the_pool_shows_the_workers_that_ran_its_jobs():
    pool = worker_pool(2, multiprocessing.get_context("forkserver"))
    try:
        ran_in = {future.result(timeout=SAFETY) for future in [pool.submit(os.getpid) for _ in range(4)]}
        workers = PoolInternals.of(pool).processes
        assert workers, "ProcessPoolExecutor._processes is gone: stop_pool cannot terminate the workers"
        assert ran_in <= {proc.pid for proc in workers}
        assert all(proc.is_alive() for proc in workers)
    finally:
        pool.shutdown(wait=True)


def test_the_pool_shows_the_write_end_of_its_result_pipe():
    pool = worker_pool(1, multiprocessing.get_context("forkserver"))
    try:
        pool.submit(os.getpid).result(timeout=SAFETY)
        writer = PoolInternals.of(pool).result_writer
        assert isinstance(writer, Connection), "the result queue's _writer is gone: a cancel could hang"
        assert not writer.closed
    finally:
        pool.shutdown(wait=True)


def test_a_pool_without_that_state_reads_as_none_rather_than_failing():
    class NotAPool:
        pass

    internals = PoolInternals.of(NotAPool())  # type: ignore[arg-type]
    assert internals == PoolInternals([], None)
    internals.close_result_pipe()


def test_a_new_pool_shows_the_read_end_of_its_call_pipe_and_gives_a_copy():
    pool = worker_pool(1, multiprocessing.get_context("forkserver"))
    try:
        internals = PoolInternals.of(pool)
        assert isinstance(internals.call_reader, Connection), (
            "the call queue's _reader is gone: a cancel could hang"
        )
        copy = internals.copy_call_pipe()
        assert copy is not None
        os.close(copy)
    finally:
        pool.shutdown(wait=True)
