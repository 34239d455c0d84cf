"""What a restored panel needs waits for the views' first tokens, or a few seconds at most."""

from __future__ import annotations

from PySide6.QtWidgets import QWidget

from tokviz.gui.workers import settle
from tokviz.gui.workers.settle import after_views_settle, mark_views_settled, views_settled


def test_the_call_waits_for_the_views_then_runs_once(qtbot) -> None:
    window = QWidget()
    qtbot.addWidget(window)
    calls: list[str] = []
    after_views_settle(window, lambda: calls.append("restored panel"))
    qtbot.wait(20)
    assert calls == [] and not views_settled(window)

    mark_views_settled(window)
    qtbot.waitUntil(lambda: calls == ["restored panel"], timeout=2000)
    mark_views_settled(window)
    qtbot.wait(20)
    assert calls == ["restored panel"], "once only"
    after_views_settle(window, lambda: calls.append("opened later"))
    assert calls == ["restored panel", "opened later"], "settled views: at once"


def test_views_that_never_fill_do_not_hold_the_panel_forever(qtbot, monkeypatch) -> None:
    monkeypatch.setattr(settle, "FALLBACK_MS", 30)
    window = QWidget()
    qtbot.addWidget(window)
    calls: list[int] = []
    after_views_settle(window, lambda: calls.append(1))
    qtbot.waitUntil(lambda: calls == [1], timeout=2000)
    mark_views_settled(window)
    qtbot.wait(20)
    assert calls == [1]
