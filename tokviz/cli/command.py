"""What every ``tokviz`` command shares: the program name, exit codes, usage errors, one-line errors.

A leaf module, so the command modules and the entry point in ``tokviz/cli/__init__.py`` can all
import it without importing each other.
"""

from __future__ import annotations

import argparse
import sys
from typing import Protocol

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
    one_line = " ".join(message.split())
    print(f"{PROG}: error: {one_line}", file=sys.stderr)


def print_note(message: str) -> None:
    """``tokviz: MESSAGE`` on standard error (where a picture went, what was cut)."""
    print(f"{PROG}: {message}", file=sys.stderr)
