"""Drawing helpers of the token view that need no view state of their own.

``TokenBrushes`` holds the pens and brushes of one theme; the ``paint_*`` functions draw the marks
over the token boxes (chunk starts, differences from the reference, outlines); ``paint_token_texts``
places each token's text at its box when a view is painted into an SVG file; ``same_boundaries``
tells whether a reference table changed where a view shows tokens, so a piece of a big paste
landing off screen does not repaint every view.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QFont, QPainter, QPalette, QPen
from PySide6.QtWidgets import QPlainTextEdit

from tokviz.gui.style.theme import TokenColors
from tokviz.gui.text.display import LABEL_PAD, NBSP, WORD_JOINER, ZWSP, plain_text
from tokviz.gui.text.token_table import TokenTable
from tokviz.gui.widgets.highlighter import Box, cursor_to_x

# What a token's text may start with that draws nothing (its glyphs start after it).
_LEADING = " \t" + NBSP + WORD_JOINER + ZWSP + LABEL_PAD


@dataclass(frozen=True, slots=True)
class TokenBrushes:
    """Explicit QBrush/QPen objects for one theme, built once.

    Passing a QColor where Qt wants a brush converts it on every call, which is slow in a paint
    loop that draws thousands of boxes.
    """

    fills: list[QBrush]
    special: QBrush
    special_pen: QPen
    partial: QBrush
    hatch: QBrush
    partial_pen: QPen
    no_brush: QBrush
    no_pen: QPen
    chunk_pen: QPen
    diff: QBrush
    highlight: QBrush
    highlight_pen: QPen
    hover_pen: QPen

    @classmethod
    def of(cls, c: TokenColors) -> TokenBrushes:
        """The brushes and pens that paint with the colours ``c``."""
        return cls(
            fills=[QBrush(f) for f in c.fills],
            special=QBrush(c.special_fill),
            special_pen=QPen(c.special_border, 1.6),
            partial=QBrush(c.partial_fill),
            hatch=QBrush(c.partial_hatch, Qt.BrushStyle.BDiagPattern),
            partial_pen=QPen(c.partial_border, 1.4, Qt.PenStyle.DashLine),
            no_brush=QBrush(Qt.BrushStyle.NoBrush),
            no_pen=QPen(Qt.PenStyle.NoPen),
            chunk_pen=QPen(c.chunk_mark, 2.0),
            diff=QBrush(c.diff_mark),
            highlight=QBrush(c.highlight_fill),
            highlight_pen=QPen(c.highlight, 2.0),
            hover_pen=QPen(c.hover, 2.0),
        )


def paint_chunk_starts(painter: QPainter, boxes: list[Box], chunk: np.ndarray, lo: int, pen: QPen) -> None:
    """A bar at the left of each token that starts a new pre-tokenizer chunk.

    ``boxes`` show tokens ``lo`` up to ``hi`` (exclusive); ``chunk`` is the table's chunk number
    of every token.
    """
    hi = max(box.token for box in boxes) + 1
    before = chunk[lo - 1 : hi - 1] if lo > 0 else np.concatenate((chunk[:1], chunk[: hi - 1]))
    chunk_start = (chunk[lo:hi] != before).tolist()
    painter.setPen(pen)
    for box in boxes:
        if box.first and chunk_start[box.token - lo]:
            painter.drawLine(QPointF(box.x, box.y - 1), QPointF(box.x, box.y + box.h + 1))


def paint_differences(
    painter: QPainter, boxes: list[Box], differs: list[bool], lo: int, b: TokenBrushes
) -> None:
    """A bar under each token that the reference tokenization cuts differently (``differs[t - lo]``)."""
    painter.setPen(b.no_pen)
    painter.setBrush(b.diff)
    for box in boxes:
        if differs[box.token - lo]:
            painter.drawRect(QRectF(box.x + 1, box.y + box.h - 3, box.w - 2, 2.5))


def paint_cuts(painter: QPainter, boxes: list[Box], pen: QPen) -> None:
    """Where a token too wide for a line was cut: a dashed edge on both sides of the cut, and a
    small ↩ at the end of the first piece, so a reader never takes the pieces for two tokens."""
    cut_pen = QPen(pen)
    cut_pen.setStyle(Qt.PenStyle.DashLine)
    font = QFont(painter.font())
    font.setPointSizeF(max(font.pointSizeF() * 0.55, 6.0))
    painter.setFont(font)
    for i, box in enumerate(boxes):
        if not box.continued:
            continue
        painter.setPen(cut_pen)
        painter.drawLine(QPointF(box.x + 0.5, box.y + 1), QPointF(box.x + 0.5, box.y + box.h - 1))
        before = next((b for b in reversed(boxes[:i]) if b.token == box.token), None)
        if before is None:
            continue
        right = before.x + before.w - 0.5
        painter.drawLine(QPointF(right, before.y + 1), QPointF(right, before.y + before.h - 1))
        painter.setPen(pen)
        painter.drawText(
            QRectF(right - before.h, before.y, before.h - 1.5, before.h - 1),
            int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignBottom),
            "↩",
        )


def paint_outlines(
    painter: QPainter, boxes: list[Box], first: int, stop: int, brush: QBrush, pen: QPen
) -> None:
    """A rounded outline around the boxes of tokens ``first`` up to ``stop`` (exclusive)."""
    painter.setBrush(brush)
    painter.setPen(pen)
    for box in boxes:
        if first <= box.token < stop:
            painter.drawRoundedRect(QRectF(box.x + 0.5, box.y + 0.5, box.w - 1, box.h - 1), 3, 3)


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
                to_x = cursor_to_x(line)
                lo = line.textStart()
                hi = lo + line.textLength()
                baseline = origin.y() + line.y() + line.ascent()
                t = int(np.searchsorted(ends, bpos + lo, side="right"))
                while t < n and starts[t] < bpos + hi:
                    s = max(int(starts[t]) - bpos, lo)
                    e = min(int(ends[t]) - bpos, hi)
                    t += 1
                    piece = units[2 * s : 2 * e].decode("utf-16-le", "surrogatepass")
                    shown = piece.lstrip(_LEADING)
                    if not shown.strip():
                        continue
                    s += (
                        len(piece.encode("utf-16-le", "surrogatepass"))
                        - len(shown.encode("utf-16-le", "surrogatepass"))
                    ) // 2
                    x = min(to_x(s)[0], to_x(e)[0])
                    painter.drawText(QPointF(origin.x() + x, baseline), plain_text(shown).rstrip())
        block = block.next()
