"""Window-wide actions: made in one way everywhere, so every shortcut works wherever the focus is."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QWidget


def make_action(
    owner: QWidget,
    text: str,
    shortcut: str | list[str] | None = None,
    *,
    checkable: bool = False,
    name: str = "",
) -> QAction:
    """An action of ``owner`` (the window) whose shortcuts work anywhere in it; connect it yourself."""
    action = QAction(text, owner)
    if shortcut:
        keys = [shortcut] if isinstance(shortcut, str) else shortcut
        action.setShortcuts([QKeySequence(k) for k in keys])
        action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
    action.setCheckable(checkable)
    if name:
        action.setObjectName(name)
    owner.addAction(action)
    return action


def on_trigger(action: QAction, slot: Callable[[], object]) -> None:
    """Call ``slot()`` (no arguments) whenever ``action`` is triggered."""
    action.triggered.connect(lambda *_: slot())
