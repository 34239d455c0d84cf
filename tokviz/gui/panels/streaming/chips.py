"""The id strip of the streaming-decode panel: one chip per id, the decoded ones solid, the last one outlined."""

from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import QEvent, QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFontMetricsF,
    QHelpEvent,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPen,
    QResizeEvent,
)
from PySide6.QtWidgets import QSizePolicy, QToolTip, QWidget

from tokviz.core.pretok.bytes_ import hex_bytes, printable_token
from tokviz.gui.drawing.chips import ChipStyle, is_partial, paint_chip
from tokviz.gui.panels.streaming.trace import StreamTrace
from tokviz.gui.style.theme import TokenColors, colour_indices, token_colors


class TokenChips(QWidget):
    """The id sequence as boxes (token text over its id); ids not decoded yet are faded, the last one outlined."""

    chipClicked = Signal(int)
    heightChanged = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("streamChips")
        self.setAccessibleName("Token ids")
        self.setMouseTracking(True)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Minimum)
        self.trace: StreamTrace | None = None
        self.position = 0
        self.colors: TokenColors = token_colors(False)
        self.style_ = ChipStyle.from_colors(self.colors)
        self._rects: list[QRectF] = []
        self._fills: list[int] = []
        self._labels: list[str] = []

    def set_trace(self, trace: StreamTrace | None) -> None:
        """Show ``trace``'s ids."""
        self.trace = trace
        ids = np.array(trace.ids if trace else [], dtype=np.int64)
        self._fills = colour_indices(ids).tolist() if len(ids) else []
        self._labels = [printable_token(s.data) for s in trace.steps] if trace else []
        self._lay_out()

    def set_position(self, k: int) -> None:
        """``k`` ids have been decoded."""
        self.position = k
        self.update()

    def set_colors(self, colors: TokenColors) -> None:
        """Use a theme's token colours."""
        self.colors = colors
        self.style_ = ChipStyle.from_colors(colors)
        self.update()

    def _metrics(self) -> tuple[QFontMetricsF, QFontMetricsF]:
        small = self.font()
        small.setPointSizeF(max(7.0, self.font().pointSizeF() * 0.7))
        return QFontMetricsF(self.font()), QFontMetricsF(small)

    def _lay_out(self) -> None:
        fm, small = self._metrics()
        width = max(self.width(), 200)
        x, y = 2.0, 2.0
        h = fm.height() + small.height() + 8
        rects: list[QRectF] = []
        if self.trace is not None:
            for label, step in zip(self._labels, self.trace.steps):
                w = max(fm.horizontalAdvance(label), small.horizontalAdvance(str(step.token_id))) + 12
                if x > 2 and x + w > width - 2:
                    x, y = 2.0, y + h + 6
                rects.append(QRectF(x, y, w, h))
                x += w + 4
        self._rects = rects
        height = math.ceil(rects[-1].bottom() + 4) if rects else math.ceil(h + 4)
        if height != self.minimumHeight():
            self.setMinimumHeight(height)
            self.updateGeometry()
            self.heightChanged.emit(height)
        self.update()

    def sizeHint(self) -> QSize:
        return QSize(400, self.minimumHeight())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._lay_out()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            self._lay_out()

    def chip_rect(self, index: int) -> QRectF:
        """Where id number ``index`` is drawn."""
        return self._rects[index]

    def paintEvent(self, event: QPaintEvent) -> None:
        if self.trace is None:
            return
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        fm, small_fm = self._metrics()
        small = self.font()
        small.setPointSizeF(max(7.0, self.font().pointSizeF() * 0.7))
        text = self.colors.text
        faded = QColor(self.colors.muted)
        for i, (rect, label, step) in enumerate(zip(self._rects, self._labels, self.trace.steps)):
            done = i < self.position
            painter.setOpacity(1.0 if done else 0.35)
            kind = "partial" if is_partial(step.data) else "normal"
            paint_chip(painter, rect.adjusted(0.5, 0.5, -0.5, -0.5), self.style_, self._fills[i], kind)
            painter.setFont(self.font())
            painter.setPen(QPen(text if done else faded))
            top = QRectF(rect.x(), rect.y() + 3, rect.width(), fm.height())
            painter.drawText(top, Qt.AlignmentFlag.AlignCenter, label)
            painter.setFont(small)
            bottom = QRectF(rect.x(), rect.y() + 4 + fm.height(), rect.width(), small_fm.height())
            painter.drawText(bottom, Qt.AlignmentFlag.AlignCenter, str(step.token_id))
        painter.setOpacity(1.0)
        if 0 < self.position <= len(self._rects):
            painter.setBrush(QBrush(Qt.BrushStyle.NoBrush))
            painter.setPen(QPen(self.colors.highlight, 2.5))
            painter.drawRoundedRect(self._rects[self.position - 1].adjusted(-1, -1, 1, 1), 4, 4)
        painter.end()

    def index_at(self, pos: QPointF) -> int:
        """Index of the id drawn at ``pos``, or -1."""
        for i, rect in enumerate(self._rects):
            if rect.contains(pos):
                return i
        return -1

    def mousePressEvent(self, event: QMouseEvent) -> None:
        index = self.index_at(event.position())
        if index >= 0:
            self.chipClicked.emit(index + 1)
        super().mousePressEvent(event)

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent) and self.trace is not None:
            index = self.index_at(QPointF(event.pos()))
            if index < 0:
                QToolTip.hideText()
            else:
                step = self.trace.steps[index]
                QToolTip.showText(
                    event.globalPos(),
                    f"id {step.token_id} · bytes {hex_bytes(step.data)} · click to decode up to here",
                )
            return True
        return super().event(event)
