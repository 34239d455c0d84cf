"""Coalesce bursts of GUI events into one call: typing pauses, edits, data changes.

One small class instead of a hand-made QTimer in every panel. superqt's ``QSignalDebouncer`` does
the same, but importing superqt loads qtpy and pygments (about 180 ms before the window shows, a
third of tokviz's start-up), so tokviz keeps this one.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, QTimer, Signal


class Debouncer(QObject):
    """``triggered`` fires once, ``ms`` after the last :meth:`trigger` of a burst.

    With ``ms=0`` it fires on the next turn of the event loop: every call made while handling the
    current events costs one. Owned by a QObject parent, it dies (and stops) with it.
    """

    triggered = Signal()

    def __init__(self, ms: int, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(ms)
        self._timer.timeout.connect(self.triggered)

    def trigger(self, *_args: object) -> None:
        """(Re)start the wait; connect any signal to it, whatever it carries."""
        self._timer.start()

    def set_interval(self, ms: int) -> None:
        """Wait ``ms`` after the next trigger (a pending wait keeps its old deadline)."""
        self._timer.setInterval(ms)

    def is_pending(self) -> bool:
        """True while a call is waiting to fire."""
        return self._timer.isActive()

    def cancel(self) -> None:
        """Drop the pending call, if any."""
        self._timer.stop()

    def flush(self) -> None:
        """Fire now if a call is pending."""
        if self._timer.isActive():
            self._timer.stop()
            self.triggered.emit()
