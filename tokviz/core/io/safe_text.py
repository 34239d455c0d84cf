"""Text from files and names made safe to show: in a terminal or table cell, and in a CSV cell.

One rule for every string that reaches a terminal, a table or a spreadsheet. A model name, a
file name, a deck title or a token can hold any character. Printed as it is, an ESC starts a
terminal escape sequence (``ESC]0;…BEL`` sets the window title, ``ESC[2J`` clears the screen), a
newline or carriage return breaks or overwrites a table row, U+202E turns the rest of a line
around, and bytes of a file name that are not UTF-8 (kept by Python as lone surrogates) cannot be
written at all. :func:`terminal_text` shows each such character as a visible escape (``\\x1b``,
``\\n``, ``\\u202e``, ``\\xff``). A spreadsheet runs a cell that starts with ``=``, ``+``, ``-`` or
``@`` as a formula, so :func:`csv_cell` escapes the same characters and puts a single quote before
such text cells (numbers are left as they are), as OWASP recommends against CSV injection.

The escapes are JSON's too where JSON has them (``\\u009b``, ``\\u202e``), so a JSON document
whose strings hold such characters stays valid JSON with the same strings after
:func:`terminal_output` (the command line passes everything it prints through it).
"""

from __future__ import annotations

import re

# C0 controls, DEL, C1 controls, the bidirectional marks, embeddings, overrides and isolates, the
# line and paragraph separators, and lone surrogates (a file name's undecodable bytes).
_BEYOND_C0 = "\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff"
_UNSAFE = re.compile(f"[\x00-\x1f{_BEYOND_C0}]")
# The same but for newline and tab: what may reach a terminal as it is in a command's output.
_UNSAFE_IN_OUTPUT = re.compile(f"[\x00-\x08\x0b-\x1f{_BEYOND_C0}]")
_SURROGATES = re.compile("[\ud800-\udfff]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
# Python keeps a byte 0x80-0xFF of a name that is not UTF-8 as U+DC80-U+DCFF (surrogateescape).
_ESCAPED_BYTES = range(0xDC80, 0xDD00)
_FORMULA_STARTS = ("=", "+", "-", "@")


def terminal_text(text: str) -> str:
    """``text`` with every control character and undecodable byte shown as a visible escape.

    Newline, carriage return and tab become ``\\n``, ``\\r`` and ``\\t``; other C0 controls
    ``\\xNN``; DEL, C1 controls, bidirectional controls and line separators ``\\uNNNN``; a byte of
    a file name that is not UTF-8 ``\\xNN`` (the byte); any other lone surrogate ``\\udNNN``.
    Everything else, backslashes included, is kept.
    """
    if not _UNSAFE.search(text):
        return text
    return _UNSAFE.sub(_escape, text)


def terminal_output(text: str) -> str:
    """Text a command prints, as :func:`terminal_text` shows it but with its line ends and tabs kept.

    The command line's standard output and error pass every write through this, so no command
    can put a raw escape sequence on a terminal even where it forgot to escape a name; a newline
    inside a name still needs :func:`terminal_text`, since here it cannot be told from a line end.
    """
    if not _UNSAFE_IN_OUTPUT.search(text):
        return text
    return _UNSAFE_IN_OUTPUT.sub(_escape, text)


def _escape(match: re.Match[str]) -> str:
    """The visible escape for one unsafe character."""
    char = match.group()
    code = ord(char)
    if char in _NAMED:
        return _NAMED[char]
    if code in _ESCAPED_BYTES:
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code < 0x20 else f"\\u{code:04x}"


def csv_cell(value: object) -> object:
    """A value for a CSV cell: text escaped as :func:`terminal_text` does, and a leading ``'``
    before text a spreadsheet would run as a formula.

    Only text is changed (numbers, ``None`` and booleans are returned as they are): no control
    character reaches the file (``cat`` of it is safe, a row stays one line), and a cell that
    starts with ``=``, ``+``, ``-`` or ``@`` starts with ``'`` instead.
    """
    if not isinstance(value, str):
        return value
    text = terminal_text(value)
    return "'" + text if text.startswith(_FORMULA_STARTS) else text


def encodable(value: object) -> object:
    """``value`` (JSON-ready: dicts, lists, strings, numbers) with every string UTF-8 can encode.

    Undecodable bytes of a file name become ``\\xNN`` text; nothing else changes, since JSON
    escapes control characters itself.
    """
    if isinstance(value, str):
        return _SURROGATES.sub(_escape, value)
    if isinstance(value, dict):
        return {encodable(k): encodable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [encodable(v) for v in value]
    return value
