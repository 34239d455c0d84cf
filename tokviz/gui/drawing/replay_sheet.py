"""The lecture's merge table as a picture (``tokviz replay --render``): pairs, new ids, counts, final tokens."""

from __future__ import annotations

import math
import zlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import (
    QColor,
    QFontMetricsF,
    QPainter,
    QPaintEvent,
    QPen,
)
from PySide6.QtWidgets import QWidget

from tokviz.core.bpe.merges import MergeStep
from tokviz.core.pretok.bytes_ import printable_token
from tokviz.core.training.replay import Replay
from tokviz.gui.drawing.chips import ChipStyle, is_partial, paint_chip
from tokviz.gui.drawing.sheet import PAD, ensure_app, prepare_sheet, write_sheet
from tokviz.gui.style.fonts import mono_font, sans_font
from tokviz.gui.style.theme import TokenColors, colour_indices

MAX_TABLE_ROWS = 60


COLUMNS = ("Step", "Pair merged", "New id", "Bytes", "Count", "Tokens")


class ReplaySheet(QWidget):
    """The lecture's merge table as a picture: step, pair, new id, bytes, count, tokens, then the final tokens."""

    def __init__(
        self,
        replay: Replay,
        title: str,
        subtitle: str = "",
        *,
        dark: bool = False,
        only_changes: bool = False,
        point_size: float = 15.0,
        max_rows: int = MAX_TABLE_ROWS,
        colors: TokenColors | None = None,
    ) -> None:
        super().__init__()
        self.colors = prepare_sheet(self, "replaySheet", dark, colors)
        self.chips = ChipStyle.from_colors(self.colors)
        self.replay = replay
        self.title = title
        self.subtitle = subtitle
        steps = [s for s in replay.steps if s.count > 0] if only_changes else list(replay.steps)
        self.hidden_rows = max(0, len(steps) - max_rows)
        self.rows = steps[:max_rows]
        self.title_font = sans_font(point_size * 1.25, bold=True)
        self.text_font = sans_font(point_size * 0.95)
        self.head_font = sans_font(point_size * 0.85, bold=True)
        self.mono = mono_font(point_size)
        self._ids: dict[bytes, int] = {s.left + s.right: s.new_id for s in replay.steps}
        self._layout()

    # ---------------------------------------------------------------- geometry
    def chip_id(self, data: bytes) -> int:
        """An id to colour a chip by: the merge's new id, the byte value, or a hash of the bytes."""
        if data in self._ids:
            return self._ids[data]
        if len(data) == 1:
            return data[0]
        return zlib.crc32(data)

    def _chip_width(self, data: bytes) -> float:
        return QFontMetricsF(self.mono).horizontalAdvance(printable_token(data)) + 12

    def _layout(self) -> None:
        mono = QFontMetricsF(self.mono)
        text = QFontMetricsF(self.text_font)
        self.row_h = max(mono.height(), text.height()) + 12
        plus = text.horizontalAdvance(" + ")
        pair_w = max([self._chip_width(s.left) + plus + self._chip_width(s.right) for s in self.rows] + [0])
        bytes_w = max(
            [self._chip_width(s.left + s.right) for s in self.rows] + [text.horizontalAdvance("single bytes")]
        )
        head = QFontMetricsF(self.head_font)

        def num_w(values: Sequence[int]) -> float:
            return max([text.horizontalAdvance(f"{v:,}") for v in values] + [text.horizontalAdvance("start")])

        content = [
            num_w([s.step for s in self.rows]),
            pair_w,
            num_w([s.new_id for s in self.rows]),
            bytes_w,
            num_w([s.count for s in self.rows]),
            num_w([s.tokens_after for s in self.rows] + [self.replay.initial_tokens]),
        ]
        self.col_w = [max(c, head.horizontalAdvance(h)) + 28 for c, h in zip(content, COLUMNS)]
        table_w = sum(self.col_w)
        title_w = QFontMetricsF(self.title_font).horizontalAdvance(self.title)
        sub_w = text.horizontalAdvance(self.subtitle)
        self.inner_w = max(table_w, title_w, sub_w, 560.0)
        # The final tokens wrap inside the sheet's width.
        self.final_lines = self._wrap_final(self.inner_w)
        n_rows = len(self.rows) + 1 + (1 if self.hidden_rows else 0)
        y = PAD + QFontMetricsF(self.title_font).height() + 4
        if self.subtitle:
            y += text.height() + 4
        self.table_top = y + 10
        y = self.table_top + head.height() + 10 + n_rows * self.row_h + 18
        self.final_top = y
        y += text.height() + 8 + len(self.final_lines) * (mono.height() + 12)
        self.resize(math.ceil(self.inner_w + 2 * PAD), math.ceil(y + PAD))

    def _wrap_final(self, width: float) -> list[list[bytes]]:
        lines: list[list[bytes]] = [[]]
        x = 0.0
        for data in self.replay.final:
            w = self._chip_width(data) + 4
            if lines[-1] and x + w > width:
                lines.append([])
                x = 0.0
            lines[-1].append(data)
            x += w
        return lines if lines[0] else []

    # ---------------------------------------------------------------- painting
    def _chip(
        self, painter: QPainter, x: float, y: float, data: bytes, h: float, colour: int | None = None
    ) -> float:
        w = self._chip_width(data)
        rect = QRectF(x, y, w, h)
        kind = "partial" if is_partial(data) else "normal"
        fill = colour if colour is not None else int(colour_indices(np.array([self.chip_id(data)]))[0])
        paint_chip(painter, rect, self.chips, fill, kind)
        painter.setFont(self.mono)
        painter.setPen(QPen(self.colors.text))
        painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, printable_token(data))
        return w

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
        text_pen = QPen(self.colors.text)
        muted_pen = QPen(self.colors.muted)
        tfm = QFontMetricsF(self.title_font)
        y: float = PAD
        painter.setFont(self.title_font)
        painter.setPen(text_pen)
        painter.drawText(QPointF(PAD, y + tfm.ascent()), self.title)
        y += tfm.height() + 4
        fm = QFontMetricsF(self.text_font)
        if self.subtitle:
            painter.setFont(self.text_font)
            painter.setPen(muted_pen)
            painter.drawText(QPointF(PAD, y + fm.ascent()), self.subtitle)
        # Header
        hfm = QFontMetricsF(self.head_font)
        y = self.table_top
        painter.setFont(self.head_font)
        painter.setPen(muted_pen)
        x = float(PAD)
        right_aligned = (True, False, True, False, True, True)
        for name, w, right in zip(COLUMNS, self.col_w, right_aligned):
            self._cell_text(painter, QRectF(x, y, w, hfm.height()), name, right)
            x += w
        y += hfm.height() + 6
        painter.setPen(QPen(self.colors.muted, 1.0))
        painter.drawLine(QPointF(PAD, y), QPointF(PAD + sum(self.col_w), y))
        y += 4
        rows: list[MergeStep | None] = [None, *self.rows]
        band = QColor(self.colors.text)
        band.setAlpha(14)
        for i, step in enumerate(rows):
            if i % 2 == 1:
                painter.fillRect(QRectF(PAD, y, sum(self.col_w), self.row_h), band)
            self._paint_row(painter, y, step)
            y += self.row_h
        if self.hidden_rows:
            painter.setFont(self.text_font)
            painter.setPen(muted_pen)
            more = f"… {self.hidden_rows:,} more merge{'s' if self.hidden_rows != 1 else ''}"
            painter.drawText(
                QRectF(PAD + 14, y, sum(self.col_w), self.row_h), Qt.AlignmentFlag.AlignVCenter, more
            )
        # Final tokens
        y = self.final_top
        n = len(self.replay.final)
        bpt = f"{self.replay.text_bytes / n:.3g}" if n else "–"
        painter.setFont(self.text_font)
        painter.setPen(text_pen)
        painter.drawText(
            QPointF(PAD, y + fm.ascent()),
            f"Final tokens: {n:,} · {self.replay.text_bytes:,} bytes · {bpt} bytes per token · vocabulary {self.replay.vocab_size:,}",
        )
        y += fm.height() + 8
        mfm = QFontMetricsF(self.mono)
        sequence = list(self.replay.final)
        ids = np.array([self.chip_id(b) for b in sequence], dtype=np.int64)
        fills = colour_indices(ids).tolist() if len(ids) else []
        k = 0
        for line in self.final_lines:
            x = float(PAD)
            for data in line:
                x += self._chip(painter, x, y, data, mfm.height() + 6, fills[k]) + 4
                k += 1
            y += mfm.height() + 12
        painter.end()

    def _cell_text(self, painter: QPainter, rect: QRectF, text: str, right: bool) -> None:
        align = Qt.AlignmentFlag.AlignVCenter | (
            Qt.AlignmentFlag.AlignRight if right else Qt.AlignmentFlag.AlignLeft
        )
        inset = rect.adjusted(14, 0, -14, 0)
        painter.drawText(inset, align, text)

    def _paint_row(self, painter: QPainter, y: float, step: MergeStep | None) -> None:
        fm = QFontMetricsF(self.text_font)
        mfm = QFontMetricsF(self.mono)
        chip_h = mfm.height() + 4
        chip_y = y + (self.row_h - chip_h) / 2
        cols = [float(PAD)]
        for w in self.col_w:
            cols.append(cols[-1] + w)
        painter.setFont(self.text_font)
        quiet = step is not None and step.count == 0
        painter.setPen(QPen(self.colors.muted if quiet or step is None else self.colors.text))
        if step is None:
            self._cell_text(painter, QRectF(cols[0], y, self.col_w[0], self.row_h), "start", True)
            self._cell_text(painter, QRectF(cols[1], y, self.col_w[1], self.row_h), "—", False)
            self._cell_text(painter, QRectF(cols[2], y, self.col_w[2], self.row_h), "—", True)
            self._cell_text(painter, QRectF(cols[3], y, self.col_w[3], self.row_h), "single bytes", False)
            painter.setPen(QPen(self.colors.text))
            self._cell_text(
                painter,
                QRectF(cols[5], y, self.col_w[5], self.row_h),
                f"{self.replay.initial_tokens:,}",
                True,
            )
            return
        self._cell_text(painter, QRectF(cols[0], y, self.col_w[0], self.row_h), f"{step.step:,}", True)
        self._cell_text(painter, QRectF(cols[2], y, self.col_w[2], self.row_h), f"{step.new_id:,}", True)
        self._cell_text(painter, QRectF(cols[4], y, self.col_w[4], self.row_h), f"{step.count:,}", True)
        self._cell_text(
            painter, QRectF(cols[5], y, self.col_w[5], self.row_h), f"{step.tokens_after:,}", True
        )
        x = cols[1] + 14
        x += self._chip(painter, x, chip_y, step.left, chip_h)
        painter.setFont(self.text_font)
        painter.setPen(QPen(self.colors.muted))
        plus = fm.horizontalAdvance(" + ")
        painter.drawText(QRectF(x, y, plus, self.row_h), Qt.AlignmentFlag.AlignCenter, "+")
        x += plus
        self._chip(painter, x, chip_y, step.right, chip_h)
        self._chip(painter, cols[3] + 14, chip_y, step.left + step.right, chip_h)


def render_replay(
    replay: Replay,
    path: str | Path,
    title: str,
    subtitle: str = "",
    *,
    scale: float = 2.0,
    dark: bool = False,
    only_changes: bool = False,
) -> Path:
    """Draw a replay's merge table and final tokens into a PNG (at ``scale``) or SVG file."""
    ensure_app()
    sheet = ReplaySheet(replay, title, subtitle, dark=dark, only_changes=only_changes)
    sheet.show()
    return write_sheet(sheet, path, scale, "tokviz merge table")
