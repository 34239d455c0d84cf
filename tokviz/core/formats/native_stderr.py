"""Keeping a native library's panic report off the terminal while tokviz says what went wrong.

The ``tokenizers`` library is Rust: when Oniguruma stops a Split pattern at its retry limit the
library panics, and Rust prints the panic (and, with ``RUST_BACKTRACE`` set, a backtrace) straight
to file descriptor 2 before Python sees the exception. tokviz already turns the exception into one
line, so around each library call that can panic, :func:`native_stderr_held` points descriptor 2
at a scratch file: what the library wrote is dropped when the call failed and written out as it was
when the call succeeded, so no ordinary message is lost. Nested and concurrent calls share one
redirection (the first call in opens it, the last one out closes it).
"""

from __future__ import annotations

import os
import sys
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO

_STDERR = 2


class _Held:
    """The shared redirection: how many calls are inside, the saved descriptor and the scratch file."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.inside = 0
        self.saved: int | None = None
        self.scratch: IO[bytes] | None = None
        self.failed = False

    def enter(self) -> None:
        with self.lock:
            if self.inside == 0:
                self._open()
            self.inside += 1

    def leave(self, failed: bool) -> None:
        with self.lock:
            self.failed = self.failed or failed
            self.inside -= 1
            if self.inside == 0:
                self._close()

    def _open(self) -> None:
        self.failed = False
        try:
            sys.stderr.flush()
            if self.scratch is None:
                self.scratch = tempfile.TemporaryFile()
            self.scratch.seek(0)
            self.scratch.truncate()
            self.saved = os.dup(_STDERR)
            os.dup2(self.scratch.fileno(), _STDERR)
        except (OSError, ValueError, AttributeError):  # no descriptor 2 (a windowed app): nothing to hold
            self.saved = None

    def _close(self) -> None:
        if self.saved is None:
            return
        os.dup2(self.saved, _STDERR)
        os.close(self.saved)
        self.saved = None
        if self.failed or self.scratch is None:
            return
        self.scratch.seek(0)
        written = self.scratch.read()
        if written:
            os.write(_STDERR, written)


_HELD = _Held()


@contextmanager
def native_stderr_held() -> Iterator[None]:
    """Run the body with descriptor 2 held: a native library's output there is dropped if the body
    raises, and written out after it otherwise."""
    _HELD.enter()
    failed = True
    try:
        yield
        failed = False
    finally:
        _HELD.leave(failed)
