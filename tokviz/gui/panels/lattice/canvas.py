"""The lattice panel's drawing: a :class:`~tokviz.gui.drawing.lattice.LatticeDrawing` as a widget.

It lays the lattice out again when its width, fonts or colours change (a long text wraps to the
panel's width), asks for the height that takes, and tells the piece under the pointer in a tooltip.
"""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import QEvent, QPointF, QSize
from PySide6.QtGui import QFont, QHelpEvent, QPainter, QPaintEvent, QResizeEvent
from PySide6.QtWidgets import QSizePolicy, QToolTip, QWidget

from tokviz.core.analysis.lattice import Lattice
from tokviz.gui.drawing.lattice import LatticeDrawing, LatticeFonts
from tokviz.gui.style.fonts import mono_font, sans_font
from tokviz.gui.style.theme import TokenColors, token_colors

MARGIN = 6


def lattice_fonts(font: QFont) -> LatticeFonts:
    """The lattice's fonts for a text font (the editor's, so presentation mode enlarges them too)."""
    size = max(font.pointSizeF(), 9.0)
    char = mono_font(size * 1.15)
    char.setBold(True)
    return LatticeFonts(char=char, piece=mono_font(size), number=sans_font(size * 0.85))


class LatticeCanvas(QWidget):
    """Draws one lattice (or nothing), the best path outlined and a picked segmentation dashed."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("latticeCanvas")
        self.setAccessibleName("Segmentation lattice")
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Minimum)
        self.lattice: Lattice | None = None
        self.colors = token_colors(False)
        self.fonts = lattice_fonts(self.font())
        self.drawing: LatticeDrawing | None = None
        self.marked: frozenset[int] = frozenset()
        self._height = 0

    def set_lattice(self, lattice: Lattice | None) -> None:
        """Show ``lattice`` (None: nothing)."""
        self.lattice = lattice
        self.marked = frozenset()
        self._relayout()

    def set_colors(self, colors: TokenColors) -> None:
        self.colors = colors
        self._relayout()

    def set_text_font(self, font: QFont) -> None:
        self.fonts = lattice_fonts(font)
        self._relayout()

    def _relayout(self) -> None:
        if self.lattice is None:
            self.drawing = None
            height = 0
            self.setMinimumWidth(0)
        else:
            width = max(self.width(), 200) - 2 * MARGIN
            self.drawing = LatticeDrawing(self.lattice, self.fonts, self.colors, width)
            height = int(self.drawing.height) + 2 * MARGIN
            # A word wider than the panel does not wrap (it has no cut inside): the area scrolls to it.
            self.setMinimumWidth(int(self.drawing.least_width) + 2 * MARGIN)
        if height != self._height:
            self._height = height
            self.updateGeometry()
        self.update()

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        return QSize(400, self._height)

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        return QSize(200, self._height)

    def hasHeightForWidth(self) -> bool:  # noqa: N802 - Qt's name
        return False

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            self._relayout()

    def paintEvent(self, _event: QPaintEvent) -> None:  # noqa: N802 - Qt's name
        painter = QPainter(self)
        painter.fillRect(self.rect(), self.colors.base)
        if self.drawing is not None:
            painter.setRenderHint(QPainter.RenderHint.Antialiasing)
            painter.translate(MARGIN, MARGIN)
            self.drawing.paint(painter, marked=self.marked)
        painter.end()

    def mark(self, path: Iterable[int]) -> None:
        """Outline the pieces of ``path`` (indices in the lattice) dashed: a segmentation picked in a table."""
        self.marked = frozenset(path)
        self.update()

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent):
            index = -1
            if self.drawing is not None and self.lattice is not None:
                index = self.drawing.piece_at(QPointF(event.pos()) - QPointF(MARGIN, MARGIN))
            if index < 0 or self.lattice is None:
                QToolTip.hideText()
            else:
                piece = self.lattice.pieces[index]
                best = " · on the best path" if index in self.lattice.best_path else ""
                QToolTip.showText(
                    event.globalPos(),
                    f"{piece.piece!r} · id {piece.id} · log p = {piece.log_prob:.4f} · "
                    f"characters {piece.start}–{piece.end}{best}",
                    self,
                )
            return True
        return super().event(event)
