"""Text from files and names made safe to show: in a terminal or table cell, and in a CSV cell.

A model name, a file name or a token can hold any character. Printed as it is, an ESC starts a
terminal escape sequence, a newline breaks a table row, and bytes of a file name that are not
UTF-8 (kept by Python as lone surrogates) cannot be written at all. :func:`terminal_text` shows
each such character as a visible escape (``\\x1b``, ``\\n``, ``\\xff``). A spreadsheet runs a cell
that starts with ``=``, ``+``, ``-`` or ``@`` as a formula, so :func:`csv_cell` puts a single quote
before such text cells (numbers are left as they are), as OWASP recommends against CSV injection.
"""

from __future__ import annotations

import re

# C0 controls, DEL, C1 controls, and lone surrogates (a file name's undecodable bytes).
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")
_SURROGATES = re.compile("[\ud800-\udfff]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
# Python keeps a byte 0x80-0xFF of a name that is not UTF-8 as U+DC80-U+DCFF (surrogateescape).
_ESCAPED_BYTES = range(0xDC80, 0xDD00)
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def terminal_text(text: str) -> str:
    """``text`` with every control character and undecodable byte shown as a visible escape.

    Newline, carriage return and tab become ``\\n``, ``\\r`` and ``\\t``; other C0 and C1 controls
    and DEL become ``\\xNN``; a byte of a file name that is not UTF-8 becomes ``\\xNN`` (the byte);
    any other lone surrogate ``\\udNNN``. Everything else, backslashes included, is kept.
    """
    if not _UNSAFE.search(text):
        return text
    return _UNSAFE.sub(_escape, text)


def _escape(match: re.Match[str]) -> str:
    """The visible escape for one unsafe character."""
    char = match.group()
    code = ord(char)
    if char in _NAMED:
        return _NAMED[char]
    if code in _ESCAPED_BYTES:
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def csv_cell(value: object) -> object:
    """A value for a CSV cell: text a spreadsheet would run as a formula gets a leading ``'``.

    Only text is changed (numbers, ``None`` and booleans are returned as they are): a cell that
    starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return. Undecodable bytes of a
    file name are shown as ``\\xNN`` so the file can be written as UTF-8.
    """
    if not isinstance(value, str):
        return value
    text = _SURROGATES.sub(_escape, value)
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
