"""Build a view's token table straight from ids with numpy, and cut big texts into exact pieces.

``TokenTable.encode`` places every token through ``Tokenizer.encode_spans``, one Python object
per token: for a 1 MB paste that is 80% of the time (2.6 s of 3.2 s for GPT-2's 530K tokens),
while the ids themselves take 0.2 s. Here the ids come from the same ``encode_ordinary`` and the
same pre-tokenizer chunks, and the placing (byte offsets → code points, partial flags, chunk
numbers) is done on whole arrays, so the table is equal, array for array, to ``TokenTable.encode``
(tests compare them on hard text). Tokenizers whose subclass places tokens its own way take
``encode_spans``. No Qt here: this runs in workers.
"""

from __future__ import annotations

import weakref

import numpy as np

from tokviz.core.bpe.cuts import cut_mode, first_cut_after
from tokviz.core.bpe.tokenizer import Tokenizer
from tokviz.gui.text.token_table import INDEX, TokenTable
from tokviz.gui.text.utf16 import utf16_len, utf16_offsets

# Byte length of every id, built once per tokenizer (a 200K vocabulary takes ~20 ms).
_LENGTHS: weakref.WeakKeyDictionary[Tokenizer, np.ndarray] = weakref.WeakKeyDictionary()


def places_like_core(tokenizer: Tokenizer) -> bool:
    """True when the tokenizer places tokens with the core's own ``encode_spans`` (not a subclass's)
    by their byte lengths on the text (no normalizer moves them back onto the typed text)."""
    cls = type(tokenizer)
    return not tokenizer.normalizer and all(
        getattr(cls, name) is getattr(Tokenizer, name)
        for name in ("encode_spans", "_encode_spans", "_place", "segments")
    )


def _id_lengths(tokenizer: Tokenizer) -> np.ndarray:
    lengths = _LENGTHS.get(tokenizer)
    if lengths is None:
        vocab = tokenizer.vocab
        lengths = np.zeros(max(vocab, default=0) + 1, dtype=np.int64)
        lengths[np.fromiter(vocab.keys(), dtype=np.int64, count=len(vocab))] = np.fromiter(
            map(len, vocab.values()), dtype=np.int64, count=len(vocab)
        )
        _LENGTHS[tokenizer] = lengths
    return lengths


def _place_segment(
    tokenizer: Tokenizer, segment: str, base: int, chunk_base: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    """ids, start, end (code points + ``base``), partial, chunk of one ordinary segment, and its chunk count."""
    chunk_ends = _chunk_ends(tokenizer, segment)
    ids = np.asarray(tokenizer.encode_ordinary(segment), dtype=np.int64)
    lengths = _id_lengths(tokenizer)[ids]
    ends_b = np.cumsum(lengths)
    starts_b = ends_b - lengths
    data = segment.encode("utf-8")
    if len(data) == len(segment):  # ASCII: bytes are code points
        start, end = starts_b, ends_b
        partial = np.zeros(ids.size, dtype=bool)
    else:
        raw = np.frombuffer(data, dtype=np.uint8)
        continuation = (raw & 0xC0) == 0x80
        char_at = np.cumsum(~continuation)  # 1-based index of the character holding each byte
        start = char_at[starts_b] - 1
        end = char_at[ends_b - 1]
        after = np.append(continuation, False)  # a token ending at the last byte splits nothing
        partial = continuation[starts_b] | after[ends_b]
    if chunk_ends.size:
        chunk = np.minimum(np.searchsorted(chunk_ends, start, side="right"), chunk_ends.size - 1)
    else:
        chunk = np.zeros(ids.size, dtype=np.int64)
    return ids, start + base, end + base, partial, chunk + chunk_base, int(chunk_ends.size)


def _chunk_ends(tokenizer: Tokenizer, segment: str) -> np.ndarray:
    """End (code point) of each pre-tokenizer chunk of ``segment``, as ``pretokenizer.spans`` says.

    When the pattern's matches tile the segment (the named patterns do), the ends are the running
    sum of the matches' lengths: one C-level split instead of a Python tuple per chunk (0.4 s of
    the 0.5 s a 1 MB table costs otherwise). Anything else asks ``spans``.
    """
    pre = tokenizer.pretokenizer
    if segment and pre.pattern is not None:
        pieces = pre.split(segment)
        lengths = np.fromiter(map(len, pieces), dtype=np.int64, count=len(pieces))
        if int(lengths.sum()) == len(segment):
            return np.cumsum(lengths)
    spans = pre.spans(segment)
    return np.fromiter((e for _s, e in spans), dtype=np.int64, count=len(spans))


def encode_range(
    tokenizer: Tokenizer, text: str, lo: int = 0, hi: int | None = None, chunk_base: int = 0
) -> TokenTable:
    """The tokens of ``text[lo:hi]`` as a table on the whole ``text`` (offsets count from its start).

    Equal to ``TokenTable.encode`` of that slice shifted by ``lo`` (and its chunk numbers by
    ``chunk_base``); exact for the whole text when ``lo`` and ``hi`` are safe cuts (:func:`piece_cuts`).
    """
    hi = len(text) if hi is None else hi
    piece = text[lo:hi]
    base16 = utf16_len(text[:lo]) if lo else 0
    if not places_like_core(tokenizer) or not piece:
        return _shifted(TokenTable.encode(tokenizer, piece), text, lo, base16, chunk_base)
    try:
        return _encode_arrays(tokenizer, text, piece, lo, base16, chunk_base)
    except UnicodeEncodeError:  # a lone surrogate: the core's path replaces it as everywhere
        return _shifted(TokenTable.encode(tokenizer, piece), text, lo, base16, chunk_base)


def _encode_arrays(
    tokenizer: Tokenizer, text: str, piece: str, lo: int, base16: int, chunk_base: int
) -> TokenTable:
    parts: list[tuple[np.ndarray, ...]] = []
    next_chunk = 0
    for seg_start, seg_end, is_special in tokenizer.segments(piece):
        if is_special:
            sid = tokenizer.special_tokens[piece[seg_start:seg_end]]
            one = np.ones(1, dtype=bool)
            parts.append(
                (
                    np.array([sid]),
                    np.array([seg_start]),
                    np.array([seg_end]),
                    ~one,
                    one,
                    np.array([next_chunk]),
                )
            )
            next_chunk += 1
            continue
        ids, start, end, partial, chunk, n_chunks = _place_segment(
            tokenizer, piece[seg_start:seg_end], seg_start, next_chunk
        )
        parts.append((ids, start, end, partial, np.zeros(ids.size, dtype=bool), chunk))
        next_chunk += n_chunks
    if not parts:
        return _shifted(TokenTable.empty(piece), text, lo, base16, chunk_base)
    ids, start, end, partial, special, chunk = (np.concatenate(column) for column in zip(*parts))
    offsets = utf16_offsets(piece).astype(INDEX)
    return TokenTable(
        text,
        ids.astype(INDEX),
        (start + lo).astype(INDEX),
        (end + lo).astype(INDEX),
        offsets[start] + base16,
        offsets[end] + base16,
        partial,
        special,
        (chunk + chunk_base).astype(INDEX),
    )


def _shifted(table: TokenTable, text: str, lo: int, base16: int, chunk_base: int) -> TokenTable:
    return TokenTable(
        text,
        table.ids,
        table.start + lo,
        table.end + lo,
        table.start16 + base16,
        table.end16 + base16,
        table.partial,
        table.special,
        table.chunk + chunk_base,
    )


def piece_cuts(tokenizer: Tokenizer, text: str, lo: int, hi: int, first: int, step: int) -> list[int]:
    """Safe cuts ``[lo, ..., hi]`` splitting ``text[lo:hi]`` into pieces that encode exactly apart.

    The first piece holds about ``first`` code points (what a view shows first), the others about
    ``step``. A tokenizer whose text cannot be cut (a custom pattern, a special token with a
    space, a whole-document model) gets one piece.
    """
    mode = cut_mode(tokenizer)
    cuts = [lo]
    if mode == "none":
        return [lo, hi]
    size = first
    while cuts[-1] + size < hi:
        at = cuts[-1] + size
        # A cut at q looks at text[q - 2 : q + 1] (see token_table.plan_edit): stay clear of lo.
        nxt = at if mode == "any" else first_cut_after(text, max(at, cuts[-1] + 2))
        if nxt >= hi or nxt <= cuts[-1]:
            break
        cuts.append(nxt)
        size = step
    cuts.append(hi)
    return cuts


def next_chunk(table: TokenTable, tokenizer: Tokenizer) -> int:
    """The chunk number a piece starting after ``table``'s last token begins with (as ``execute_plan``)."""
    if not len(table):
        return 0
    last = int(table.chunk[-1])
    return last if cut_mode(tokenizer) == "any" else last + 1
