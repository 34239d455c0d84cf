"""The timeline plot's axes: tick steps spaced by the size of their labels.

pyqtgraph picks tick steps from the axis length alone, so labels in presentation mode's larger font
were drawn over each other; here the number of labelled ticks is the axis length divided by the room
one label needs.
"""

from __future__ import annotations

import math
from typing import Any

from PySide6.QtGui import QFontMetrics

# Room per label along the axis, in label heights (vertical axis) or label widths (horizontal).
_VERTICAL_ROOM = 1.6
_HORIZONTAL_ROOM = 1.8


def short_count(value: float) -> str:
    """An axis label for a count: 950, 12k, 1.5M."""
    v = abs(value)
    if v >= 1e6:
        return f"{value / 1e6:.3g}M"
    if v >= 1e4:
        return f"{value / 1e3:.3g}k"
    return f"{value:.6g}"


def nice_step(at_least: float) -> float:
    """The smallest of 1, 2, 5 times a power of ten that is at least ``at_least`` (positive)."""
    power = 10.0 ** math.floor(math.log10(at_least))
    for factor in (1.0, 2.0, 5.0, 10.0):
        if factor * power >= at_least * (1 - 1e-9):
            return factor * power
    return 10.0 * power


def readable_axis(pg: Any, orientation: str, counts: bool = True) -> Any:
    """A pyqtgraph axis whose labelled ticks never crowd each other, whatever the font's size.

    ``counts`` labels values as 950, 12k, 1.5M instead of 1.5e+06.
    """

    class ReadableAxis(pg.AxisItem):
        def tickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:
            if counts:
                return [short_count(v * scale) for v in values]
            return list(super().tickStrings(values, scale, spacing))

        def tickSpacing(self, min_value: float, max_value: float, size: float) -> Any:
            if self._tickSpacing is not None:
                return super().tickSpacing(min_value, max_value, size)
            span = abs(max_value - min_value)
            if span == 0 or size <= 0:
                return []
            metrics = QFontMetrics(self.style["tickFont"] or self.font())
            if self.orientation in ("left", "right"):
                room = metrics.height() * _VERTICAL_ROOM
            else:
                widest = max((short_count(v) for v in (min_value, max_value)), key=len)
                room = max(metrics.horizontalAdvance(widest + "0"), metrics.height()) * _HORIZONTAL_ROOM
            labels = max(1.0, size / room)
            return [(nice_step(span / labels), 0)]

    return ReadableAxis(orientation)
