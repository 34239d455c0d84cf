"""The command line's standard output and error, through which no raw control character passes.

Every command prints names it did not choose: file names, model names, deck titles, tokens. The
entry point wraps ``sys.stdout`` and ``sys.stderr`` for the whole run (:func:`escaped_streams`),
so every write, argparse's own usage and error messages and Python's warnings included, shows
control characters as visible escapes (:func:`tokviz.core.io.safe_text.terminal_output`) and a new
command cannot forget to. Line ends and tabs pass, since the output is made of lines: a name
holding a newline is escaped where it is printed (``terminal_text``), as the tables and
:func:`~tokviz.cli.command.print_note` do.

tokviz's own control sequences, the progress line redrawn in place, go around the wrapper
through :func:`redraw_line` and :func:`clear_line`, with their text escaped.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, Any, NoReturn, TextIO, cast

from tokviz.core.io.safe_text import terminal_output, terminal_text


class EscapedStream:
    """A text stream whose writes reach ``stream`` with control characters escaped (line ends and tabs kept).

    Everything else (``fileno``, ``isatty``, ``flush``, ``encoding``, ``buffer``) is the wrapped
    stream's own; :attr:`unescaped` is the stream itself, for a progress line's ``\\r``.
    """

    def __init__(self, stream: IO[str]) -> None:
        self.unescaped = stream

    def write(self, text: str) -> int:
        self.unescaped.write(terminal_output(text))
        return len(text)

    def writelines(self, lines: Iterator[str]) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.unescaped, name)


@contextmanager
def escaped_streams() -> Iterator[None]:
    """Wrap ``sys.stdout`` and ``sys.stderr`` in :class:`EscapedStream` for the block, then put them back."""
    saved = sys.stdout, sys.stderr
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if stream is not None and not isinstance(stream, EscapedStream):
            setattr(sys, name, cast(TextIO, EscapedStream(stream)))
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved


def _unescaped(stream: IO[str]) -> IO[str]:
    inner = getattr(stream, "unescaped", stream)
    return cast(IO[str], inner)


def redraw_line(stream: IO[str], text: str) -> None:
    """Draw ``text`` (escaped) over the terminal's current line: carriage return, text, erase the rest."""
    _unescaped(stream).write("\r" + terminal_text(text) + "\x1b[K")


def clear_line(stream: IO[str]) -> None:
    """Erase the terminal's current line (a progress line that is done) and return to its start."""
    _unescaped(stream).write("\r\x1b[K")


class ArgumentParser(argparse.ArgumentParser):
    """argparse's parser whose error line shows the arguments it quotes escaped (a file name
    ``*`` expanded to may hold a newline or an escape sequence), as one line."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {terminal_text(message)}\n")
