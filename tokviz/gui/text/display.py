"""What a token view shows for each token, as one string plus per-token box offsets.

A token view's document is the concatenation of one display string per token: the token's own
text, its id (in id mode), or, for a token holding part of a UTF-8 character, its raw bytes as
``<F0 9F>`` (never a replacement character). Offsets are UTF-16 units, the unit of Qt documents.
Runs of whole-character tokens are sliced straight out of the source text, so a 1 MB text is
rendered with a handful of string operations instead of one per token. No Qt here.
"""

from __future__ import annotations

import bisect
import functools
import html
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import regex

from tokviz.core.bpe.tokenizer import Tokenizer
from tokviz.core.pretok.bytes_ import hex_bytes, printable_token
from tokviz.gui.text.token_table import INDEX, TokenTable
from tokviz.gui.text.utf16 import utf16_len

# Line breaks fall between tokens only. Each token's box is followed by a zero-width space (a break
# opportunity that belongs to no box); inside a box, spaces are no-break spaces and a word joiner
# goes between characters a line could otherwise be broken at (ideographs, emoji, punctuation).
# A token wider than the whole line is still cut, and the view marks the cut.
ZWSP = "\u200b"
WORD_JOINER = "\u2060"
NBSP = "\u00a0"
# A byte label's brackets fill their character cells: a figure space on each side keeps <8C><8D>
# from touching the borders of their boxes (and each other).
LABEL_PAD = "\u2007"
_GLYPHS = {ord(" "): ord("·"), ord("\t"): ord("→")}
_NEWLINE = 10
_RETURN_GLYPH = ord("↵")
_ZWJ = 0x200D
# Scripts a line may be broken inside of even without spaces (Thai, Lao, Tibetan, Myanmar, Khmer).
_DICTIONARY_SCRIPTS = ((0x0E00, 0x0FFF), (0x1000, 0x109F), (0x1780, 0x17FF))
_INVISIBLE = str.maketrans({ZWSP: None, WORD_JOINER: None, LABEL_PAD: None, NBSP: " "})


SPELLINGS = ("text", "hex", "code points")
_SUBSCRIPT_DIGITS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
_GRAPHEME = regex.compile(r"\X")


def visible_characters(text: str) -> int:
    """How many characters a reader sees (grapheme clusters): 👍🏽 is two code points and one character."""
    return sum(1 for _ in _GRAPHEME.finditer(text))


def subscript_id(token_id: int) -> str:
    """A token id in small digits, written after the token's text: ``Hello₁₅₄₉₆``."""
    return str(token_id).translate(_SUBSCRIPT_DIGITS)


def plain_text(display: str) -> str:
    """What a reader sees in display text: the joiners that steer line breaking removed, no-break
    spaces as spaces (what copying from a view gives)."""
    return display.translate(_INVISIBLE)


@dataclass(frozen=True)
class DisplayOptions:
    """How a view draws tokens: ids instead of text, visible whitespace, each token's id beside its
    text, and the spelling of the text itself (``"text"``, its UTF-8 bytes as ``"hex"``, or its
    ``"code points"`` as U+)."""

    show_ids: bool = False
    whitespace: bool = False
    with_ids: bool = False
    spelling: str = "text"


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
    return text.translate({ord(" "): "·", ord("\t"): "→", ord("\n"): "↵\n"})


def partial_display(data: bytes, options: DisplayOptions) -> str:
    """A token that splits a UTF-8 character: its whole characters as text, the rest as ``<F0 9F>``
    (the spaces between hex bytes are no-break spaces: a label is never cut between its bytes)."""
    label = printable_token(data, whitespace=options.whitespace).replace(" ", NBSP)
    before = LABEL_PAD if label.startswith("<") else ""
    after = LABEL_PAD if label.endswith(">") else ""
    return f"{before}{label}{after}"


def build_run(
    table: TokenTable, lo: int, hi: int, vocab: dict[int, bytes], options: DisplayOptions
) -> DisplayRun:
    """Display text and box offsets for tokens ``[lo, hi)`` of ``table``."""
    if hi <= lo:
        z = np.zeros(0, dtype=INDEX)
        return DisplayRun("", z, z)
    if options.show_ids:
        return _build_ids(table, lo, hi)
    if options.with_ids or options.spelling != "text":
        return _build_spelled(table, lo, hi, vocab, options)
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
    starts = table.start[lo:hi]
    ends = table.end[lo:hi]
    lengths = (ends - starts).astype(np.int64)
    partial_idx = _labelled(table, lo, hi, vocab)
    shown: list[str] = []
    if partial_idx.size:
        cache: dict[int, str] = {}
        for token_id in table.ids[lo:hi][partial_idx].tolist():
            label = cache.get(token_id)
            if label is None:
                label = cache[token_id] = partial_display(vocab[token_id], options)
            shown.append(label)
        lengths[partial_idx] = [len(label) for label in shown]
    # The tokens' characters: runs of whole-character tokens are single slices of the source. Text no
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
            pieces.append(text[start_list[prev] : end_list[stop - 1]])
            prev = stop
        pieces.append(label)
        prev = k + 1
    code_points = np.frombuffer("".join(pieces).encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    return boxed_run(code_points, lengths, options.whitespace)


def _build_spelled(
    table: TokenTable, lo: int, hi: int, vocab: Mapping[int, bytes], options: DisplayOptions
) -> DisplayRun:
    """Each token spelled on its own: as hex bytes or U+ code points, and with its id beside it."""
    text, ids = table.text, table.ids[lo:hi].tolist()
    starts, ends = table.start[lo:hi].tolist(), table.end[lo:hi].tolist()
    labelled = set(_labelled(table, lo, hi, vocab).tolist())
    pieces: list[str] = []
    for k, token_id in enumerate(ids):
        if options.spelling == "hex":
            piece = hex_bytes(vocab[token_id]).replace(" ", NBSP)
        elif k in labelled:
            piece = partial_display(vocab[token_id], options)
        elif options.spelling == "code points":
            piece = NBSP.join(f"U+{ord(c):04X}" for c in text[starts[k] : ends[k]])
        else:
            piece = text[starts[k] : ends[k]]
        pieces.append(piece + subscript_id(token_id) if options.with_ids else piece)
    lengths = np.fromiter((len(p) for p in pieces), dtype=np.int64, count=len(pieces))
    code_points = np.frombuffer("".join(pieces).encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    return boxed_run(code_points, lengths, options.whitespace)


@functools.cache
def _bmp_classes() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`_classes_of` for every code point of the Basic Multilingual Plane, computed once."""
    return _classes_of(np.arange(0x10000, dtype=np.uint32))


def _character_classes(code_points: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For each code point: whether it extends the character before it (a combining mark, a joiner,
    a variation selector, a skin tone), whether it is a letter or digit of a script lines are not
    broken inside of, and whether it is a regional indicator (half a flag)."""
    if code_points.size and int(code_points.max()) < 0x10000:
        extends, joins, regional = _bmp_classes()
        return extends[code_points], joins[code_points], regional[code_points]
    unique, inverse = np.unique(code_points, return_inverse=True)
    extends, joins, regional = _classes_of(unique)
    return extends[inverse], joins[inverse], regional[inverse]


def _classes_of(unique: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The classes of :func:`_character_classes` for each of ``unique`` code points."""
    extends = np.zeros(unique.size, dtype=bool)
    joins = np.zeros(unique.size, dtype=bool)
    for i, cp in enumerate(unique.tolist()):
        category = unicodedata.category(chr(cp))
        extends[i] = (
            category in ("Mn", "Mc", "Me")
            or cp in (0x200C, _ZWJ)
            or 0xFE00 <= cp <= 0xFE0F
            or 0x1F3FB <= cp <= 0x1F3FF
            or 0xE0020 <= cp <= 0xE01EF
            or 0x1160 <= cp <= 0x11FF
            or 0xD7B0 <= cp <= 0xD7FF
        )
        joins[i] = cp in (0xA0, ord(LABEL_PAD), ord("'"), ord("_")) or (
            category[0] in "LN" and cp < 0x2E80 and not any(a <= cp <= b for a, b in _DICTIONARY_SCRIPTS)
        )
    regional = (unique >= 0x1F1E6) & (unique <= 0x1F1FF)
    return extends, joins, regional


def boxed_run(code_points: np.ndarray, lengths: np.ndarray, glyphs: bool) -> DisplayRun:
    """Display text of consecutive tokens whose characters are ``code_points`` (``lengths`` of them
    each): whitespace shown as glyphs or no-break spaces, word joiners inside a token where a line
    could break, and a zero-width space after each token that does not end its line."""
    n = int(lengths.size)
    if glyphs:
        cps = code_points.copy()
        for old, new in _GLYPHS.items():
            cps[code_points == old] = new
    else:
        cps = np.where(code_points == ord(" "), 0xA0, code_points).astype(np.uint32)
    owner = np.repeat(np.arange(n, dtype=np.int64), lengths)
    token_start = np.cumsum(lengths) - lengths
    token_end = token_start + lengths
    inner = np.ones(cps.size, dtype=bool)
    inner[token_start[lengths > 0]] = False
    if cps.size:
        extends, joins, regional = _character_classes(cps)
        # The character a run of combining marks belongs to decides how the line may break after it.
        base = np.maximum.accumulate(np.where(extends, 0, np.arange(cps.size)))
        prev = np.concatenate(([0], cps[:-1]))
        prev_joins = np.concatenate(([False], joins[base[:-1]]))
        prev_regional = np.concatenate(([False], regional[:-1]))
        glue = (
            inner
            & ~extends
            & (prev != _ZWJ)
            & (cps != _NEWLINE)
            & (prev != _NEWLINE)
            & ~(regional & prev_regional)
            & ~(joins & prev_joins)
        )
        wj_at = np.flatnonzero(glue)
    else:
        wj_at = np.zeros(0, dtype=np.int64)
    nl_at = np.flatnonzero(cps == _NEWLINE) if glyphs else np.zeros(0, dtype=np.int64)
    last = np.where(lengths > 0, cps[np.maximum(token_end - 1, 0)] if cps.size else 0, 0)
    sep_tokens = np.flatnonzero(~((lengths > 0) & (last == _NEWLINE)))
    sep_at = token_end[sep_tokens]
    # Insertions go before the character at their place; at one place a separator (the end of a
    # token) goes before a ↵ (the next token's newline); a word joiner never shares a place.
    counts = np.bincount(np.concatenate((wj_at, nl_at, sep_at)), minlength=cps.size + 1)
    before = np.concatenate(([0], np.cumsum(counts)))
    has_sep = np.zeros(cps.size + 1, dtype=np.int64)
    has_sep[sep_at] = 1
    size = cps.size + int(before[-1])
    out = np.empty(size, dtype=np.uint32)
    # Box characters belong to token t (code 2t), the separator after it to no box (code 2t + 1).
    out_codes = np.empty(size, dtype=np.int64)
    kept = np.arange(cps.size) + before[1 : cps.size + 1]
    out[kept], out_codes[kept] = cps, 2 * owner
    for places, value, code in (
        (wj_at + before[wj_at], ord(WORD_JOINER), 2 * owner[wj_at]),
        (nl_at + before[nl_at] + has_sep[nl_at], _RETURN_GLYPH, 2 * owner[nl_at]),
        (sep_at + before[sep_at], ord(ZWSP), 2 * sep_tokens + 1),
    ):
        out[places], out_codes[places] = value, code
    units = np.concatenate(([0], np.cumsum(1 + (out > 0xFFFF), dtype=np.int64)))
    wanted = 2 * np.arange(n, dtype=np.int64)
    box_start = units[np.searchsorted(out_codes, wanted, side="left")]
    box_end = units[np.searchsorted(out_codes, wanted, side="right")]
    shown = out.astype("<u4").tobytes().decode("utf-32-le", "surrogatepass")
    return DisplayRun(shown, box_start.astype(INDEX), box_end.astype(INDEX))


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
