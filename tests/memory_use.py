"""The test process's own memory: its resident size after every test and the run's peak.

``tests/conftest.py`` registers a :class:`MemoryLog` as a pytest plugin in each process that runs
tests. It notes the resident size when each test has finished (teardown included) and, when the
run ends, writes ``build/test-memory.json`` (the run's peak resident size and the tests after
which the process grew most: where to look when the peak rises) and says the peak under the run's
summary. With ``TOKVIZ_MEMORY_LOG=FILE`` set, every test's line (resident MB, peak MB, seconds
since the test before finished, test id) also goes to FILE as the run goes, so a run that crashes
or is killed leaves it too; ``{worker}`` in FILE becomes the process's name (``gw0``, or ``main``
without xdist), so each process writes its own.

Run on several processes (pytest-xdist's ``-n``), each worker writes its own report
(``build/test-memory-gw0.json``, ...) and the controlling process, which runs no test, registers
a :class:`WorkersMemory` instead: it says each worker's peak under the summary.

Linux only (``/proc/self/statm``); elsewhere nothing is measured and no report is written.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import json
import os
import resource
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

import pytest

STATM = Path("/proc/self/statm")
PAGE_MB = os.sysconf("SC_PAGE_SIZE") / 2**20 if hasattr(os, "sysconf") else 0.0
LOG_ENV = "TOKVIZ_MEMORY_LOG"
RISES_KEPT = 25
"""How many of the largest rises the report lists."""


def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, or None where the C library has none (musl, macOS, Windows)."""
    name = ctypes.util.find_library("c")
    try:
        return getattr(ctypes.CDLL(name), "malloc_trim", None) if name else None
    except OSError:
        return None


MALLOC_TRIM = _malloc_trim()


_MODULE_CACHES: list[dict[Any, Any]] = []


def module_cache() -> dict[Any, Any]:
    """A dict a test module keeps what it built in (tokenizers, libraries' models) for its own tests.

    ``tests/conftest.py`` empties every such dict when a module's tests are done (with
    :func:`forget_module_caches`): a module-level dict would otherwise hold its tokenizers for the
    rest of the process, and a process running many modules would keep them all. A hypothesis
    test, which cannot take a function's fixture, reaches its module's objects this way.
    """
    cache: dict[Any, Any] = {}
    _MODULE_CACHES.append(cache)
    return cache


def forget_module_caches() -> None:
    """Empty every :func:`module_cache` (the next test that needs an entry builds it again)."""
    for cache in _MODULE_CACHES:
        cache.clear()


def give_back_freed_memory() -> None:
    """Return the C heap's free pages to the system (glibc keeps them otherwise, and a module's
    freed tables then still count in the process's resident size for the rest of the run)."""
    if MALLOC_TRIM is not None:
        MALLOC_TRIM(0)


def resident_mb() -> float:
    """The process's resident set now, in MB."""
    return int(STATM.read_text().split()[1]) * PAGE_MB


def peak_mb() -> float:
    """The process's largest resident set so far, in MB (``ru_maxrss`` is in KB on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def report_name(worker: str | None) -> str:
    """The report's file name: ``test-memory.json``, or ``test-memory-gw0.json`` for xdist's worker gw0."""
    return f"test-memory-{worker}.json" if worker else "test-memory.json"


class MemoryLog:
    """Resident size after each test: the rises, the peak, and (optionally) every line to a file."""

    def __init__(self, folder: Path, worker: str | None = None) -> None:
        self.folder = folder
        self.report = folder / report_name(worker)
        self.worker = worker
        self.summary: dict[str, object] | None = None
        self.enabled = STATM.exists()
        self.start = resident_mb() if self.enabled else 0.0
        self.last = self.start
        self.finished = time.monotonic()
        self.tests = 0
        self.rises: list[tuple[float, str, float]] = []
        path = os.environ.get(LOG_ENV, "").replace("{worker}", worker or "main")
        self.file: TextIO | None = open(path, "a", encoding="utf-8") if path and self.enabled else None

    def pytest_runtest_logfinish(self, nodeid: str) -> None:
        """Note the resident size once ``nodeid`` has finished."""
        if not self.enabled:
            return
        now = resident_mb()
        self.tests += 1
        self.rises.append((now - self.last, nodeid, now))
        self.rises = sorted(self.rises, reverse=True)[:RISES_KEPT]
        self.last = now
        if self.file is not None:
            finished, self.finished = self.finished, time.monotonic()
            self.file.write(f"{now:.0f}\t{peak_mb():.0f}\t{self.finished - finished:.2f}\t{nodeid}\n")
            self.file.flush()

    def pytest_sessionfinish(self) -> None:
        """Write ``test-memory.json`` into the folder (where anything was measured)."""
        if self.file is not None:
            self.file.close()
            self.file = None
        if not self.enabled or not self.tests:
            return
        summary: dict[str, object] = {
            "tests": self.tests,
            "start_mb": round(self.start),
            "end_mb": round(self.last),
            "peak_mb": round(peak_mb()),
            "largest_rises": [
                {"test": nodeid, "rise_mb": round(rise), "after_mb": round(after)}
                for rise, nodeid, after in self.rises
            ],
        }
        self.folder.mkdir(parents=True, exist_ok=True)
        self.report.write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
        self.summary = summary

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if self.summary is not None:
            terminalreporter.write_line(
                f"test process memory: peak {self.summary['peak_mb']} MB resident over {self.tests} tests "
                f"(the largest rises: {self.report})"
            )


class WorkersMemory:
    """The controlling process of an xdist run: each worker's peak, read from the workers' reports.

    Reports left by an earlier run are removed when the run starts, so only this run's are read.
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        for old in folder.glob(report_name("gw*")):
            old.unlink()

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        reports = sorted(self.folder.glob(report_name("gw*")))
        if not reports:
            return
        peaks = []
        for report in reports:
            summary = json.loads(report.read_text(encoding="utf-8"))
            worker = report.stem.removeprefix("test-memory-")
            peaks.append(f"{worker} {summary['peak_mb']} MB over {summary['tests']} tests")
        terminalreporter.write_line(
            "test processes' memory: peak resident "
            + ", ".join(peaks)
            + f" (the largest rises: {self.folder / report_name('gw*')})"
        )
