"""The tokens of one text under one tokenizer, as flat arrays, and how to update them after an edit.

Every token comes from the core's ``Tokenizer.encode_spans``; this module only stores the spans in
numpy arrays (so a 1 MB text's 250K tokens cost a few MB and splice in milliseconds) and decides
which part of an edited text must be encoded again: the window between the nearest safe cuts
around the edit (``tokviz.core.bpe.cuts``: places where the two sides encode independently), so text
there is encoded exactly as it would be in the whole text. Property tests compare every spliced
table with a fresh encode. No Qt here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from tokviz.core.bpe.cuts import cut_mode, first_cut_after, last_cut_before
from tokviz.core.bpe.tokenizer import Tokenizer, TokenSpan
from tokviz.gui.text.unknown import unknown_mask
from tokviz.gui.text.utf16 import utf16_offsets

# Token arrays use 32-bit integers: half the memory traffic of int64 when a 1 MB text's 500K
# tokens are spliced after every keystroke (texts beyond 2**31 code points are out of reach anyway).
INDEX = np.int32


@dataclass(frozen=True)
class TokenTable:
    """Token spans of ``text`` as parallel arrays (code-point and UTF-16 offsets, flags, chunk index)."""

    text: str
    ids: np.ndarray
    start: np.ndarray
    end: np.ndarray
    start16: np.ndarray
    end16: np.ndarray
    partial: np.ndarray
    special: np.ndarray
    chunk: np.ndarray

    def __len__(self) -> int:
        return int(self.ids.shape[0])

    @classmethod
    def empty(cls, text: str = "") -> TokenTable:
        """A table with no tokens (for an empty text, or before the first encode)."""
        z = np.zeros(0, dtype=INDEX)
        b = np.zeros(0, dtype=bool)
        return cls(text, z, z, z, z, z, b, b, z)

    @classmethod
    def from_spans(cls, text: str, spans: Sequence[TokenSpan]) -> TokenTable:
        """Store the core's spans for ``text`` (offsets relative to ``text``)."""
        return _arrays_from_spans(text, spans, 0, 0, 0, text)

    @classmethod
    def encode(cls, tokenizer: Tokenizer, text: str) -> TokenTable:
        """Encode the whole text with the core and store the result."""
        return _flag_unknown(tokenizer, cls.from_spans(text, tokenizer.encode_spans(text)))

    def token_index_at(self, cp: int) -> int:
        """Index of the token covering code point ``cp`` (the last one starting at or before it), or -1."""
        if not len(self):
            return -1
        i = int(np.searchsorted(self.start, cp, side="right")) - 1
        if i < 0 or cp >= self.end[i]:
            return -1
        return i

    def tokens_overlapping(self, lo: int, hi: int) -> tuple[int, int]:
        """Index range ``[first, stop)`` of the tokens that overlap code points ``[lo, hi)``.

        An empty range (a caret) selects the token the caret is in.
        """
        if hi <= lo:
            i = self.token_index_at(lo)
            return (i, i + 1) if i >= 0 else (0, 0)
        first = int(np.searchsorted(self.end, lo, side="right"))
        stop = int(np.searchsorted(self.start, hi, side="left"))
        return first, max(first, stop)

    def chunk_starts(self) -> np.ndarray:
        """Boolean array: token ``i`` begins a new pre-tokenizer chunk (the first token does not count)."""
        out = np.zeros(len(self), dtype=bool)
        if len(self) > 1:
            out[1:] = self.chunk[1:] != self.chunk[:-1]
        return out


@dataclass(frozen=True)
class TableUpdate:
    """Tokens ``[first, old_stop)`` of the old table became ``[first, new_stop)`` of ``table``."""

    table: TokenTable
    first: int
    old_stop: int
    new_stop: int
    full: bool


@dataclass(frozen=True)
class EditPlan:
    """What to encode for a new text: the window ``[start, stop)`` (code points of the new text).

    ``old_first``/``old_stop`` are the old tokens the window replaces; ``full`` means there is no
    usable old table or no safe cut, and the whole text is encoded.
    """

    text: str
    start: int
    stop: int
    old_first: int
    old_stop: int
    full: bool

    @property
    def size(self) -> int:
        """Code points to encode."""
        return self.stop - self.start

    @property
    def unchanged(self) -> bool:
        """The text is the one the old table describes: nothing to do."""
        return not self.full and self.start == self.stop and self.old_first == self.old_stop


# Every view compares the same two texts after an edit; the answer is computed once.
_last_diff: tuple[str, str, int, int] | None = None


def edit_bounds(old: str, new: str) -> tuple[int, int]:
    """Common prefix and suffix lengths of two versions of a text (the edit lies between them).

    Typing edits the text next to the previous edit, so the previous answer is tried first: one
    comparison confirms it, and the bounds are then extended from there.
    """
    global _last_diff
    cached = _last_diff
    if cached is not None and cached[0] is old and cached[1] is new:
        return cached[2], cached[3]
    limit = min(len(old), len(new))
    hint_p = min(cached[2], limit) if cached is not None else 0
    p = common_prefix_length(old, new, hint_p)
    hint_s = min(cached[3], limit - p) if cached is not None else 0
    s = common_suffix_length(old, new, limit - p, hint_s)
    _last_diff = (old, new, p, s)
    return p, s


def common_prefix_length(a: str, b: str, hint: int = 0) -> int:
    """Length of the longest common prefix, by binary search over slice comparisons (C speed).

    ``hint`` is a guess at a length that is common; when it holds, only what follows is searched.
    """
    lo, hi = 0, min(len(a), len(b))
    if 0 < hint <= hi and a[:hint] == b[:hint]:
        lo = hint
        step = 64
        # Gallop: the edit is usually within a few characters of the hint.
        while lo + step <= hi and a[lo : lo + step] == b[lo : lo + step]:
            lo += step
            step *= 4
        hi = min(hi, lo + step)
    if a[lo:hi] == b[lo:hi]:
        return hi
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[lo:mid] == b[lo:mid]:  # a[:lo] == b[:lo] is already known
            lo = mid
        else:
            hi = mid - 1
    return lo


def common_suffix_length(a: str, b: str, limit: int, hint: int = 0) -> int:
    """Length of the longest common suffix, at most ``limit`` (``hint``: a guess, as for the prefix)."""
    lo, hi = 0, min(limit, len(a), len(b))
    na, nb = len(a), len(b)
    if 0 < hint <= hi and a[na - hint :] == b[nb - hint :]:
        lo = hint
        step = 64
        while lo + step <= hi and a[na - lo - step : na - lo] == b[nb - lo - step : nb - lo]:
            lo += step
            step *= 4
        hi = min(hi, lo + step)
    if hi == lo or a[na - hi :] == b[nb - hi :]:
        return hi
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[na - mid : na - lo] == b[nb - mid : nb - lo]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def plan_edit(tokenizer: Tokenizer, old: TokenTable | None, new_text: str) -> EditPlan:
    """Find the smallest window of ``new_text`` whose encoding, spliced into ``old``, is exact."""
    if old is None:
        return EditPlan(new_text, 0, len(new_text), 0, 0, True)
    old_text = old.text
    if old_text == new_text:
        return EditPlan(new_text, 0, 0, 0, 0, False)
    mode = cut_mode(tokenizer)
    full = EditPlan(new_text, 0, len(new_text), 0, len(old), True)
    if mode == "none" or not len(old):
        return full
    p, s = edit_bounds(old_text, new_text)
    edit_end = len(new_text) - s
    if mode == "any":
        start, stop = p, edit_end
    else:
        # A cut at q looks at new_text[q - 2 : q + 1]; all of it must lie outside the edit, so that
        # the old text has the very same cut (a chunk boundary) at the matching position.
        start = last_cut_before(new_text, p)
        stop = first_cut_after(new_text, edit_end + 2)
    shift = len(new_text) - len(old_text)
    old_first = int(np.searchsorted(old.start, start, side="left"))
    old_stop = int(np.searchsorted(old.start, stop - shift, side="left"))
    # The cuts must be token boundaries of the old table too; if not, encode everything (never guess).
    if old_first < len(old) and (
        old.start[old_first] != start or (old_first and old.end[old_first - 1] > start)
    ):
        return full
    if old_stop < len(old) and old.start[old_stop] != stop - shift:
        return full
    return EditPlan(new_text, start, stop, old_first, old_stop, False)


def execute_plan(tokenizer: Tokenizer, old: TokenTable | None, plan: EditPlan) -> TableUpdate:
    """Encode the plan's window with the core and splice it into the old table.

    Safe to run in a worker thread: it reads ``old`` and builds a new table.
    """
    text = plan.text
    if plan.full or old is None:
        table = TokenTable.encode(tokenizer, text)
        return TableUpdate(table, 0, len(old) if old is not None else 0, len(table), True)
    if plan.unchanged:
        return TableUpdate(old, 0, 0, 0, False)
    window_text = text[plan.start : plan.stop]
    spans = tokenizer.encode_spans(window_text) if window_text else []
    first, old_stop = plan.old_first, plan.old_stop
    # Tokens tile the text, so the old token at the cut starts where the window starts.
    start16 = int(old.start16[first]) if first < len(old) else int(old.end16[-1])
    prev_chunk = int(old.chunk[first - 1]) if first > 0 else -1
    any_cut = cut_mode(tokenizer) == "any"
    chunk_base = max(prev_chunk, 0) if any_cut else prev_chunk + 1
    mid = _arrays_from_spans(window_text, spans, plan.start, start16, chunk_base, text)
    mid = _flag_unknown(tokenizer, mid)
    shift = len(text) - len(old.text)
    window16 = int(mid.end16[-1]) - start16 if len(mid) else 0
    old_end16 = int(old.start16[old_stop]) if old_stop < len(old) else int(old.end16[-1])
    shift16 = window16 - (old_end16 - start16)
    old_last_chunk = int(old.chunk[old_stop - 1]) if old_stop > first else prev_chunk
    new_last_chunk = int(mid.chunk[-1]) if len(mid) else prev_chunk
    chunk_shift = 0 if any_cut else new_last_chunk - old_last_chunk

    def splice(name: str, delta: int = 0) -> np.ndarray:
        a = getattr(old, name)
        tail = a[old_stop:]
        if delta:
            tail = tail + delta
        return np.concatenate((a[:first], getattr(mid, name), tail))

    table = TokenTable(
        text,
        splice("ids"),
        splice("start", shift),
        splice("end", shift),
        splice("start16", shift16),
        splice("end16", shift16),
        splice("partial"),
        splice("special"),
        splice("chunk", chunk_shift),
    )
    return TableUpdate(table, first, old_stop, first + len(mid), False)


def update_table(tokenizer: Tokenizer, old: TokenTable | None, new_text: str) -> TableUpdate:
    """Plan and execute in one step (what a caller without threads wants)."""
    return execute_plan(tokenizer, old, plan_edit(tokenizer, old, new_text))


def count_unknown(tokenizer: Tokenizer | None, table: TokenTable) -> int | None:
    """How many tokens of ``table`` stand for text the vocabulary lacks, or None when the tokenizer
    has no unknown id. The unknown token typed as itself (``<unk>`` in the text) is not counted."""
    mask = unknown_mask(tokenizer, table.ids)
    if mask is None or tokenizer is None:
        return None
    where = np.flatnonzero(mask)
    if not where.size:
        return 0
    piece = tokenizer.vocab[int(table.ids[where[0]])].decode("utf-8", "replace")
    starts, ends = table.start[where].tolist(), table.end[where].tolist()
    return sum(1 for s, e in zip(starts, ends) if table.text[s:e] != piece)


def _flag_unknown(tokenizer: Tokenizer, table: TokenTable) -> TokenTable:
    """Flag ``<unk>`` tokens as stand-ins (``special``), as the words tokenizer's are: the views
    then draw them as ``<unk>``, not as the text the model lost (a SentencePiece model's ``<unk>``)."""
    mask = unknown_mask(tokenizer, table.ids)
    if mask is not None and mask.any():
        table.special[mask] = True
    return table


def _arrays_from_spans(
    window: str, spans: Sequence[TokenSpan], base: int, base16: int, chunk_base: int, full_text: str
) -> TokenTable:
    n = len(spans)
    ids = np.fromiter((s.id for s in spans), dtype=INDEX, count=n)
    start = np.fromiter((s.start for s in spans), dtype=INDEX, count=n)
    end = np.fromiter((s.end for s in spans), dtype=INDEX, count=n)
    partial = np.fromiter((s.partial for s in spans), dtype=bool, count=n)
    special = np.fromiter((s.special for s in spans), dtype=bool, count=n)
    chunk = np.fromiter((s.chunk for s in spans), dtype=INDEX, count=n)
    offsets = utf16_offsets(window).astype(INDEX)
    start16 = offsets[start] + base16
    end16 = offsets[end] + base16
    if base:
        start = start + base
        end = end + base
    if chunk_base:
        chunk = chunk + chunk_base
    return TokenTable(full_text, ids, start, end, start16, end16, partial, special, chunk)


def differs_from(table: TokenTable, reference: TokenTable | None, first: int, stop: int) -> np.ndarray:
    """Which of tokens ``[first, stop)`` of ``table`` the reference tokenization of the same text cuts
    otherwise (the view's difference marks).

    A token differs unless the reference has a token with exactly its span; the byte pieces of one
    character share a span, so there they differ unless both have as many pieces.
    """
    n = max(stop - first, 0)
    if reference is None or reference is table or reference.text != table.text or not len(reference) or not n:
        return np.zeros(n, dtype=bool)
    # Spans as one sortable number; tokens come in text order, so equal spans are neighbours.
    width = np.int64(len(table.text) + 1)
    lo = max(first - 4, 0)
    mine = table.start[lo : stop + 4].astype(np.int64) * width + table.end[lo : stop + 4]
    r0 = int(np.searchsorted(reference.end, int(table.start[first]), side="left"))
    r1 = int(np.searchsorted(reference.start, int(table.end[stop - 1]), side="right"))
    theirs = reference.start[r0:r1].astype(np.int64) * width + reference.end[r0:r1]
    keys = mine[first - lo : first - lo + n]
    in_mine = np.searchsorted(mine, keys, side="right") - np.searchsorted(mine, keys, side="left")
    in_theirs = np.searchsorted(theirs, keys, side="right") - np.searchsorted(theirs, keys, side="left")
    return in_mine != in_theirs
