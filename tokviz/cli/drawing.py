"""The way from a headless command to the desktop app's drawing code: Qt offscreen, imported late.

Only the commands that draw (``render``, ``replay --render``, ``compare --plot``) come here, and
only once their options are checked, so every other command runs without Qt installed.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import MutableMapping
from types import ModuleType


def use_offscreen_qt_without_display(environ: dict[str, str] | None = None) -> bool:
    """Make Qt render without a window system when there is no display; returns True if it did.

    On Linux and other X11/Wayland systems with neither ``DISPLAY`` nor ``WAYLAND_DISPLAY`` set,
    Qt could not start its usual platform plugin, so ``QT_QPA_PLATFORM=offscreen`` is set (a
    value the user chose is kept). Must run before Qt is imported.
    """
    env: MutableMapping[str, str] = os.environ if environ is None else environ
    if env.get("QT_QPA_PLATFORM") or sys.platform in ("win32", "darwin"):
        return False
    if env.get("DISPLAY") or env.get("WAYLAND_DISPLAY"):
        return False
    env["QT_QPA_PLATFORM"] = "offscreen"
    return True


def import_drawing(module: str, needs: str) -> ModuleType:
    """The GUI drawing ``module`` (e.g. ``tokviz.gui.drawing.strips``), with Qt offscreen if need be.

    ``needs`` starts the error when Qt cannot be imported: "--plot needs PySide6 and pyqtgraph".
    """
    from tokviz.core.errors import ExportError

    use_offscreen_qt_without_display()
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ExportError(f"{needs}, which could not be imported ({exc})") from None
