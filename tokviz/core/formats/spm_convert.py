"""A SentencePiece ``.model`` as a ``tokenizer.json`` that the ``tokenizers`` library encodes with the same ids.

What the library does with a text, step by step, and how each step is written for ``tokenizers``:

1. **Rewriting the text** (``NormalizerSpec``). The rule table (``precompiled_charsmap``: NFKC,
   NMT-NFKC or a custom table; empty for ``identity``) becomes a ``Precompiled`` normalizer, after
   an ``NFC`` step for the NFKC tables (:data:`NFKC_RULES`) and a ``Replace`` that rewrites CR LF
   as its two characters (one grapheme for ``tokenizers``, two characters for the library). With
   ``remove_extra_whitespaces`` the library drops the spaces the rules leave at the start, keeps one
   of each run, and drops the spaces (``▁`` included) at the end: three ``Replace`` steps, on the
   whole text at once. With ``escape_whitespaces`` every space becomes ``▁`` (a ``Replace``), and
   ``add_dummy_prefix`` puts one ``▁`` before any text that is left (``Prepend``, which also prefixes
   a text that already starts with ``▁``, as the library does; a ``Metaspace`` pre-tokenizer would
   not). No pre-tokenizer cuts the text, since the library segments the whole rewritten text (but
   for a BPE model's user-defined pieces, below).
2. **Picking pieces.** A Unigram model keeps its pieces and scores (``Unigram``). The library
   scores a user-defined piece ``bytes × max normal score − 0.1`` in its lattice, and
   ``tokenizers`` scores the pieces of its vocabulary as written, so those pieces carry that score.
   A BPE model merges, at each step, the adjacent pair whose joined piece has the highest score
   (the leftmost of equals), over every pair whose join is a piece: ``tokenizers`` merges by rank,
   so every split of every piece into two pieces is a merge, ranked by the joined piece's score.
   Pieces of one score (Mistral's runs of ``▁``) are ranked longest left part first, which is the
   library's leftmost-first order for a run growing from its left. The library never merges a BPE
   model's user-defined pieces: a ``Split`` pre-tokenizer isolates them on the rewritten text and
   the model takes each whole (``ignore_merges``).
3. **Unknown text.** Runs of unknown characters become one unknown piece in both libraries
   (``fuse_unk``), or their UTF-8 bytes as ``<0xNN>`` pieces with byte fallback.
4. **Decoding**: ``<0xNN>`` pieces are bytes, ``▁`` is a space and the dummy prefix's space is
   dropped (``ByteFallback``, ``Fuse``, ``Replace``, ``Strip``).

The control pieces (``<s>``, ``</s>``) and the unknown piece are special added tokens, so
``transformers`` knows their roles; tokviz's own special tokens follow them. What ``tokenizers``
cannot say exactly is refused in one line (:func:`spm_export_problem`), and what differs only on
rare text is said after the export (:func:`spm_export_notes`).
"""

from __future__ import annotations

import base64
import functools
import json
import struct
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .hf_config import library_config_files
from .sentencepiece_file import (
    BYTE,
    CONTROL,
    NORMAL,
    SPACE_MARK,
    UNKNOWN,
    UNUSED,
    USER_DEFINED,
    ModelProto,
    Piece,
    read_model_proto,
)

# The library's built-in rule tables that are NFKC (and NFKC + case folding): composing the text
# first (NFC) changes nothing NFKC gives, and hands tokenizers' grapheme-by-grapheme rule reader
# one code point where the library's longest match would have joined a letter and its accents.
NFKC_RULES = frozenset({"nfkc", "nmt_nfkc", "nfkc_cf", "nmt_nfkc_cf"})
_REGEX_SPECIALS = frozenset("\\^$.|?*+()[]{}")
_FLT_MIN = struct.unpack("<f", struct.pack("<I", 0x00800000))[0]  # the library's starting "max" score


class SpmConversionError(ValueError):
    """A model ``tokenizers`` cannot reproduce exactly (the message is the one-line reason)."""


@dataclass(frozen=True)
class _Plan:
    """The parsed model and the facts the converter checks before writing anything."""

    proto: ModelProto
    normal_scores: tuple[float, float]  # min and max score of the normal pieces


def _f32(value: float) -> float:
    """``value`` rounded to a C ``float``, as the library computes its scores."""
    return float(struct.unpack("<f", struct.pack("<f", value))[0])


def _charsmap_values(charsmap: bytes) -> list[str]:
    """The rewritten strings of a compiled rule table (after its trie: ``\\0``-separated UTF-8)."""
    if len(charsmap) < 4:
        return []
    trie_size = struct.unpack("<I", charsmap[:4])[0]
    blob = charsmap[4 + trie_size :]
    return [v for v in blob.decode("utf-8", "replace").split("\0") if v]


@functools.lru_cache(maxsize=4)
def _plan(model: bytes) -> _Plan:
    """Parse ``model`` and refuse (:class:`SpmConversionError`) what ``tokenizers`` cannot express.

    Kept for the last few models: an export asks for the problem, the file, its config and its notes.
    """
    try:
        proto = read_model_proto(model)
    except (ValueError, UnicodeDecodeError) as exc:
        raise SpmConversionError(f"the file is not a SentencePiece model ({exc})") from None
    if not proto.pieces:
        raise SpmConversionError("the file is not a SentencePiece model (no pieces)")
    if proto.model_type not in ("unigram", "BPE"):
        raise SpmConversionError(
            f"a SentencePiece {proto.model_type} model has no counterpart in tokenizers (Unigram and BPE do)"
        )
    if proto.treat_whitespace_as_suffix:
        raise SpmConversionError(
            "the model puts its space mark after words (treat_whitespace_as_suffix), "
            "which no tokenizers normalizer writes"
        )
    unused = [p.text for p in proto.pieces if p.kind == UNUSED]
    if unused:
        raise SpmConversionError(
            f"the model has {len(unused)} unused pieces ({unused[0]!r} ...), which sentencepiece never "
            "outputs and tokenizers would"
        )
    normal = [p.score for p in proto.pieces if p.kind == NORMAL]
    if not normal:
        raise SpmConversionError("the model has no normal pieces")
    spec = proto.normalizer
    if spec.remove_extra_whitespaces and any("  " in v for v in _charsmap_values(spec.charsmap)):
        raise SpmConversionError(
            "a rule of the model's normalizer writes two spaces in a row, which sentencepiece keeps "
            "and the whitespace clean-up of tokenizers would join"
        )
    _check_user_pieces(proto)
    if proto.model_type == "BPE":
        _check_bpe_characters(proto.pieces)
    plan = _Plan(proto, (min(normal), max(normal)))
    if proto.model_type == "unigram":
        low = min(score for _, score in _unigram_vocab(plan))
        if low < plan.normal_scores[0]:
            raise SpmConversionError(
                "a reserved piece scores below every normal piece, which would change the unknown "
                "piece's penalty in tokenizers (it counts every piece; sentencepiece the normal ones)"
            )
    return plan


def _check_user_pieces(proto: ModelProto) -> None:
    """User-defined pieces are matched before the rules (the library never rewrites them):
    ``tokenizers`` matches them after, so the rules must leave them as they are."""
    users = [p.text for p in proto.pieces if p.kind == USER_DEFINED]
    for text in users:
        if any(c.isspace() for c in text) or SPACE_MARK in text:
            raise SpmConversionError(
                f"the user-defined piece {text!r} holds a space, which sentencepiece matches "
                "before rewriting spaces and tokenizers after"
            )
    if not users or not proto.normalizer.charsmap:
        return
    from tokenizers import normalizers

    rules = normalizers.Precompiled(proto.normalizer.charsmap)
    for text in users:
        if rules.normalize_str(text) != text:
            raise SpmConversionError(
                f"the normalizer rewrites the user-defined piece {text!r}, which sentencepiece matches "
                "before rewriting and tokenizers after"
            )


def _check_bpe_characters(pieces: tuple[Piece, ...]) -> None:
    """Every character of a BPE piece must be a piece: ``tokenizers`` starts from pieces, the library from characters."""
    singles = {p.text for p in pieces if p.kind == NORMAL and len(p.text) == 1}
    for piece in pieces:
        if piece.kind != NORMAL or len(piece.text) < 2:
            continue
        missing = next((c for c in piece.text if c not in singles), None)
        if missing is not None:
            raise SpmConversionError(
                f"the BPE piece {piece.text!r} holds {missing!r}, which is no piece of its own: "
                "sentencepiece can build it, tokenizers' BPE never could"
            )


def _unigram_vocab(plan: _Plan) -> list[tuple[str, float]]:
    """Each piece with the score the library's lattice gives it (user-defined pieces: their bonus)."""
    top = _f32(max(plan.normal_scores[1], _FLT_MIN))
    out: list[tuple[str, float]] = []
    for piece in plan.proto.pieces:
        score = piece.score
        if piece.kind == USER_DEFINED:
            score = _f32(len(piece.text.encode("utf-8")) * top) - 0.1
        out.append((piece.text, score))
    return out


def _bpe_merges(pieces: tuple[Piece, ...]) -> list[list[str]]:
    """Every split of a normal piece into two normal pieces, ranked as the library applies them.

    The library merges the pair whose joined piece scores highest; among equal scores, the leftmost.
    Ranking equal scores by the longer left part first reproduces that for a run that grows from
    its left, the one shape equal scores take in published models (runs of ``▁``).
    """
    normal = {p.text: p.score for p in pieces if p.kind == NORMAL}
    ranked: list[tuple[float, int, str, str]] = []
    for text, score in normal.items():
        for cut in range(1, len(text)):
            left, right = text[:cut], text[cut:]
            if left in normal and right in normal:
                ranked.append((-score, -cut, left, right))
    ranked.sort()
    return [[left, right] for _, _, left, right in ranked]


def _normalizer(plan: _Plan) -> dict[str, Any] | None:
    """The ``normalizer`` object: the rule table, the whitespace clean-up, ``▁`` and the dummy prefix."""
    spec = plan.proto.normalizer
    space = SPACE_MARK if spec.escape_whitespaces else " "
    steps: list[dict[str, Any]] = []
    if spec.charsmap:
        if spec.name in NFKC_RULES:
            steps.append({"type": "NFC"})
        crlf = _crlf(spec.charsmap)
        if crlf is not None:
            steps.append(_replace({"String": "\r\n"}, crlf))
        charsmap = base64.b64encode(spec.charsmap).decode("ascii")
        steps.append({"type": "Precompiled", "precompiled_charsmap": charsmap})
    if spec.remove_extra_whitespaces:
        steps.append(_replace({"Regex": r"\A +"}, ""))
        steps.append(_replace({"Regex": " {2,}"}, " "))
    if spec.escape_whitespaces:
        steps.append(_replace({"String": " "}, SPACE_MARK))
    if spec.remove_extra_whitespaces:
        steps.append(_replace({"Regex": f"{space}+\\z"}, ""))
    if spec.add_dummy_prefix:
        steps.append({"type": "Prepend", "prepend": space})
    if not steps:
        return None
    return steps[0] if len(steps) == 1 else {"type": "Sequence", "normalizers": steps}


def _crlf(charsmap: bytes) -> str | None:
    """What the rules make of ``\\r\\n`` when they rewrite its two characters one by one (the library
    reads them so); ``tokenizers`` reads them as one grapheme and would keep only the first's rewrite."""
    from tokenizers import normalizers

    rules = normalizers.Precompiled(charsmap)
    alone = rules.normalize_str("\r") + rules.normalize_str("\n")
    return alone if rules.normalize_str("\r\n") != alone else None


def _user_pieces(plan: _Plan) -> list[str]:
    return [p.text for p in plan.proto.pieces if p.kind == USER_DEFINED]


def _pretokenizer(plan: _Plan) -> dict[str, Any] | None:
    """``None`` (the library segments the whole rewritten text), or for a BPE model's user-defined
    pieces a ``Split`` that isolates them, longest first, on the rewritten text, as the library
    freezes them before merging (the model then takes each whole: ``ignore_merges``)."""
    users = _user_pieces(plan)
    if plan.proto.model_type != "BPE" or not users:
        return None
    pattern = "|".join(_literal(text) for text in sorted(users, key=len, reverse=True))
    return {"type": "Split", "pattern": {"Regex": pattern}, "behavior": "Isolated", "invert": False}


def _unbuilt_pieces(plan: _Plan) -> list[str]:
    """The normal pieces of a BPE model with user-defined pieces that merging never builds whole
    from their own text: ``ignore_merges`` takes a stretch that spells one whole, the library not."""
    if plan.proto.model_type != "BPE" or not _user_pieces(plan):
        return []
    from tokenizers import models

    model = _model(plan)
    merges = [(left, right) for left, right in model["merges"]]
    bpe = models.BPE(vocab=model["vocab"], merges=merges, unk_token=model["unk_token"], byte_fallback=True)
    pieces = [p.text for p in plan.proto.pieces if p.kind == NORMAL and len(p.text) > 1]
    return [text for text in pieces if [t.value for t in bpe.tokenize(text)] != [text]]


def _literal(text: str) -> str:
    """``text`` as an Oniguruma pattern that matches it literally."""
    return "".join("\\" + c if c in _REGEX_SPECIALS else c for c in text)


def _replace(pattern: dict[str, str], content: str) -> dict[str, Any]:
    return {"type": "Replace", "pattern": pattern, "content": content}


def _decoder(plan: _Plan) -> dict[str, Any]:
    """Bytes back from ``<0xNN>`` pieces, spaces from ``▁``, and the dummy prefix's one space dropped.

    Not a ``Metaspace`` decoder: it drops every ``▁`` of the first piece, so a text that starts with
    a run of spaces (which the library keeps when it leaves whitespace alone) would lose them.
    """
    spec = plan.proto.normalizer
    steps: list[dict[str, Any]] = [{"type": "ByteFallback"}] if plan.proto.byte_fallback else []
    steps.append({"type": "Fuse"})
    if spec.escape_whitespaces:
        steps.append(_replace({"String": SPACE_MARK}, " "))
    if spec.add_dummy_prefix:
        steps.append({"type": "Strip", "content": " ", "start": 1, "stop": 0})
    return {"type": "Sequence", "decoders": steps}


def _model(plan: _Plan) -> dict[str, Any]:
    proto = plan.proto
    unk = next((i for i, p in enumerate(proto.pieces) if p.kind == UNKNOWN), None)
    if proto.model_type == "unigram":
        return {
            "type": "Unigram",
            "unk_id": unk,
            "vocab": [[text, score] for text, score in _unigram_vocab(plan)],
            "byte_fallback": proto.byte_fallback,
        }
    return {
        "type": "BPE",
        "dropout": None,
        "unk_token": proto.pieces[unk].text if unk is not None else None,
        "continuing_subword_prefix": None,
        "end_of_word_suffix": None,
        "fuse_unk": True,
        "byte_fallback": proto.byte_fallback,
        # Set for user-defined pieces only (see _pretokenizer): a stretch between them that is a piece
        # is then taken whole, as the library's merges take it (checked by _unbuilt_pieces).
        "ignore_merges": bool(_user_pieces(plan)),
        "vocab": {p.text: i for i, p in enumerate(proto.pieces)},
        "merges": _bpe_merges(proto.pieces),
    }


def _added_token(token_id: int, content: str, *, special: bool, normalized: bool) -> dict[str, Any]:
    return {
        "id": token_id,
        "content": content,
        "single_word": False,
        "lstrip": False,
        "rstrip": False,
        "normalized": normalized,
        "special": special,
    }


def _added_tokens(plan: _Plan, extra_specials: Mapping[str, int]) -> list[dict[str, Any]]:
    """Control and unknown pieces as special tokens, then the special tokens tokviz added (matched
    on the raw text, as tokviz does)."""
    out: list[dict[str, Any]] = []
    for i, piece in enumerate(plan.proto.pieces):
        if piece.kind in (CONTROL, UNKNOWN):
            out.append(_added_token(i, piece.text, special=True, normalized=False))
    for text, token_id in sorted(extra_specials.items(), key=lambda item: item[1]):
        out.append(_added_token(token_id, text, special=True, normalized=False))
    return out


def spm_export_problem(model: bytes) -> str | None:
    """Why ``model`` cannot become a tokenizer.json with the library's ids (one line), or ``None``."""
    try:
        _plan(model)
    except SpmConversionError as exc:
        return str(exc)
    return None


def spm_tokenizer_json(model: bytes, extra_specials: Mapping[str, int] | None = None) -> str:
    """The tokenizer.json text equivalent to the SentencePiece ``model`` (Unigram or BPE).

    ``tokenizers.Tokenizer.from_str(result).encode(text, add_special_tokens=False).ids`` equals
    ``SentencePieceProcessor.encode(text)`` (no BOS/EOS, as the library's default) except on the
    rare text :func:`spm_export_notes` names. ``extra_specials`` are special tokens added on top
    (text -> id, ids after the model's). Raises :class:`SpmConversionError` with the reason when
    ``tokenizers`` cannot express the model exactly.
    """
    plan = _plan(model)
    doc = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": _added_tokens(plan, extra_specials or {}),
        "normalizer": _normalizer(plan),
        "pre_tokenizer": _pretokenizer(plan),
        "post_processor": None,
        "decoder": _decoder(plan),
        "model": _model(plan),
    }
    return json.dumps(doc, ensure_ascii=False, indent=2)


def spm_export_notes(model: bytes) -> list[str]:
    """What the user must know about a tokenizer.json made from ``model``: the text it reads otherwise
    (:class:`SpmConversionError` for a model it refuses, as :func:`spm_tokenizer_json`)."""
    plan = _plan(model)
    proto = plan.proto
    reserved = [p.text for p in proto.pieces if p.kind in (CONTROL, UNKNOWN, BYTE)]
    notes = []
    if reserved:
        shown = ", ".join(reserved[:3]) + (" ..." if len(reserved) > 3 else "")
        notes.append(
            f"text that spells a reserved piece ({shown}) is that piece for tokenizers and plain "
            "text for sentencepiece"
        )
    if proto.normalizer.charsmap:
        notes.append(
            "tokenizers applies the normalizer's rules one grapheme at a time, so a character written "
            "with several code points that stay several after NFC (a compatibility character with an "
            "accent, as Ａ + U+0301) can be rewritten otherwise than sentencepiece does"
        )
    unbuilt = _unbuilt_pieces(plan)
    if unbuilt:
        notes.append(
            f"{len(unbuilt)} pieces ({unbuilt[0]!r} ...) are never built whole by merging their own text; "
            "a stretch between user-defined pieces that spells one is that one piece for tokenizers"
        )
    if proto.model_type == "unigram":
        notes.append(
            "where two segmentations score exactly the same (0+00 and 00+0), sentencepiece's float "
            "rounding picks one and tokenizers the other"
        )
    return notes


def spm_config_files(model: bytes, extra_specials: Mapping[str, int] | None = None) -> dict[str, bytes]:
    """``tokenizer_config.json`` and ``special_tokens_map.json`` beside :func:`spm_tokenizer_json`'s file.

    The roles come from the ids the trainer gave the reserved pieces (``bos_id``, ``eos_id``,
    ``unk_id``, ``pad_id``), not from their spelling; no BOS or EOS is added on encoding (the
    library's default), and the added tokens are listed with the flags tokenizer.json gives them.
    """
    plan = _plan(model)
    pieces = plan.proto.pieces

    def role(index: int, kinds: tuple[int, ...]) -> str | None:
        return pieces[index].text if 0 <= index < len(pieces) and pieces[index].kind in kinds else None

    roles = {
        "bos_token": role(plan.proto.bos_id, (CONTROL,)),
        "eos_token": role(plan.proto.eos_id, (CONTROL,)),
        "unk_token": role(plan.proto.unk_id, (UNKNOWN,)),
        "pad_token": role(plan.proto.pad_id, (CONTROL,)),
    }
    tokens = _added_tokens(plan, extra_specials or {})
    return library_config_files(tokens, roles, add_bos_token=False, add_eos_token=False)
