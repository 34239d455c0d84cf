"""The line over the token views that says what their marks mean, drawn as the views draw them.

It sits with the views (not in the toolbar, which a narrow window folds away and presentation mode
hides), names the reference view the difference bars compare with, and flows onto a second line
rather than dropping an entry when the window is narrow.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QEvent, QPointF, QRectF, QSize
from PySide6.QtGui import QFontMetricsF, QPainter, QPaintEvent, QPalette, QPen, QResizeEvent
from PySide6.QtWidgets import QSizePolicy, QVBoxLayout, QWidget

from tokviz.gui.drawing.chips import ChipStyle, paint_chip
from tokviz.gui.style.theme import TokenColors, token_colors

_GAP = 18.0  # between entries
_SWATCH_GAP = 6.0  # between a swatch and its words


class ViewsLegend(QWidget):
    """Swatches for the marks of the token views: difference bar, part of a character, special, chunk."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("viewsLegend")
        self.setAccessibleName("Legend of the token views")
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.colors = token_colors(False)
        self._style = ChipStyle.from_colors(self.colors)
        self.reference = ""
        self.compared = False
        self.chunks = False

    def set_colors(self, colors: TokenColors) -> None:
        """Draw the swatches in ``colors`` (the views' theme)."""
        self.colors = colors
        self._style = ChipStyle.from_colors(colors)
        self.update()

    def set_reference(self, name: str, compared: bool) -> None:
        """``name``: the first view's tokenizer; ``compared``: whether other views are marked against it."""
        self.reference, self.compared = name, compared
        self._changed()

    def set_chunks(self, shown: bool) -> None:
        """Explain the chunk bars too (while the views draw them)."""
        self.chunks = shown
        self._changed()

    def _changed(self) -> None:
        self._fit_height()
        self.update()

    def entries(self) -> list[tuple[str, str]]:
        """(mark, words) for every entry, in the order they are drawn."""
        out = []
        if self.compared:
            ref = f" ({self.reference})" if self.reference else ""
            out.append(("diff", f"cut differently from view 1{ref}"))
        out += [("partial", "part of a UTF-8 character, as bytes"), ("special", "special token")]
        if self.chunks:
            out.append(("chunk", "pre-tokenizer chunk starts"))
        return out

    def _places(self, width: float) -> list[tuple[float, float, str, str]]:
        """(x, line, mark, words) of each entry when the legend is ``width`` pixels wide."""
        fm = QFontMetricsF(self.font())
        swatch = fm.height() * 1.4
        x, line, out = 4.0, 0, []
        for mark, words in self.entries():
            w = swatch + _SWATCH_GAP + fm.horizontalAdvance(words)
            if x > 4.0 and x + w > width - 4:
                x, line = 4.0, line + 1
            out.append((x, float(line), mark, words))
            x += w + _GAP
        return out

    def needed_height(self, width: int) -> int:
        """The height that shows every entry at ``width`` pixels (more lines when narrow)."""
        lines = 1 + max((int(p[1]) for p in self._places(width)), default=0)
        return math.ceil(lines * (QFontMetricsF(self.font()).height() + 4) + 2)

    def _fit_height(self) -> None:
        if self.height() != self.needed_height(self.width()):
            self.updateGeometry()

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        return QSize(200, self.needed_height(max(self.width(), 200)))

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        # Squeezed below its wish (every dock open on a 768-pixel screen) the legend ends in "…",
        # its tooltip holding every entry, or gives way entirely rather than push the window off screen.
        return QSize(0, 0)

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        self._fit_height()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt's name
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            self._fit_height()

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt's name
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        fm = QFontMetricsF(self.font())
        h = fm.height()
        text = QPen(self.palette().color(QPalette.ColorRole.WindowText))
        places = self._places(self.width())
        room = int((self.height() - 2) // (h + 4))
        cut = [p for p in places if p[1] >= room]
        self.setToolTip(" · ".join(words for _, _, _, words in places) if cut else "")
        for x, line, mark, words in places:
            if line >= room:
                continue
            y = 2 + line * (h + 4)
            rect = QRectF(x, y + 2, h * 1.4, h - 4)
            if mark == "diff":
                paint_chip(painter, rect, self._style, 0)
                painter.fillRect(
                    QRectF(rect.x() + 1, rect.bottom() - 3, rect.width() - 2, 2.5), self.colors.diff_mark
                )
            elif mark == "chunk":
                paint_chip(painter, rect, self._style, 0)
                painter.setPen(QPen(self.colors.chunk_mark, 2.0))
                painter.drawLine(QPointF(rect.x(), rect.y() - 1), QPointF(rect.x(), rect.bottom() + 1))
            else:
                paint_chip(painter, rect, self._style, 0, mark)
            painter.setPen(text)
            painter.drawText(QPointF(rect.right() + _SWATCH_GAP, y + fm.ascent()), words)
        if cut and room > 0:
            painter.setPen(text)
            ellipsis = fm.horizontalAdvance("…")
            top = (room - 1) * (h + 4)
            painter.fillRect(
                QRectF(self.width() - ellipsis - 8, top, ellipsis + 8, h + 4), self.palette().window()
            )
            painter.drawText(QPointF(self.width() - ellipsis - 4, top + 2 + fm.ascent()), "…")
        painter.end()

    def all_shown(self) -> bool:
        """Whether every entry fits in the legend as it is now (none cut off at the bottom)."""
        return self.height() >= self.needed_height(self.width())


def views_with_legend(legend: ViewsLegend, views: QWidget) -> QWidget:
    """The views under their legend line, as one widget for the window's splitter."""
    area = QWidget(views.parentWidget())
    area.setObjectName("viewsArea")
    area.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
    column = QVBoxLayout(area)
    column.setContentsMargins(0, 0, 0, 0)
    column.setSpacing(0)
    column.addWidget(legend)
    column.addWidget(views, 1)
    return area
