"""Helpers for panels that follow the editor: debounced refreshes while visible, the window's style.

The pre-tokenizer, streaming-decode, round-trip and chart panels share these. A refresh is
debounced by a :class:`~tokviz.gui.workers.debounce.Debouncer` owned by the dock (it goes away with it)
and only runs while the dock shows; a dock that appears catches up at once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from PySide6.QtCore import SignalInstance
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QDockWidget

from tokviz.gui.context import PanelContext
from tokviz.gui.style.theme import TokenColors
from tokviz.gui.workers.debounce import Debouncer


class Styled(Protocol):
    """A view that takes the window's token colours and the editor's font."""

    def set_colors(self, colors: TokenColors) -> None: ...

    def set_text_font(self, font: QFont) -> None: ...


def follow_window_style(context: PanelContext, view: Styled) -> None:
    """Give ``view`` the window's token colours and the editor's font, now and whenever they change."""
    view.set_colors(context.colors())
    context.colorsChanged.connect(view.set_colors)
    view.set_text_font(context.text_font())
    context.fontChanged.connect(view.set_text_font)


def follow_editor_text(
    context: PanelContext, dock: QDockWidget, set_text: Callable[[str], None], delay_ms: int = 150
) -> Callable[[], None]:
    """Hand the editor's text to ``set_text`` after each pause in typing, while the dock shows."""
    return refresh_while_visible(dock, context.textEdited, lambda: set_text(context.editor_text()), delay_ms)


def refresh_while_visible(
    dock: QDockWidget, trigger: SignalInstance, refresh: Callable[[], None], delay_ms: int
) -> Callable[[], None]:
    """Call ``refresh`` ``delay_ms`` after ``trigger`` stops firing, and when the dock appears.

    Nothing runs while the dock is hidden. Returns the guarded refresh, for callers that need to
    run it at once.
    """

    def guarded() -> None:
        if dock.isVisible():
            refresh()

    debouncer = Debouncer(delay_ms, dock)
    debouncer.triggered.connect(guarded)
    trigger.connect(debouncer.trigger)

    def on_visible(visible: bool) -> None:
        if visible:
            guarded()

    dock.visibilityChanged.connect(on_visible)
    return guarded
