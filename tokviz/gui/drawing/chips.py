"""Token chips: the rounded, hatched (partial UTF-8) or outlined (special) boxes of strips and tables."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import (
    QFontMetricsF,
    QPainter,
    QPaintEvent,
    QPalette,
    QPen,
)
from PySide6.QtWidgets import QWidget

from tokviz.gui.style.fonts import sans_font
from tokviz.gui.style.theme import TokenColors
from tokviz.gui.widgets.token_paint import TokenBrushes


@dataclass(frozen=True)
class ChipStyle:
    """A theme's :class:`TokenColors` with the brushes and pens a token view paints chips with."""

    colors: TokenColors
    brushes: TokenBrushes

    @classmethod
    def from_colors(cls, colors: TokenColors) -> ChipStyle:
        """The same brushes a token view paints with, built once."""
        return cls(colors, TokenBrushes.of(colors))


def is_partial(data: bytes) -> bool:
    """Whether token bytes are not a whole number of UTF-8 characters."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


def paint_chip(painter: QPainter, rect: QRectF, style: ChipStyle, fill: int, kind: str = "normal") -> None:
    """One token box the way a token view draws it: ``kind`` is normal, partial (hatched) or special."""
    b = style.brushes
    if kind == "special":
        painter.setBrush(b.special)
        painter.setPen(b.special_pen)
        painter.drawRoundedRect(rect, 3, 3)
    elif kind == "partial":
        painter.setPen(b.no_pen)
        painter.setBrush(b.partial)
        painter.drawRoundedRect(rect, 3, 3)
        painter.setBrush(b.hatch)
        painter.drawRoundedRect(rect, 3, 3)
        painter.setPen(b.partial_pen)
        painter.setBrush(b.no_brush)
        painter.drawRoundedRect(rect, 3, 3)
    else:
        painter.setPen(b.no_pen)
        painter.setBrush(b.fills[fill % len(b.fills)])
        painter.drawRoundedRect(rect, 3, 3)
    painter.setPen(b.no_pen)


class LegendBar(QWidget):
    """Swatches that explain hatched (partial UTF-8) and outlined (special) boxes."""

    def __init__(
        self, colors: TokenColors, kinds: Sequence[str], point_size: float, parent: QWidget | None = None
    ):
        super().__init__(parent)
        self.setObjectName("renderLegend")
        self.style_ = ChipStyle.from_colors(colors)
        self.items = [
            (kind, label)
            for kind, label in (("partial", "part of a UTF-8 character"), ("special", "special token"))
            if kind in kinds
        ]
        self.setFont(sans_font(point_size))
        fm = QFontMetricsF(self.font())
        width = sum(fm.height() * 1.6 + 8 + fm.horizontalAdvance(label) + 24 for _, label in self.items)
        self.resize(math.ceil(width), math.ceil(fm.height() + 6))

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        fm = QFontMetricsF(self.font())
        x, h = 0.0, fm.height()
        for kind, label in self.items:
            rect = QRectF(x, 3, h * 1.6, h)
            paint_chip(painter, rect, self.style_, 0, kind)
            x = rect.right() + 8
            painter.setPen(QPen(self.palette().color(QPalette.ColorRole.WindowText)))
            painter.drawText(QPointF(x, 3 + fm.ascent()), label)
            x += fm.horizontalAdvance(label) + 24
        painter.end()
