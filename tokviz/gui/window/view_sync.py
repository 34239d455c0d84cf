"""Hover, selection and scrolling move between the editor and every view by source position."""

from __future__ import annotations

from PySide6.QtGui import (
    QTextCharFormat,
    QTextCursor,
    QTextFormat,
)
from PySide6.QtWidgets import (
    QTextEdit,
)

from tokviz.gui.text.display import merge_step_label
from tokviz.gui.widgets.source_editor import scroll_edit_to, top_position
from tokviz.gui.widgets.token_panel import TokenPanel


class ViewSyncMixin:
    """Part of :class:`~tokviz.gui.window.main_window.MainWindow`; see the module's docstring."""

    def _on_hover(self, panel: TokenPanel, index: int) -> None:
        table = panel.view.table
        if index < 0 or table is None or table.text != self.text:
            self._hover = None
            self._set_editor_highlight(None)
            self._on_editor_selection()
            self.statusBar().clearMessage()
            return
        self._hover = (panel, index)
        lo, hi = int(table.start[index]), int(table.end[index])
        self._set_editor_highlight((lo, hi))
        for p in self.panels:
            if p is panel:
                p.view.set_highlight(0, 0)
                continue
            other = p.view.table
            if other is not None and other.text == self.text:
                p.view.set_highlight(*other.tokens_overlapping(lo, hi))
        d = panel.view.details(index)
        if d is not None:
            extra = f" · {merge_step_label(d.rank)}" if d.rank is not None else ""
            self.statusBar().showMessage(
                f"{panel.model.tokenizer.name if panel.model.tokenizer else ''} token {d.id}: {d.text!r} · {d.hex} · {d.length} bytes{extra}"
            )

    def _set_editor_highlight(self, span: tuple[int, int] | None) -> None:
        if span is None:
            self.editor.setExtraSelections([])
            return
        lo, hi = span
        sel = QTextEdit.ExtraSelection()
        cursor = QTextCursor(self.editor.document())
        cursor.setPosition(self._index.to_utf16(lo))
        cursor.setPosition(self._index.to_utf16(hi), QTextCursor.MoveMode.KeepAnchor)
        fmt = QTextCharFormat()
        fmt.setBackground(self._colors.editor_highlight)
        fmt.setProperty(QTextFormat.Property.FullWidthSelection, False)
        sel.cursor = cursor
        sel.format = fmt
        self.editor.setExtraSelections([sel])

    def _on_editor_selection(self) -> None:
        if self._hover is not None:
            return
        cursor = self.editor.textCursor()
        if (
            not cursor.hasSelection()
            or self.editor.document().characterCount() - 1 != self._index.utf16_length
        ):
            for p in self.panels:
                p.view.set_highlight(0, 0)
            return
        lo = self._index.to_code_point(cursor.selectionStart())
        hi = self._index.to_code_point(cursor.selectionEnd())
        for p in self.panels:
            table = p.view.table
            if table is not None and table.text == self.text:
                p.view.set_highlight(*table.tokens_overlapping(lo, hi))

    def selected_tokens(self, panel: TokenPanel) -> tuple[int, int]:
        """The token range a view currently outlines (editor selection or hover elsewhere)."""
        return panel.view.highlighted

    def _on_editor_scrolled(self, _value: int) -> None:
        if self._syncing or not self.act_sync.isChecked():
            return
        cp = self._index.to_code_point(top_position(self.editor))
        self._sync_scroll(cp, None)

    def _sync_scroll(self, cp: int, source: TokenPanel | None) -> None:
        if self._syncing or not self.act_sync.isChecked():
            return
        self._syncing = True
        try:
            for p in self.panels:
                if p is not source and p.view.table is not None and p.view.table.text == self.text:
                    p.view.scroll_to_source(cp)
            if source is not None:
                scroll_edit_to(self.editor, self._index.to_utf16(cp))
        finally:
            self._syncing = False
