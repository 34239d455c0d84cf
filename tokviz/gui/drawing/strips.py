"""Token strips for slides (``tokviz render``): the window's own token view, laid out offscreen.

A strip is a :class:`~tokviz.gui.widgets.token_view.TokenView` at the width of its longest line and
tall enough to show every line, so an image is drawn by exactly the code that paints the window.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import TypedDict, Unpack

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import (
    QPalette,
)
from PySide6.QtWidgets import QLabel, QPlainTextEdit, QWidget

from tokviz.core.bpe.tokenizer import Tokenizer
from tokviz.gui.drawing.chips import LegendBar
from tokviz.gui.drawing.sheet import PAD, ensure_app, prepare_sheet, write_sheet
from tokviz.gui.style.fonts import mono_font, sans_font
from tokviz.gui.style.theme import TokenColors
from tokviz.gui.text.display import DisplayOptions
from tokviz.gui.text.token_table import TokenTable
from tokviz.gui.widgets.token_view import TokenView

# Longer texts are cut (with a note) so that an image stays a picture rather than a document.
MAX_RENDER_CHARS = 10_000
DEFAULT_WIDTH = 1100
DEFAULT_POINT_SIZE = 16.0
# A one-line text up to this long is quoted under the strips.
SHOW_TEXT_CHARS = 80


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

    ``views`` are real :class:`TokenView` widgets; ``captions`` their headers. ``tables`` may hold
    each tokenizer's already computed table of ``text`` (the window's views have them): a table
    for exactly this text is drawn as it is, so the export runs no regex; any other is encoded
    here (with the time limit every custom pattern has, so a bad pattern is an error, not a hang).
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
        tables: Sequence[TokenTable | None] = (),
    ) -> None:
        super().__init__()
        self.colors = prepare_sheet(self, "renderSheet", dark, colors)
        self.text = text
        self.views: list[TokenView] = []
        self.captions: list[QLabel] = []
        n_bytes = len(text.encode("utf-8", errors="surrogatepass"))
        kinds: set[str] = set()
        self.show()
        for i, (name, tok) in enumerate(tokenizers):
            known = tables[i] if i < len(tables) else None
            table = known if known is not None and known.text == text else TokenTable.encode(tok, text)
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


class StripOptions(TypedDict, total=False):
    """How :func:`strip_sheet` and :func:`render_strips` draw, as :class:`StripSheet` takes it
    (every one optional, with the sheet's defaults)."""

    dark: bool
    show_ids: bool
    whitespace: bool
    point_size: float
    max_width: int
    colors: TokenColors | None
    tables: Sequence[TokenTable | None]


def strip_sheet(
    text: str, tokenizers: Sequence[tuple[str, Tokenizer]], **options: Unpack[StripOptions]
) -> StripSheet:
    """An offscreen sheet of ``text`` as strips: what ``tokviz render`` and the window's view exports draw.

    Texts over :data:`MAX_RENDER_CHARS` characters are cut there, and the sheet says so. The caller
    owns the sheet (``deleteLater`` it when done). ``tables`` are known tables (see
    :class:`StripSheet`); one for the whole text saves encoding it again.
    """
    ensure_app()
    note = ""
    if len(text) > MAX_RENDER_CHARS:
        note = f"first {MAX_RENDER_CHARS:,} of {len(text):,} characters"
        text = text[:MAX_RENDER_CHARS]
    return StripSheet(text, tokenizers, note=note, **options)


def render_strips(
    text: str,
    tokenizers: Sequence[tuple[str, Tokenizer]],
    path: str | Path,
    *,
    scale: float = 2.0,
    **options: Unpack[StripOptions],
) -> Path:
    """Draw ``text`` as one token strip per ``(name, tokenizer)`` into a PNG (at ``scale``) or SVG file.

    Texts over :data:`MAX_RENDER_CHARS` characters are cut there, and the image says so.
    """
    return write_sheet(strip_sheet(text, tokenizers, **options), path, scale, "tokviz token strips")
