"""What a restored panel needs waits for the views' first tokens, or a few seconds at most."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QObject, Signal
from pytestqt.qtbot import QtBot

from tokviz.gui.workers import settle
from tokviz.gui.workers.settle import Settle


class Views(QObject):
    """Stands in for the window: says when its views show the text."""

    textTokenized = Signal()


def test_the_call_waits_for_the_views_then_runs_once(qtbot: QtBot) -> None:
    views = Views()
    start_up = Settle(views)
    views.textTokenized.connect(start_up.mark_settled)
    calls: list[str] = []
    start_up.after_settled(lambda: calls.append("restored panel"))
    qtbot.wait(20)  # nothing may run: an absence has no signal to wait for, only time for a wrong call
    assert calls == [] and not start_up.is_settled()

    views.textTokenized.emit()
    qtbot.waitUntil(lambda: calls == ["restored panel"], timeout=2000)
    views.textTokenized.emit()
    qtbot.wait(20)  # a second call would come through the loop; its absence has no signal
    assert calls == ["restored panel"], "once only"
    start_up.after_settled(lambda: calls.append("opened later"))
    assert calls == ["restored panel", "opened later"], "settled views: at once"


def test_views_that_never_fill_do_not_hold_the_panel_forever(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(settle, "FALLBACK_MS", 30)
    start_up = Settle()
    calls: list[int] = []
    start_up.after_settled(lambda: calls.append(1))
    qtbot.waitUntil(lambda: calls == [1], timeout=2000)
    start_up.mark_settled()
    qtbot.wait(20)  # a second call would come through the loop; its absence has no signal
    assert calls == [1]
