"""Python's garbage is collected in the GUI thread, never in a worker that might destroy a widget."""

from __future__ import annotations

import gc
import threading
import weakref

from tokviz.gui.workers.gc_guard import collect_garbage_in_gui_thread


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
