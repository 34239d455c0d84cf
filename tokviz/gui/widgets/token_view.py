"""A token view: the text drawn as coloured boxes, one per token, kept in step with the editor.

The view is a read-only QPlainTextEdit (built for large documents: it lays out only what is on
screen) whose document holds one display string per token. Edits arrive as
:class:`~tokviz.gui.text.token_table.TableUpdate` and replace only the changed tokens' text. Boxes
are painted under the text from the per-block geometry in :mod:`tokviz.gui.widgets.highlighter`, so
nothing is formatted ahead of time and a 1 MB text costs what is visible. Painted into an SVG file,
each token's text is its own text element at its box, so other SVG readers' fonts cannot drift.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QEvent, QMimeData, QPoint, QRectF, Qt, Signal
from PySide6.QtGui import (
    QColor,
    QFont,
    QHelpEvent,
    QKeyEvent,
    QMouseEvent,
    QPaintEngine,
    QPainter,
    QPaintEvent,
    QPen,
    QTextCursor,
)
from PySide6.QtWidgets import QPlainTextEdit, QToolTip, QWidget

from tokviz.core.bpe.tokenizer import Tokenizer
from tokviz.gui.style.theme import TokenColors, colour_indices_range, token_colors
from tokviz.gui.text.display import (
    DisplayOptions,
    TokenDetails,
    build_run,
    details_html,
    plain_text,
    token_details,
)
from tokviz.gui.text.token_notes import token_notes_html
from tokviz.gui.text.token_table import INDEX, TableUpdate, TokenTable, differs_from
from tokviz.gui.widgets.even_rows import EvenRowsLayout
from tokviz.gui.widgets.highlighter import Box, block_boxes
from tokviz.gui.widgets.source_editor import scroll_edit_to
from tokviz.gui.widgets.token_paint import (
    TokenBrushes,
    paint_chunk_starts,
    paint_cuts,
    paint_differences,
    paint_outlines,
    paint_token_texts,
    same_boundaries,
)


class TokenView(QPlainTextEdit):
    """Shows one tokenization; ``tokenHovered(index)`` (-1 on leave), ``scrolledToSource(code point)``."""

    tokenHovered = Signal(int)
    scrolledToSource = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("tokenView")
        self.setAccessibleName("Token view")
        self.setAccessibleDescription("The text drawn as coloured boxes, one per token")
        self.setReadOnly(True)
        self.setUndoRedoEnabled(False)
        self.setMouseTracking(True)
        self.viewport().setMouseTracking(True)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.setFrameShape(QPlainTextEdit.Shape.NoFrame)
        self._rows_layout = EvenRowsLayout(self.document())
        self.document().setDocumentLayout(self._rows_layout)
        self.table: TokenTable | None = None
        self.tokenizer: Tokenizer | None = None
        self.options = DisplayOptions()
        self.show_chunks = False
        self.colors: TokenColors = token_colors(False)
        self.reference: TokenTable | None = None
        self.merges_ready = False
        self.box_start = np.zeros(0, dtype=INDEX)
        self.box_end = np.zeros(0, dtype=INDEX)
        self._length16 = 0
        self._boxes: list[Box] = []
        self.paint_count = 0
        self.painted_table: TokenTable | None = None  # the table the last paint showed
        self._brush_theme: TokenColors | None = None
        self._brush_cache: TokenBrushes | None = None
        self._quiet_insert = False
        self._hover = -1
        self._highlight = (0, 0)
        self._syncing = False
        self.verticalScrollBar().valueChanged.connect(self._on_scrolled)

    # ---------------------------------------------------------------- content
    def set_content(self, table: TokenTable, tokenizer: Tokenizer, update: TableUpdate | None = None) -> None:
        """Show ``table``; with an incremental ``update`` only the changed tokens' text is replaced."""
        incremental = (
            update is not None
            and not update.full
            and self.table is not None
            and tokenizer is self.tokenizer
            and self.table.text is not None
        )
        old_n = len(self.table) if self.table is not None else 0
        if update is not None and old_n - update.old_stop + update.new_stop != len(table):
            incremental = False  # the update was not computed from what this view shows
        # A piece of a big paste landing below the screen changes nothing on it: no repaint.
        below = incremental and update is not None and self._below_screen(table, update)
        self.table = table
        self.tokenizer = tokenizer
        if incremental:
            assert update is not None
            self._quiet_insert = below and self._hover < 0 and self._highlight == (0, 0)
            try:
                self._replace(update, old_n)
            finally:
                self._quiet_insert = False
        else:
            self._rebuild()
        if below and self._hover < 0 and self._highlight == (0, 0):
            return
        self._hover = -1
        self._highlight = (0, 0)
        self.viewport().update()

    def _screen_span(self) -> tuple[int, int] | None:
        """Source code points ``[lo, hi)`` of the tokens painted last (None before a paint)."""
        table = self.table
        if not self._boxes or table is None:
            return None
        tokens = [b.token for b in self._boxes]
        t0, t1 = min(tokens), max(tokens)
        if t1 >= len(table):
            return None
        return int(table.start[t0]), int(table.end[t1])

    def _below_screen(self, table: TokenTable, update: TableUpdate) -> bool:
        span = self._screen_span()
        if span is None or update.first >= len(table):
            return False
        return int(table.start[update.first]) > span[1]

    def clear_content(self) -> None:
        """Show nothing (no tokenizer yet)."""
        self.table = None
        self.tokenizer = None
        self.box_start = self.box_end = np.zeros(0, dtype=INDEX)
        self._length16 = 0
        self.setPlainText("")

    def _rebuild(self) -> None:
        table, tok = self.table, self.tokenizer
        assert table is not None and tok is not None
        top = self.top_source_position() if self.box_start.size else 0
        run = build_run(table, 0, len(table), tok.vocab, self.options)
        self.box_start, self.box_end = run.box_start, run.box_end
        self._length16 = run.length16
        self._syncing = True
        try:
            self.setPlainText(run.text)
        finally:
            self._syncing = False
        if top:
            self.scroll_to_source(top)

    def _replace(self, update: TableUpdate, old_n: int) -> None:
        table, tok = self.table, self.tokenizer
        assert table is not None and tok is not None
        first, old_stop = update.first, update.old_stop
        # A piece of a big paste brings its display text, built in the worker for some options.
        run = getattr(update, "run", None)
        if run is None or getattr(update, "run_options", None) != self.options:
            run = build_run(table, first, update.new_stop, tok.vocab, self.options)
        a = int(self.box_start[first]) if first < old_n else self._length16
        b = int(self.box_start[old_stop]) if old_stop < old_n else self._length16
        delta = run.length16 - (b - a)
        cursor = QTextCursor(self.document())
        cursor.setPosition(a)
        cursor.setPosition(b, QTextCursor.MoveMode.KeepAnchor)
        self._syncing = True
        # Text landing below the screen (a piece of a big paste) repaints nothing on it: the
        # layout's repaint request is held back, and only the scroll bar learns the new size.
        layout = self.document().documentLayout() if self._quiet_insert else None
        if layout is not None:
            layout.blockSignals(True)
        try:
            cursor.insertText(run.text)
        finally:
            self._syncing = False
            if layout is not None:
                layout.blockSignals(False)
                layout.documentSizeChanged.emit(layout.documentSize())
        self.box_start = np.concatenate(
            (self.box_start[:first], run.box_start + a, self.box_start[old_stop:] + delta)
        )
        self.box_end = np.concatenate(
            (self.box_end[:first], run.box_end + a, self.box_end[old_stop:] + delta)
        )
        self._length16 += delta

    def set_options(self, options: DisplayOptions) -> None:
        """Switch between text and ids, or visible whitespace; the view is rebuilt, scroll kept."""
        if options == self.options:
            return
        self.options = options
        if self.table is not None and self.tokenizer is not None:
            self._rebuild()
        self.viewport().update()

    def set_show_chunks(self, show: bool) -> None:
        """Draw the pre-tokenizer's chunk boundaries."""
        self.show_chunks = show
        self.viewport().update()

    def set_colors(self, colors: TokenColors) -> None:
        """Use a theme's token colours."""
        self.colors = colors
        self.viewport().update()

    def set_reference(self, reference: TokenTable | None) -> None:
        """The first view's tokens: boxes whose boundaries differ from it get a mark."""
        before, self.reference = self.reference, reference
        if not self._same_on_screen(before, reference):
            self.viewport().update()

    def _same_on_screen(self, a: TokenTable | None, b: TokenTable | None) -> bool:
        """True when two reference tables have the same token boundaries over what is on screen."""
        span = self._screen_span()
        return a is b or (
            a is not None and b is not None and span is not None and same_boundaries(a, b, *span)
        )

    def set_highlight(self, first: int, stop: int) -> None:
        """Outline tokens ``[first, stop)`` (the range hovered elsewhere or selected in the editor)."""
        if (first, stop) != self._highlight:
            self._highlight = (first, stop)
            self.viewport().update()

    def set_font_family_size(self, font: QFont) -> None:
        """Use ``font`` for the tokens (zoom changes its size)."""
        self.setFont(font)
        self.viewport().update()

    @property
    def highlighted(self) -> tuple[int, int]:
        """The token range ``[first, stop)`` outlined on behalf of the editor or another view."""
        return self._highlight

    @property
    def hovered(self) -> int:
        """Index of the token under the mouse, or -1."""
        return self._hover

    # ---------------------------------------------------------------- geometry
    def row_metrics(self) -> tuple[float, float]:
        """(baseline from a row's top, row height): every line of the view is one such row."""
        return self._rows_layout.rows()

    def visible_boxes(self) -> list[Box]:
        """Boxes of the tokens on screen, in viewport coordinates."""
        boxes: list[Box] = []
        if not self.box_start.size:
            return boxes
        offset = self.contentOffset()
        height = self.viewport().height()
        blocks = []
        block = self.firstVisibleBlock()
        while block.isValid():
            geom = self.blockBoundingGeometry(block).translated(offset)
            if geom.top() > height:
                break
            if block.isVisible() and geom.bottom() >= 0:
                blocks.append((block, geom.topLeft()))
            block = block.next()
        if not blocks:
            return boxes
        # One bisection into the big arrays for the whole screen, then small Python lists per block.
        lo = blocks[0][0].position()
        hi = blocks[-1][0].position() + blocks[-1][0].length()
        t0 = int(np.searchsorted(self.box_end, lo, side="right"))
        t1 = int(np.searchsorted(self.box_start, hi, side="left"))
        starts = self.box_start[t0:t1].tolist()
        ends = self.box_end[t0:t1].tolist()
        nl_width = self.fontMetrics().horizontalAdvance(" ") * 0.7
        row = self.row_metrics()
        for block, origin in blocks:
            block_boxes(block, origin, starts, ends, t0, nl_width, boxes, row)
        return boxes

    def token_rects(self, index: int) -> list[QRectF]:
        """On-screen rectangles of one token (empty when it is scrolled away)."""
        return [b.rect for b in self.visible_boxes() if b.token == index]

    def token_at(self, pos: QPoint) -> int:
        """Index of the token drawn at viewport point ``pos``, or -1."""
        for box in self._boxes or self.visible_boxes():
            if box.contains(pos.x(), pos.y()):
                return box.token
        return -1

    # ---------------------------------------------------------------- painting
    def _brushes(self) -> TokenBrushes:
        """The pens and brushes of the current theme (built again only when the theme changes)."""
        if self._brush_cache is None or self._brush_theme is not self.colors:
            self._brush_theme = self.colors
            self._brush_cache = TokenBrushes.of(self.colors)
        return self._brush_cache

    def paintEvent(self, event: QPaintEvent) -> None:
        boxes = self.visible_boxes()
        self._boxes = boxes
        self.paint_count += 1
        self.painted_table = self.table
        clip = event.rect()
        clip_top, clip_bottom = clip.top(), clip.bottom() + 1
        if boxes and self.table is not None:
            b = self._brushes()
            fills = b.fills
            no_pen, no_brush = b.no_pen, b.no_brush
            t0 = boxes[0].token
            t1 = max(box.token for box in boxes) + 1
            special = self.table.special[t0:t1].tolist()
            partial = self.table.partial[t0:t1].tolist()
            colour_idx = colour_indices_range(self.table.ids, t0, t1).tolist()
            painter = QPainter(self.viewport())
            painter.setRenderHint(QPainter.RenderHint.Antialiasing)
            painter.setPen(no_pen)
            for box in boxes:
                if box.y > clip_bottom or box.y + box.h < clip_top:
                    continue
                t = box.token - t0
                r = QRectF(box.x + 1.0, box.y + 1.0, box.w - 2.0, box.h - 2.0)
                if special[t]:
                    painter.setBrush(b.special)
                    painter.setPen(b.special_pen)
                    painter.drawRoundedRect(r, 3, 3)
                    painter.setPen(no_pen)
                elif partial[t]:
                    painter.setBrush(b.partial)
                    painter.drawRoundedRect(r, 3, 3)
                    painter.setBrush(b.hatch)
                    painter.drawRoundedRect(r, 3, 3)
                    painter.setPen(b.partial_pen)
                    painter.setBrush(no_brush)
                    painter.drawRoundedRect(r, 3, 3)
                    painter.setPen(no_pen)
                else:
                    painter.setBrush(fills[colour_idx[t]])
                    painter.drawRoundedRect(r, 3, 3)
            engine = painter.paintEngine()
            vector = engine is not None and engine.type() == QPaintEngine.Type.SVG
            if vector:
                paint_token_texts(self, painter, self.box_start, self.box_end)
            painter.end()
            if not vector:
                super().paintEvent(event)
            self._paint_overlays(self.table, boxes)
        else:
            super().paintEvent(event)

    def _paint_overlays(self, table: TokenTable, boxes: list[Box]) -> None:
        """Marks over the text: chunk starts, differences from the reference, selection and hover."""
        b = self._brushes()
        painter = QPainter(self.viewport())
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        lo = boxes[0].token
        hi = max(box.token for box in boxes) + 1
        if self.show_chunks:
            paint_chunk_starts(painter, boxes, table.chunk, lo, b.chunk_pen)
        if any(box.continued for box in boxes):
            painter.setFont(self.font())
            paint_cuts(painter, boxes, QPen(self.colors.text, 1.5))
        differs = differs_from(table, self.reference, lo, hi)
        if differs.any():
            paint_differences(painter, boxes, differs.tolist(), lo, b)
        first, stop = self._highlight
        if stop > first:
            paint_outlines(painter, boxes, first, stop, b.highlight, b.highlight_pen)
        if self._hover >= 0:
            paint_outlines(painter, boxes, self._hover, self._hover + 1, b.no_brush, b.hover_pen)
        painter.end()

    def createMimeDataFromSelection(self) -> QMimeData:  # noqa: N802 - Qt's name
        """Copied text is what the boxes show, without the invisible characters that steer line breaks."""
        data = QMimeData()
        data.setText(plain_text(self.textCursor().selectedText().replace("\u2029", "\n")))
        return data

    # ---------------------------------------------------------------- mouse
    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        super().mouseMoveEvent(event)
        self._set_hover(self.token_at(event.position().toPoint()))

    def leaveEvent(self, event: QEvent) -> None:
        super().leaveEvent(event)
        self._set_hover(-1)

    def _set_hover(self, index: int) -> None:
        if index != self._hover:
            self._hover = index
            self.viewport().update()
            self.tokenHovered.emit(index)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """Keyboard users step through tokens with Left/Right (Home/End); Escape stops."""
        n = len(self.table) if self.table is not None else 0
        key = event.key()
        if n and key in (Qt.Key.Key_Right, Qt.Key.Key_Left, Qt.Key.Key_Home, Qt.Key.Key_End):
            current = self._hover
            if key == Qt.Key.Key_Right:
                index = min(current + 1, n - 1) if current >= 0 else 0
            elif key == Qt.Key.Key_Left:
                index = max(current - 1, 0) if current >= 0 else 0
            else:
                index = 0 if key == Qt.Key.Key_Home else n - 1
            self._set_hover(index)
            cursor = self.textCursor()
            cursor.setPosition(int(self.box_start[index]))
            self.setTextCursor(cursor)
            self.ensureCursorVisible()
            return
        if key == Qt.Key.Key_Escape and self._hover >= 0:
            self._set_hover(-1)
            return
        super().keyPressEvent(event)

    def hover_token(self, index: int) -> None:
        """Act as if the mouse were over token ``index`` (keyboard users, tests, scripts)."""
        self._set_hover(index)

    def details(self, index: int) -> TokenDetails | None:
        """Hover details of token ``index``."""
        if self.table is None or self.tokenizer is None or not 0 <= index < len(self.table):
            return None
        return token_details(self.tokenizer, int(self.table.ids[index]), self.merges_ready)

    def notes_html(self, index: int) -> str:
        """What the card adds: an unknown word, a code point, what the loader assumed."""
        assert self.table is not None and self.tokenizer is not None
        return token_notes_html(self.tokenizer, self.table, index)

    def viewportEvent(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent):
            index = self.token_at(event.pos())
            d = self.details(index)
            if d is None or self.tokenizer is None:
                QToolTip.hideText()
            else:
                rect = next((b.rect for b in self._boxes if b.token == index), QRectF())
                card = details_html(d, self.tokenizer.name) + self.notes_html(index)
                QToolTip.showText(event.globalPos(), card, self.viewport(), rect.toRect())
            return True
        return super().viewportEvent(event)

    # ---------------------------------------------------------------- scrolling
    def top_source_position(self) -> int:
        """Code point (in the source text) of the first token on screen."""
        if self.table is None or not len(self.table) or not self.box_start.size:
            return 0
        vpos = self.cursorForPosition(QPoint(2, 2)).position()
        t = int(np.searchsorted(self.box_start, vpos, side="right")) - 1
        t = min(max(t, 0), len(self.table) - 1)
        return int(self.table.start[t])

    def scroll_to_source(self, cp: int) -> None:
        """Scroll so the token at source code point ``cp`` is the first line on screen."""
        if self.table is None or not len(self.table) or not self.box_start.size:
            return
        t = int(np.searchsorted(self.table.start, cp, side="right")) - 1
        t = min(max(t, 0), len(self.table) - 1)
        self._syncing = True
        try:
            scroll_edit_to(self, int(self.box_start[t]))
        finally:
            self._syncing = False

    def _on_scrolled(self, _value: int) -> None:
        if not self._syncing:
            self.scrolledToSource.emit(self.top_source_position())

    def paint_color(self, index: int) -> QColor:
        """The fill colour token ``index`` is painted with (for tests and legends)."""
        assert self.table is not None
        if self.table.special[index]:
            return self.colors.special_fill
        if self.table.partial[index]:
            return self.colors.partial_fill
        return self.colors.fills[int(colour_indices_range(self.table.ids, index, index + 1)[0])]
