"""What a token view shows for each token, as one string plus per-token box offsets.

A token view's document is the concatenation of one display string per token: the token's own
text, its id (in id mode), or, for a token holding part of a UTF-8 character, its raw bytes as
``<F0 9F>`` (never a replacement character). Offsets are UTF-16 units, the unit of Qt documents.
Runs of whole-character tokens are sliced straight out of the source text, so a 1 MB text is
rendered with a handful of string operations instead of one per token. No Qt here.
"""

from __future__ import annotations

import bisect
import html
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from tokviz.core.bytes_ import hex_bytes, printable_token
from tokviz.core.tokenizer import Tokenizer
from tokviz.gui.text.token_table import INDEX, TokenTable
from tokviz.gui.text.utf16 import utf16_len

# A zero-width space after the space and tab glyphs keeps a line-break opportunity, so wrapped
# lines still break between words rather than inside them. Each of these grows by one unit.
_ZWSP = "\u200b"
_GLYPH_TABLE = str.maketrans({" ": "·" + _ZWSP, "\t": "→" + _ZWSP, "\n": "↵\n"})
_GROWING = (ord(" "), ord("\t"), ord("\n"))


@dataclass(frozen=True)
class DisplayOptions:
    """How a view draws tokens: ids instead of text, visible whitespace."""

    show_ids: bool = False
    whitespace: bool = False


@dataclass(frozen=True)
class DisplayRun:
    """Display text for a range of tokens; ``box_start``/``box_end`` are relative UTF-16 offsets.

    In id mode each box is followed by a separator (a space, or a newline where the token had one)
    that belongs to no box.
    """

    text: str
    box_start: np.ndarray
    box_end: np.ndarray

    @property
    def length16(self) -> int:
        """Length of ``text`` in UTF-16 units."""
        return utf16_len(self.text)


def with_glyphs(text: str) -> str:
    """Whitespace made visible: space ·, tab →, newline ↵ (the line break itself is kept)."""
    return text.translate(_GLYPH_TABLE)


def partial_display(data: bytes, options: DisplayOptions) -> str:
    """A token that splits a UTF-8 character: its whole characters as text, the rest as ``<F0 9F>``."""
    return printable_token(data, whitespace=options.whitespace)


def build_run(
    table: TokenTable, lo: int, hi: int, vocab: dict[int, bytes], options: DisplayOptions
) -> DisplayRun:
    """Display text and box offsets for tokens ``[lo, hi)`` of ``table``."""
    if hi <= lo:
        z = np.zeros(0, dtype=INDEX)
        return DisplayRun("", z, z)
    if options.show_ids:
        return _build_ids(table, lo, hi)
    return _build_text(table, lo, hi, vocab, options)


def _newline_positions(table: TokenTable, lo_cp: int, hi_cp: int) -> np.ndarray:
    segment = table.text[lo_cp:hi_cp]
    if "\n" not in segment:
        return np.zeros(0, dtype=np.int64)
    arr = np.frombuffer(segment.encode("utf-32-le"), dtype=np.uint32)
    return np.flatnonzero(arr == 10).astype(np.int64) + lo_cp


def _labelled(table: TokenTable, lo: int, hi: int, vocab: Mapping[int, bytes]) -> np.ndarray:
    """Tokens ``[lo, hi)`` (relative) shown by their bytes rather than their source text: partial ones,
    and special tokens that stand for text they do not hold (a word tokenizer's ``<unk>``, a
    WordPiece ``[UNK]``): the view shows what the model gets, not the word it lost."""
    partial = np.flatnonzero(table.partial[lo:hi])
    special = np.flatnonzero(table.special[lo:hi])
    if not special.size:
        return partial
    text, ids, starts, ends = table.text, table.ids, table.start, table.end
    stand_ins = [
        k
        for k in special.tolist()
        if vocab[int(ids[lo + k])] != text[int(starts[lo + k]) : int(ends[lo + k])].encode("utf-8", "replace")
    ]
    return np.union1d(partial, np.array(stand_ins, dtype=partial.dtype)) if stand_ins else partial


def _build_text(
    table: TokenTable, lo: int, hi: int, vocab: dict[int, bytes], options: DisplayOptions
) -> DisplayRun:
    text = table.text
    glyphs = options.whitespace
    starts = table.start[lo:hi]
    ends = table.end[lo:hi]
    # Whole-character tokens show their source text: its UTF-16 length, plus one per newline with ↵.
    lengths = table.end16[lo:hi] - table.start16[lo:hi]
    if glyphs:
        base = int(starts[0])
        code_points = np.frombuffer(text[base : int(ends[-1])].encode("utf-32-le"), dtype=np.uint32)
        grows = np.concatenate(([0], np.cumsum(np.isin(code_points, _GROWING), dtype=np.int64)))
        lengths = lengths + grows[ends - base] - grows[starts - base]
    partial_idx = _labelled(table, lo, hi, vocab)
    shown: list[str] = []
    if partial_idx.size:
        cache: dict[int, tuple[str, int]] = {}
        partial_lengths = []
        for token_id in table.ids[lo:hi][partial_idx].tolist():
            entry = cache.get(token_id)
            if entry is None:
                label = partial_display(vocab[token_id], options)
                entry = cache[token_id] = (label, utf16_len(label))
            shown.append(entry[0])
            partial_lengths.append(entry[1])
        lengths = lengths.copy()
        lengths[partial_idx] = partial_lengths
    box_end = np.cumsum(lengths)
    box_start = box_end - lengths
    # The document text: runs of whole-character tokens are single slices of the source. Text no
    # token covers (a WordPiece model drops spaces; a byte with no token) is not shown, so a run
    # is cut where one token does not end where the next starts.
    pieces: list[str] = []
    start_list = starts.tolist()
    end_list = ends.tolist()
    cuts = (np.flatnonzero(starts[1:] != ends[:-1]) + 1).tolist()
    prev = 0
    for k, label in zip([*partial_idx.tolist(), hi - lo], [*shown, ""]):
        while prev < k:
            i = bisect.bisect_right(cuts, prev)
            stop = min(cuts[i], k) if i < len(cuts) else k
            piece = text[start_list[prev] : end_list[stop - 1]]
            pieces.append(with_glyphs(piece) if glyphs else piece)
            prev = stop
        pieces.append(label)
        prev = k + 1
    return DisplayRun("".join(pieces), box_start.astype(INDEX), box_end.astype(INDEX))


def _build_ids(table: TokenTable, lo: int, hi: int) -> DisplayRun:
    ids = table.ids[lo:hi].tolist()
    labels = [str(i) for i in ids]
    lengths = np.fromiter((len(s) for s in labels), dtype=np.int64, count=len(labels))
    # A token that contains a newline ends its line in id mode too, so lines stay recognisable.
    nl = _newline_positions(table, int(table.start[lo]), int(table.end[hi - 1]))
    if nl.size:
        has_nl = np.searchsorted(nl, table.end[lo:hi], side="left") > np.searchsorted(
            nl, table.start[lo:hi], side="left"
        )
    else:
        has_nl = np.zeros(hi - lo, dtype=bool)
    seps = ["\n" if f else " " for f in has_nl.tolist()]
    text = "".join(s + sep for s, sep in zip(labels, seps))
    box_start = np.zeros(hi - lo, dtype=INDEX)
    if hi - lo > 1:
        box_start[1:] = np.cumsum(lengths + 1)[:-1]
    return DisplayRun(text, box_start, (box_start + lengths).astype(INDEX))


@dataclass(frozen=True)
class TokenDetails:
    """What the hover card shows for one token."""

    id: int
    hex: str
    text: str
    length: int
    special: bool
    partial: bool
    rank: int | None
    parents: tuple[tuple[int, str], tuple[int, str]] | None

    @property
    def step(self) -> int | None:
        """The merge step that made the token as the timeline numbers it (1-based), or None."""
        return None if self.rank is None else merge_step(self.rank)


def merge_step(rank: int) -> int:
    """The step number people read for the merge with 0-based ``rank``: the timeline's "Step N" is the
    N-th merge, so the hover card, the status bar and the vocabulary all say ``rank + 1``."""
    return rank + 1


def merge_step_label(rank: int) -> str:
    """``merge step 4,371`` for the merge with 0-based ``rank`` 4370, as the timeline says it."""
    return f"merge step {merge_step(rank):,}"


def token_details(tokenizer: Tokenizer, token_id: int, merges_ready: bool) -> TokenDetails:
    """Id, bytes, text, length, merge rank (0-based; shown as a 1-based step) and parents of one token.

    ``merges_ready`` says the tokenizer's merge tables are built; until then rank and parents are
    None rather than forcing a slow merge recovery in the GUI thread.
    """
    data = tokenizer.id_bytes(token_id)
    special = tokenizer.is_special(token_id)
    rank = parents = None
    if merges_ready and tokenizer.is_bpe and not special:
        rank = tokenizer.merge_rank_of_id.get(token_id)
        pair = tokenizer.parents_of_id.get(token_id)
        if pair is not None:
            left, right = pair
            parents = (
                (left, printable_token(tokenizer.id_bytes(left))),
                (right, printable_token(tokenizer.id_bytes(right))),
            )
    try:
        data.decode("utf-8")
        partial = False
    except UnicodeDecodeError:
        partial = True
    return TokenDetails(
        token_id,
        hex_bytes(data),
        data.decode("utf-8") if special else printable_token(data),
        len(data),
        special,
        partial,
        rank,
        parents,
    )


def details_html(d: TokenDetails, tokenizer_name: str) -> str:
    """The hover card for one token, as rich text."""
    rows = [
        ("id", str(d.id)),
        ("text", d.text if d.text else "(empty)"),
        ("bytes", d.hex),
        ("length", f"{d.length} byte{'s' if d.length != 1 else ''}"),
    ]
    if d.special:
        rows.append(("kind", "special token"))
    elif d.partial:
        rows.append(("kind", "part of a UTF-8 character"))
    if d.rank is not None:
        rows.append(("merge step", f"{merge_step(d.rank):,}"))
    if d.parents is not None:
        (a, ta), (b, tb) = d.parents
        rows.append(("parents", f"{a} {ta!r} + {b} {tb!r}"))
    elif d.length > 1 and not d.special and d.rank is None:
        rows.append(("merge", "…"))
    body = "".join(
        f"<tr><td style='color:gray;padding-right:8px'>{html.escape(k)}</td>"
        f"<td style='font-family:monospace'>{html.escape(v)}</td></tr>"
        for k, v in rows
    )
    return f"<b>{html.escape(tokenizer_name)}</b><table>{body}</table>"
