"""The one owner of the interpreter settings tokviz changes for the whole process.

Two settings of the Python interpreter are shared by every thread: automatic cyclic garbage
collection and the GIL switch interval. The window collects garbage in its own thread (automatic
collection off), a training run pauses collection and shortens the switch interval, and background
jobs shorten the interval. Each user asks here and gets a hold. Holds nest and overlap: a setting
changes with the first hold and comes back to its earlier value when the last one is released, in
whatever order the holds are released and whatever was raised meanwhile, so one user never turns
collection back on under another. No other module calls ``gc.disable``, ``gc.enable``,
``gc.freeze`` or ``sys.setswitchinterval`` (tests/core/test_interpreter.py checks).
"""

from __future__ import annotations

import gc
import sys
import threading
from collections.abc import Callable
from types import TracebackType
from typing import Self

_lock = threading.Lock()
_gc_holds = 0
_gc_was_enabled = False
_interval_requests: list[float] = []
_interval_before = 0.0


class InterpreterHold:
    """One user's claim on a setting, given back by :meth:`release` or at the end of a ``with`` block."""

    def __init__(self, give_back: Callable[[], None]) -> None:
        self._give_back = give_back
        self.released = False

    def release(self) -> None:
        """Give the claim back (only the first call counts)."""
        with _lock:
            if self.released:
                return
            self.released = True
            self._give_back()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.release()


def pause_automatic_gc() -> InterpreterHold:
    """Switch automatic cyclic garbage collection off until the hold is released.

    Reference counting still frees what is dropped; only cycles wait, for ``gc.collect`` or for
    the last hold's release (which switches collection back on if it was on before the first).
    """
    global _gc_holds, _gc_was_enabled
    with _lock:
        if _gc_holds == 0:
            _gc_was_enabled = gc.isenabled()
            gc.disable()
        _gc_holds += 1
    return InterpreterHold(_resume_automatic_gc)


def _resume_automatic_gc() -> None:
    global _gc_holds
    _gc_holds -= 1
    if _gc_holds == 0 and _gc_was_enabled:
        gc.enable()


def shorten_switch_interval(seconds: float) -> InterpreterHold:
    """Make the GIL switch interval at most ``seconds`` until the hold is released.

    A thread waiting for the GIL then gets it after at most that long. With several holds the
    shortest wins; after the last, the interval is what it was before the first.
    """
    global _interval_before
    if not seconds > 0:
        raise ValueError(f"a switch interval must be positive, not {seconds!r}")
    with _lock:
        if not _interval_requests:
            _interval_before = sys.getswitchinterval()
        _interval_requests.append(seconds)
        _apply_switch_interval()
    return InterpreterHold(lambda: _withdraw_switch_interval(seconds))


def _withdraw_switch_interval(seconds: float) -> None:
    _interval_requests.remove(seconds)
    _apply_switch_interval()


def _apply_switch_interval() -> None:
    wanted = min([_interval_before, *_interval_requests])
    if sys.getswitchinterval() != wanted:
        sys.setswitchinterval(wanted)
