"""Training progress on standard error: a bar redrawn in place on a terminal, plain lines in a log.

Hand-written rather than tqdm or rich: neither is a dependency of tokviz, the output has to
switch between a bar and a short log by itself, and the trainer reports phases (reading,
pre-tokenizing in MB and records, merging in merges) that each start their own count and rate.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable
from typing import IO, TYPE_CHECKING

if TYPE_CHECKING:
    from tokviz.core.training.train import Progress


class ProgressPrinter:
    """Training progress on a stream: a bar redrawn in place on a terminal, plain lines otherwise.

    Redraws are throttled (at most ``rate`` per second, timed by ``clock``); plain output prints a
    line when the phase changes and every tenth of the way, so a log file stays short.
    """

    def __init__(
        self,
        stream: IO[str],
        interactive: bool | None = None,
        rate: float = 10.0,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self.stream = stream
        self.interactive = _isatty(stream) if interactive is None else interactive
        self.min_interval = 1.0 / rate
        self.clock = clock
        self.phase = ""
        self.phase_start = 0.0
        self.last_elapsed = 0.0
        self.last_draw = float("-inf")
        self.last_decile = -1
        self.shown_done = -1
        self.drawn = False
        self.lock = threading.Lock()

    def __call__(self, progress: Progress) -> None:
        with self.lock:
            self._update(progress)

    def _update(self, p: Progress) -> None:
        now = self.clock()
        if p.phase == "done":
            # The last merges arrive with "done": finish the merging line at its final count.
            if self.phase == "merging" and self.shown_done != p.done:
                self.last_decile = -1
                self.last_draw = float("-inf")
                final = dataclasses.replace(p, phase="merging")
                self._show(final, p.done / p.total if p.total else 1.0, now)
            self._end_line()
            self.phase = p.phase
            return
        if p.phase != self.phase:
            self._end_line()
            self.phase = p.phase
            # A phase that does not open with a zero report has already run since the previous one.
            self.phase_start = p.elapsed if p.done == 0 else self.last_elapsed
            self.last_decile = -1
            self.last_draw = float("-inf")
        self.last_elapsed = p.elapsed
        if p.phase == "reading":
            return
        fraction = min(p.done / p.total, 1.0) if p.total > 0 else 0.0
        self._show(p, fraction, now)

    def _show(self, p: Progress, fraction: float, now: float) -> None:
        if self.interactive:
            if now - self.last_draw < self.min_interval and fraction < 1.0:
                return
            self.last_draw = now
            self.stream.write("\r" + self._line(p, fraction, bar=True) + "\x1b[K")
            self.drawn = True
            self.shown_done = p.done
        else:
            decile = int(fraction * 10)
            if decile == self.last_decile:
                return
            self.last_decile = decile
            self.stream.write(self._line(p, fraction, bar=False) + "\n")
            self.shown_done = p.done
        self.stream.flush()

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

    def _end_line(self) -> None:
        if self.drawn:
            self.stream.write("\n")
            self.stream.flush()
            self.drawn = False

    def close(self) -> None:
        """Finish a bar that is still on its line."""
        with self.lock:
            self._end_line()


def _isatty(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
