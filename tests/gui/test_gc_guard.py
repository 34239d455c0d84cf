"""Python's garbage is collected in the GUI thread, never in a worker that might destroy a widget."""

from __future__ import annotations

import gc
import threading
import weakref

from PySide6.QtCore import QObject

from tokviz.gui.workers.gc_guard import GuiThreadCollector, collect_garbage_in_gui_thread


class Cycle:
    def __init__(self) -> None:
        self.me = self

    def __del__(self) -> None:
        Cycle.last_thread = threading.current_thread().name


def test_automatic_collection_is_off_and_the_gui_thread_collects_cycles(qtbot):
    guard = collect_garbage_in_gui_thread()
    assert guard is not None and collect_garbage_in_gui_thread() is guard, "installed once"
    assert not gc.isenabled()

    ref = weakref.ref(Cycle())
    # Enough young garbage that Python would collect now, made in a worker thread.
    worker = threading.Thread(target=lambda: [Cycle() for _ in range(guard.thresholds[0] * 3)])
    worker.start()
    worker.join()
    assert ref() is not None, "a worker thread allocating did not trigger a collection"
    qtbot.waitUntil(lambda: ref() is None, timeout=5000)
    assert guard.collections >= 1
    assert Cycle.last_thread == threading.main_thread().name


def test_a_second_collector_going_away_leaves_collection_off_for_the_window(qtbot):
    window_collector = collect_garbage_in_gui_thread()
    assert window_collector is not None and not gc.isenabled()
    owner = QObject()
    GuiThreadCollector(owner)
    with qtbot.waitSignal(owner.destroyed):
        owner.deleteLater()
    assert not gc.isenabled(), "the window's collector still needs automatic collection off"
