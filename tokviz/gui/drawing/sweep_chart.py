"""The sweep chart (``tokviz sweep --plot``): bytes per token against vocabulary size, a curve per group.

The vocabulary axis is logarithmic, so the first few thousand merges, where the curve climbs
fastest, get as much room as the last tens of thousands; each curve's knee is a ringed dot with
its size. Painted with QPainter only, so the SVG keeps text as text. Every number comes from
:class:`tokviz.core.analysis.sweep.Sweep`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import numpy as np
from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPainterPath, QPaintEvent, QPen
from PySide6.QtWidgets import QWidget

from tokviz.core.analysis.sweep import Sweep, SweepCurve
from tokviz.gui.drawing.chart_style import series_color
from tokviz.gui.drawing.images import write_image
from tokviz.gui.drawing.sheet import check_pixels, ensure_app

CHART_SIZE = QSize(960, 540)
# A curve is drawn through at most this many points, spread evenly on the log axis.
_POINTS = 600
_MARGIN = (70.0, 56.0, 190.0, 56.0)  # left, top, right, bottom


def curve_points(curve: SweepCurve, count: int = _POINTS) -> tuple[np.ndarray, np.ndarray]:
    """``(sizes, bytes per token)`` of ``curve`` at up to ``count`` steps spread evenly on a log axis."""
    sizes = curve.sizes
    picks = np.unique(np.geomspace(sizes[0], sizes[-1], num=min(count, len(sizes))).round().astype(np.int64))
    steps = np.searchsorted(sizes, picks).clip(0, len(sizes) - 1)
    return sizes[steps], curve.bytes_per_token[steps]


class SweepChart(QWidget):
    """A sweep's curves in one picture (shown offscreen by :func:`write_sweep_chart`)."""

    def __init__(self, sweep: Sweep, dark: bool = False) -> None:
        super().__init__()
        self.sweep = sweep
        self.dark = dark
        self.resize(CHART_SIZE)

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt's name
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        paint_sweep(painter, QRectF(self.rect()), self.sweep, self.dark)
        painter.end()


def paint_sweep(painter: QPainter, area: QRectF, sweep: Sweep, dark: bool) -> None:
    """Draw the axes, a curve per group (the total in the text colour) and each knee."""
    ink = QColor("#e8e8e8" if dark else "#202020")
    faint = QColor("#555555" if dark else "#c8c8c8")
    painter.fillRect(area, QColor("#1e1e1e" if dark else "#ffffff"))
    left, top, right, bottom = _MARGIN
    plot = area.adjusted(left, top, -right, -bottom)
    low, high = sweep.size_of(0), sweep.size_of(sweep.merge_count)  # a sweep has one merge or more
    finite = [v for c in sweep.curves for v in c.bytes_per_token.tolist() if math.isfinite(v)]
    y_low, y_high = (min(finite), max(finite)) if finite else (0.0, 1.0)
    y_low, y_high = math.floor(y_low * 2) / 2, math.ceil(y_high * 2) / 2 + (0.5 if y_high == y_low else 0)

    def at(size: float, bpt: float) -> QPointF:
        x = plot.left() + plot.width() * (math.log(size) - math.log(low)) / (math.log(high) - math.log(low))
        y = plot.bottom() - plot.height() * (bpt - y_low) / (y_high - y_low)
        return QPointF(x, y)

    font = QFont(painter.font())
    font.setPointSizeF(10)
    painter.setFont(font)
    _axes(painter, plot, at, (low, high), (y_low, y_high), ink, faint)
    title = f"{sweep.tokenizer}: bytes per token at every vocabulary size ({sweep.merge_count:,} merges)"
    painter.setPen(ink)
    painter.drawText(QRectF(area.left() + left, area.top() + 12, area.width(), 24), title)
    for slot, curve in enumerate(sweep.curves):
        total = curve is sweep.total
        color = ink if total else series_color(slot, dark)
        sizes, bpt = curve_points(curve)
        path = QPainterPath()
        started = False
        for size, value in zip(sizes.tolist(), bpt.tolist()):
            if not math.isfinite(value):
                continue
            point = at(size, value)
            path.lineTo(point) if started else path.moveTo(point)
            started = True
        painter.setPen(QPen(color, 2.5 if total else 1.6))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawPath(path)
        knee = curve.knee()
        label = f"{curve.group}"
        if knee is not None:
            point = at(sweep.size_of(knee), float(curve.bytes_per_token[knee]))
            painter.setBrush(color)
            painter.drawEllipse(point, 4.5, 4.5)
            label += f"  knee {sweep.size_of(knee):,}"
        legend = QRectF(plot.right() + 16, plot.top() + 20 * slot, right - 20, 18)
        painter.setPen(QPen(color, 3))
        painter.drawLine(
            QPointF(legend.left(), legend.center().y()), QPointF(legend.left() + 18, legend.center().y())
        )
        painter.setPen(ink)
        painter.drawText(legend.adjusted(24, 0, 0, 0), Qt.AlignmentFlag.AlignVCenter, label)


def _axes(
    painter: QPainter,
    plot: QRectF,
    at: Callable[[float, float], QPointF],
    x_range: tuple[float, float],
    y_range: tuple[float, float],
    ink: QColor,
    faint: QColor,
) -> None:
    """Grid lines and labels: x at 1, 2, 5 times powers of ten, y every half byte per token."""
    low, high = x_range
    y_low, y_high = y_range
    painter.setPen(QPen(faint, 1))
    ticks = [f * 10**e for e in range(2, 8) for f in (1, 2, 5) if low <= f * 10**e <= high]
    for size in ticks:
        x = at(size, y_low).x()
        painter.setPen(QPen(faint, 1))
        painter.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()))
        painter.setPen(ink)
        text = f"{size // 1000:,}K" if size >= 1000 else str(size)
        painter.drawText(QRectF(x - 30, plot.bottom() + 4, 60, 18), Qt.AlignmentFlag.AlignHCenter, text)
    step = 0.5 if y_high - y_low <= 4 else 1.0
    value = y_low
    while value <= y_high + 1e-9:
        y = at(low, value).y()
        painter.setPen(QPen(faint, 1))
        painter.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y))
        painter.setPen(ink)
        painter.drawText(QRectF(plot.left() - 60, y - 9, 52, 18), Qt.AlignmentFlag.AlignRight, f"{value:g}")
        value += step
    painter.setPen(QPen(ink, 1))
    painter.drawRect(plot)
    painter.drawText(
        QRectF(plot.left(), plot.bottom() + 24, plot.width(), 20),
        Qt.AlignmentFlag.AlignHCenter,
        "vocabulary size (log scale; 256 bytes + merges + special tokens)",
    )
    painter.save()
    painter.translate(plot.left() - 52, plot.center().y())
    painter.rotate(-90)
    painter.drawText(QRectF(-100, -18, 200, 18), Qt.AlignmentFlag.AlignHCenter, "bytes per token")
    painter.restore()


def write_sweep_chart(sweep: Sweep, path: str | Path, *, scale: float = 2.0, dark: bool = False) -> Path:
    """Draw ``sweep`` into a PNG (at ``scale``) or SVG file, chosen by the extension."""
    ensure_app()
    chart = SweepChart(sweep, dark)
    try:
        if Path(path).suffix.lower() == ".png":
            check_pixels(chart, scale)
        return write_image(chart, path, scale, title="tokviz vocabulary-size sweep")
    finally:
        chart.deleteLater()
