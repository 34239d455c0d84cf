"""Per-block token geometry: which precomputed spans fall in a text block, and where they are drawn.

This is the QSyntaxHighlighter idea applied lazily: nothing is formatted up front; when a block
is about to be painted, its position is bisected into the view's span arrays and the spans are
clipped to the block's lines. Tokens may cross newlines (a run of blank lines is one token), so a
span can yield one box per line it touches. Only the blocks on screen are ever visited, which is
why a 1 MB document repaints as fast as a 1 KB one.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QTextBlock, QTextLine

# QTextLine.cursorToX(position) returns (x, position); PySide6's stub declares the result ``object``.
CursorToX = Callable[[int], tuple[float, int]]


def cursor_to_x(line: QTextLine) -> CursorToX:
    """``line.cursorToX`` typed as what it returns, bound once per line (the loops call it per token)."""
    return cast(CursorToX, line.cursorToX)


@dataclass(slots=True)
class Box:
    """One rectangle of one token on screen (a token crossing a line break has several).

    Plain floats, so that painting and hit-testing hundreds of boxes stay in Python arithmetic;
    :attr:`rect` builds the QRectF when one is needed.
    """

    x: float
    y: float
    w: float
    h: float
    token: int
    first: bool  # this box starts at the token's first character
    continued: bool = False  # the token was too wide for a line: this box goes on after the cut

    @property
    def rect(self) -> QRectF:
        """The box as a QRectF in viewport coordinates."""
        return QRectF(self.x, self.y, self.w, self.h)

    def contains(self, px: float, py: float) -> bool:
        """Whether viewport point ``(px, py)`` is inside the box."""
        return self.x <= px < self.x + self.w and self.y <= py < self.y + self.h


def block_boxes(
    block: QTextBlock,
    origin: QPointF,
    starts: list[int],
    ends: list[int],
    base: int,
    newline_width: float,
    out: list[Box],
    row: tuple[float, float] | None = None,
) -> None:
    """Append the boxes of every span that intersects ``block``, laid out at ``origin`` (viewport coordinates).

    ``starts``/``ends`` are the sorted document positions (UTF-16 units) of the spans that can be on
    screen, the first being span number ``base``. The block's separator belongs to its last line and
    is drawn ``newline_width`` wide, so a newline token stays visible. With ``row`` (baseline, height)
    every box is one row tall, its top the baseline's distance above the line's baseline.
    """
    layout = block.layout()
    bpos = block.position()
    blen = block.length()
    first = bisect_right(ends, bpos)
    stop = bisect_left(starts, bpos + blen)
    if stop <= first:
        return
    lp = layout.position()
    ox = origin.x() + lp.x()
    oy = origin.y() + lp.y()
    n_lines = layout.lineCount()
    k = first
    for li in range(n_lines):
        line = layout.lineAt(li)
        to_x = cursor_to_x(line)
        ls = line.textStart()
        le = ls + line.textLength()
        last = li == n_lines - 1
        lo = bpos + ls
        hi = bpos + le + (1 if last else 0)
        if row is None:
            y, h = oy + line.y(), line.height()
        else:
            y, h = oy + line.y() + line.ascent() - row[0], row[1]
        while k < stop and ends[k] <= lo:
            k += 1
        j = k
        while j < stop and starts[j] < hi:
            s = max(starts[j], lo) - bpos
            e = min(ends[j], hi) - bpos
            x1 = to_x(s)[0]
            if e > le:
                x2 = to_x(le)[0] + newline_width
            else:
                x2 = to_x(e)[0]
            if x2 < x1:  # right-to-left text
                x1, x2 = x2, x1
            if x2 > x1:
                out.append(Box(ox + x1, y, x2 - x1, h, base + j, starts[j] >= lo, li > 0 and starts[j] < lo))
            if ends[j] > hi:
                break
            j += 1
