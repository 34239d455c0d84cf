"""The segmentation lattice of a unigram model, and sampled segmentations of unigram and BPE models.

A unigram model (Kudo, 2018) does not merge: it scores every way of cutting the text into
vocabulary pieces and keeps the most probable one. :func:`segment_lattice` shows that choice
whole: every piece that matches inside the (normalized, ``▁``-marked) text with its log-probability
(the piece's score), the best path (Viterbi) and the N best segmentations with their scores.
:func:`sample_segmentations` draws segmentations at random: subword regularization for a unigram
model (``alpha`` sharpens or flattens the distribution), BPE-dropout for a BPE model (each merge
due is left out with probability ``dropout``). A seed makes the samples repeatable.

For a SentencePiece ``.model`` the figures are the library's own: the N best come from its
``NBestEncode``, the best path is its ``encode``; tokviz adds the lattice (the pieces the library's
trie finds, scored as the library scores them: a user-defined piece gets ``length * w - 0.1``, a
character no piece covers is an unknown piece at ``min_score - 10``, spelled in byte pieces under
byte fallback) and places each segmentation on it. Samples are drawn as the library's
``Lattice::Sample`` draws them (forward filtering, backward sampling over the same lattice with
``alpha`` as inverse temperature), but from Python's generator seeded with ``seed``: the
library's own seeded samples (sentencepiece 0.2.3) repeat within a process but not from one run
to the next, tokviz's repeat in every run. A sample's score is the library's
``SampleEncodeAndScore`` figure: its log-probability under the smoothed distribution,
``alpha * (sum of its pieces' scores) - log Z(alpha)``.

A ``tokenizer.json`` Unigram model gets the same lattice from its vocabulary (the library's
``populate_nodes``: every piece at its score, an unknown character at the lowest minus 10) over
the words the library's normalizer and pre-tokenizer make; ``tokenizers`` has no N-best call, so
tokviz ranks the paths itself (exact: the N best to every position), and refuses a text whose
best path would not be the library's own ``encode``.

A BPE model has no lattice (it merges greedily): :func:`lattice_problem` says so in one line.
Its samples are BPE-dropout, drawn with Python's generator seeded with ``seed``, so a seed gives
the same samples in every run: tokviz's own byte-level BPE drops merges over its merge ranks
(dropout 0 gives :meth:`Tokenizer.encode`'s ids, 1 the bytes); a SentencePiece BPE model is
encoded as the library's BPE encodes (``bpe_model.cc``, which its ``SampleEncode`` runs with
``alpha`` as the dropout): over the normalized text, user-defined pieces matched whole and the
other characters one symbol each, the adjacent pair whose concatenation is the piece of highest
score merged first (the leftmost on a tie), each merge due skipped with probability ``dropout``,
an unused piece spelled in the pieces it was made of, and an unknown character spelled as the
library spells it (dropout 0 gives ``encode``'s ids, 1 the characters or their bytes). A BPE
sample's score is 0.0: BPE gives a segmentation no probability.

The work is bounded: the first :data:`MAX_LATTICE_CHARS` characters of a longer text are segmented
(:attr:`Lattice.note` says so), at most :data:`MAX_NBEST` best segmentations and
:data:`MAX_SAMPLES` samples are made.
"""

from __future__ import annotations

import heapq
import json
import math
import random
import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from ..bpe.arguments import check_text
from ..bpe.tokenizer import LONE_SURROGATE, Tokenizer, replace_lone_surrogates
from ..errors import InternalError, InvalidArgument, ReplayUnavailable
from ..formats.hf_engine import HFTokenizer
from ..formats.sentencepiece_file import (
    BYTE,
    LIBRARY_SEEDS,
    NORMAL,
    UNUSED,
    USER_DEFINED,
    SentencePieceTokenizer,
    read_segmentation,
    read_segmentations,
)
from ..pretok.bytes_ import printable_token

__all__ = [
    "DEFAULT_ALPHA",
    "DEFAULT_DROPOUT",
    "MAX_LATTICE_CHARS",
    "MAX_NBEST",
    "MAX_SAMPLES",
    "Lattice",
    "LatticePiece",
    "Segmentation",
    "lattice_problem",
    "sample_segmentations",
    "sampling_problem",
    "segment_lattice",
]

MAX_LATTICE_CHARS = 1000  # characters of the typed text segmented; the rest is left out, and said
MAX_NBEST = 100
MAX_SAMPLES = 1000
DEFAULT_ALPHA = 0.1  # the subword-regularization smoothing Kudo (2018) recommends
DEFAULT_DROPOUT = 0.1  # the BPE-dropout probability Provilkov et al. (2020) use
UNK_PENALTY = 10.0  # an unknown character scores the lowest piece score minus this (the library's)
FLT_MIN = 1.1754943508222875e-38  # the library's floor for the highest piece score


@dataclass(frozen=True)
class LatticePiece:
    """One vocabulary piece that matches ``Lattice.text[start:end]`` (character offsets), with its
    log-probability as the model scores it in the lattice."""

    start: int
    end: int
    piece: str
    id: int
    log_prob: float


@dataclass(frozen=True)
class Segmentation:
    """One way of cutting the text: its pieces and ids as the library gives them (byte pieces for
    an unknown character under byte fallback) and its score (see the module)."""

    pieces: tuple[str, ...]
    ids: tuple[int, ...]
    score: float


@dataclass(frozen=True)
class Lattice:
    """A text's lattice: ``text`` is the normalized, ``▁``-marked text the model segments,
    ``pieces`` every piece matching in it (by start, then length), ``best`` the library's
    segmentation, ``nbest`` the N best (best first). ``best_path`` indexes ``pieces`` along
    ``best``; ``note`` says what was left out of a long text (None when nothing was)."""

    text: str
    pieces: tuple[LatticePiece, ...]
    best: Segmentation
    nbest: tuple[Segmentation, ...]
    best_path: tuple[int, ...] = ()
    note: str | None = None


def _f32(x: float) -> float:
    """``x`` rounded to a 32-bit float, as the library holds scores."""
    return float(struct.unpack("f", struct.pack("f", x))[0])


# ---------------------------------------------------------------------------------------- problems
def lattice_problem(tokenizer: Tokenizer) -> str | None:
    """Why ``tokenizer`` has no segmentation lattice, in one line; None when it has one."""
    kind = _model_kind(tokenizer)
    if kind == "unigram":
        return None
    return {
        "bpe": "a BPE model has no lattice: it merges greedily; try dropout",
        "char": "a char model has no lattice: every character is a piece",
        "word": "a word model has no lattice: it looks whole words up",
        "wordpiece": "a WordPiece model has no lattice: it takes the longest matching piece first",
        "wordlevel": "a word-level model has no lattice: it looks whole words up",
    }.get(kind, f"{tokenizer.name} has no lattice: it has no vocabulary pieces to choose between")


def sampling_problem(tokenizer: Tokenizer) -> str | None:
    """Why ``tokenizer`` cannot sample segmentations, in one line; None when it can (a unigram
    model by subword regularization, a BPE model by dropout)."""
    kind = _model_kind(tokenizer)
    if kind in ("unigram", "bpe"):
        if kind == "bpe" and isinstance(tokenizer, HFTokenizer) and tokenizer.replay_note:
            return f"BPE-dropout runs tokviz's own BPE over the file's merges, but {tokenizer.replay_note}"
        return None
    return (lattice_problem(tokenizer) or "").split(":")[0] + ": nothing to sample"


def _model_kind(tokenizer: Tokenizer) -> str:
    """``unigram``, ``bpe``, ``char``, ``word``, ``wordpiece``, ``wordlevel`` or ``none``."""
    if isinstance(tokenizer, SentencePieceTokenizer):
        return tokenizer.model_type.lower()
    if isinstance(tokenizer, HFTokenizer):
        return tokenizer.model_type.lower() if tokenizer.model_type != "BPE" or tokenizer.is_bpe else "none"
    if type(tokenizer)._bpe is Tokenizer._bpe and tokenizer.is_bpe:
        return "bpe"
    return "none"


# ---------------------------------------------------------------------------------------- checks
def _check_whole(value: object, what: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InvalidArgument(f"{what} must be a whole number from {low:,} to {high:,}, got {value!r}")
    return value


def _check_real(value: object, what: str, low: float, high: float | None) -> float:
    ok = not isinstance(value, bool) and isinstance(value, (int, float)) and math.isfinite(value)
    if not ok or value < low or (high is not None and value > high):  # type: ignore[operator]
        span = f"from {low:g} to {high:g}" if high is not None else f"of at least {low:g}"
        raise InvalidArgument(f"{what} must be a number {span}, got {value!r}")
    return float(value)  # type: ignore[arg-type]


def _capped(text: str) -> tuple[str, str | None]:
    """The part of ``text`` segmented (lone surrogates read as U+FFFD) and a note when it is cut."""
    check_text(text)
    if not text:
        raise InvalidArgument("the text is empty: there is nothing to segment")
    if LONE_SURROGATE.search(text):
        text = replace_lone_surrogates(text)
    if len(text) <= MAX_LATTICE_CHARS:
        return text, None
    return text[:MAX_LATTICE_CHARS], (
        f"only the first {MAX_LATTICE_CHARS:,} of {len(text):,} characters are segmented"
    )


# ---------------------------------------------------------------------------------------- the lattice
@dataclass
class _Table:
    """The pieces a lattice may hold (or a BPE merge may make), with the score each gets there,
    the unknown piece, and how the library spells an unknown character (its bytes' pieces under
    byte fallback)."""

    scores: dict[str, tuple[int, float]]
    longest: int
    unk_id: int
    unk_score: float
    byte_ids: dict[str, int] = field(default_factory=dict)  # "<0xNN>" -> id under byte fallback

    def nodes(self, text: str, base: int = 0) -> list[LatticePiece]:
        """Every piece matching in ``text`` (placed from ``base`` on), by start then length; an
        unknown piece for each character no one-character piece covers (the library's
        ``PopulateNodes``)."""
        out: list[LatticePiece] = []
        n = len(text)
        for start in range(n):
            single = False
            for end in range(start + 1, min(n, start + self.longest) + 1):
                found = self.scores.get(text[start:end])
                if found is not None:
                    out.append(LatticePiece(base + start, base + end, text[start:end], found[0], found[1]))
                    single = single or end == start + 1
            if not single:
                out.append(
                    LatticePiece(base + start, base + start + 1, text[start], self.unk_id, self.unk_score)
                )
        return out

    def spell(self, path: Sequence[LatticePiece]) -> Segmentation:
        """The pieces and ids the library gives for a path (score 0): an unknown character as its
        UTF-8 bytes' pieces under byte fallback, else a run of them fused into one unknown piece."""
        pieces: list[str] = []
        ids: list[int] = []
        unk = self.unk_id
        for node in path:
            if node.id != unk:
                pieces.append(node.piece)
                ids.append(node.id)
            elif self.byte_ids:
                for b in node.piece.encode("utf-8"):
                    pieces.append(f"<0x{b:02X}>")
                    ids.append(self.byte_ids.get(pieces[-1], unk))
            elif ids and ids[-1] == unk:
                pieces[-1] += node.piece
            else:
                pieces.append(node.piece)
                ids.append(unk)
        return Segmentation(tuple(pieces), tuple(ids), 0.0)


K = TypeVar("K")


def _kept(tok: Tokenizer, kind: type[K], build: Callable[[], K]) -> K:
    """``build()``'s result kept on ``tok`` (one per ``kind``), so a tokenizer's table is made once."""
    key = f"_lattice_{kind.__name__.strip('_').lower()}"
    found = tok.__dict__.get(key)
    if not isinstance(found, kind):
        found = tok.__dict__[key] = build()
    return found


def _spm_table(tok: SentencePieceTokenizer) -> _Table:
    """The lattice table of a SentencePiece unigram model, built once per tokenizer."""
    return _kept(tok, _Table, lambda: _new_spm_table(tok))


def _new_spm_table(tok: SentencePieceTokenizer) -> _Table:
    sp = tok.sp
    ids = list(range(sp.get_piece_size()))
    pieces: list[str] = sp.id_to_piece(ids)
    scores: list[float] = sp.get_score(ids)
    normal = [s for s, kind in zip(scores, tok.piece_types) if kind == NORMAL]
    low = min(normal, default=0.0)
    user = [i for i, kind in enumerate(tok.piece_types) if kind == USER_DEFINED]
    weight = _user_defined_weight(sp, pieces[user[0]], max([FLT_MIN, *normal])) if user else 0.0
    table: dict[str, tuple[int, float]] = {}
    for i, (piece, score, kind) in enumerate(zip(pieces, scores, tok.piece_types)):
        if kind == NORMAL:
            table[piece] = (i, score)
        elif kind == USER_DEFINED:  # a bonus so that the library always picks it
            table[piece] = (i, _f32(_f32(len(piece) * weight) - 0.1))
    longest = max((len(p) for p in table), default=1)
    bytes_ = {p: i for i, (p, kind) in enumerate(zip(pieces, tok.piece_types)) if kind == BYTE}
    return _Table(
        table, longest, sp.unk_id(), _f32(low - UNK_PENALTY), bytes_ if tok.facts.byte_fallback else {}
    )


def _user_defined_weight(sp: Any, piece: str, highest: float) -> float:
    """The ``w`` of the library's score for a user-defined piece, ``length * w - 0.1``, read from
    the library's own N-best score of that piece's text.

    sentencepiece 0.2.0's source takes the highest normal score (at least ``FLT_MIN``) as ``w``,
    later releases weigh a character 0.1: asking the library keeps the lattice's figures its own.
    """
    best = read_segmentations(sp.NBestEncode(piece, nbest_size=2, return_type="serialized_proto"))
    if not best:
        return highest
    pieces, ids, total = best[0]
    others = [i for p, i in zip(pieces, ids) if p != piece]
    if len(others) != len(ids) - 1 or any(sp.is_unknown(i) or sp.is_byte(i) for i in others):
        return highest
    rest = 0.0
    for i in reversed(others):
        rest = _f32(rest + sp.get_score(i))
    return _f32((total - rest + 0.1) / len(piece))


def _node_path(
    nodes: Sequence[LatticePiece], text: str, seg: Segmentation, is_byte: Callable[[int], bool], unk_id: int
) -> list[int]:
    """The lattice pieces along ``seg``: byte pieces (byte fallback) stand for the unknown
    piece of their character, a run of unknown characters the library fused for one each."""
    at = {(node.start, node.end): i for i, node in enumerate(nodes)}
    path: list[int] = []
    pos = pending = 0
    for piece, token_id in zip(seg.pieces, seg.ids):
        if is_byte(token_id):
            pending += 1
            if pos >= len(text) or pending < len(text[pos].encode("utf-8")):
                continue
            spans = [(pos, pos + 1)]
            pending = 0
        elif token_id == unk_id:
            spans = [(pos + k, pos + k + 1) for k in range(len(piece))]
        else:
            spans = [(pos, pos + len(piece))]
        for span in spans:
            if span not in at:
                raise InternalError(f"the piece {piece!r} at {span} is not in the lattice of {text!r}")
            path.append(at[span])
        pos = spans[-1][1]
    if pos != len(text) or pending:
        raise InternalError(f"the segmentation {seg.pieces!r} does not cover {text!r}")
    return path


def _path_score(nodes: Sequence[LatticePiece], path: Sequence[int]) -> float:
    """The sum of the pieces' log-probabilities, added from the end as the library's N-best does."""
    total = 0.0
    for i in reversed(path):
        total = _f32(nodes[i].log_prob + total)
    return total


def _forward(nodes: Sequence[LatticePiece], length: int, alpha: float) -> list[float]:
    """For each position, the log of the summed ``exp(alpha * score)`` of the paths up to it; the
    last is ``log Z(alpha)``."""
    forward = [-math.inf] * (length + 1)
    forward[0] = 0.0
    for node in nodes:  # by start: every piece ending at a start comes earlier
        value = forward[node.start] + alpha * node.log_prob
        high, low = max(forward[node.end], value), min(forward[node.end], value)
        forward[node.end] = high + math.log1p(math.exp(low - high)) if low > -math.inf else high
    return forward


def _spm_segmentations(serialized: bytes) -> list[Segmentation]:
    return [Segmentation(tuple(p), tuple(i), s) for p, i, s in read_segmentations(serialized)]


def _spm_segmentation(serialized: bytes, score: float = 0.0) -> Segmentation:
    pieces, ids, _ = read_segmentation(serialized)
    return Segmentation(tuple(pieces), tuple(ids), score)


def segment_lattice(tokenizer: Tokenizer, text: str, nbest: int = 5) -> Lattice:
    """The lattice of ``text`` under a unigram model, its best path and ``nbest`` best
    segmentations (see the module); :class:`InvalidArgument` with :func:`lattice_problem` for a
    tokenizer that has none, or for an empty text."""
    problem = lattice_problem(tokenizer)
    if problem is not None:
        raise InvalidArgument(f"{tokenizer.name}: {problem}")
    count = _check_whole(nbest, "the number of best segmentations", 1, MAX_NBEST)
    source, note = _capped(text)
    marked, nodes, table = _unigram_view(tokenizer, source)
    if isinstance(tokenizer, SentencePieceTokenizer):
        best, path, ranked = _spm_ranked(tokenizer, source, marked, nodes, table, count)
    else:
        best, path, ranked = _library_ranked(tokenizer, source, marked, nodes, table, count)
    return Lattice(marked, tuple(nodes), best, tuple(ranked), tuple(path), note)


def _unigram_view(tokenizer: Tokenizer, source: str) -> tuple[str, list[LatticePiece], _Table]:
    """The marked text the model segments, its lattice and the model's table."""
    if isinstance(tokenizer, SentencePieceTokenizer):
        table = _spm_table(tokenizer)
        marked: str = tokenizer.sp.normalize(source)
        nodes = table.nodes(marked)
    elif isinstance(tokenizer, HFTokenizer):
        marked, nodes, table = _hf_lattice(tokenizer, source)
    else:
        raise InternalError(f"{tokenizer.name} is not a unigram model")
    if not marked:
        raise InvalidArgument("the text is empty once normalized: there is nothing to segment")
    return marked, nodes, table


def _spm_ranked(
    tok: SentencePieceTokenizer,
    source: str,
    marked: str,
    nodes: list[LatticePiece],
    table: _Table,
    count: int,
) -> tuple[Segmentation, list[int], list[Segmentation]]:
    """The library's best segmentation (placed on the lattice) and its N best."""
    import sentencepiece

    sp = tok.sp
    # A long text's search makes the library log that it trims its agenda, straight to the
    # terminal: warnings are held back for the call (0 is the library's default level).
    sentencepiece.set_min_log_level(2)
    try:
        serialized = sp.NBestEncode(source, nbest_size=max(2, count), return_type="serialized_proto")
    finally:
        sentencepiece.set_min_log_level(0)
    # The library gives the best path alone (score 0) for one; two or more carry their scores.
    ranked = _spm_segmentations(serialized)
    placed = _spm_segmentation(sp.encode(source, return_type="serialized_proto"))
    path = _node_path(nodes, marked, placed, _spm_is_byte(tok), table.unk_id)
    return Segmentation(placed.pieces, placed.ids, _path_score(nodes, path)), path, ranked[:count]


def _library_ranked(
    tok: Tokenizer, source: str, marked: str, nodes: list[LatticePiece], table: _Table, count: int
) -> tuple[Segmentation, list[int], list[Segmentation]]:
    """The N best by tokviz's own search of the lattice (``tokenizers`` has no N-best call); the
    best must be the library's own segmentation, or the text is refused in one line."""
    ranked = [(score, path) for score, path in _kbest(nodes, len(marked), count)]
    spelled = [table.spell([nodes[i] for i in path]) for _, path in ranked]
    segs = [Segmentation(seg.pieces, seg.ids, score) for seg, (score, _) in zip(spelled, ranked)]
    if list(segs[0].ids) != tok.encode(source):
        raise InvalidArgument(
            f"{tok.name}: tokviz's lattice does not give the library's segmentation of this text"
        )
    return segs[0], ranked[0][1], segs


def _kbest(nodes: Sequence[LatticePiece], length: int, k: int) -> list[tuple[float, list[int]]]:
    """The ``k`` best paths through the lattice with their scores, best first: the ``k`` best
    paths to each position from the ``k`` best to the starts of the pieces ending there (a path's
    part up to any position is among the ``k`` best to it). Ties keep the earlier start first,
    as the library's Viterbi does."""
    ending: dict[int, list[int]] = {}
    for i, node in enumerate(nodes):
        ending.setdefault(node.end, []).append(i)
    tops: list[list[tuple[float, int, int]]] = [[] for _ in range(length + 1)]
    tops[0] = [(0.0, -1, -1)]
    for pos in range(1, length + 1):
        found = [
            (score + nodes[i].log_prob, i, rank)
            for i in ending.get(pos, [])
            for rank, (score, _, _) in enumerate(tops[nodes[i].start])
        ]
        found.sort(key=lambda entry: -entry[0])
        tops[pos] = found[:k]
    out: list[tuple[float, list[int]]] = []
    for score, i, rank in tops[length]:
        path: list[int] = []
        while i >= 0:
            path.append(i)
            _, i, rank = tops[nodes[i].start][rank]
        path.reverse()
        out.append((score, path))
    return out


def _hf_table(tok: HFTokenizer) -> _Table:
    """The lattice table of a ``tokenizers`` Unigram model: every vocabulary piece at its score
    (an unknown character at the lowest minus 10, as the library's ``populate_nodes``), built once
    per tokenizer."""
    return _kept(tok, _Table, lambda: _new_hf_table(tok))


def _new_hf_table(tok: HFTokenizer) -> _Table:
    model = json.loads(tok.hf.to_str()).get("model") or {}
    scores: dict[str, tuple[int, float]] = {}
    for i, (piece, score) in enumerate(model.get("vocab") or []):
        scores[str(piece)] = (i, float(score))
    low = min((score for _, score in scores.values()), default=0.0)
    unk = model.get("unk_id")
    bytes_ = {p: i for p, (i, _) in scores.items() if len(p) == 6 and p.startswith("<0x") and p.endswith(">")}
    return _Table(
        scores,
        max((len(p) for p in scores), default=1),
        unk if isinstance(unk, int) else -1,
        low - UNK_PENALTY,
        bytes_ if model.get("byte_fallback") else {},
    )


def _hf_lattice(tok: HFTokenizer, source: str) -> tuple[str, list[LatticePiece], _Table]:
    """The lattice of a ``tokenizers`` Unigram model: the library's normalizer and pre-tokenizer
    give the words (pieces never cross one), an added token is one piece of its own."""
    table = _hf_table(tok)
    hf = tok.hf
    parts: list[str] = []
    nodes: list[LatticePiece] = []
    base = 0
    for start, end, added in tok.segments(source):
        part = source[start:end]
        if added:
            ids = tok.encode(part)
            nodes.append(LatticePiece(base, base + len(part), part, ids[0] if ids else table.unk_id, 0.0))
            parts.append(part)
            base += len(part)
            continue
        normalized = hf.normalizer.normalize_str(part) if hf.normalizer is not None else part
        words = (
            hf.pre_tokenizer.pre_tokenize_str(normalized)
            if hf.pre_tokenizer is not None
            else [(normalized, None)]
        )
        for word, _ in words:
            nodes.extend(table.nodes(word, base))
            parts.append(word)
            base += len(word)
    return "".join(parts), nodes, table


def _spm_is_byte(tok: SentencePieceTokenizer) -> Callable[[int], bool]:
    types = tok.piece_types
    return lambda i: 0 <= i < len(types) and types[i] == BYTE


# ---------------------------------------------------------------------------------------- sampling
def sample_segmentations(
    tokenizer: Tokenizer,
    text: str,
    *,
    count: int,
    seed: int,
    alpha: float | None = None,
    dropout: float | None = None,
) -> list[Segmentation]:
    """``count`` random segmentations of ``text``: subword regularization (``alpha``, default
    :data:`DEFAULT_ALPHA`) for a unigram model, BPE-dropout (``dropout``, default
    :data:`DEFAULT_DROPOUT`) for a BPE model. The same seed gives the same samples."""
    problem = sampling_problem(tokenizer)
    if problem is not None:
        raise InvalidArgument(f"{tokenizer.name}: {problem}")
    count = _check_whole(count, "the number of samples", 1, MAX_SAMPLES)
    seed = _check_whole(seed, "the seed", 0, LIBRARY_SEEDS - 1)
    if alpha is not None and dropout is not None:
        raise InvalidArgument("give alpha (a unigram model) or dropout (a BPE model), not both")
    unigram = _model_kind(tokenizer) == "unigram"
    if unigram and dropout is not None:
        raise InvalidArgument(f"{tokenizer.name} is a unigram model: it samples with alpha, not dropout")
    if not unigram and alpha is not None:
        raise InvalidArgument(f"{tokenizer.name} is a BPE model: it samples with dropout, not alpha")
    source, _ = _capped(text)
    if unigram:
        smoothing = DEFAULT_ALPHA if alpha is None else _check_real(alpha, "alpha", 0.0, None)
        return _unigram_samples(tokenizer, source, count, seed, smoothing)
    p = DEFAULT_DROPOUT if dropout is None else _check_real(dropout, "dropout", 0.0, 1.0)
    return _dropout_samples(tokenizer, source, count, seed, p)


def _unigram_samples(
    tokenizer: Tokenizer, source: str, count: int, seed: int, alpha: float
) -> list[Segmentation]:
    """Subword-regularization samples over the lattice, scored as the library's ``SampleEncodeAndScore``."""
    marked, nodes, table = _unigram_view(tokenizer, source)
    forward = _forward(nodes, len(marked), alpha)
    rng = random.Random(seed)
    samples: list[Segmentation] = []
    for _ in range(count):
        path = _draw(nodes, forward, alpha, rng)
        spelled = table.spell([nodes[i] for i in path])
        score = alpha * sum(nodes[i].log_prob for i in path) - forward[-1]
        samples.append(Segmentation(spelled.pieces, spelled.ids, score))
    return samples


def _draw(
    nodes: Sequence[LatticePiece], forward: Sequence[float], alpha: float, rng: random.Random
) -> list[int]:
    """One path drawn from the end backwards, each piece with its share of the paths' weight
    (forward filtering, backward sampling: the library's ``Lattice::Sample``)."""
    ending: dict[int, list[int]] = {}
    for i, node in enumerate(nodes):
        ending.setdefault(node.end, []).append(i)
    path: list[int] = []
    pos = len(forward) - 1
    while pos > 0:
        choices = ending[pos]
        weights = [
            math.exp(forward[nodes[i].start] + alpha * nodes[i].log_prob - forward[pos]) for i in choices
        ]
        path.append(rng.choices(choices, weights)[0])
        pos = nodes[path[-1]].start
    path.reverse()
    return path


def _dropout_samples(
    tokenizer: Tokenizer, source: str, count: int, seed: int, p: float
) -> list[Segmentation]:
    """BPE-dropout samples: a SentencePiece model's merges by score, tokviz's BPE's otherwise."""
    rng = random.Random(seed)
    if isinstance(tokenizer, SentencePieceTokenizer):
        model = _spm_bpe(tokenizer)
        marked: str = tokenizer.sp.normalize(source)
        if not marked:
            raise InvalidArgument("the text is empty once normalized: there is nothing to segment")
        start = model.symbols(marked)
        return [model.table.spell(model.merge(start, p, rng)) for _ in range(count)]
    try:
        drawn = [tokenizer.encode_with_dropout(source, p, rng) for _ in range(count)]
    except ReplayUnavailable as exc:
        raise InvalidArgument(str(exc)) from None
    vocab = tokenizer.vocab
    return [
        Segmentation(tuple(printable_token(vocab[i], whitespace=False) for i in ids), tuple(ids), 0.0)
        for ids in drawn
    ]


@dataclass
class _Symbols:
    """A text cut into BPE symbols, before any merge: each symbol, whether it may merge (a
    user-defined piece never does), and the agenda of the merges due (a heap of ``(-score, left,
    right, length)``) with the unused pieces among them and the two symbols each was made of."""

    pieces: list[str]
    frozen: list[bool]
    agenda: list[tuple[float, int, int, int]]
    made_of: dict[str, tuple[str, str]]


@dataclass
class _SpmBpe:
    """A SentencePiece BPE model as its library encodes with it (``bpe_model.cc``): ``table`` holds
    the pieces a merge may make (normal, user-defined and unused) with their scores and spells the
    result as the library does; ``user`` are the user-defined pieces, matched whole first."""

    table: _Table
    user: frozenset[str]
    user_longest: int
    unused: frozenset[int]
    id_of: Callable[[str], int]

    def symbols(self, marked: str) -> _Symbols:
        """``marked`` cut into symbols: at each place the longest user-defined piece that starts
        there, else one character; every adjacent pair that makes a piece is due to merge."""
        pieces: list[str] = []
        frozen: list[bool] = []
        pos = 0
        while pos < len(marked):
            size = next(
                (
                    k
                    for k in range(min(self.user_longest, len(marked) - pos), 0, -1)
                    if marked[pos : pos + k] in self.user
                ),
                0,
            )
            frozen.append(size > 0)
            pieces.append(marked[pos : pos + max(size, 1)])
            pos += max(size, 1)
        found = _Symbols(pieces, frozen, [], {})
        for right in range(1, len(pieces)):
            self._offer(found, right - 1, right)
        return found

    def _offer(self, state: _Symbols, left: int, right: int) -> None:
        """Put the merge of the symbols ``left`` and ``right`` on the agenda if it makes a piece."""
        if left < 0 or right < 0 or state.frozen[left] or state.frozen[right]:
            return
        piece = state.pieces[left] + state.pieces[right]
        found = self.table.scores.get(piece)
        if found is None:
            return
        heapq.heappush(state.agenda, (-found[1], left, right, len(piece)))
        if found[0] in self.unused:  # the last pair that made it is how it is spelled
            state.made_of[piece] = (state.pieces[left], state.pieces[right])

    def merge(self, start: _Symbols, p: float, rng: random.Random) -> list[LatticePiece]:
        """The pieces of ``start`` merged as the library merges, each merge due skipped with
        probability ``p`` (a skipped merge is not offered again)."""
        state = _Symbols(list(start.pieces), start.frozen, list(start.agenda), dict(start.made_of))
        pieces = state.pieces
        count = len(pieces)
        before = list(range(-1, count - 1))
        after = [*range(1, count), -1]
        while state.agenda:
            _, left, right, size = heapq.heappop(state.agenda)
            if not pieces[left] or not pieces[right] or len(pieces[left]) + len(pieces[right]) != size:
                continue  # one of the pair was merged since
            if p >= 1.0 or (p > 0.0 and rng.random() < p):
                continue
            pieces[left] += pieces[right]
            pieces[right] = ""
            after[left] = after[right]
            if after[right] >= 0:
                before[after[right]] = left
            self._offer(state, before[left], left)
            self._offer(state, left, after[left])
        out: list[LatticePiece] = []
        at = 0
        index = 0
        while index >= 0:
            for piece in self._unmade(pieces[index], state.made_of):
                out.append(LatticePiece(at, at + len(piece), piece, self.id_of(piece), 0.0))
                at += len(piece)
            index = after[index]
        return out

    def _unmade(self, piece: str, made_of: dict[str, tuple[str, str]]) -> list[str]:
        """``piece``, or an unused piece as the pieces it was made of (the library never gives one)."""
        parts = made_of.get(piece) if self.id_of(piece) in self.unused else None
        if parts is None:
            return [piece]
        return self._unmade(parts[0], made_of) + self._unmade(parts[1], made_of)


def _spm_bpe(tok: SentencePieceTokenizer) -> _SpmBpe:
    """The BPE view of a SentencePiece model, built once per tokenizer."""
    return _kept(tok, _SpmBpe, lambda: _new_spm_bpe(tok))


def _new_spm_bpe(tok: SentencePieceTokenizer) -> _SpmBpe:
    sp = tok.sp
    ids = list(range(sp.get_piece_size()))
    kinds = tok.piece_types
    table: dict[str, tuple[int, float]] = {
        piece: (i, score)
        for i, (piece, score, kind) in enumerate(zip(sp.id_to_piece(ids), sp.get_score(ids), kinds))
        if kind in (NORMAL, USER_DEFINED, UNUSED)
    }
    user = frozenset(piece for piece, (i, _) in table.items() if kinds[i] == USER_DEFINED)
    bytes_ = {p: i for p, i in zip(sp.id_to_piece(ids), ids) if kinds[i] == BYTE}

    def id_of(piece: str) -> int:
        found = table.get(piece)
        return found[0] if found is not None else int(sp.piece_to_id(piece))

    return _SpmBpe(
        _Table(
            table,
            max((len(p) for p in table), default=1),
            sp.unk_id(),
            0.0,  # unscored: a BPE model has no lattice
            bytes_ if tok.facts.byte_fallback else {},
        ),
        user,
        max((len(p) for p in user), default=0),
        frozenset(i for i, kind in enumerate(kinds) if kind == UNUSED),
        id_of,
    )
