"""The way from a headless command to the desktop app's drawing code: Qt offscreen, imported late.

Only the commands that draw (``render``, ``replay --render``, ``compare --plot``) come here, and
only once their options are checked, so every other command runs without Qt installed. They
import the drawing module inside :func:`qt_drawing`, by a plain ``import`` statement, so that
PyInstaller and the import contracts see the dependency.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, MutableMapping
from contextlib import contextmanager


def use_offscreen_qt_without_display(environ: MutableMapping[str, str] | None = None) -> bool:
    """Make Qt render without a window system when there is no display; returns True if it did.

    On Linux and other X11/Wayland systems with neither ``DISPLAY`` nor ``WAYLAND_DISPLAY`` set,
    Qt could not start its usual platform plugin, so ``QT_QPA_PLATFORM=offscreen`` is set (a
    value the user chose is kept). Must run before Qt is imported.
    """
    env = os.environ if environ is None else environ
    if env.get("QT_QPA_PLATFORM") or sys.platform in ("win32", "darwin"):
        return False
    if env.get("DISPLAY") or env.get("WAYLAND_DISPLAY"):
        return False
    env["QT_QPA_PLATFORM"] = "offscreen"
    return True


@contextmanager
def qt_drawing(needs: str) -> Iterator[None]:
    """Import GUI drawing code inside this block: Qt goes offscreen first if there is no display.

    An :class:`ImportError` in the block becomes a one-line :class:`ExportError` that starts
    with ``needs`` ("--plot needs PySide6 and pyqtgraph") and says what could not be imported.
    """
    from tokviz.core.errors import ExportError

    use_offscreen_qt_without_display()
    try:
        yield
    except ImportError as exc:
        raise ExportError(f"{needs}, which could not be imported ({exc})") from None
