"""Per-block token geometry: which precomputed spans fall in a text block, and where they are drawn.

This is the QSyntaxHighlighter idea applied lazily: nothing is formatted up front; when a block
is about to be painted, its position is bisected into the view's span arrays and the spans are
clipped to the block's lines. Tokens may cross newlines (a run of blank lines is one token), so a
span can yield one box per line it touches. Only the blocks on screen are ever visited, which is
why a 1 MB document repaints as fast as a 1 KB one.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QTextBlock


@dataclass(slots=True)
class Box:
    """One rectangle of one token on screen (a token crossing a line break has several)."""

    rect: QRectF
    token: int
    first: bool  # this box starts at the token's first character


def block_boxes(
    block: QTextBlock,
    origin: QPointF,
    box_start: np.ndarray,
    box_end: np.ndarray,
    newline_width: float,
    out: list[Box],
) -> None:
    """Append the boxes of every span that intersects ``block``, laid out at ``origin`` (viewport coordinates).

    ``box_start``/``box_end`` are sorted document positions (UTF-16 units). The block's separator
    belongs to its last line and is drawn ``newline_width`` wide, so a newline token stays visible.
    """
    layout = block.layout()
    bpos = block.position()
    blen = block.length()
    first = int(np.searchsorted(box_end, bpos, side="right"))
    stop = int(np.searchsorted(box_start, bpos + blen, side="left"))
    if stop <= first:
        return
    starts = box_start[first:stop].tolist()
    ends = box_end[first:stop].tolist()
    lp = layout.position()
    ox = origin.x() + lp.x()
    oy = origin.y() + lp.y()
    n_lines = layout.lineCount()
    k0 = 0
    for li in range(n_lines):
        line = layout.lineAt(li)
        ls = line.textStart()
        le = ls + line.textLength()
        last = li == n_lines - 1
        lo = bpos + ls
        hi = bpos + le + (1 if last else 0)
        y = oy + line.y()
        h = line.height()
        k = k0
        while k < len(starts) and ends[k] <= lo:
            k += 1
        k0 = k
        while k < len(starts) and starts[k] < hi:
            s = max(starts[k], lo) - bpos
            e = min(ends[k], hi) - bpos
            x1 = line.cursorToX(s)[0]
            if e > le:
                x2 = line.cursorToX(le)[0] + newline_width
            else:
                x2 = line.cursorToX(e)[0]
            if x2 < x1:  # right-to-left text
                x1, x2 = x2, x1
            if x2 > x1:
                out.append(Box(QRectF(ox + x1, y, x2 - x1, h), first + k, starts[k] >= lo))
            if ends[k] > hi:
                break
            k += 1
