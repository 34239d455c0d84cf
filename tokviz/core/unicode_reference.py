"""Chunk with the Unicode that tiktoken knows, so tokviz's chunks are the reference engine's.

Python's ``regex`` module follows a newer Unicode than tiktoken's Rust regex engine (measured with
tiktoken 0.14 and regex 2026.5: tiktoken knows Unicode 16.0, ``regex`` 17.0). A code point that
the newer version assigns as a letter (U+0C5C, say) is ``\\p{L}`` for ``regex`` but unassigned, and
so "not a letter", for tiktoken, and ``"\\u0C5C's"`` would be cut differently. tiktoken encodes the
text either way; the chunks tokviz shows (views, the pre-tokenizer panel, replay) must agree.

:func:`reference_pattern` rewrites a pattern so that every property class (``\\p{L}``, ``\\P{N}``,
``\\p{Lu}``, ...) means exactly the set of code points tiktoken's engine gives it: the set is found
by asking tiktoken itself (one encode over all code points, about 10-60 ms per property, once per
process), so the rewrite follows whatever Unicode the installed tiktoken has.
"""

from __future__ import annotations

import functools
import threading
from typing import Any

import regex

# Every code point a str can hold and UTF-8 can encode (the surrogates are left out).
_SURROGATES = range(0xD800, 0xE000)
MAX_CODE_POINT = 0x10FFFF

# A property escape: \p{...}, \P{...}, or the one-letter \pL / \PL forms.
_PROPERTY = regex.compile(r"\\([pP])(\{[^}]*\}|[A-Za-z])")


@functools.cache
def _all_code_points() -> str:
    return "".join(chr(c) for c in range(MAX_CODE_POINT + 1) if c not in _SURROGATES)


@functools.cache
def reference_members(prop: str) -> frozenset[int] | None:
    """The code points tiktoken's regex engine matches with the class ``prop`` (e.g. ``\\p{L}``).

    None when tiktoken's engine does not accept the class (then the pattern keeps ``regex``'s own
    meaning). Found by encoding every code point with a one-byte-per-rank table under the pattern
    ``prop``: tiktoken keeps only the text its pattern matches, so the matched characters come back.
    """
    import tiktoken

    try:
        probe = tiktoken.Encoding(
            "tokviz-unicode-probe",
            pat_str=prop,
            mergeable_ranks={bytes([b]): b for b in range(256)},
            special_tokens={},
        )
    except ValueError:
        return None
    matched = bytes(probe.encode_ordinary(_all_code_points())).decode("utf-8")
    return frozenset(map(ord, matched))


def _ranges(members: frozenset[int]) -> list[tuple[int, int]]:
    """Sorted inclusive ``(first, last)`` runs of ``members``."""
    out: list[tuple[int, int]] = []
    for c in sorted(members):
        if out and out[-1][1] == c - 1:
            out[-1] = (out[-1][0], c)
        else:
            out.append((c, c))
    return out


def _escape(c: int) -> str:
    return f"\\U{c:08X}" if c > 0xFFFF else f"\\u{c:04X}"


def _class_body(members: frozenset[int], negate: bool) -> str:
    """The inside of a character class holding ``members`` (or every other code point)."""
    runs = _ranges(members)
    if negate:
        gaps: list[tuple[int, int]] = []
        start = 0
        for first, last in runs:
            if first > start:
                gaps.append((start, first - 1))
            start = last + 1
        if start <= MAX_CODE_POINT:
            gaps.append((start, MAX_CODE_POINT))
        runs = gaps
    return "".join(_escape(a) if a == b else f"{_escape(a)}-{_escape(b)}" for a, b in runs)


def _class_spans(pattern: str) -> list[tuple[int, int]]:
    """``(start, end)`` of every character class ``[...]`` of a pattern, escapes and ``[]...]`` respected."""
    spans: list[tuple[int, int]] = []
    i = 0
    n = len(pattern)
    start = -1
    while i < n:
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if start < 0 and c == "[":
            start = i
            i += 1
            if i < n and pattern[i] == "^":
                i += 1
            if i < n and pattern[i] == "]":  # a ']' first in a class is a literal
                i += 1
            continue
        if start >= 0 and c == "]":
            spans.append((start, i + 1))
            start = -1
        i += 1
    return spans


def reference_pattern(pattern: str) -> str:
    """``pattern`` with each property class replaced by the code points tiktoken's engine gives it.

    Outside a character class ``\\p{X}`` becomes ``[...]`` and ``\\P{X}`` ``[^...]``; inside one the
    same ranges are put in place (``\\P{X}`` as the complement's ranges). A property tiktoken does not
    know is left as it is. ASCII-only patterns without properties come back unchanged.
    """
    classes = _class_spans(pattern)
    out: list[str] = []
    pos = 0
    for m in _PROPERTY.finditer(pattern):
        s, e = m.span()
        if s > 0 and _escaped(pattern, s):
            continue
        inside = any(a < s < b for a, b in classes)
        prop = f"\\p{m.group(2)}"
        members = reference_members(prop)
        if members is None:
            continue
        negate = m.group(1) == "P"
        if inside:
            body = _class_body(members, negate)
        else:
            body = f"[{'^' if negate else ''}{_class_body(members, False)}]"
        out.append(pattern[pos:s])
        out.append(body)
        pos = e
    out.append(pattern[pos:])
    return "".join(out)


def _escaped(pattern: str, at: int) -> bool:
    """Whether the backslash at ``at`` is itself escaped (preceded by an odd run of backslashes)."""
    k = at - 1
    while k >= 0 and pattern[k] == "\\":
        k -= 1
    return (at - 1 - k) % 2 == 1


@functools.cache
def _python_members(prop: str) -> frozenset[int]:
    """The code points ``regex`` matches with the class ``prop`` (its own, newer Unicode)."""
    return frozenset(map(ord, regex.findall(prop, _all_code_points())))


def differing_code_points(pattern: str) -> frozenset[str]:
    """The characters whose property classes in ``pattern`` mean something else to tiktoken than to ``regex``.

    On text without any of them the two engines cut alike, so the plain pattern can be used.
    """
    out: set[int] = set()
    for m in _PROPERTY.finditer(pattern):
        if m.start() > 0 and _escaped(pattern, m.start()):
            continue
        prop = f"\\p{m.group(2)}"
        members = reference_members(prop)
        if members is not None:
            out |= members ^ _python_members(prop)
    return frozenset(map(chr, out))


@functools.lru_cache(maxsize=32)
def _prepared(pattern: str) -> tuple[frozenset[str], Any]:
    """``(differing code points, compiled exact pattern or None)`` for a pattern, once per process."""
    differing = differing_code_points(pattern)
    return differing, (regex.compile(reference_pattern(pattern)) if differing else None)


class LazyReferencePattern:
    """A pattern that cuts as tiktoken's engine would, prepared on first use (a few 10-100 ms).

    Stands in for a compiled ``regex`` pattern in a :class:`~tokviz.core.pretokenize.Pretokenizer`
    (``findall``, ``finditer``). Text holding none of :func:`differing_code_points` (nearly all
    text: they are the code points newer than tiktoken's Unicode) runs the plain pattern at full
    speed; other text runs :func:`reference_pattern`, which is exact but slower (its classes are
    long range lists).
    """

    def __init__(self, pattern: str, plain: Any) -> None:
        self.source = pattern
        self._plain = plain
        self._exact: Any = None
        self._differing: frozenset[str] | None = None
        self._lock = threading.Lock()

    def _pick(self, text: str, pos: int, endpos: int | None) -> Any:
        """The plain pattern, or the exact one when ``text[pos:endpos]`` holds a differing code point."""
        if self._differing is None:
            with self._lock:
                if self._differing is None:
                    self._differing, self._exact = _prepared(self.source)
        if not self._differing or self._differing.isdisjoint(text[pos:endpos]):
            return self._plain
        return self._exact

    def findall(self, text: str, pos: int = 0, endpos: int | None = None, **kwargs: Any) -> Any:
        """``regex.Pattern.findall`` with tiktoken's Unicode."""
        return self._pick(text, pos, endpos).findall(text, pos, endpos, **kwargs)

    def finditer(self, text: str, pos: int = 0, endpos: int | None = None, **kwargs: Any) -> Any:
        """``regex.Pattern.finditer`` with tiktoken's Unicode."""
        return self._pick(text, pos, endpos).finditer(text, pos, endpos, **kwargs)
