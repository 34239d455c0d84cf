"""A small scanner over regex source: escapes, character sets, interval quantifiers and the rest.

It reads just enough structure to rewrite a pattern for another engine (:mod:`.formats.oniguruma`)
and to weigh what compiling it costs (:mod:`.regex_bounds`) without compiling it: an escape such as
``\\p{L}`` or a set such as ``[^a-z\\]]`` is one piece, so a brace or parenthesis inside it is never
read as a quantifier or a group.
"""

from __future__ import annotations

import re
from typing import NamedTuple

# Escapes that take a braced argument: \p{L}, \N{name}, \x{263a}, \g{1}, \k{name}.
_BRACED_ESCAPES = frozenset("pPNxuUgk")
_INTERVAL = re.compile(r"\{(?:[0-9]+(?:,[0-9]*)?|,[0-9]+)\}")


class Piece(NamedTuple):
    """One piece of a pattern: ``kind`` is ``esc``, ``class``, ``interval`` or ``char``; ``depth``
    is the number of groups open after it (a ``(`` counts itself, a ``)`` no longer)."""

    kind: str
    text: str
    depth: int


def scan_pattern(pattern: str) -> list[Piece]:
    """Cut ``pattern`` into pieces that join back to it exactly (see :class:`Piece`)."""
    pieces: list[Piece] = []
    i, n, depth = 0, len(pattern), 0
    while i < n:
        c = pattern[i]
        if c == "\\":
            end, kind = escape_end(pattern, i), "esc"
        elif c == "[":
            end, kind = class_end(pattern, i), "class"
        elif c == "{" and (end := interval_end(pattern, i)) > i:
            kind = "interval"
        else:
            end, kind = i + 1, "char"
            depth += 1 if c == "(" else -1 if c == ")" else 0
        pieces.append(Piece(kind, pattern[i:end], depth))
        i = end
    return pieces


def escape_end(pattern: str, start: int) -> int:
    """Where the escape at ``start`` (a backslash) ends: after one character, or its braces."""
    end = start + 2
    if pattern[start + 1 : start + 2] in _BRACED_ESCAPES and pattern[end : end + 1] == "{":
        close = pattern.find("}", end)
        end = len(pattern) if close < 0 else close + 1
    return min(end, len(pattern))


def class_end(pattern: str, start: int) -> int:
    """Where the character set opened at ``start`` ends (after its ``]``, or the pattern's end).

    A ``]`` first in the set (after an optional ``^``) is a member; escapes and POSIX classes such
    as ``[:alpha:]`` are skipped whole.
    """
    n = len(pattern)
    j = start + 1
    if pattern[j : j + 1] == "^":
        j += 1
    if pattern[j : j + 1] == "]":
        j += 1
    while j < n and pattern[j] != "]":
        if pattern[j] == "\\":
            j += 2
        elif pattern.startswith("[:", j) and ":]" in pattern[j:]:
            j = pattern.index(":]", j) + 2
        else:
            j += 1
    return min(j + 1, n)


def interval_end(pattern: str, start: int) -> int:
    """Where the interval quantifier at ``start`` ends (``{3}``, ``{1,3}``, ``{2,}``, ``{,5}``), or
    ``start`` when the brace opens no quantifier (then it is a literal ``{``)."""
    match = _INTERVAL.match(pattern, start)
    return match.end() if match else start


def interval_bound(text: str) -> int:
    """The larger count of an interval quantifier's text (``{2,5}`` -> 5, ``{3,}`` -> 3), at least 1.

    Counts of more than 18 digits read as 10**18: no engine accepts them, and the number stays small.
    """
    low, _comma, high = text[1:-1].partition(",")
    count = high or low
    return max(int(count) if len(count) <= 18 else 10**18, 1)
