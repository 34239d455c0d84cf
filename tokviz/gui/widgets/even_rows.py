"""A plain-text document layout whose lines all have the same height and baseline.

Qt makes a line as tall as the tallest font on it: a line with 你 or 🌍 (drawn from a fallback
font) is taller than a Latin one, so two token views side by side drift apart row by row. This
layout lets Qt break the lines, then places every line of a block on a fixed row pitch with one
baseline, tall enough for the usual fallback fonts (CJK fonts reach 1.16 em up and 0.29 em down).
"""

from __future__ import annotations

import math

from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QFont, QFontInfo, QFontMetricsF, QTextBlock, QTextDocument
from PySide6.QtWidgets import QPlainTextDocumentLayout

# How far CJK fallback fonts reach above and below the baseline, in ems.
FALLBACK_ASCENT = 1.16
FALLBACK_DESCENT = 0.29


def row_metrics(font: QFont) -> tuple[float, float]:
    """(baseline from the row's top, row height) in whole pixels for text in ``font``."""
    metrics = QFontMetricsF(font)
    em = QFontInfo(font).pixelSize() or metrics.height()
    ascent = math.ceil(max(metrics.ascent(), FALLBACK_ASCENT * em))
    descent = math.ceil(max(metrics.descent(), FALLBACK_DESCENT * em))
    return float(ascent), float(ascent + descent)


class EvenRowsLayout(QPlainTextDocumentLayout):
    """Lays out like QPlainTextEdit does, then puts each line on the row grid of the document's font."""

    def __init__(self, document: QTextDocument) -> None:
        super().__init__(document)
        self._font_key = ""
        self._rows = (0.0, 0.0)

    def rows(self) -> tuple[float, float]:
        """(baseline from a row's top, row height) for the document's font (measured once per font)."""
        font = self.document().defaultFont()
        key = font.key()
        if key != self._font_key:
            self._font_key, self._rows = key, row_metrics(font)
        return self._rows

    def blockBoundingRect(self, block: QTextBlock) -> QRectF:  # noqa: N802 - Qt's name
        rect = super().blockBoundingRect(block)
        layout = block.layout()
        n = layout.lineCount() if layout is not None else 0
        if not n or not block.isVisible():
            return rect
        baseline, height = self.rows()
        for i in range(n):
            line = layout.lineAt(i)
            line.setPosition(QPointF(line.x(), i * height + baseline - line.ascent()))
        bottom = n * height
        if not block.next().isValid():
            bottom += self.document().documentMargin()
        return QRectF(rect.x(), rect.y(), rect.width(), bottom)
