"""Install a teaching panel as a dock that starts hidden and follows the editor while visible.

The pre-tokenizer, streaming-decode and round-trip panels share this: a View-menu toggle with a
shortcut, the saved dock position, and a debounced refresh that only runs while the dock shows.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QTimer, SignalInstance
from PySide6.QtWidgets import QDockWidget, QWidget

if TYPE_CHECKING:
    from .main_window import MainWindow


def add_hidden_dock(
    window: MainWindow,
    widget: QWidget,
    title: str,
    object_name: str,
    action_name: str,
    action_text: str,
    shortcut: str,
) -> QDockWidget:
    """Add ``widget`` as a dock, hidden until its View-menu action (or ``shortcut``) shows it."""
    dock = window.add_dock(widget, title, object_name, shortcut)
    dock.toggleViewAction().setObjectName(action_name)
    dock.toggleViewAction().setText(action_text)
    dock.hide()
    window.restoreDockWidget(dock)
    return dock


def follow_window_style(window: MainWindow, view: QWidget) -> None:
    """Give ``view`` (with ``set_colors`` and ``set_text_font``) the window's token colours and the
    editor's font, now and whenever they change (theme, zoom, presentation mode)."""
    from .font_follower import follow_editor_font

    view.set_colors(window.colors)  # type: ignore[attr-defined]
    window.colorsChanged.connect(view.set_colors)  # type: ignore[attr-defined]
    view.set_text_font(window.editor.font())  # type: ignore[attr-defined]
    follow_editor_font(window.editor, view)


def follow_editor_text(
    window: MainWindow, dock: QDockWidget, set_text: Callable[[str], None], delay_ms: int = 150
) -> Callable[[], None]:
    """Hand the editor's text to ``set_text`` after each pause in typing, while the dock shows."""
    from .qtext import plain_text_from_raw

    return refresh_while_visible(
        window,
        dock,
        window.editor.document().contentsChanged,
        lambda: set_text(plain_text_from_raw(window.editor.document().toRawText())),
        delay_ms,
    )


def refresh_while_visible(
    window: MainWindow, dock: QDockWidget, trigger: SignalInstance, refresh: Callable[[], None], delay_ms: int
) -> Callable[[], None]:
    """Call ``refresh`` ``delay_ms`` after ``trigger`` fires (debounced) and when the dock appears.

    Nothing runs while the dock is hidden. Returns the guarded refresh, for callers that need to
    run it at once.
    """

    def guarded() -> None:
        if dock.isVisible():
            refresh()

    timer = QTimer(window)
    timer.setSingleShot(True)
    timer.setInterval(delay_ms)
    timer.timeout.connect(guarded)
    trigger.connect(timer.start)
    dock.visibilityChanged.connect(lambda visible: visible and guarded())
    return guarded
