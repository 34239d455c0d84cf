"""The big counters of presentation mode: characters, bytes, tokens and bytes per token, readable from the back.

Presentation mode hides the status bar, where these numbers normally are; the counters show them
over the token views instead, in large type: the text's size once, then each view's token count and
exchange rate. The window hands them the numbers (:meth:`BigCounters.show_counts`) after every
tokenization and shows them only in presentation mode.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontMetricsF, QResizeEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSizePolicy, QVBoxLayout, QWidget

from tokviz.gui.style.fonts import sans_font


@dataclass(frozen=True)
class ViewCount:
    """One view's figures: its tokenizer's name and its token count (None while it is tokenizing)."""

    name: str
    tokens: int | None


@dataclass(frozen=True)
class Counts:
    """What the counters show: the text's size and each view's tokens."""

    characters: int
    bytes: int
    views: tuple[ViewCount, ...]

    def bytes_per_token(self, view: ViewCount) -> float | None:
        """The exchange rate of ``view`` (None without tokens)."""
        return self.bytes / view.tokens if view.tokens else None

    def status_line(self) -> str:
        """The status bar's line: "381 characters · 394 bytes · GPT-2: 139 tokens (2.83 bytes/token) · …"."""
        parts = [f"{self.characters:,} characters", f"{self.bytes:,} bytes"]
        for view in self.views:
            if view.tokens is None:
                parts.append(f"{view.name}: …")
            else:
                rate = self.bytes_per_token(view)
                ratio = "–" if rate is None else f"{rate:.2f}"
                parts.append(f"{view.name}: {view.tokens:,} tokens ({ratio} bytes/token)")
        return "   ·   ".join(parts)


def _value_line(cell: str) -> str:
    """The plain text of a cell's number line."""
    return re.sub(r"<[^>]+>", "", cell.rsplit("<div", 1)[-1].split(">", 1)[-1])


def _cell(heading: str, value: str) -> str:
    return f"<div style='font-size:60%'>{heading}</div><div style='white-space:nowrap'>{value}</div>"


class BigCounters(QWidget):
    """A strip of large numbers: the text's characters and bytes, then tokens and bytes/token per view."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("bigCounters")
        self.setAccessibleName("Counts: characters, bytes, tokens and bytes per token")
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        self.counts = Counts(0, 0, ())
        self.cells: list[QLabel] = []
        self._layout = QHBoxLayout(self)
        self._layout.setContentsMargins(8, 2, 8, 2)
        self._layout.setSpacing(24)
        self._point_size = 17.0
        self.set_point_size(self._point_size)

    def set_point_size(self, size: float) -> None:
        """Draw the numbers at ``size`` points (their headings smaller), or smaller where a cell's
        line would not fit its share of the width."""
        self._point_size = size
        self.setFont(sans_font(size))
        self._fit()

    def _fit(self) -> None:
        """One size for every cell: the largest up to the chosen one at which each line fits."""
        shown = [label for label in self.cells if not label.isHidden()]
        if not shown:
            return
        margins = self._layout.contentsMargins()
        room = (self.width() - margins.left() - margins.right()) / len(shown) - self._layout.spacing()
        bold = sans_font(self._point_size, bold=True)
        widest = max(QFontMetricsF(bold).horizontalAdvance(_value_line(label.text())) for label in shown)
        size = (
            self._point_size * min(1.0, max(0.5, room / widest))
            if widest > 0 and room > 0
            else self._point_size
        )
        for label in shown:
            if label.font().pointSizeF() != size:
                label.setFont(sans_font(size))

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit()

    def show_counts(self, counts: Counts) -> None:
        """Show ``counts``, one cell for the text and one per view."""
        self.counts = counts
        texts = [_cell("text", f"<b>{counts.characters:,}</b> characters · <b>{counts.bytes:,}</b> bytes")]
        for view in counts.views:
            if view.tokens is None:
                texts.append(_cell(view.name, "…"))
                continue
            rate = counts.bytes_per_token(view)
            ratio = "–" if rate is None else f"{rate:.2f}"
            texts.append(_cell(view.name, f"<b>{view.tokens:,}</b> tokens · <b>{ratio}</b> bytes/token"))
        self._set_cells(texts)

    def _set_cells(self, texts: Sequence[str]) -> None:
        while len(self.cells) < len(texts):
            label = QLabel(self)
            label.setTextFormat(Qt.TextFormat.RichText)
            label.setWordWrap(True)
            label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
            self._layout.addWidget(label, 1)
            self.cells.append(label)
        for label, text in zip(self.cells, texts):
            label.setText(text)
            label.show()
        for label in self.cells[len(texts) :]:
            label.hide()
        self._fit()

    def cell_texts(self) -> list[str]:
        """What each visible cell says, as plain text (tests and the accessible description)."""
        return [
            re.sub(r"<[^>]+>", "", label.text().replace("</div><div", "</div> <div")).strip()
            for label in self.cells
            if not label.isHidden()
        ]


def stacked(counters: BigCounters, views: QWidget) -> QWidget:
    """The counters over the views, in one widget (a hidden strip takes no room)."""
    box = QWidget(views.parentWidget())
    box.setObjectName("viewsWithCounters")
    layout = QVBoxLayout(box)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.setSpacing(0)
    layout.addWidget(counters)
    layout.addWidget(views, 1)
    return box
