"""Long stretches of text, cut so that no encoder ever holds more than a bounded piece of one.

Every path that reads text of any size (training, counting, evaluating, encoding a file) goes
through the two bounds here, so a 200 MB line costs the memory of a piece, not of the line:

* :class:`PartCutter` gathers a stream of text into parts of about a given size, cut only where
  the caller's rule says cutting cannot change the result (a special token, a space after a
  non-space for the named patterns). A stretch with no such place is cut anyway at
  ``longest_part`` characters (:data:`LONGEST_ENCODED_PART` for encoders).
* :func:`encoding_pieces` cuts a pre-token longer than
  :data:`~tokviz.core.pretok.pretokenize.LONGEST_PRETOKEN` characters into the pieces training counts
  (:func:`~tokviz.core.pretok.pretokenize.pretoken_pieces`); every encoder merges those pieces, never
  the whole pre-token, before any native library sees it.

A cut where no exact place was found can change a token or two next to it. Each is counted in
the :class:`CutCount` of the work under way (:func:`counting_cuts`), so a command can say in one
line how many it made; text with none is encoded exactly.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Generator, Iterable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass

import regex

from .pretokenize import LONGEST_PRETOKEN, pretoken_pieces

# An encoder is given at most this many characters of text with no exact place to cut: a part
# of a long line is cut there, and memory follows this size, not the line's.
LONGEST_ENCODED_PART = 1 << 20

# A space after a non-space: a pre-token boundary for every published pattern (GPT-2's, cl100k's,
# o200k's), because no pre-token holds a space after its first non-space character.
_SPACE_CUT_BACK = regex.compile(r"(?r)(?<=\S) ")
_SPACE_CUT_FORWARD = regex.compile(r"(?<=\S) ")


@dataclass
class CutCount:
    """How often one piece of work cut text where no exact place was.

    ``stretches``: parts cut at :data:`LONGEST_ENCODED_PART` (or a caller's ``longest_part``)
    characters for want of a safe place; ``pretokens``: pre-tokens longer than
    :data:`~tokviz.core.pretok.pretokenize.LONGEST_PRETOKEN` characters merged in pieces.
    """

    stretches: int = 0
    pretokens: int = 0

    def add(self, other: CutCount) -> None:
        """Add ``other``'s cuts to these."""
        self.stretches += other.stretches
        self.pretokens += other.pretokens

    def note(self, longest_part: int = LONGEST_ENCODED_PART) -> str | None:
        """One line saying what was cut and how, or None when nothing was."""
        said = []
        if self.pretokens:
            many = "pre-tokens" if self.pretokens != 1 else "pre-token"
            said.append(
                f"{self.pretokens:,} {many} longer than {LONGEST_PRETOKEN:,} characters "
                f"{'were' if self.pretokens != 1 else 'was'} encoded in pieces of {LONGEST_PRETOKEN:,}"
            )
        if self.stretches:
            n = self.stretches
            said.append(
                f"{n:,} {'stretch' if n == 1 else 'stretches'} of text with no place where encoding can be "
                f"cut exactly {'was' if n == 1 else 'were'} cut every {longest_part:,} characters"
            )
        return "; ".join(said) or None


# The counts of the work under way, innermost last: a cut is counted in each of them.
_counting: ContextVar[tuple[CutCount, ...]] = ContextVar("tokviz_cut_counts", default=())


@contextlib.contextmanager
def counting_cuts(count: CutCount | None = None) -> Iterator[CutCount]:
    """Count the cuts made inside the block (in this thread or task) into ``count`` (or a new one).

    Blocks nest: a cut is counted in every block it is made in (a command's total and each
    file's own count, say).
    """
    count = count if count is not None else CutCount()
    token = _counting.set((*_counting.get(), count))
    try:
        yield count
    finally:
        _counting.reset(token)


def _noted(stretches: int = 0, pretokens: int = 0) -> None:
    for count in _counting.get():
        count.stretches += stretches
        count.pretokens += pretokens


def encoding_pieces(chunk: str) -> list[str]:
    """``chunk`` (one pre-token) as the pieces an encoder merges: itself, or, when it is longer
    than :data:`~tokviz.core.pretok.pretokenize.LONGEST_PRETOKEN` characters, the pieces training counts
    (counted in the current :class:`CutCount`)."""
    if len(chunk) <= LONGEST_PRETOKEN:
        return [chunk]
    _noted(pretokens=1)
    return pretoken_pieces(chunk)


class PieceMemo:
    """The ids of the last few pieces of long pre-tokens an encoder merged, by their text.

    A pre-token that long is almost always a repetition (a run of one letter, NUL padding,
    ``"ab"`` a hundred million times), so its pieces repeat too: each distinct one is merged once.
    At most :attr:`SIZE` pieces are kept, so memory stays a few megabytes.
    """

    SIZE = 8

    def __init__(self) -> None:
        self._ids: dict[str, list[int]] = {}

    def ids(self, piece: str, merge: Callable[[str], list[int]]) -> list[int]:
        """The ids of ``piece``: remembered, or ``merge(piece)`` (then remembered)."""
        found = self._ids.get(piece)
        if found is None:
            found = merge(piece)
            if len(self._ids) >= self.SIZE:
                self._ids.pop(next(iter(self._ids), ""), None)
            self._ids[piece] = found
        return found


def slices(text: str, size: int) -> Iterator[str]:
    """``text`` in consecutive slices of ``size`` characters (the last shorter)."""
    for i in range(0, len(text), size):
        yield text[i : i + size]


def space_windows(text: str) -> Iterator[tuple[int, int, bool]]:
    """``(start, end, exact)`` ranges that tile ``text``, cut only at a space after a non-space.

    In an ``exact`` range every stretch between two such spaces is at most
    :data:`~tokviz.core.pretok.pretokenize.LONGEST_PRETOKEN` characters long, so no pre-token of a
    published pattern in it is longer; the other ranges are where a longer one may be. Costs one
    backward search per :data:`~tokviz.core.pretok.pretokenize.LONGEST_PRETOKEN` characters.
    """
    n = len(text)
    start = pos = 0
    while n - pos > LONGEST_PRETOKEN:
        # The regex starts at the last space in reach, found at memchr speed.
        last = text.rfind(" ", pos + 1, pos + LONGEST_PRETOKEN + 1)
        m = _SPACE_CUT_BACK.search(text, pos + 1, last + 1) if last > pos else None
        if m is not None:
            pos = m.start()
            continue
        first = text.find(" ", pos + LONGEST_PRETOKEN + 1)
        after = _SPACE_CUT_FORWARD.search(text, first) if first >= 0 else None
        stop = after.start() if after is not None else n
        if pos > start:
            yield start, pos, True
        yield pos, stop, False
        start = pos = stop
    if start < n:
        yield start, n, True


# Where a part may be cut: given the text gathered so far, the last place before its end where
# cutting cannot change the result, or 0 when there is none.
CutRule = Callable[[str], int]


class PartCutter:
    """Gathers pieces of one document into parts of about ``part_size`` characters.

    A part ends at the last place ``cut_rule`` allows once ``part_size`` characters are held; a
    stretch with no such place is cut at ``longest_part`` characters (counted in ``count`` and the
    current :class:`CutCount`). ``margin`` characters at the end are never cut (a special token
    that may still be growing). Pieces of any size are read a part at a time, and the rule is
    asked again only after the held text has doubled, so the work stays linear in the text.
    """

    def __init__(
        self,
        cut_rule: CutRule,
        part_size: int,
        longest_part: int = LONGEST_ENCODED_PART,
        margin: int = 0,
        count: CutCount | None = None,
    ) -> None:
        self.cut_rule = cut_rule
        self.part_size = max(1, part_size)
        self.longest_part = max(1, longest_part)
        self.margin = margin
        self.count = count if count is not None else CutCount()

    def parts(self, pieces: Iterable[str]) -> Iterator[str]:
        """The parts of the document given in ``pieces``; joined, they are the document."""
        held: list[str] = []
        size = 0
        next_try = self.part_size
        step = max(self.part_size, self.longest_part)
        for piece in pieces:
            for i in range(0, len(piece), step):
                sub = piece[i : i + step] if len(piece) > step else piece
                held.append(sub)
                size += len(sub)
                if size < min(next_try, self.longest_part + self.margin):
                    continue
                rest = yield from self._cut("".join(held))
                held = [rest] if rest else []
                size = len(rest)
                next_try = self.part_size if size < self.part_size else 2 * size
        rest = "".join(held)
        if rest:
            yield rest

    def _cut(self, buf: str) -> Generator[str, None, str]:
        """Yield the parts that can be cut from the front of ``buf``; returns what is left."""
        while len(buf) >= self.part_size:
            cut = self.cut_rule(buf)
            forced = cut <= 0
            if forced:
                if len(buf) < self.longest_part + self.margin:
                    break
                cut = self.longest_part
                self.count.stretches += 1
                _noted(stretches=1)
            yield buf[:cut]
            buf = buf[cut:]
            if forced and len(buf) < self.longest_part + self.margin:
                break  # the rule found no place in what is left: wait for more text
        return buf
