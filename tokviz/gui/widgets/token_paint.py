"""Drawing helpers of the token view that need no view state of their own.

``paint_token_texts`` places each token's text at its box when a view is painted into an SVG file;
``same_boundaries`` tells whether a reference table changed where a view shows tokens, so a piece
of a big paste landing off screen does not repaint every view.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPointF
from PySide6.QtGui import QPainter, QPalette, QPen
from PySide6.QtWidgets import QPlainTextEdit

from tokviz.gui.text.token_table import TokenTable


def same_boundaries(a: TokenTable, b: TokenTable, lo: int, hi: int) -> bool:
    """True when ``a`` and ``b`` (same text) cut code points ``[lo, hi]`` the same way, one token
    of margin on each side (difference marks look at the neighbours of what is on screen)."""
    if a.text != b.text:
        return False
    slices = []
    for t in (a, b):
        i0 = max(int(np.searchsorted(t.end, lo, "right")) - 1, 0)
        i1 = min(int(np.searchsorted(t.start, hi, "right")) + 1, len(t))
        slices.append((i0, i1))
    (i0, i1), (j0, j1) = slices
    return (
        i1 - i0 == j1 - j0
        and bool(np.array_equal(a.start[i0:i1], b.start[j0:j1]))
        and bool(np.array_equal(a.end[i0:i1], b.end[j0:j1]))
    )


def paint_token_texts(view: QPlainTextEdit, painter: QPainter, starts: np.ndarray, ends: np.ndarray) -> None:
    """Each token's text as its own run starting at its box (how an SVG export draws the text).

    The document draws a line as one run with a font list; an SVG reader that picks another font
    (other advances) would let the letters drift across the boxes. Placed token by token, a
    different font can at worst overflow its own box. Leading whitespace is skipped so that a
    run starts at its first visible character, where Qt put it. ``starts``/``ends``: the view's
    token boxes as UTF-16 offsets into its document.
    """
    n = int(starts.size)
    painter.setFont(view.document().defaultFont())
    painter.setPen(QPen(view.palette().color(QPalette.ColorRole.Text)))
    offset = view.contentOffset()
    height = view.viewport().height()
    block = view.firstVisibleBlock()
    while block.isValid():
        geom = view.blockBoundingGeometry(block).translated(offset)
        if geom.top() > height:
            break
        layout = block.layout()
        if block.isVisible() and geom.bottom() >= 0 and layout is not None:
            units = block.text().encode("utf-16-le", "surrogatepass")
            bpos = block.position()
            origin = geom.topLeft() + layout.position()
            for li in range(layout.lineCount()):
                line = layout.lineAt(li)
                lo = line.textStart()
                hi = lo + line.textLength()
                baseline = origin.y() + line.y() + line.ascent()
                t = int(np.searchsorted(ends, bpos + lo, side="right"))
                while t < n and starts[t] < bpos + hi:
                    s = max(int(starts[t]) - bpos, lo)
                    e = min(int(ends[t]) - bpos, hi)
                    t += 1
                    piece = units[2 * s : 2 * e].decode("utf-16-le", "surrogatepass")
                    shown = piece.lstrip()
                    if not shown.strip():
                        continue
                    s += (
                        len(piece.encode("utf-16-le", "surrogatepass"))
                        - len(shown.encode("utf-16-le", "surrogatepass"))
                    ) // 2
                    x = min(line.cursorToX(s)[0], line.cursorToX(e)[0])
                    painter.drawText(QPointF(origin.x() + x, baseline), shown.rstrip())
        block = block.next()
