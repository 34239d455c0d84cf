"""Start-up order: what a restored panel needs waits until the window is up and its views are filled.

At launch the views' first tables are what the user came for. A panel restored from the last
session (the merge timeline: GPT-2's merges, a trace in a worker, pyqtgraph's import) would compete
with them for the one Python thread that runs, so its work waits in a :class:`Settle`, which the
window tells when its views first show their tokens (it connects its ``textTokenized`` signal to
:meth:`Settle.mark_settled`), or runs it after a few seconds if that never happens (a tokenizer
that failed to load). :func:`after_first_paint` waits for a window's first paint.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import QWidget

# However long the views take, a restored panel starts after this (ms).
FALLBACK_MS = 4000


class Settle(QObject):
    """Whether the views have shown their first tokens yet; ``settled()`` fires once when they have."""

    settled = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._settled = False

    def is_settled(self) -> bool:
        """True once :meth:`mark_settled` was called."""
        return self._settled

    def mark_settled(self) -> None:
        """The views show the tokens of the text for the first time (later calls change nothing)."""
        if not self._settled:
            self._settled = True
            self.settled.emit()

    def after_settled(self, callback: Callable[[], object]) -> None:
        """Run ``callback`` once in the GUI thread after the views are first filled (at once if they
        are), or after :data:`FALLBACK_MS` at the latest."""
        if self._settled:
            callback()
            return
        _Waiter(self, callback)


class _Waiter(QObject):
    """One callback waiting for its :class:`Settle` or the fallback, whichever comes first."""

    def __init__(self, settle: Settle, callback: Callable[[], object]) -> None:
        super().__init__(settle)
        self._callback: Callable[[], object] | None = callback
        settle.settled.connect(self._fire_soon)  # a bound method: dropped with this waiter
        QTimer.singleShot(FALLBACK_MS, self, self._fire)

    def _fire_soon(self) -> None:
        QTimer.singleShot(0, self, self._fire)  # after the views' update has been handled, not inside it

    def _fire(self) -> None:
        callback, self._callback = self._callback, None
        if callback is not None:
            callback()
            self.deleteLater()


class FirstPaint(QObject):
    """Watches a widget until it first paints, then runs the calls that waited for that."""

    def __init__(self, widget: QWidget) -> None:
        super().__init__(widget)
        self._painted = False
        self._calls: list[Callable[[], object]] = []
        widget.installEventFilter(self)

    @property
    def painted(self) -> bool:
        """True once the widget has painted."""
        return self._painted

    def after(self, callback: Callable[[], object]) -> None:
        """Run ``callback`` once, just after the first paint (at once if it is over)."""
        if self._painted:
            callback()
        else:
            self._calls.append(callback)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint and not self._painted:
            watched.removeEventFilter(self)
            self._painted = True
            QTimer.singleShot(0, self, self._fire)  # after this paint is done
        return False

    def _fire(self) -> None:
        calls, self._calls = self._calls, []
        for call in calls:
            call()


def first_paint_of(widget: QWidget) -> FirstPaint:
    """The watch on ``widget``'s first paint (made on first use: make it before the widget shows)."""
    watch = widget.findChild(FirstPaint, options=Qt.FindChildOption.FindDirectChildrenOnly)
    return watch if watch is not None else FirstPaint(widget)


def after_first_paint(widget: QWidget, callback: Callable[[], object]) -> None:
    """Run ``callback`` in the GUI thread once ``widget`` has painted for the first time (at once
    if it has), so that start-up work a hidden or restored dock needs never delays the window."""
    first_paint_of(widget).after(callback)
