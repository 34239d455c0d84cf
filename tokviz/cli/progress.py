"""Progress on standard error: a line redrawn in place on a terminal, a few plain lines in a log.

:class:`ProgressLine` is that line, for every command that measures for a while (``eval``,
``sweep``, ``parity``); :class:`ProgressPrinter` shows training's phases on it. Hand-written
rather than tqdm or rich: neither is a dependency of tokviz, the output has to switch between a
bar and a short log by itself, and the trainer reports phases (reading, pre-tokenizing in MB and
records, merging in merges) that each start their own count and rate.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable
from typing import IO, TYPE_CHECKING

from tokviz.cli.streams import redraw_line

if TYPE_CHECKING:
    from tokviz.core.training.train import Progress


class ProgressLine:
    """One line of progress on a stream: redrawn in place on a terminal, at most ``rate`` times a
    second (the end always), and otherwise written once every tenth of the way, so a log stays
    short. Nothing is shown in the first ``delay`` seconds: a quick run prints nothing."""

    def __init__(
        self,
        stream: IO[str],
        interactive: bool | None = None,
        rate: float = 10.0,
        clock: Callable[[], float] = time.perf_counter,
        delay: float = 0.0,
    ) -> None:
        self.stream = stream
        self.interactive = _isatty(stream) if interactive is None else interactive
        self.min_interval = 1.0 / rate
        self.clock = clock
        self.start = clock()
        self.delay = delay
        self.last_draw = float("-inf")
        self.last_decile = -1
        self.drawn = False
        # Reports may come from a worker thread while the main thread closes the line.
        self.lock = threading.Lock()

    def elapsed(self) -> float:
        """Seconds since the line was made."""
        return self.clock() - self.start

    def show(self, fraction: float, line: Callable[[bool], str]) -> bool:
        """Show ``line(bar)`` (``bar``: on a terminal) for ``fraction`` of the way; False when this
        update is not shown (too soon after the last one, or in the same tenth of the way)."""
        now = self.clock()
        if now - self.start < self.delay:
            return False
        if self.interactive:
            if now - self.last_draw < self.min_interval and fraction < 1.0:
                return False
            self.last_draw = now
            redraw_line(self.stream, line(True))
            self.drawn = True
        else:
            decile = int(fraction * 10)
            if decile == self.last_decile:
                return False
            self.last_decile = decile
            self.stream.write(line(False) + "\n")
        self.stream.flush()
        return True

    def restart(self) -> None:
        """Show the next update whatever came before (a new phase starts its own count)."""
        self.last_decile = -1
        self.last_draw = float("-inf")

    def end_line(self) -> None:
        """End the line drawn in place, if there is one."""
        if self.drawn:
            self.stream.write("\n")
            self.stream.flush()
            self.drawn = False

    def close(self) -> None:
        """End the line drawn in place, if there is one."""
        self.end_line()


class ProgressPrinter(ProgressLine):
    """Training progress on a stream: a bar redrawn in place on a terminal, plain lines otherwise.

    Redraws are throttled (at most ``rate`` per second, timed by ``clock``); plain output prints a
    line when the phase changes and every tenth of the way, so a log file stays short.
    """

    # The phase shown, when it started (in the trainer's elapsed seconds), the last report's
    # elapsed time and the merge count last shown.
    phase = ""
    phase_start = 0.0
    last_elapsed = 0.0
    shown_done = -1

    def __call__(self, progress: Progress) -> None:
        with self.lock:
            self._update(progress)

    def _update(self, p: Progress) -> None:
        if p.phase == "done":
            # The last merges arrive with "done": finish the merging line at its final count.
            if self.phase == "merging" and self.shown_done != p.done:
                self.restart()
                final = dataclasses.replace(p, phase="merging")
                self._show(final, p.done / p.total if p.total else 1.0)
            self.end_line()
            self.phase = p.phase
            return
        if p.phase != self.phase:
            self.end_line()
            self.phase = p.phase
            # A phase that does not open with a zero report has already run since the previous one.
            self.phase_start = p.elapsed if p.done == 0 else self.last_elapsed
            self.restart()
        self.last_elapsed = p.elapsed
        if p.phase == "reading":
            return
        fraction = min(p.done / p.total, 1.0) if p.total > 0 else 0.0
        self._show(p, fraction)

    def _show(self, p: Progress, fraction: float) -> None:
        if self.show(fraction, lambda bar: self._line(p, fraction, bar)):
            self.shown_done = p.done

    def _line(self, p: Progress, fraction: float, bar: bool) -> str:
        width = 24
        filled = int(fraction * width)
        graphic = f"[{'#' * filled}{'.' * (width - filled)}] " if bar else ""
        elapsed = max(p.elapsed - self.phase_start, 1e-9)
        if p.phase == "merging":
            detail = f"{p.done}/{p.total} merges  {p.done / elapsed:,.0f} merges/s"
        elif p.phase == "pre-tokenizing":
            detail = f"{p.done / 1e6:.1f}/{p.total / 1e6:.1f} MB  {p.done / 1e6 / elapsed:.1f} MB/s"
            if p.records:
                detail += f"  {p.records:,} records"
        else:
            detail = ""
        return f"{p.phase:<14} {graphic}{fraction * 100:5.1f}%  {detail}".rstrip()

    def close(self) -> None:
        """Finish a bar that is still on its line."""
        with self.lock:
            self.end_line()


def _isatty(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
