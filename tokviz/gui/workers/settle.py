"""Start-up order: what a restored panel needs waits until the views show their first tokens.

At launch the views' first tables are what the user came for. A panel restored from the last
session (the merge timeline: GPT-2's merges, a trace in a worker, pyqtgraph's import) would compete
with them for the one Python thread that runs, so it calls :func:`after_views_settle`, which runs
its work once the window has said its views are filled (:func:`mark_views_settled`), or after a
few seconds if that never happens (a tokenizer that failed to load).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, QTimer

SETTLED = "tokvizViewsSettled"
# However long the views take, a restored panel starts after this (ms).
FALLBACK_MS = 4000


def mark_views_settled(window: QObject) -> None:
    """Called by the window when its views first show the tokens of its text (idempotent)."""
    if window.property(SETTLED) is not True:
        window.setProperty(SETTLED, True)


def views_settled(window: QObject) -> bool:
    """True once the window has marked its views as filled."""
    return window.property(SETTLED) is True


def after_views_settle(window: QObject, callback: Callable[[], object]) -> None:
    """Run ``callback`` once in the GUI thread after the window's views are first filled
    (at once if they are), or after :data:`FALLBACK_MS` at the latest."""
    if views_settled(window):
        callback()
        return
    _Settle(window, callback)


class _Settle(QObject):
    """Waits for the window's :data:`SETTLED` property (a dynamic-property event) or the fallback."""

    def __init__(self, window: QObject, callback: Callable[[], object]) -> None:
        super().__init__(window)
        self._callback: Callable[[], object] | None = callback
        window.installEventFilter(self)
        QTimer.singleShot(FALLBACK_MS, self, self._fire)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.DynamicPropertyChange and views_settled(watched):
            watched.removeEventFilter(self)
            QTimer.singleShot(0, self, self._fire)  # after the views' update has been handled
        return False

    def _fire(self) -> None:
        callback, self._callback = self._callback, None
        if callback is not None:
            callback()
            self.deleteLater()
