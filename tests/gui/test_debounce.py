"""The GUI's one debouncer: a burst of triggers costs one call, after the burst."""

from __future__ import annotations

from PySide6.QtCore import QObject

from tokviz.gui.workers.debounce import Debouncer


def test_a_burst_fires_once_after_the_last_trigger(qtbot):
    debouncer = Debouncer(30)
    calls: list[int] = []
    debouncer.triggered.connect(lambda: calls.append(1))
    for _ in range(20):
        debouncer.trigger("any", "arguments")
    assert debouncer.is_pending() and calls == []
    qtbot.waitUntil(lambda: calls == [1], timeout=2000)
    assert not debouncer.is_pending()
    qtbot.wait(60)  # twice the delay: a second call would have come; its absence has no signal
    assert calls == [1], "nothing more without a new trigger"


def test_cancel_drops_the_call_and_flush_makes_it_now(qtbot):
    debouncer = Debouncer(10_000)
    calls: list[str] = []
    debouncer.triggered.connect(lambda: calls.append("fired"))
    debouncer.trigger()
    debouncer.cancel()
    debouncer.flush()
    assert calls == [] and not debouncer.is_pending()
    debouncer.trigger()
    debouncer.flush()
    assert calls == ["fired"] and not debouncer.is_pending()


def test_zero_waits_for_the_next_turn_of_the_event_loop(qtbot):
    debouncer = Debouncer(0)
    calls: list[int] = []
    debouncer.triggered.connect(lambda: calls.append(1))
    debouncer.trigger()
    debouncer.trigger()
    assert calls == []
    qtbot.waitUntil(lambda: calls == [1], timeout=1000)


def test_it_goes_away_with_its_owner(qtbot):
    owner = QObject()
    debouncer = Debouncer(10, owner)
    destroyed: list[bool] = []
    debouncer.destroyed.connect(lambda: destroyed.append(True))
    owner.deleteLater()
    qtbot.waitUntil(lambda: destroyed == [True], timeout=1000)
