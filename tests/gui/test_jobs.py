"""Background jobs: a function runs on a pool thread and its result or error comes back as a signal."""

from __future__ import annotations

import gc
import sys
import weakref

import pytest

from tokviz.gui.workers.jobs import Job, run_job, wait_for_all
from tokviz.gui.workers.latest import LatestJob


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


def test_the_latest_request_alone_is_delivered(qtbot):
    latest = LatestJob()
    results: list[str] = []
    latest.submit(lambda: "first", results.append, pytest.fail)
    latest.submit(lambda: "second", results.append, pytest.fail)
    with qtbot.waitSignal(latest.idle, timeout=10000):
        latest.submit(lambda: "third", results.append, pytest.fail)
    assert results == ["third"]


def test_a_delivered_job_is_held_by_nothing_while_qt_deletes_it(qtbot):
    """Only its parent holds a finished job until Qt deletes it: a Python cycle through the job's
    own signal connection, broken by PySide inside that deletion, crashed in QObject::~QObject."""
    latest = LatestJob()
    results: list[int] = []
    latest.submit(lambda: 42, results.append, pytest.fail)
    job = weakref.ref(latest.findChild(Job))
    collecting = gc.isenabled()
    gc.disable()  # what frees the job must be its last reference going, not the cycle collector
    try:
        qtbot.waitUntil(lambda: results == [42], timeout=10000)
        assert job() is None
    finally:
        if collecting:
            gc.enable()
