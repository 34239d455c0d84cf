"""The gate every regex passes before it is compiled: a pattern too long, or repeating too much, is
refused in one line instead of letting the regex engine build it.

Compiling is not free: ``regex`` lays out each copy a counted repeat asks for, so ``a{10000000}``
takes seconds and gigabytes, ``((((a{100}){100}){100}){100})`` tens of gigabytes, and a 5 MB pattern
a minute. The gate reads the pattern without compiling it (:mod:`.regex_scan`): it is at most
:data:`MAX_PATTERN_CHARS` characters long, and its *weight* (each piece's length times the counts of
the repeats around it, ``{3}``, ``{1,3}``, ``{3,}``, ``{,3}``, added up) is at most
:data:`MAX_PATTERN_WEIGHT`. Every published pre-tokenizer weighs under a thousand; the limit lets a
pattern cost the engine a few tens of megabytes at most. A pattern that calls a group or itself
(``(?R)``, ``(?1)``, ``(?-1)``, ``(?&name)``, ``(?P>name)``) has no weight at all: a call may
recurse without reading a character (``(?R)*`` took hundreds of megabytes in a quarter of a
second), so it is refused before it is compiled or tried, like an unbounded repeat.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..errors import PretokenizerError
from .regex_scan import Piece, interval_bound, scan_pattern

# Longest pattern compiled (o200k's, the longest published pre-tokenizer, is about 400 characters).
MAX_PATTERN_CHARS = 10_000
# Largest weight compiled: copies of pattern characters the engine would lay out, nested repeats
# multiplied. About 300 bytes each in ``regex``, so at most some 30-80 MB.
MAX_PATTERN_WEIGHT = 100_000


# A call of a group or of the whole pattern, in a pattern whose escapes and sets are masked.
_CALL = re.compile(r"\(\?(?:R\)|[+-]?[0-9]+\)|&|P>)")


class PatternTooLargeError(PretokenizerError):
    """A regex is too long, or its nested repeat counts too large, to compile in bounded memory."""


def shorten_pattern(pattern: str, width: int = 40) -> str:
    """The pattern quoted on one line for a message: control characters escaped, long ones cut."""
    head = pattern[: width * 4]
    shown = "".join(c if c.isprintable() else repr(c)[1:-1] for c in head)
    if len(shown) > width or len(head) < len(pattern):
        shown = shown[: width - 1] + "\u2026"
    return f"'{shown}'"


def check_pattern_bounds(pattern: str, what: str = "the pre-tokenizer regex") -> None:
    """Refuse ``pattern`` with a one-line :class:`PatternTooLargeError` unless it is safe to compile.

    ``what`` names where the pattern came from in the message (``"the --pattern regex"``).
    """
    if len(pattern) > MAX_PATTERN_CHARS:
        raise PatternTooLargeError(
            f"{what} {shorten_pattern(pattern)} is {len(pattern):,} characters long; "
            f"tokviz compiles patterns of at most {MAX_PATTERN_CHARS:,}"
        )
    if calls_a_group(pattern):
        raise PatternTooLargeError(
            f"{what} {shorten_pattern(pattern)} calls a group or itself ((?R), (?1), (?&name)): "
            "a call may recurse without end, so tokviz compiles no pattern with one"
        )
    if pattern_weight(pattern, MAX_PATTERN_WEIGHT) > MAX_PATTERN_WEIGHT:
        raise PatternTooLargeError(
            f"{what} {shorten_pattern(pattern)} repeats too much: its nested repeat counts ask for "
            f"over {MAX_PATTERN_WEIGHT:,} copies of pattern text, more than tokviz compiles"
        )


def calls_a_group(pattern: str) -> bool:
    """Whether ``pattern`` calls one of its groups or itself (read without compiling it; a ``(?1)``
    inside a character set or after a backslash is no call)."""
    masked = "".join(p.text if p.kind == "char" else "_" for p in scan_pattern(pattern))
    return _CALL.search(masked) is not None


@dataclass
class _Group:
    """The weight of a group being read, and that of its last item (what a quantifier repeats)."""

    total: int = 0
    last: int = 0


@dataclass
class _Weigher:
    """Adds up a pattern's weight piece by piece (see :func:`pattern_weight`)."""

    spent: int = 0
    groups: list[_Group] = field(default_factory=lambda: [_Group()])

    def add(self, piece: Piece) -> None:
        """Weigh one piece: a group opens or closes, a quantifier repeats the last item, else it counts."""
        if piece.kind == "interval":
            self._repeat(interval_bound(piece.text))
        elif piece.kind == "char" and piece.text == "(":
            self.groups.append(_Group())
        elif piece.kind == "char" and piece.text == ")" and len(self.groups) > 1:
            inner = self.groups.pop()
            self._item(inner.total + 2, already_spent=inner.total)
        elif piece.kind == "char" and piece.text in "*+?":
            self._item(1, keep_last=True)
        else:
            self._item(len(piece.text))

    def _item(self, weight: int, *, already_spent: int = 0, keep_last: bool = False) -> None:
        group = self.groups[-1]
        group.total += weight
        self.spent += weight - already_spent
        if not keep_last:
            group.last = weight

    def _repeat(self, count: int) -> None:
        group = self.groups[-1]
        extra = group.last * (count - 1)
        group.total += extra
        group.last *= count
        self.spent += extra


def pattern_weight(pattern: str, stop_above: int | None = None) -> int:
    """How many characters of pattern text compiling ``pattern`` lays out, nested repeats multiplied.

    ``(ab){3}c`` weighs ``4 * 3 + 1 = 13`` (the group's parentheses count); ``{m,n}`` counts ``n``,
    ``{m,}`` counts ``m``; ``*``, ``+`` and ``?`` loop over one copy. Reading stops once the weight
    passes ``stop_above``, so the numbers stay small whatever the counts.
    """
    weigher = _Weigher()
    for piece in scan_pattern(pattern):
        weigher.add(piece)
        if stop_above is not None and weigher.spent > stop_above:
            break
    return weigher.spent
