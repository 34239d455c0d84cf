"""Training progress on standard error: plain lines in a log, one throttled bar on a terminal.

The printer reads time from a clock it is given, so throttling is tested by counting redraws
against a clock the test moves, never against the wall clock.
"""

from __future__ import annotations

import io

from tokviz.cli.progress import ProgressPrinter
from tokviz.core.training.train import Progress


class FakeClock:
    """A clock that moves only by ``step`` seconds per reading (0: frozen)."""

    def __init__(self, step: float = 0.0) -> None:
        self.now = 100.0
        self.step = step

    def __call__(self) -> float:
        now = self.now
        self.now += self.step
        return now


def test_progress_printer_writes_plain_lines_when_not_a_terminal() -> None:
    stream = io.StringIO()
    printer = ProgressPrinter(stream, interactive=False)
    printer(Progress("reading", 0, 1, (), 0.0))
    for done in range(0, 1001, 50):
        printer(Progress("merging", done, 1000, (), 1.0 + done / 1000))
    printer(Progress("done", 1000, 1000, (), 2.0))

    lines = stream.getvalue().splitlines()
    assert "\r" not in stream.getvalue()
    assert [line.split()[1] for line in lines] == [f"{p}.0%" for p in range(0, 101, 10)]
    assert lines[-1] == "merging        100.0%  1000/1000 merges  1,000 merges/s"


def test_progress_printer_redraws_one_line_on_a_terminal() -> None:
    stream = io.StringIO()
    # However fast the reports come (here: all at the same instant), the bar is drawn once at the
    # start and once at the end.
    printer = ProgressPrinter(stream, interactive=True, clock=FakeClock(0.0))
    for done in range(0, 1001):
        printer(Progress("merging", done, 1000, (), done / 1000))
    printer(Progress("done", 1000, 1000, (), 1.0))

    text = stream.getvalue()
    assert text.count("\n") == 1 and text.endswith("\n")
    assert 2 <= text.count("\r") <= 5  # throttled: the first draw, the last, hardly anything between
    assert text.count("\r") == 2
    assert "[########################] 100.0%" in text


def test_the_bar_is_redrawn_at_most_rate_times_a_second() -> None:
    stream = io.StringIO()
    # Reports 1/16 s apart and at most 10 redraws a second: every second report is drawn.
    printer = ProgressPrinter(stream, interactive=True, rate=10.0, clock=FakeClock(1 / 16))
    for done in range(0, 1001, 100):
        printer(Progress("merging", done, 1000, (), done / 1000))
    printer(Progress("done", 1000, 1000, (), 1.0))

    draws = stream.getvalue().split("\r")[1:]
    assert [d.split()[2] for d in draws] == ["0.0%", "20.0%", "40.0%", "60.0%", "80.0%", "100.0%"]


def test_the_last_merges_arriving_with_done_finish_the_bar() -> None:
    stream = io.StringIO()
    printer = ProgressPrinter(stream, interactive=True, clock=FakeClock(0.0))
    printer(Progress("merging", 0, 1000, (), 0.0))
    printer(Progress("merging", 500, 1000, (), 0.5))  # throttled away: the clock has not moved
    printer(Progress("done", 1000, 1000, (), 1.0))

    draws = stream.getvalue().split("\r")[1:]
    assert len(draws) == 2
    assert draws[-1].startswith("merging        [########################] 100.0%  1000/1000 merges")
    assert stream.getvalue().endswith("\n")
