"""A lattice block on a slide: its caption, then the lattice as the window's panel draws it, in slide type.

The drawing is :class:`~tokviz.gui.drawing.lattice.LatticeDrawing`, given the slide's text styles (the
characters in the chip style, a piece in the sub style, its log-probability in the label style, all
at least 27 canvas pixels) and wrapped to the slide's width between words; every text it draws is
listed for the slide's checks.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QFontMetricsF, QPainter

from tokviz.core.lecture.blocks import LatticeBlock
from tokviz.gui.drawing.lattice import LatticeDrawing, LatticeFonts
from tokviz.gui.lecture.text_styles import TextItem, text_font
from tokviz.gui.style.theme import TokenColors

LatticePaint = Callable[[QPainter, float], None]


def lay_out_lattice(
    block: LatticeBlock, area: QRectF, scale: float, colors: TokenColors, items: list[TextItem]
) -> tuple[float, LatticePaint]:
    """Lay the block out from ``area``'s top left across its width; add its texts to ``items``.

    Returns its height and what paints it.
    """
    x, y, width = area.x(), area.y(), area.width()
    cap = text_font("caption", scale)
    flags = int(Qt.TextFlag.TextWordWrap)
    cap_rect = QFontMetricsF(cap).boundingRect(QRectF(x, y, width, 10_000), flags, block.caption)
    cap_rect = QRectF(x, y, width, cap_rect.height())
    longest = max((QFontMetricsF(cap).horizontalAdvance(w) for w in block.caption.split()), default=0.0)
    items.append(TextItem(block.caption, cap_rect, longest))
    fonts = LatticeFonts(text_font("head", scale), text_font("sub", scale), text_font("label", scale))
    drawing = LatticeDrawing(block.lattice, fonts, colors, width, scale)
    top = cap_rect.bottom() + 8 * scale
    for text, rect, _font, need in drawing.texts:
        items.append(TextItem(text, rect.translated(x, top), need))
    height = cap_rect.height() + 8 * scale + drawing.height
    if drawing.least_width > width + 0.5:
        # A word wider than the slide cannot wrap: the block does not fit, so the slide shrinks.
        height = float("inf")

    def paint(p: QPainter, s: float) -> None:
        p.setFont(cap)
        p.setPen(colors.muted)
        p.drawText(cap_rect, flags, block.caption)
        p.save()
        p.translate(x, top)
        drawing.paint(p, s)
        p.restore()

    return height, paint
