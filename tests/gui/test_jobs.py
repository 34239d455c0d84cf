"""Background jobs: a function runs on a pool thread and its result or error comes back as a signal."""

from __future__ import annotations

import sys

from tokviz.gui.workers.jobs import run_job, wait_for_all


def test_a_job_runs_with_a_short_switch_interval_and_gives_the_interval_back(qtbot):
    before = sys.getswitchinterval()
    job = run_job(sys.getswitchinterval)
    with qtbot.waitSignal(job.returned, timeout=10000) as returned:
        pass
    assert returned.args[0] <= 0.001, "the GUI thread waits at most a millisecond for the GIL"
    assert wait_for_all()
    assert sys.getswitchinterval() == before


def test_an_error_comes_back_as_the_exception(qtbot):
    def fail() -> None:
        raise OSError("the disk is gone")

    job = run_job(fail)
    with qtbot.waitSignal(job.errored, timeout=10000) as errored:
        pass
    assert isinstance(errored.args[0], OSError) and job.error is errored.args[0]
