"""Workarounds for defects of the Qt binding that tokviz cannot avoid by writing different code.

PySide6 6.12.0 on CPython 3.11 returns ``None`` from every void C++ method without taking a new
reference to it, so each call (``painter.setBrush``, ``widget.update``, ...) lowers ``None``'s
reference count by one. A window that paints a few thousand token boxes per frame drives it to zero
within seconds, and CPython aborts with "none_dealloc: deallocating None". CPython 3.12 and later
make ``None`` immortal, and PySide6 6.11 is not affected; the fix that belongs in the project is a
version pin, and this module keeps the app alive where the broken combination is installed.
The same release returns ``True`` from ``Signal.emit`` without a new reference, so every signal
emitted from Python lowers ``True``'s count; the two booleans get the same reserve.
"""

from __future__ import annotations

import ctypes
import platform
import sys

# Enough references that no session can spend them (one per void call).
_BALLAST = 1 << 40
_applied = False


def void_calls_leak_none() -> bool:
    """Probe: does a void Qt method lower ``None``'s reference count?"""
    if platform.python_implementation() != "CPython" or sys.version_info >= (3, 12):
        return False
    from PySide6.QtCore import QRectF

    rect = QRectF(0.0, 0.0, 1.0, 1.0)
    before = sys.getrefcount(None)
    for _ in range(64):
        rect.setWidth(1.0)
    return sys.getrefcount(None) < before - 32


def protect_none_refcount() -> bool:
    """If the installed binding leaks ``None`` references, give ``None`` a reserve it cannot use up.

    Returns True when the workaround was applied (once per process). ``None`` is never freed in
    CPython, so a larger count changes nothing else.
    """
    global _applied
    if _applied:
        return True
    if not void_calls_leak_none():
        return False
    for obj in (None, True, False):
        ctypes.c_ssize_t.from_address(id(obj)).value += _BALLAST
    _applied = True
    return True


def quiet_font_database() -> None:
    """Silence Qt's font-database warnings on the terminal.

    With colour-emoji and CJK fallback fonts, Qt prints "qt.text.font.db: OpenType support missing
    for ..." for every script a fallback font cannot shape (reported: about 25 lines after a 1 MB
    paste). The text is drawn all the same; the lines only alarm users, and there is nothing to do.
    """
    from PySide6.QtCore import QLoggingCategory

    QLoggingCategory.setFilterRules("qt.text.font.db.warning=false")
