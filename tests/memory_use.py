"""The test process's own memory: its resident size after every test and the run's peak.

``tests/conftest.py`` registers a :class:`MemoryLog` as a pytest plugin. It notes the resident
size when each test has finished (teardown included) and, when the run ends, writes
``build/test-memory.json`` (the run's peak resident size and the tests after which the process
grew most: where to look when the peak rises) and says the peak under the run's summary. With ``TOKVIZ_MEMORY_LOG=FILE`` set, every test's line (resident
MB, peak MB, test id) also goes to FILE as the run goes, so a run that is killed leaves it too.

Linux only (``/proc/self/statm``); elsewhere nothing is measured and no report is written.
"""

from __future__ import annotations

import json
import os
import resource
from pathlib import Path
from typing import TextIO

import pytest

STATM = Path("/proc/self/statm")
PAGE_MB = os.sysconf("SC_PAGE_SIZE") / 2**20 if hasattr(os, "sysconf") else 0.0
LOG_ENV = "TOKVIZ_MEMORY_LOG"
RISES_KEPT = 25
"""How many of the largest rises the report lists."""


def resident_mb() -> float:
    """The process's resident set now, in MB."""
    return int(STATM.read_text().split()[1]) * PAGE_MB


def peak_mb() -> float:
    """The process's largest resident set so far, in MB (``ru_maxrss`` is in KB on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class MemoryLog:
    """Resident size after each test: the rises, the peak, and (optionally) every line to a file."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.summary: dict[str, object] | None = None
        self.enabled = STATM.exists()
        self.start = resident_mb() if self.enabled else 0.0
        self.last = self.start
        self.tests = 0
        self.rises: list[tuple[float, str, float]] = []
        path = os.environ.get(LOG_ENV)
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
            self.file.write(f"{now:.0f}\t{peak_mb():.0f}\t{nodeid}\n")
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
        (self.folder / "test-memory.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
        self.summary = summary

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if self.summary is not None:
            terminalreporter.write_line(
                f"test process memory: peak {self.summary['peak_mb']} MB resident over {self.tests} tests "
                f"(the largest rises: {self.folder / 'test-memory.json'})"
            )
