"""The replay view: the text at merge step k, with the tokens made by merge k outlined, under a caption."""

from __future__ import annotations

from typing import Any

import numpy as np
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QLabel, QSizePolicy, QSplitter, QStackedLayout, QVBoxLayout, QWidget

from tokviz.core.training.replay import ReplayTrace
from tokviz.gui.text.display import DisplayOptions
from tokviz.gui.text.token_table import TokenTable
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
        for box in self._boxes:  # what the token view's paint just laid out
            if box.token < n and self.marked[box.token]:
                painter.drawRoundedRect(box.rect.adjusted(0.5, 0.5, -0.5, -0.5), 3, 3)
        painter.end()

    def first_marked_rect(self) -> QRectF | None:
        """Where the first outlined token is drawn, if it is on screen."""
        for box in self.visible_boxes():
            if box.token < len(self.marked) and self.marked[box.token]:
                return box.rect
        return None


class ReplayPane(QWidget):
    """A caption over the replay view, or over a message when there is nothing to replay."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.caption = QLabel(self)
        self.caption.setObjectName("timelineCaption")
        self.caption.setTextFormat(Qt.TextFormat.RichText)
        self.caption.setWordWrap(True)
        self.caption.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.caption.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Minimum)
        self.view = ReplayView(self)
        self.view.set_options(DisplayOptions(whitespace=True))
        self.view.set_show_chunks(True)
        self.message = QLabel(self)
        self.message.setObjectName("timelineMessage")
        self.message.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.message.setWordWrap(True)
        self.message.setMargin(12)
        self.stack = QStackedLayout()
        self.stack.addWidget(self.view)
        self.stack.addWidget(self.message)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.caption)
        layout.addLayout(self.stack, 1)

    def show_message(self, text: str) -> None:
        """Show ``text`` instead of the replay."""
        self.message.setText(text)
        self.stack.setCurrentWidget(self.message)

    def show_step(self, trace: ReplayTrace, step: int, table: TokenTable) -> None:
        """Show ``table`` (the traced text at ``step``), outline the tokens merge ``step`` made, and
        scroll to the first of them when none is on screen."""
        self.view.set_content(table, trace.tokenizer)
        new_id = trace.new_id_at(step) if trace.changes_text(step) else None
        marked = table.ids == new_id if new_id is not None else np.zeros(len(table), dtype=bool)
        self.view.set_marked(marked)
        self.stack.setCurrentWidget(self.view)
        # (A long text is shown a window at a time: the merge may be outside it; the panel moves it.)
        if new_id is not None and marked.any() and self.view.first_marked_rect() is None:
            first = int(np.flatnonzero(marked)[0])
            self.view.scroll_to_source(int(table.start[first]))


def build_splitters(
    parent: QWidget, view_box: QWidget, plot: QWidget, table_box: QWidget
) -> tuple[QSplitter, QSplitter]:
    """The timeline's two splitters: left, the replay above its token-count plot; beside it the merge table."""
    left = _splitter(parent, Qt.Orientation.Vertical, "timelineLeftSplitter", ((view_box, 2), (plot, 3)))
    return left, _splitter(parent, Qt.Orientation.Horizontal, "timelineSplitter", ((left, 1), (table_box, 1)))


def _splitter(
    parent: QWidget, orientation: Qt.Orientation, name: str, parts: tuple[tuple[QWidget, int], ...]
) -> QSplitter:
    """A splitter named ``name`` over ``parts`` (each with its stretch), none of which collapses."""
    splitter = QSplitter(orientation, parent)
    splitter.setObjectName(name)
    splitter.setChildrenCollapsible(False)
    for index, (widget, stretch) in enumerate(parts):
        splitter.addWidget(widget)
        splitter.setStretchFactor(index, stretch)
    return splitter
