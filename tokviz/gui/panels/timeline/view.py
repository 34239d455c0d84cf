"""The replay view: the text at merge step k, with the tokens made by merge k outlined."""

from __future__ import annotations

from typing import Any

import numpy as np
from PySide6.QtCore import QRectF
from PySide6.QtGui import QBrush, QColor, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QWidget

from tokviz.gui.widgets.token_view import TokenView


class ReplayView(TokenView):
    """A token view that also outlines the tokens made by the current merge."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("timelineView")
        self.setAccessibleName("Replay view")
        self.setAccessibleDescription("The text encoded with only the first k merges")
        self.marked = np.zeros(0, dtype=bool)
        self.mark_color = QColor("#e8590c")

    def set_marked(self, marked: np.ndarray) -> None:
        """Outline the tokens where ``marked`` is true."""
        self.marked = marked
        self.viewport().update()

    def set_colors(self, colors: Any) -> None:
        super().set_colors(colors)
        self.mark_color = QColor("#ffa94d") if colors.dark else QColor("#d9480f")

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        if not self.marked.any():
            return
        fill = QColor(self.mark_color)
        fill.setAlpha(55)
        painter = QPainter(self.viewport())
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(QPen(self.mark_color, 2.5))
        painter.setBrush(QBrush(fill))
        n = len(self.marked)
        for box in self.visible_boxes():
            if box.token < n and self.marked[box.token]:
                painter.drawRoundedRect(box.rect.adjusted(0.5, 0.5, -0.5, -0.5), 3, 3)
        painter.end()

    def first_marked_rect(self) -> QRectF | None:
        """Where the first outlined token is drawn, if it is on screen."""
        for box in self.visible_boxes():
            if box.token < len(self.marked) and self.marked[box.token]:
                return box.rect
        return None
