"""Hover, selection and scrolling move between the editor and every view by source position.

:class:`ViewSync` is one part of the window: it is given the editor, the window's list of views
and the status bar, and told the text the views show (:meth:`ViewSync.set_text`) and the colours
in use (:meth:`ViewSync.set_colors`). It reads nothing else of the window.
"""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtGui import QTextCharFormat, QTextCursor, QTextFormat
from PySide6.QtWidgets import QPlainTextEdit, QStatusBar, QTextEdit

from tokviz.gui.style.theme import TokenColors
from tokviz.gui.text.display import merge_step_label
from tokviz.gui.text.utf16 import Utf16Index
from tokviz.gui.widgets.source_editor import scroll_edit_to, top_position
from tokviz.gui.widgets.token_panel import TokenPanel


class ViewSync(QObject):
    """Outlines what the pointer or the editor's selection covers in every view, and scrolls them together."""

    def __init__(
        self,
        editor: QPlainTextEdit,
        views: list[TokenPanel],
        status_bar: QStatusBar,
        colors: TokenColors,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._editor = editor
        self._views = views
        self._status_bar = status_bar
        self._colors = colors
        self._text = ""
        self._index = Utf16Index("")
        self._hover: tuple[TokenPanel, int] | None = None
        self._syncing = False
        self._scroll_together = True
        editor.selectionChanged.connect(self.follow_editor_selection)
        editor.verticalScrollBar().valueChanged.connect(self._on_editor_scrolled)

    def watch(self, view: TokenPanel) -> None:
        """Follow a new view's hover and scrolling."""
        view.view.tokenHovered.connect(lambda index, p=view: self.hover(p, index))
        view.view.scrolledToSource.connect(lambda cp, p=view: self.scroll_views_to(cp, p))

    def set_text(self, text: str, index: Utf16Index) -> None:
        """The text the views are handed now, with its UTF-16 index (shared with the window)."""
        self._text = text
        self._index = index

    def set_colors(self, colors: TokenColors) -> None:
        """New colours: a token under the pointer is outlined again with them."""
        self._colors = colors
        if self._hover is not None:
            self.hover(*self._hover)

    def set_scroll_together(self, on: bool) -> None:
        """Whether scrolling one view or the editor scrolls the others (View ▸ Synchronised scrolling)."""
        self._scroll_together = on

    def hover(self, panel: TokenPanel, index: int) -> None:
        """The pointer is over token ``index`` of ``panel`` (-1: over none)."""
        table = panel.view.table
        if index < 0 or table is None or table.text != self._text:
            self._hover = None
            self._set_editor_highlight(None)
            self.follow_editor_selection()
            self._status_bar.clearMessage()
            return
        self._hover = (panel, index)
        lo, hi = int(table.start[index]), int(table.end[index])
        self._set_editor_highlight((lo, hi))
        for p in self._views:
            if p is panel:
                p.view.set_highlight(0, 0)
                continue
            other = p.view.table
            if other is not None and other.text == self._text:
                p.view.set_highlight(*other.tokens_overlapping(lo, hi))
        d = panel.view.details(index)
        if d is not None:
            extra = f" · {merge_step_label(d.rank)}" if d.rank is not None else ""
            name = panel.model.tokenizer.name if panel.model.tokenizer else ""
            self._status_bar.showMessage(
                f"{name} token {d.id}: {d.text!r} · {d.hex} · {d.length} bytes{extra}"
            )

    def _set_editor_highlight(self, span: tuple[int, int] | None) -> None:
        if span is None:
            self._editor.setExtraSelections([])
            return
        lo, hi = span
        sel = QTextEdit.ExtraSelection()
        cursor = QTextCursor(self._editor.document())
        cursor.setPosition(self._index.to_utf16(lo))
        cursor.setPosition(self._index.to_utf16(hi), QTextCursor.MoveMode.KeepAnchor)
        fmt = QTextCharFormat()
        fmt.setBackground(self._colors.editor_highlight)
        fmt.setProperty(QTextFormat.Property.FullWidthSelection, False)
        sel.cursor = cursor
        sel.format = fmt
        self._editor.setExtraSelections([sel])

    def follow_editor_selection(self) -> None:
        """Outline in every view the tokens the editor's selection covers (unless the pointer is over one)."""
        if self._hover is not None:
            return
        cursor = self._editor.textCursor()
        if (
            not cursor.hasSelection()
            or self._editor.document().characterCount() - 1 != self._index.utf16_length
        ):
            for p in self._views:
                p.view.set_highlight(0, 0)
            return
        lo = self._index.to_code_point(cursor.selectionStart())
        hi = self._index.to_code_point(cursor.selectionEnd())
        for p in self._views:
            table = p.view.table
            if table is not None and table.text == self._text:
                p.view.set_highlight(*table.tokens_overlapping(lo, hi))

    @staticmethod
    def selected_tokens(panel: TokenPanel) -> tuple[int, int]:
        """The token range a view currently outlines (editor selection or hover elsewhere)."""
        return panel.view.highlighted

    def _on_editor_scrolled(self, _value: int) -> None:
        if self._syncing or not self._scroll_together:
            return
        self.scroll_views_to(self._index.to_code_point(top_position(self._editor)), None)

    def scroll_views_to(self, cp: int, source: TokenPanel | None) -> None:
        """Scroll every view but ``source`` (and the editor, unless it scrolled) to code point ``cp``."""
        if self._syncing or not self._scroll_together:
            return
        self._syncing = True
        try:
            for p in self._views:
                if p is not source and p.view.table is not None and p.view.table.text == self._text:
                    p.view.scroll_to_source(cp)
            if source is not None:
                scroll_edit_to(self._editor, self._index.to_utf16(cp))
        finally:
            self._syncing = False
