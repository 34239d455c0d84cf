"""Ending the app with SIGTERM (a logout, a shutdown, ``kill``) keeps the session, as Ctrl+Q does.

Qt alone dies on SIGTERM without a close event: the views, the text, the theme and the window
layout were lost and an ``autosave-<pid>.lock`` stayed behind. Here SIGTERM saves the window's
settings and quits the application cleanly (which also discards the autosave and its lock). It
asks nothing: a training run in progress is simply stopped with the process, as the system wants.
"""

from __future__ import annotations

import signal
from collections.abc import Callable
from typing import Protocol

from PySide6.QtCore import QCoreApplication, QObject, QTimer

# Python runs a signal handler only when the interpreter gets control; this wakes it while Qt waits.
WAKE_MS = 250


class _Saves(Protocol):
    def save_settings(self) -> None: ...


def save_and_quit(window: _Saves, quit_app: Callable[[], None] | None = None) -> None:
    """Write the window's session (views, text, theme, zoom, layout) and quit the application."""
    window.save_settings()
    (quit_app or QCoreApplication.quit)()


def install_termination(window: _Saves, parent: QObject) -> QTimer:
    """Make SIGTERM save ``window``'s session and quit; returns the wake-up timer (owned by ``parent``)."""

    def on_sigterm(_signum: int, _frame: object) -> None:
        # Leave the handler first: the save runs as an ordinary event of the GUI thread.
        QTimer.singleShot(0, lambda: save_and_quit(window))

    signal.signal(signal.SIGTERM, on_sigterm)
    wake = QTimer(parent)
    wake.setObjectName("sigtermWake")
    wake.timeout.connect(lambda: None)
    wake.start(WAKE_MS)
    return wake
