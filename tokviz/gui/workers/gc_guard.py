"""Collect Python's garbage in the GUI thread only, so a worker thread never destroys a widget.

Python's cyclic garbage collector runs in whichever thread happens to allocate when a threshold is
crossed. With background jobs encoding text, that is often a pool thread; if the garbage holds a
QWidget (a closed panel's menu, a pyqtgraph plot), its C++ destructor then runs in that thread
and waits for Qt's lock while the GUI thread, inside Qt, waits for the GIL: the window freezes
for good. So automatic collection is switched off while the window runs (a hold from
:mod:`tokviz.core.io.interpreter`, given back when the collector is destroyed), and a timer in the GUI
thread collects each generation once Python's own thresholds say it is due.
"""

from __future__ import annotations

import gc

import shiboken6
from PySide6.QtCore import QCoreApplication, QObject, QTimer

from tokviz.core.io.interpreter import pause_automatic_gc

# How often the GUI thread looks at the allocation counts; a collection of the young generation
# takes well under a millisecond, so this costs nothing noticeable.
CHECK_INTERVAL_MS = 200

_guard: GuiThreadCollector | None = None


class GuiThreadCollector(QObject):
    """Disables automatic garbage collection and collects on a timer in the thread that owns it."""

    def __init__(self, parent: QObject | None = None, interval_ms: int = CHECK_INTERVAL_MS) -> None:
        super().__init__(parent)
        self.thresholds = gc.get_threshold()
        self.collections = 0
        self.automatic_gc_paused = pause_automatic_gc()
        self.timer = QTimer(self)
        self.timer.setInterval(interval_ms)
        self.timer.timeout.connect(self.collect_if_due)
        self.timer.start()
        self.destroyed.connect(self.automatic_gc_paused.release)

    def collect_if_due(self) -> None:
        """Collect the oldest generation whose count passed its threshold (as Python itself would)."""
        counts = gc.get_count()
        for generation in (2, 1, 0):
            if counts[generation] > self.thresholds[generation]:
                gc.collect(generation)
                self.collections += 1
                return


def collect_garbage_in_gui_thread() -> GuiThreadCollector | None:
    """Install the collector once, owned by the running application (None without one)."""
    global _guard
    app = QCoreApplication.instance()
    if app is None:
        return None
    if _guard is None or not shiboken6.isValid(_guard) or _guard.parent() is not app:
        _guard = GuiThreadCollector(app)
    return _guard
