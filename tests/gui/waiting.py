"""Waiting for a layout to come to rest, where no signal says it has.

Qt lays widgets out in posted events (a layout request, a dock's first size, a font change seen by
a plot's axes), so a geometry read straight after a change may still be the old one. Instead of a
fixed sleep, :func:`settled` reads the geometry after every turn of the event loop and returns it
once two reads in a row agree.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from pytestqt.qtbot import QtBot

T = TypeVar("T")

_UNSET = object()


def settled(qtbot: QtBot, read: Callable[[], T], timeout: int = 5000) -> T:
    """The value ``read()`` comes to rest at: read after each turn of the event loop until it stops
    changing (``timeout`` ms at most, then the wait fails)."""
    last: list[object] = [_UNSET]

    def unchanged() -> bool:
        value = read()
        same = value == last[0]
        last[0] = value
        return same

    qtbot.waitUntil(unchanged, timeout=timeout)
    return read()
