"""The editor: a plain-text editor that accepts dropped files, and helpers to scroll a plain-text
edit (the editor, a token view) by position."""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import (
    QDragEnterEvent,
    QDragMoveEvent,
    QDropEvent,
    QKeyEvent,
)
from PySide6.QtWidgets import (
    QPlainTextEdit,
    QWidget,
)


def top_position(edit: QPlainTextEdit) -> int:
    """The document position (UTF-16) at the top left corner of ``edit``'s viewport."""
    return edit.cursorForPosition(edit.viewport().rect().topLeft()).position()


def scroll_edit_to(edit: QPlainTextEdit, pos16: int) -> None:
    """Scroll ``edit`` so that the line holding document position ``pos16`` (UTF-16) is the first shown."""
    block = edit.document().findBlock(pos16)
    line = 0
    layout = block.layout()
    if layout is not None and layout.lineCount():
        tl = layout.lineForTextPosition(pos16 - block.position())
        if tl.isValid():
            line = tl.lineNumber()
    edit.verticalScrollBar().setValue(block.firstLineNumber() + line)


class SourceEditor(QPlainTextEdit):
    """The text being tokenized; dropping a file on it opens that file."""

    fileDropped = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("editor")
        self.setAccessibleName("Text editor")
        self.setAccessibleDescription("Type or paste text here; the token views follow as you type")
        self.setPlaceholderText("Type or paste text, open a file (Ctrl+O), or pick a sample")
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)

    def event(self, event: QEvent) -> bool:
        """Tab types a tab (it is text to tokenize); Ctrl+Tab and Ctrl+Shift+Tab move the focus on."""
        if event.type() == QEvent.Type.KeyPress and isinstance(event, QKeyEvent):
            ctrl = event.modifiers() & Qt.KeyboardModifier.ControlModifier
            if ctrl and event.key() in (Qt.Key.Key_Tab, Qt.Key.Key_Backtab):
                # QPlainTextEdit refuses to pass the focus on while Tab types tabs; QWidget does not.
                QWidget.focusNextPrevChild(self, event.key() == Qt.Key.Key_Tab)
                return True
        return super().event(event)

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasUrls():
            event.acceptProposedAction()
            return
        super().dragEnterEvent(event)

    def dragMoveEvent(self, event: QDragMoveEvent) -> None:
        if event.mimeData().hasUrls():
            event.acceptProposedAction()
            return
        super().dragMoveEvent(event)

    def dropEvent(self, event: QDropEvent) -> None:
        urls = [u for u in event.mimeData().urls() if u.isLocalFile()]
        if urls:
            event.acceptProposedAction()
            self.fileDropped.emit(urls[0].toLocalFile())
            return
        super().dropEvent(event)
