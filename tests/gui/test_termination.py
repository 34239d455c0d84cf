"""SIGTERM (a logout, ``kill``) saves the session (views, text, theme) and quits cleanly, as Ctrl+Q."""

from __future__ import annotations

import signal

import pytest
from PySide6.QtCore import QCoreApplication
from pytestqt.qtbot import QtBot

from tokviz.gui.settings import THEME, VIEWS
from tokviz.gui.window.termination import install_termination

from .fixture_types import MakeWindow


def test_sigterm_saves_the_session_and_quits(
    qtbot: QtBot, make_window: MakeWindow, monkeypatch: pytest.MonkeyPatch
) -> None:
    window = make_window(text="kept across a logout", size=(1024, 768))
    window.appearance.set_theme("dark")
    window.add_view("bytes")
    quits: list[bool] = []
    monkeypatch.setattr(QCoreApplication, "quit", lambda: quits.append(True))
    previous = signal.getsignal(signal.SIGTERM)
    try:
        wake = install_termination(window, window)
        assert wake.isActive()
        handler = signal.getsignal(signal.SIGTERM)
        assert callable(handler)
        handler(signal.SIGTERM, None)
        qtbot.waitUntil(lambda: bool(quits), timeout=5000)
    finally:
        signal.signal(signal.SIGTERM, previous)

    assert window.settings.get(THEME) == "dark"
    assert "bytes" in window.settings.get(VIEWS)
