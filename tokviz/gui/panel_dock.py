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
