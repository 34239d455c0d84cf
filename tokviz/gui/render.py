"""Headless pictures for slides: token strips (``tokviz render``) and a merge table (``tokviz replay --render``).

A strip is the window's own :class:`~tokviz.gui.token_view.TokenView`, laid out offscreen at the
width of its longest line and tall enough to show every line, so a rendered image is drawn by
exactly the code that paints the window. Sheets are ordinary widgets, written to PNG or SVG by
:mod:`tokviz.gui.export`. Everything here needs a QApplication (:func:`ensure_app` makes one) but
no display: the command line sets ``QT_QPA_PLATFORM=offscreen`` when there is none.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np
from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPainter, QPaintEvent, QPalette, QPen
from PySide6.QtWidgets import QApplication, QLabel, QPlainTextEdit, QWidget

from tokviz.core.bytes_ import printable_token
from tokviz.core.errors import ExportError
from tokviz.core.tokenizer import Tokenizer

from .compat import protect_none_refcount
from .display import DisplayOptions
from .theme import TokenColors, app_palette, colour_indices, token_colors
from .token_table import TokenTable
from .token_view import TokenView

# Longer texts are cut (with a note) so that an image stays a picture rather than a document.
MAX_RENDER_CHARS = 10_000
# QImage and most viewers cope with up to 32767 pixels in each direction.
MAX_PIXELS = 32_000
DEFAULT_WIDTH = 1100
DEFAULT_POINT_SIZE = 16.0
MAX_TABLE_ROWS = 60
# A one-line text up to this long is quoted under the strips.
SHOW_TEXT_CHARS = 80
PAD = 24


def ensure_app() -> QApplication:
    """The running QApplication, or a new one for headless drawing (Fusion style, as the window uses)."""
    protect_none_refcount()
    app = QApplication.instance()
    if app is None:
        app = QApplication(["tokviz"])
        app.setStyle("Fusion")
    assert isinstance(app, QApplication)
    return app


def mono_font(point_size: float) -> QFont:
    """The token views' monospace font (with CJK and emoji fallbacks)."""
    from .main_window import mono_font as window_font

    return window_font(point_size)


def sans_font(point_size: float, bold: bool = False) -> QFont:
    """The font of captions and headers."""
    font = QFont()
    font.setFamilies(
        ["DejaVu Sans", "Noto Sans", "Segoe UI", "Helvetica", "Noto Sans CJK SC", "Noto Color Emoji"]
    )
    font.setPointSizeF(point_size)
    font.setBold(bold)
    return font


def _prepare_sheet(sheet: QWidget, name: str, dark: bool, colors: TokenColors | None) -> TokenColors:
    """Set up an offscreen sheet: never shown, filled with the theme's base colour; return its token colours."""
    sheet.setObjectName(name)
    sheet.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen)
    sheet.setAutoFillBackground(True)
    palette = app_palette(dark)
    palette.setColor(QPalette.ColorRole.Window, palette.color(QPalette.ColorRole.Base))
    sheet.setPalette(palette)
    return colors or token_colors(dark)


# ----------------------------------------------------------------------------- token chips
@dataclass(frozen=True)
class ChipStyle:
    """Brushes and pens for token chips, built once from a theme's :class:`TokenColors`."""

    colors: TokenColors
    fills: tuple[QBrush, ...]
    partial: QBrush
    hatch: QBrush
    partial_pen: QPen
    special: QBrush
    special_pen: QPen

    @classmethod
    def from_colors(cls, colors: TokenColors) -> ChipStyle:
        """The same brushes a token view paints with."""
        return cls(
            colors,
            tuple(QBrush(f) for f in colors.fills),
            QBrush(colors.partial_fill),
            QBrush(colors.partial_hatch, Qt.BrushStyle.BDiagPattern),
            QPen(colors.partial_border, 1.4, Qt.PenStyle.DashLine),
            QBrush(colors.special_fill),
            QPen(colors.special_border, 1.6),
        )


def is_partial(data: bytes) -> bool:
    """Whether token bytes are not a whole number of UTF-8 characters."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


def paint_chip(painter: QPainter, rect: QRectF, style: ChipStyle, fill: int, kind: str = "normal") -> None:
    """One token box the way a token view draws it: ``kind`` is normal, partial (hatched) or special."""
    no_pen = QPen(Qt.PenStyle.NoPen)
    if kind == "special":
        painter.setBrush(style.special)
        painter.setPen(style.special_pen)
        painter.drawRoundedRect(rect, 3, 3)
    elif kind == "partial":
        painter.setPen(no_pen)
        painter.setBrush(style.partial)
        painter.drawRoundedRect(rect, 3, 3)
        painter.setBrush(style.hatch)
        painter.drawRoundedRect(rect, 3, 3)
        painter.setPen(style.partial_pen)
        painter.setBrush(QBrush(Qt.BrushStyle.NoBrush))
        painter.drawRoundedRect(rect, 3, 3)
    else:
        painter.setPen(no_pen)
        painter.setBrush(style.fills[fill % len(style.fills)])
        painter.drawRoundedRect(rect, 3, 3)
    painter.setPen(no_pen)


class LegendBar(QWidget):
    """Swatches that explain hatched (partial UTF-8) and outlined (special) boxes."""

    def __init__(
        self, colors: TokenColors, kinds: Sequence[str], point_size: float, parent: QWidget | None = None
    ):
        super().__init__(parent)
        self.setObjectName("renderLegend")
        self.style_ = ChipStyle.from_colors(colors)
        self.items = [
            (kind, label)
            for kind, label in (("partial", "part of a UTF-8 character"), ("special", "special token"))
            if kind in kinds
        ]
        self.setFont(sans_font(point_size))
        fm = QFontMetricsF(self.font())
        width = sum(fm.height() * 1.6 + 8 + fm.horizontalAdvance(label) + 24 for _, label in self.items)
        self.resize(math.ceil(width), math.ceil(fm.height() + 6))

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        fm = QFontMetricsF(self.font())
        x, h = 0.0, fm.height()
        for kind, label in self.items:
            rect = QRectF(x, 3, h * 1.6, h)
            paint_chip(painter, rect, self.style_, 0, kind)
            x = rect.right() + 8
            painter.setPen(QPen(self.palette().color(QPalette.ColorRole.WindowText)))
            painter.drawText(QPointF(x, 3 + fm.ascent()), label)
            x += fm.horizontalAdvance(label) + 24
        painter.end()


# ----------------------------------------------------------------------------- token strips
def fit_token_view(view: TokenView, max_width: int) -> QSize:
    """Resize ``view`` to show its whole document: its longest line's width (at most ``max_width``), every line.

    The view must be visible (``WA_DontShowOnScreen`` is enough) so that Qt lays out its text.
    """
    view.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    view.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    margin = view.document().documentMargin()
    # The box of a line's newline token reaches past the text by most of a space.
    slack = view.fontMetrics().horizontalAdvance(" ") * 1.2 + 2
    view.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
    view.resize(max_width, 100)
    natural = 0.0
    block = view.document().begin()
    while block.isValid():
        view.blockBoundingRect(block)  # lays the block out
        layout = block.layout()
        if layout is not None:
            natural = max(natural, layout.maximumWidth())
        block = block.next()
    width = min(max_width, math.ceil(natural + 2 * margin + slack))
    view.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
    view.resize(width, 100)
    height = 0.0
    block = view.document().begin()
    while block.isValid():
        height += view.blockBoundingRect(block).height()
        block = block.next()
    size = QSize(width, math.ceil(height + 2 * margin))
    view.resize(size)
    view.verticalScrollBar().setValue(0)
    return size


def strip_caption(name: str, table: TokenTable, n_bytes: int) -> str:
    """The header over one strip: tokenizer, token count, bytes per token (rich text)."""
    n = len(table)
    ratio = f"{n_bytes / n:.2f}" if n else "–"
    return f"<b>{_html(name)}</b>&nbsp;&nbsp;{n:,} token{'s' if n != 1 else ''} · {ratio} bytes/token"


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


class StripSheet(QWidget):
    """One text as coloured token strips under several tokenizers, ready to be written as an image.

    ``views`` are real :class:`TokenView` widgets; ``captions`` their headers.
    """

    def __init__(
        self,
        text: str,
        tokenizers: Sequence[tuple[str, Tokenizer]],
        *,
        dark: bool = False,
        show_ids: bool = False,
        whitespace: bool = False,
        point_size: float = DEFAULT_POINT_SIZE,
        max_width: int = DEFAULT_WIDTH,
        colors: TokenColors | None = None,
        note: str = "",
    ) -> None:
        super().__init__()
        self.colors = _prepare_sheet(self, "renderSheet", dark, colors)
        self.text = text
        self.views: list[TokenView] = []
        self.captions: list[QLabel] = []
        n_bytes = len(text.encode("utf-8", errors="surrogatepass"))
        kinds: set[str] = set()
        self.show()
        for name, tok in tokenizers:
            table = TokenTable.encode(tok, text)
            caption = QLabel(strip_caption(name, table, n_bytes), self)
            caption.setObjectName("renderCaption")
            caption.setFont(sans_font(point_size * 0.8))
            caption.setTextFormat(Qt.TextFormat.RichText)
            view = TokenView(self)
            view.setFont(mono_font(point_size))
            view.set_colors(self.colors)
            view.set_options(DisplayOptions(show_ids=show_ids, whitespace=whitespace))
            view.set_content(table, tok)
            view.show()
            caption.show()
            self.views.append(view)
            self.captions.append(caption)
            if table.partial.any():
                kinds.add("partial")
            if table.special.any():
                kinds.add("special")
        summary = f"{len(text):,} characters · {n_bytes:,} bytes of UTF-8"
        if "\n" not in text.strip() and 0 < len(text) <= SHOW_TEXT_CHARS:
            summary = f"“{text.strip()}” · {summary}"  # a short text is worth seeing as it is typed
        self.summary = QLabel(summary + (f" · {note}" if note else ""), self)
        self.summary.setObjectName("renderSummary")
        self.summary.setFont(sans_font(point_size * 0.7))
        muted = QPalette(self.palette())
        muted.setColor(QPalette.ColorRole.WindowText, self.colors.muted)
        self.summary.setPalette(muted)
        self.summary.show()
        self.legend = LegendBar(self.colors, sorted(kinds), point_size * 0.7, self) if kinds else None
        if self.legend is not None:
            self.legend.show()
        self._lay_out(max_width)

    def _lay_out(self, max_width: int) -> None:
        widths = [fit_token_view(v, max_width) for v in self.views]
        inner = max([s.width() for s in widths] + [c.sizeHint().width() for c in self.captions] + [320])
        inner = max(inner, self.summary.sizeHint().width(), self.legend.width() if self.legend else 0)
        y = PAD
        for caption, view, size in zip(self.captions, self.views, widths):
            hint = caption.sizeHint()
            caption.setGeometry(PAD, y, inner, hint.height())
            y += hint.height() + 4
            # The boxes start a document margin into the view: line them up with the caption.
            inset = round(view.document().documentMargin()) + 1
            view.setGeometry(PAD - inset, y, size.width(), size.height())
            y += size.height() + 14
        hint = self.summary.sizeHint()
        self.summary.setGeometry(PAD, y, inner, hint.height())
        y += hint.height()
        if self.legend is not None:
            y += 6
            self.legend.move(PAD, y)
            y += self.legend.height()
        self.resize(inner + 2 * PAD, y + PAD)


def _check_pixels(widget: QWidget, scale: float) -> None:
    size = widget.size()
    if max(size.width(), size.height()) * scale > MAX_PIXELS:
        raise ExportError(
            f"the image would be {round(size.width() * scale)} × {round(size.height() * scale)} pixels; "
            "use a shorter text or a smaller --scale"
        )


def render_strips(
    text: str,
    tokenizers: Sequence[tuple[str, Tokenizer]],
    path: str | Path,
    *,
    scale: float = 2.0,
    dark: bool = False,
    show_ids: bool = False,
    whitespace: bool = False,
    point_size: float = DEFAULT_POINT_SIZE,
    max_width: int = DEFAULT_WIDTH,
    colors: TokenColors | None = None,
) -> Path:
    """Draw ``text`` as one token strip per ``(name, tokenizer)`` into a PNG (at ``scale``) or SVG file.

    Texts over :data:`MAX_RENDER_CHARS` characters are cut there, and the image says so.
    """
    from .export import write_image

    ensure_app()
    note = ""
    if len(text) > MAX_RENDER_CHARS:
        note = f"first {MAX_RENDER_CHARS:,} of {len(text):,} characters"
        text = text[:MAX_RENDER_CHARS]
    sheet = StripSheet(
        text,
        tokenizers,
        dark=dark,
        show_ids=show_ids,
        whitespace=whitespace,
        point_size=point_size,
        max_width=max_width,
        colors=colors,
        note=note,
    )
    try:
        if Path(path).suffix.lower() == ".png":
            _check_pixels(sheet, scale)
        return write_image(sheet, path, scale, title="tokviz token strips")
    finally:
        sheet.hide()
        sheet.deleteLater()


# ----------------------------------------------------------------------------- merge table
class MergeStep(Protocol):
    """One row of a replay: what ``tokviz replay`` computes (``tokviz.cli.ReplayStep``)."""

    step: int
    left: bytes
    right: bytes
    new_id: int
    count: int
    tokens: int


class ReplayLike(Protocol):
    """A replay: merges, the token count before them, the final tokens (``tokviz.cli.Replay``)."""

    steps: Sequence[MergeStep]
    start_tokens: int
    final: Sequence[bytes]
    text_bytes: int
    vocab_size: int


COLUMNS = ("Step", "Pair merged", "New id", "Bytes", "Count", "Tokens")


class ReplaySheet(QWidget):
    """The lecture's merge table as a picture: step, pair, new id, bytes, count, tokens, then the final tokens."""

    def __init__(
        self,
        replay: ReplayLike,
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
        self.colors = _prepare_sheet(self, "replaySheet", dark, colors)
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
            num_w([s.tokens for s in self.rows] + [self.replay.start_tokens]),
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
        y = PAD
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
                painter, QRectF(cols[5], y, self.col_w[5], self.row_h), f"{self.replay.start_tokens:,}", True
            )
            return
        self._cell_text(painter, QRectF(cols[0], y, self.col_w[0], self.row_h), f"{step.step:,}", True)
        self._cell_text(painter, QRectF(cols[2], y, self.col_w[2], self.row_h), f"{step.new_id:,}", True)
        self._cell_text(painter, QRectF(cols[4], y, self.col_w[4], self.row_h), f"{step.count:,}", True)
        self._cell_text(painter, QRectF(cols[5], y, self.col_w[5], self.row_h), f"{step.tokens:,}", True)
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
    replay: ReplayLike,
    path: str | Path,
    title: str,
    subtitle: str = "",
    *,
    scale: float = 2.0,
    dark: bool = False,
    only_changes: bool = False,
) -> Path:
    """Draw a replay's merge table and final tokens into a PNG (at ``scale``) or SVG file."""
    from .export import write_image

    ensure_app()
    sheet = ReplaySheet(replay, title, subtitle, dark=dark, only_changes=only_changes)
    sheet.show()
    try:
        if Path(path).suffix.lower() == ".png":
            _check_pixels(sheet, scale)
        return write_image(sheet, path, scale, title="tokviz merge table")
    finally:
        sheet.hide()
        sheet.deleteLater()


__all__ = [
    "MAX_RENDER_CHARS",
    "ChipStyle",
    "LegendBar",
    "ReplaySheet",
    "StripSheet",
    "ensure_app",
    "fit_token_view",
    "paint_chip",
    "render_replay",
    "render_strips",
]
