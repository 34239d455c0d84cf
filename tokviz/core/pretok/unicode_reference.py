"""Chunk with the Unicode that tiktoken knows, so tokviz's chunks are the reference engine's.

Python's ``regex`` module follows a newer Unicode than tiktoken's Rust regex engine (measured with
tiktoken 0.14 and regex 2026.5: tiktoken knows Unicode 16.0, ``regex`` 17.0). A code point that
the newer version assigns as a letter (U+0C5C, say) is ``\\p{L}`` for ``regex`` but unassigned, and
so "not a letter", for tiktoken, and ``"\\u0C5C's"`` would be cut differently. tiktoken encodes the
text either way; the chunks tokviz shows (views, the pre-tokenizer panel, replay) must agree.

:func:`reference_pattern` rewrites the parts of a pattern that depend on Unicode's tables (a
character class holding ``\\p{L}``, a lone ``\\p{N}``) so that they match exactly what tiktoken's
engine matches. The code points on which the two engines disagree are found by asking tiktoken
itself (an encode over the ~160,000 code points ``regex`` calls assigned, once per part and
process), so the rewrite follows whatever Unicode the installed tiktoken has.
"""

from __future__ import annotations

import array
import functools
import sys
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
    codes = array.array("I", range(_SURROGATES.start))
    codes.extend(range(_SURROGATES.stop, MAX_CODE_POINT + 1))
    return codes.tobytes().decode("utf-32-le" if sys.byteorder == "little" else "utf-32-be")


@functools.cache
def _candidates() -> str:
    """The code points whose properties can differ between two Unicode versions.

    Those ``regex`` calls unassigned (Cn) are unassigned in every older version too, and private
    use (Co) never changes, so only the other ~160,000 need asking tiktoken about.
    """
    return "".join(regex.findall(r"[^\p{Cn}\p{Co}]+", _all_code_points()))


def _tiktoken_matches(prop: str, text: str) -> frozenset[int] | None:
    """The characters of ``text`` that tiktoken's engine matches with the class ``prop``; None if it refuses it.

    tiktoken keeps only the text its pattern matches, so with one rank per byte (and no merges)
    the matched characters come back from the ids.
    """
    import tiktoken

    try:
        probe = tiktoken.Encoding(
            "tokviz-unicode-probe",
            pat_str=f"(?:{prop})+",  # runs, not single characters: far fewer pieces
            mergeable_ranks={bytes([b]): b for b in range(256)},
            special_tokens={},
        )
    except ValueError:
        return None
    return frozenset(map(ord, bytes(probe.encode_ordinary(text)).decode("utf-8")))


@functools.cache
def atom_difference(atom: str) -> tuple[frozenset[int], frozenset[int]] | None:
    """``(removed, added)``: code points ``regex`` matches with ``atom`` (a class or a property
    escape) that tiktoken's engine does not, and the other way round; None if tiktoken refuses it.

    Each side is asked only about the code points where an answer would be news, so tiktoken
    returns a few thousand characters, not the 140,000 letters (its encode is the slow part).
    """
    candidates = _candidates()
    ours = "".join(regex.findall(f"(?:{atom})+", candidates))
    others = "".join(regex.findall(f"(?:(?!{atom})[\\s\\S])+", candidates))
    added = _tiktoken_matches(atom, others)
    removed = _tiktoken_matches(f"(?!{atom})[\\s\\S]", ours)
    if added is None or removed is None:
        return None
    return removed, added


def reference_members(prop: str) -> frozenset[int] | None:
    r"""The code points tiktoken's regex engine matches with the class ``prop`` (e.g. ``\p{L}``).

    None when tiktoken's engine does not accept the class. ``regex``'s own members with the code
    points the two engines disagree on moved (the tests check the rewritten classes against it; patterns
    need less).
    """
    difference = atom_difference(prop)
    if difference is None:
        return None
    removed, added = difference
    ours = frozenset(map(ord, "".join(regex.findall(f"(?:{prop})+", _all_code_points()))))
    return (ours - removed) | added


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


def _class_of(members: frozenset[int]) -> str:
    """A character class holding exactly ``members``."""
    return (
        "["
        + "".join(_escape(a) if a == b else f"{_escape(a)}-{_escape(b)}" for a, b in _ranges(members))
        + "]"
    )


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


def _escaped(pattern: str, at: int) -> bool:
    """Whether the backslash at ``at`` is itself escaped (preceded by an odd run of backslashes)."""
    k = at - 1
    while k >= 0 and pattern[k] == "\\":
        k -= 1
    return (at - 1 - k) % 2 == 1


def property_atoms(pattern: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each part of ``pattern`` whose meaning depends on Unicode's tables: a
    character class holding a property escape, or a property escape outside any class."""
    classes = _class_spans(pattern)
    atoms: dict[tuple[int, int], None] = {}
    for m in _PROPERTY.finditer(pattern):
        s, e = m.span()
        if s > 0 and _escaped(pattern, s):
            continue
        inside = next(((a, b) for a, b in classes if a < s < b), None)
        atoms[inside or (s, e)] = None
    return sorted(atoms)


def reference_pattern(pattern: str) -> str:
    """``pattern`` cutting as tiktoken's engine does: each :func:`property_atoms` part ``X`` becomes
    ``(?:(?!REMOVED)X|ADDED)``, where REMOVED and ADDED are the (few) code points on which the two
    engines' Unicode tables disagree. A part tiktoken does not accept, or agrees on, stays as it is.
    """
    out: list[str] = []
    pos = 0
    for s, e in property_atoms(pattern):
        atom = pattern[s:e]
        difference = atom_difference(atom)
        if difference is None or not (difference[0] or difference[1]):
            continue
        removed, added = difference
        keep = f"(?!{_class_of(removed)}){atom}" if removed else atom
        out.append(pattern[pos:s])
        out.append(f"(?:{keep}|{_class_of(added)})" if added else f"(?:{keep})")
        pos = e
    out.append(pattern[pos:])
    return "".join(out)


def differing_code_points(pattern: str) -> frozenset[str]:
    """The characters on which ``pattern`` means something else to tiktoken than to ``regex``.

    On text without any of them the two engines cut alike, so the plain pattern can be used.
    """
    out: set[int] = set()
    for s, e in property_atoms(pattern):
        difference = atom_difference(pattern[s:e])
        if difference is not None:
            out |= difference[0] | difference[1]
    return frozenset(map(chr, out))


@functools.lru_cache(maxsize=32)
def _exact(pattern: str) -> Any:
    """:func:`reference_pattern` compiled, once per process."""
    return regex.compile(reference_pattern(pattern))


class LazyReferencePattern:
    """A pattern that cuts as tiktoken's engine would, prepared on first use (a few 10-100 ms).

    Stands in for a compiled ``regex`` pattern in a :class:`~tokviz.core.pretok.pretokenize.Pretokenizer`
    (``findall``, ``finditer``). Text holding none of :func:`differing_code_points` (nearly all
    text: they are the code points newer than tiktoken's Unicode) runs the plain pattern at full
    speed; other text runs :func:`reference_pattern` (a look-ahead per class, a little slower).
    """

    def __init__(self, pattern: str, plain: Any) -> None:
        self.source = pattern
        self._plain = plain
        self._exact: Any = None
        self._differing: frozenset[str] | None = None
        self._lock = threading.Lock()

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as its pattern (a worker process prepares its own; the lock is not copied)."""
        return (LazyReferencePattern, (self.source, self._plain))

    def _pick(self, text: str, pos: int, endpos: int | None) -> Any:
        """The plain pattern, or the exact one when ``text[pos:endpos]`` holds a differing code point."""
        if self._differing is None:
            with self._lock:
                if self._differing is None:
                    self._differing = differing_code_points(self.source)
        if not self._differing or self._differing.isdisjoint(text[pos:endpos]):
            return self._plain
        if self._exact is None:
            with self._lock:
                if self._exact is None:
                    self._exact = _exact(self.source)
        return self._exact

    def findall(self, text: str, pos: int = 0, endpos: int | None = None, **kwargs: Any) -> Any:
        """``regex.Pattern.findall`` with tiktoken's Unicode."""
        return self._pick(text, pos, endpos).findall(text, pos, endpos, **kwargs)

    def finditer(self, text: str, pos: int = 0, endpos: int | None = None, **kwargs: Any) -> Any:
        """``regex.Pattern.finditer`` with tiktoken's Unicode."""
        return self._pick(text, pos, endpos).finditer(text, pos, endpos, **kwargs)
