"""How fast a training phase goes, and how long it has left: the numbers under the progress bar."""

from __future__ import annotations


class RateMeter:
    """Speed over the last few seconds, so the time left follows the merge loop as it slows down."""

    def __init__(self, window: float = 3.0) -> None:
        self.window = window
        self.samples: list[tuple[float, int]] = []

    def reset(self) -> None:
        self.samples.clear()

    def add(self, t: float, done: int) -> float:
        self.samples.append((t, done))
        while len(self.samples) > 2 and t - self.samples[1][0] >= self.window:
            self.samples.pop(0)
        t0, d0 = self.samples[0]
        return (done - d0) / (t - t0) if t > t0 else 0.0


def time_left(phase: str, done: int, total: int, rate: float) -> float | None:
    """Seconds left in a phase at ``rate``, or None while no honest estimate exists.

    Merges get cheaper as a run goes on, so an early rate overstates the time left (a run once
    said "38 s left" and ended 2.5 s later): there is no estimate before a tenth of the phase.
    """
    if phase not in ("pre-tokenizing", "merging") or rate <= 0 or total <= 0 or done < total / 10:
        return None
    return (total - done) / rate
