"""What every ``tokviz`` command shares: the program name, exit codes, usage errors, one-line errors.

A leaf module, so the command modules and the entry point in ``tokviz/cli/__init__.py`` can all
import it without importing each other.
"""

from __future__ import annotations

import argparse
import contextvars
import functools
import sys
import threading
from collections.abc import Callable
from typing import Protocol, TypeVar

T = TypeVar("T")

PROG = "tokviz"

# Exit codes: argparse's 2 for usage errors, 130 (128 + SIGINT) for Ctrl+C, like a shell.
EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


class UsageError(Exception):
    """A combination of options that argparse cannot express; reported like argparse does (exit 2)."""


class Command(Protocol):
    """A command module (``tokviz/cli/<name>.py``): its options and what it does with them."""

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        """Add the command's options and arguments to its subparser."""

    def run(self, args: argparse.Namespace) -> int:
        """Do the command's work and return the exit status (raise :class:`UsageError` for bad options)."""


def print_error(message: str) -> None:
    """``tokviz: error: MESSAGE`` on one line of standard error."""
    from tokviz.core.io.safe_text import terminal_text

    one_line = terminal_text(" ".join(message.split()))
    print(f"{PROG}: error: {one_line}", file=sys.stderr)


def print_note(message: str) -> None:
    """``tokviz: MESSAGE`` on one line of standard error (where a picture went, what was cut), control
    characters escaped: a newline in a file name named in the note cannot start a line of its own."""
    from tokviz.core.io.safe_text import terminal_text

    print(f"{PROG}: {terminal_text(message)}", file=sys.stderr)


def warns_on_cuts(run: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """A command's ``run`` that ends its work with one warning line when it cut text where no exact
    place was (a very long pre-token, a long stretch; see :mod:`tokviz.core.pretok.stretches`)."""

    @functools.wraps(run)
    def counted(args: argparse.Namespace) -> int:
        from tokviz.core.pretok.stretches import counting_cuts

        with counting_cuts() as cuts:
            code = run(args)
        note = cuts.note()
        if note is not None:
            print_note(f"warning: {note}")
        return code

    return counted


def run_cancellable(work: Callable[[threading.Event], T], name: str) -> T:
    """Run ``work`` on a thread named ``name`` so Ctrl+C sets its cancel flag and waits for a clean stop.

    Raises :class:`KeyboardInterrupt` once the work has stopped after an interrupt (it ends at its
    next cancel check), and re-raises whatever else the work raised.
    """
    cancel = threading.Event()
    results: list[T] = []
    errors: list[BaseException] = []

    def target() -> None:
        try:
            results.append(work(cancel))
        except BaseException as exc:  # noqa: BLE001 - handed back to the main thread
            errors.append(exc)

    # The work sees what the caller's context holds (the count of cut text, say).
    context = contextvars.copy_context()
    worker = threading.Thread(target=context.run, args=(target,), name=name, daemon=True)
    interrupted = False
    while True:
        try:
            if worker.ident is None:
                worker.start()
            while worker.is_alive():
                worker.join(0.1)
            break
        except KeyboardInterrupt:
            interrupted = True
            cancel.set()
    if interrupted:
        raise KeyboardInterrupt
    if errors:
        raise errors[0]
    return results[0]
