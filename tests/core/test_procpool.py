"""A cancelled pool lets its process exit, whatever its threads were still sending to the workers."""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
import textwrap

import pytest

from tokviz.core.io.procpool import stop_pool, worker_pool

SAFETY = 60.0

# One worker busy for good, and four parts queued for it that are larger than a pipe holds: the
# pool's feeder thread is left blocked writing them when the run is cancelled.
CANCELLED_WITH_PARTS_QUEUED = textwrap.dedent(
    """
    import multiprocessing, time
    from tokviz.core.io.procpool import stop_pool, worker_pool

    if __name__ == "__main__":
        pool = worker_pool(1, multiprocessing.get_context("forkserver"))
        pool.submit(time.sleep, 3600)
        for _ in range(4):
            pool.submit(len, b"x" * (1 << 20))
        stop_pool(pool, finished=False)
        print("stopped")
    """
)


def test_a_process_that_cancels_a_pool_with_parts_still_queued_exits() -> None:
    done = subprocess.run(
        [sys.executable, "-c", CANCELLED_WITH_PARTS_QUEUED],
        capture_output=True,
        text=True,
        timeout=SAFETY,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "stopped\n"
    assert "Traceback" not in done.stderr and "leaked" not in done.stderr


def test_a_finished_pool_gives_back_its_copy_of_the_call_pipe() -> None:
    pool = worker_pool(1, multiprocessing.get_context("forkserver"))
    assert pool.submit(len, b"abc").result(timeout=SAFETY) == 3
    copy = pool.call_pipe
    assert copy is not None
    stop_pool(pool, finished=True)
    assert pool.call_pipe is None
    with pytest.raises(OSError):
        os.fstat(copy)
