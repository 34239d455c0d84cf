"""Keep a panel's text font equal to the editor's (zoom and presentation mode change it)."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QWidget


class FontFollower(QObject):
    """An event filter on the editor that hands its font to ``view`` whenever it changes."""

    def __init__(self, editor: QWidget, view: QObject) -> None:
        super().__init__(view)
        self.editor = editor
        self.view = view

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.FontChange and watched is self.editor:
            self.view.set_text_font(self.editor.font())  # type: ignore[attr-defined]
        return False


def follow_editor_font(editor: QWidget, view: QObject) -> None:
    """Make ``view`` (which has ``set_text_font``) follow the editor's font from now on."""
    editor.installEventFilter(FontFollower(editor, view))
