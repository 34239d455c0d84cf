"""A slide's tables: in rows, in parts side by side when long, or turned across when also wide.

A table first takes its natural shape. Reflowing (:class:`~tokviz.gui.lecture.paint.SlideLayout`
tries that before it shrinks a slide), at level 1 headers wrap between their words, a table wider
than the slide wraps the cells of its widest text column between words (the rows grow taller), and
a table too long for the slide goes on in parts side by side when its width allows; at level 2 a
table still in one part turns across: its headers down the left and each row a column, the columns
wrapping into bands as token boxes do.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QFontMetricsF, QPainter, QPen

from tokviz.core.lecture.slides import Table
from tokviz.gui.lecture.text_styles import TextItem, text_font, text_width
from tokviz.gui.style.theme import TokenColors

PARTS_GAP = 40.0
"""The room between the parts of a long table set side by side."""
BAND_GAP = 22.0
"""The room between the bands of a table turned across."""
TOO_WIDE = 10_000.0
"""Added to the height of a table wider than the slide, so that the layout shrinks until it fits."""
_WRAP = int(Qt.TextFlag.TextWordWrap)


@dataclass
class _Drawing:
    """A table laid out: its cells (text, rectangle, alignment, header or not), rules and marked bands."""

    height: float
    cells: list[tuple[str, QRectF, int, bool]] = field(default_factory=list)
    rules: list[tuple[QPointF, QPointF]] = field(default_factory=list)
    bands: list[QRectF] = field(default_factory=list)


def lay_out_table(
    block: Table, area: QRectF, scale: float, colors: TokenColors, items: list[TextItem], reflow: int
) -> tuple[float, Callable[[QPainter, float], None]]:
    """Lay ``block`` out from ``area``'s top left in its width (``area``'s height: the room left on
    the slide); add its texts to ``items``. Returns its height (a table wider than the slide
    adds the slide's height, so the layout shrinks) and what paints it."""
    font, head = text_font("table", scale), text_font("head", scale)
    fm, hm = QFontMetricsF(font), QFontMetricsF(head)
    keys = (fm, font.key()), (hm, head.key())
    drawing = _rows(block, area, scale, keys, reflow >= 1)
    if reflow >= 2 and len(block.rows) > 1 and len(drawing.rules) == 1:
        drawing = _across(block, area, scale, keys)
    for text, rect, align, is_head in drawing.cells:
        metrics, key = keys[is_head]
        # A wrapping cell needs only its longest word: the lines break between words.
        needed = max((text_width(metrics, key, w) for w in text.split()), default=0.0) if align & _WRAP else (
            text_width(metrics, key, text)
        )  # fmt: skip
        items.append(TextItem(text, rect, needed))

    def paint(p: QPainter, s: float) -> None:
        for band in drawing.bands:
            p.fillRect(band, colors.highlight_fill)
        p.setPen(QPen(colors.muted, 1.2 * s))
        for a, b in drawing.rules:
            p.drawLine(a, b)
        for text, rect, align, is_head in drawing.cells:
            p.setFont(head if is_head else font)
            p.setPen(colors.muted if is_head else colors.text)
            p.drawText(rect, align, text)

    return drawing.height, paint


Keys = tuple[tuple[QFontMetricsF, str], tuple[QFontMetricsF, str]]


def _rows(block: Table, area: QRectF, scale: float, keys: Keys, reflow: bool) -> _Drawing:
    """The table in rows; reflowing, its widest text column wrapped to the slide's width and the
    rows in as many parts side by side as the width holds."""
    (fm, _), (hm, _) = keys
    pad = 14 * scale
    widths = _column_widths(block, keys, pad, reflow)
    wrapped = _wrapped_column(block, widths, area.width(), keys, pad) if reflow else None
    row_h = fm.height() * 1.35
    heights = [
        row_h if wrapped is None else max(row_h, _wrapped_height(row[wrapped], widths[wrapped], fm, pad) + row_h - fm.height())
        for row in block.rows
    ]  # fmt: skip
    head_h = _head_height(block.headers, widths, hm, pad) if reflow else hm.height() * 1.4
    total, gap = sum(widths), PARTS_GAP * scale
    fits = max(1, int((area.width() + gap) // (total + gap)))
    parts = min(len(block.rows), fits) if reflow and head_h + sum(heights) > area.height() else 1
    per_part = -(-len(block.rows) // max(parts, 1))
    tallest = max((sum(heights[p : p + per_part]) for p in range(0, len(heights), per_part)), default=0.0)
    drawing = _Drawing(head_h + tallest + (TOO_WIDE if total > area.width() + 0.5 else 0))
    lefts = [area.x() + part * (total + gap) for part in range(max(parts, 1))]
    # Only reflowing do headers wrap (their columns are then as wide as their longest word).
    heading = int(Qt.AlignmentFlag.AlignBottom) | (_WRAP if reflow else 0)
    for left in lefts:
        drawing.rules.append((QPointF(left, area.y() + head_h), QPointF(left + total, area.y() + head_h)))
        for i, h in enumerate(block.headers):
            rect = QRectF(
                left + sum(widths[:i]) + pad, area.y(), widths[i] - 2 * pad, head_h - hm.height() * 0.2
            )
            drawing.cells.append((h, rect, heading | _side(block.right[i]), True))
    top = area.y() + head_h
    for r, row in enumerate(block.rows):
        left = lefts[r // per_part]
        if r % per_part == 0:
            top = area.y() + head_h
        if r in block.marked:
            drawing.bands.append(QRectF(left, top, total, heights[r]))
        for i, c in enumerate(row):
            rect = QRectF(left + sum(widths[:i]) + pad, top, widths[i] - 2 * pad, heights[r])
            align = (
                int(Qt.AlignmentFlag.AlignVCenter) | _side(block.right[i]) | (_WRAP if i == wrapped else 0)
            )
            drawing.cells.append((c, rect, align, False))
        top += heights[r]
    return drawing


def _wrapped_column(block: Table, widths: list[float], room: float, keys: Keys, pad: float) -> int | None:
    """In a table wider than ``room``, narrow its widest text column (left-aligned, cells with
    spaces) so the table fits, its cells then wrapping between words; which column, or None when
    the table fits already or no column can narrow enough (its longest word sets how far)."""
    total = sum(widths)
    if total <= room:
        return None
    texts = [
        i for i, right in enumerate(block.right) if not right and any(" " in row[i] for row in block.rows)
    ]
    if not texts:
        return None
    column = max(texts, key=lambda i: widths[i])
    (fm, font_key), (hm, head_key) = keys
    longest = max(
        *(text_width(fm, font_key, w) for row in block.rows for w in row[column].split()),
        *(text_width(hm, head_key, w) for w in block.headers[column].split()),
        0.0,
    )
    narrowed = widths[column] - (total - room)
    if narrowed < longest + 2 * pad:
        return None
    widths[column] = narrowed
    return column


def _wrapped_height(text: str, width: float, fm: QFontMetricsF, pad: float) -> float:
    """How tall ``text`` is wrapped between words to a column ``width`` wide."""
    return fm.boundingRect(QRectF(0, 0, width - 2 * pad + 0.5, 10_000), _WRAP, text).height()


def _across(block: Table, area: QRectF, scale: float, keys: Keys) -> _Drawing:
    """The table turned across: headers down the left, a column per row, wrapping into bands."""
    (fm, font_key), (hm, head_key) = keys
    pad = 12 * scale
    row_h = fm.height() * 1.3
    label_w = max(text_width(hm, head_key, h) for h in block.headers) + 2 * pad
    band_h = row_h * len(block.headers)
    x, right = area.x(), area.right()
    drawing = _Drawing(0.0)
    top, cx = area.y() - band_h - BAND_GAP * scale, right  # the first column starts a band
    centred = int(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignVCenter)
    for r, row in enumerate(block.rows):
        w = max(text_width(fm, font_key, c) for c in row) + 2 * pad
        if cx + w > right:
            top, cx = top + band_h + BAND_GAP * scale, x + label_w
            rule = x + label_w - pad / 2
            drawing.rules.append((QPointF(rule, top), QPointF(rule, top + band_h)))
            for i, h in enumerate(block.headers):
                rect = QRectF(x, top + i * row_h, label_w - pad, row_h)
                drawing.cells.append(
                    (h, rect, int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter), True)
                )
        if r in block.marked:
            drawing.bands.append(QRectF(cx, top, w, band_h))
        for i, c in enumerate(row):
            drawing.cells.append((c, QRectF(cx + pad, top + i * row_h, w - 2 * pad, row_h), centred, False))
        cx += w
    widest = max((text_width(fm, font_key, c) for row in block.rows for c in row), default=0.0)
    drawing.height = top + band_h - area.y() + (TOO_WIDE if label_w + widest > area.width() else 0)
    return drawing


def _side(right: bool) -> int:
    return int(Qt.AlignmentFlag.AlignRight if right else Qt.AlignmentFlag.AlignLeft)


def _head_height(headers: Sequence[str], widths: Sequence[float], hm: QFontMetricsF, pad: float) -> float:
    """The header row's height: its tallest header, wrapped between words to its column."""
    wrap = int(Qt.TextFlag.TextWordWrap)
    lines = (
        hm.boundingRect(QRectF(0, 0, w - 2 * pad + 0.5, 10_000), wrap, h).height()
        for h, w in zip(headers, widths)
    )
    return hm.height() * 0.4 + max(lines, default=0.0)


def _column_widths(block: Table, keys: Keys, pad: float, wrap: bool) -> list[float]:
    """Each column's width: its widest cell or header, padded on both sides; with ``wrap`` a header
    counts only its longest word, as it may go on over lines."""
    (fm, font_key), (hm, head_key) = keys
    widths = [
        max((text_width(hm, head_key, part) for part in (h.split() if wrap else [h])), default=0.0)
        for h in block.headers
    ]
    for row in block.rows:
        widths = [max(w, text_width(fm, font_key, c)) for w, c in zip(widths, row)]
    return [w + 2 * pad for w in widths]
