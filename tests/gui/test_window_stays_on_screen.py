"""A window that grows (a dock opened on a short projector) moves back inside the screen."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from tokviz.gui.window.main_window import MainWindow

from .waiting import settled


def test_a_window_that_grows_past_the_bottom_moves_up(qtbot: QtBot, window: MainWindow) -> None:
    free = window.screen().availableGeometry()
    window.resize(min(600, free.width() - 40), min(400, free.height() - 40))
    window.move(free.left() + 10, free.bottom() - 200)
    settled(qtbot, window.frameGeometry)

    window.resize(window.width(), min(free.height() - 20, window.height() + 150))

    def inside() -> bool:
        frame = window.frameGeometry()
        return frame.bottom() <= free.bottom() and frame.top() >= free.top()

    qtbot.waitUntil(inside, timeout=3000)
