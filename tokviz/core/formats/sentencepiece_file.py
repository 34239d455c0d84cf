"""SentencePiece ``.model`` files (Llama 2, T5, Gemma, Mistral v1), encoded by the ``sentencepiece`` package.

The ids are the library's own (``SentencePieceProcessor.encode``, no BOS/EOS added), so they are
exact by construction. Around them tokviz puts what its views need: every piece's bytes (``▁`` is
a space, a byte piece ``<0xNN>`` is that byte), the places of the pieces on the original text (from
the library's offsets, so a normalizer that changed the text still points at what the user typed),
the control and user-defined pieces as special tokens, and the model's kind. Merge-by-merge replay
is refused with a reason (:attr:`SentencePieceTokenizer.replay_note`): the pieces are chosen by
their scores over the whole normalized text, not by a byte-level merge list.

The model file is a protocol-buffer message; the few fields tokviz shows (the model type, byte
fallback, the normalizer's name) are read by :func:`read_model_facts` without the ``protobuf``
package, which ``sentencepiece`` does not require; each piece's type comes from the library's
batched calls (:func:`piece_types`), so a 256K-piece model opens in a fraction of a second.
"""

from __future__ import annotations

import random
import struct
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..bpe.arguments import check_text
from ..bpe.tokenizer import LONE_SURROGATE, Tokenizer, TokenSpan, replace_lone_surrogates
from ..errors import ArgumentTypeError, InvalidArgument, ReplayUnavailable, TokenizerLoadError
from ..pretok.pretokenize import Pretokenizer, SpecialSplitter
from ._common import PathLike, _read_file

# Far above any published model (Gemma's 256K-piece model is 4 MB).
SENTENCEPIECE_CAP = 256 * 2**20

# The piece types of sentencepiece_model.proto.
NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE = 1, 2, 3, 4, 5, 6
MODEL_TYPES = {1: "unigram", 2: "BPE", 3: "word", 4: "char"}
SPACE_MARK = "\u2581"  # ▁, SentencePiece's visible space
GENERIC_STEMS = ("tokenizer", "spiece", "sentencepiece", "sentencepiece.bpe")


@dataclass
class ModelFacts:
    """What :func:`read_model_facts` finds in a model file: its piece count and settings."""

    piece_count: int = 0
    model_type: str = "unigram"
    byte_fallback: bool = False
    normalizer: str = "nmt_nfkc"
    add_dummy_prefix: bool = True


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    """The varint at ``pos`` and the position after it."""
    value = shift = 0
    while True:
        if pos >= len(data):
            raise ValueError("truncated varint")
        b = data[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        if b < 0x80:
            return value, pos
        shift += 7
        if shift > 63:
            raise ValueError("varint too long")


def _fields(data: bytes, skip: int = 0) -> Iterator[tuple[int, int, Any]]:
    """``(field number, wire type, value)`` of one protobuf message (a bytes value for length-delimited).

    Length-delimited values of field ``skip`` (the model's pieces, thousands of them) are passed
    over, not sliced: their value is None.
    """
    pos = 0
    n = len(data)
    while pos < n:
        key = data[pos]
        if key < 0x80:
            pos += 1
        else:
            key, pos = _varint(data, pos)
        number, wire = key >> 3, key & 7
        value: Any
        if wire == 0:
            value, pos = _varint(data, pos)
        elif wire == 1:
            value, pos = data[pos : pos + 8], pos + 8
        elif wire == 2:
            size = data[pos] if pos < n else 0x80
            if size < 0x80:
                pos += 1
            else:
                size, pos = _varint(data, pos)
            value = None if number == skip else data[pos : pos + size]
            pos += size
        elif wire == 5:
            value, pos = data[pos : pos + 4], pos + 4
        else:
            raise ValueError(f"unsupported wire type {wire}")
        if pos > n:
            raise ValueError("truncated field")
        yield number, wire, value


def read_model_facts(data: bytes) -> ModelFacts:
    """Piece count, model type, byte fallback and normalizer of a serialized ``ModelProto``.

    Raises ``ValueError`` for bytes that are not such a message.
    """
    facts = ModelFacts()
    for number, wire, value in _fields(data, skip=1):
        if number == 1 and wire == 2:  # one SentencePiece piece
            facts.piece_count += 1
        elif number == 2 and wire == 2:  # TrainerSpec
            for n, w, v in _fields(value):
                if n == 3 and w == 0:
                    facts.model_type = MODEL_TYPES.get(v, f"type {v}")
                elif n == 35 and w == 0:
                    facts.byte_fallback = bool(v)
        elif number == 3 and wire == 2:  # NormalizerSpec
            for n, w, v in _fields(value):
                if n == 1 and w == 2:
                    facts.normalizer = v.decode("utf-8", "replace")
                elif n == 3 and w == 0:
                    facts.add_dummy_prefix = bool(v)
    return facts


@dataclass(frozen=True)
class Piece:
    """One entry of a model's vocabulary: its text, score and type (NORMAL, CONTROL, BYTE ...)."""

    text: str
    score: float
    kind: int = NORMAL


@dataclass(frozen=True)
class NormalizerSpec:
    """The ``NormalizerSpec`` message: how the library rewrites text before it picks pieces.

    ``charsmap`` is the compiled rule table (a double-array trie and the rewritten strings; empty
    for ``identity``); a model trained with a custom rule table carries it here too.
    """

    name: str = ""
    charsmap: bytes = b""
    add_dummy_prefix: bool = True
    remove_extra_whitespaces: bool = True
    escape_whitespaces: bool = True


@dataclass(frozen=True)
class ModelProto:
    """What encoding depends on in a serialized ``ModelProto`` (:func:`read_model_proto`)."""

    pieces: tuple[Piece, ...]
    model_type: str = "unigram"
    byte_fallback: bool = False
    treat_whitespace_as_suffix: bool = False
    normalizer: NormalizerSpec = NormalizerSpec()
    # Ids the trainer gave its reserved pieces (-1: none).
    unk_id: int = 0
    bos_id: int = 1
    eos_id: int = 2
    pad_id: int = -1


def _int32(value: int) -> int:
    """A protobuf int32 read as a varint (negatives are written as 64-bit two's complement)."""
    return value - (1 << 64) if value >= 1 << 63 else value


def _piece(data: bytes) -> Piece:
    text, score, kind = "", 0.0, NORMAL
    for number, wire, value in _fields(data):
        if number == 1 and wire == 2:
            text = value.decode("utf-8")
        elif number == 2 and wire == 5:
            score = struct.unpack("<f", value)[0]
        elif number == 3 and wire == 0:
            kind = value
    return Piece(text, score, kind)


def read_model_proto(data: bytes) -> ModelProto:
    """Every piece and the trainer and normalizer settings that decide a model's ids.

    The field numbers are those of ``sentencepiece_model.proto`` (read without ``protobuf``, as
    :func:`read_model_facts`). Raises ``ValueError`` (or ``UnicodeDecodeError``) for bytes that are
    not such a message.
    """
    pieces: list[Piece] = []
    trainer: dict[int, Any] = {}
    normalizer: dict[int, Any] = {}
    for number, wire, value in _fields(data):
        if number == 1 and wire == 2:
            pieces.append(_piece(value))
        elif number in (2, 3) and wire == 2:
            target = trainer if number == 2 else normalizer
            target.update((n, v) for n, _w, v in _fields(value))
    spec = NormalizerSpec(
        name=bytes(normalizer.get(1, b"")).decode("utf-8"),
        charsmap=bytes(normalizer.get(2, b"")),
        add_dummy_prefix=bool(normalizer.get(3, True)),
        remove_extra_whitespaces=bool(normalizer.get(4, True)),
        escape_whitespaces=bool(normalizer.get(5, True)),
    )
    model_type = trainer.get(3, 1)
    return ModelProto(
        pieces=tuple(pieces),
        model_type=MODEL_TYPES.get(model_type, f"type {model_type}"),
        byte_fallback=bool(trainer.get(35, False)),
        treat_whitespace_as_suffix=bool(trainer.get(24, False)),
        normalizer=spec,
        unk_id=_int32(trainer.get(40, 0)),
        bos_id=_int32(trainer.get(41, 1)),
        eos_id=_int32(trainer.get(42, 2)),
        pad_id=_int32(trainer.get(43, -1)),
    )


def _varint_bytes(n: int) -> bytes:
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def piece_types(sp: Any, data: bytes) -> list[int]:
    """Each piece's type (NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE), from the library.

    The library answers for every type but user-defined; a user-defined piece has score 0 and is
    stored with its type, so each normal piece of score 0 is looked up in the file's bytes.
    """
    ids = list(range(sp.get_piece_size()))
    types = [NORMAL] * len(ids)
    for flags, kind in (
        (sp.is_unknown(ids), UNKNOWN),
        (sp.is_control(ids), CONTROL),
        (sp.is_unused(ids), UNUSED),
        (sp.is_byte(ids), BYTE),
    ):
        for i, flag in enumerate(flags):
            if flag:
                types[i] = kind
    pieces = sp.id_to_piece(ids)
    for i, score in enumerate(sp.get_score(ids)):
        if score == 0.0 and types[i] == NORMAL:
            text = pieces[i].encode("utf-8")
            stored = b"\x0a" + _varint_bytes(len(text)) + text + b"\x15\x00\x00\x00\x00\x18\x04"
            if stored in data:
                types[i] = USER_DEFINED
    return types


def piece_bytes(piece: str, kind: int) -> bytes:
    """The bytes a piece stands for: ``▁`` is a space, ``<0xNN>`` (a byte piece) is that byte."""
    if kind == BYTE and len(piece) == 6 and piece.startswith("<0x") and piece.endswith(">"):
        return bytes([int(piece[3:5], 16)])
    if kind in (NORMAL, USER_DEFINED):
        return piece.replace(SPACE_MARK, " ").encode("utf-8")
    return piece.encode("utf-8")


def read_segmentation(serialized: bytes) -> tuple[list[str], list[int], float]:
    """``(pieces, ids, score)`` of a serialized ``SentencePieceText`` (the library's
    ``encode(..., return_type="serialized_proto")``), read without ``protobuf``."""
    pieces: list[str] = []
    ids: list[int] = []
    score = 0.0
    for number, wire, value in _fields(serialized):
        if number == 2 and wire == 2:  # one piece: its text (1) and id (2)
            found = {n: v for n, w, v in _fields(value) if (n, w) in ((1, 2), (2, 0))}
            pieces.append(bytes(found.get(1, b"")).decode("utf-8", "replace"))
            ids.append(int(found.get(2, 0)))
        elif number == 3 and wire == 5:
            score = struct.unpack("<f", value)[0]
    return pieces, ids, score


def read_segmentations(serialized: bytes) -> list[tuple[list[str], list[int], float]]:
    """Each segmentation of a serialized ``NBestSentencePieceText`` (the library's ``NBestEncode``),
    as :func:`read_segmentation` reads one."""
    return [read_segmentation(v) for number, wire, v in _fields(serialized) if number == 1 and wire == 2]


LIBRARY_SEEDS = 2**32 - 1  # seeds 0 .. 2**32 - 2: the library ignores 2**32 - 1 (its "no seed")


def sentencepiece_from_file(path: PathLike, name: str | None = None) -> SentencePieceTokenizer:
    """Open a SentencePiece ``.model`` file (read with a size cap; a bad file is one clear line)."""
    from pathlib import Path

    p = Path(path)
    data = _read_file(p, TokenizerLoadError, SENTENCEPIECE_CAP)
    if name is None:
        # transformers saves the model as tokenizer.model (T5: spiece.model): the folder names it.
        generic = p.stem.lower() in GENERIC_STEMS and p.resolve().parent.name
        name = p.resolve().parent.name if generic else p.stem
    return sentencepiece_from_bytes(data, p.name, name)


def sentencepiece_from_bytes(
    data: bytes, file_name: str, name: str = "sentencepiece"
) -> SentencePieceTokenizer:
    """A tokenizer from the bytes of a ``.model`` file already read (``file_name`` starts messages)."""
    import sentencepiece

    try:
        facts = read_model_facts(data)
    except (ValueError, UnicodeDecodeError):
        facts = None
    if facts is None or not facts.piece_count:
        raise TokenizerLoadError(f"{file_name}: not a SentencePiece model (no pieces in the file)")
    try:
        sp = sentencepiece.SentencePieceProcessor(model_proto=data)
    except (RuntimeError, OSError, ValueError) as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise TokenizerLoadError(f"{file_name}: sentencepiece cannot load it ({reason})") from None
    if sp.get_piece_size() != facts.piece_count:
        raise TokenizerLoadError(f"{file_name}: the model's pieces could not be read")
    return SentencePieceTokenizer(sp, facts, name, types=piece_types(sp, data))


class _Engine:
    """The fast-engine protocol over the library's encoder."""

    def __init__(self, encode: Any) -> None:
        self.encode_ordinary = encode


class SentencePieceTokenizer(Tokenizer):
    """A tokenizer whose ids come from the ``sentencepiece`` library (see the module).

    ``special_tokens`` are the control pieces (``<s>``, ``</s>``, which the library never reads from
    text) and the user-defined ones (which it always matches whole in text). :meth:`encode` and
    :meth:`encode_ordinary` are therefore the same: the library has no "plain text" mode.
    """

    def __init__(
        self,
        sp: Any,
        facts: ModelFacts,
        name: str,
        extra_specials: Mapping[str, int] | None = None,
        *,
        types: list[int],
    ) -> None:
        self.sp = sp
        self.facts = facts
        self.model_type = facts.model_type
        self.piece_types = types
        vocab: dict[int, bytes] = {}
        specials: dict[str, int] = {}
        for i, (piece, kind) in enumerate(zip(sp.id_to_piece(list(range(len(types)))), types)):
            vocab[i] = piece_bytes(piece, kind)
            if kind in (CONTROL, USER_DEFINED):
                specials[piece] = i
        self.unk_id: int | None = sp.unk_id() if 0 <= sp.unk_id() < len(vocab) else None
        # Special tokens added by tokviz (--special-token): cut out of the text before the library.
        self.extra_specials: dict[str, int] = dict(extra_specials or {})
        specials.update(self.extra_specials)
        for text, token_id in self.extra_specials.items():
            vocab[token_id] = text.encode("utf-8")
        pre = Pretokenizer("sentencepiece", None)
        super().__init__(vocab, [], specials, pre, name=name, engine=_Engine(self._encode_text))
        self._splitter = SpecialSplitter(self.extra_specials)
        self._merge_count_hint = 0
        self.assumptions = ()
        why = {
            "unigram": "a unigram model has no merges: it picks the most probable split of each word",
            "char": "a char model has no merges: every character is a piece",
            "word": "a word model has no merges: it looks whole words up",
        }.get(
            facts.model_type,
            "pieces are chosen by score over the whole normalized text, not by byte-level merges",
        )
        extras = [f"normalizer {facts.normalizer}"] if facts.normalizer not in ("identity", "") else []
        if facts.byte_fallback:
            extras.append("byte fallback")
        detail = f" ({', '.join(extras)})" if extras else ""
        self.replay_note = f"SentencePiece {facts.model_type} model{detail}: {why}"
        # The editor re-encodes the whole text: the library decides every piece (tokviz.core.bpe.cuts).
        self.declared_cut_mode: str | None = "none"

    # ------------------------------------------------------------------ encoding
    def _library_ids(self, text: str) -> list[int]:
        if LONE_SURROGATE.search(text):
            text = replace_lone_surrogates(text)
        return list(self.sp.encode(text))

    def _encode_text(self, text: str) -> list[int]:
        if not self.extra_specials:
            return self._library_ids(text)
        out: list[int] = []
        for start, end, special in self._splitter.segments(text):
            part = text[start:end]
            out.extend([self.extra_specials[part]] if special else self._library_ids(part))
        return out

    def matched_in_text(self) -> dict[str, int]:
        """The user-defined pieces (the library always matches them) and the special tokens tokviz
        added, unless read as text; never the control pieces (``<s>``), which the library never reads."""
        pieces = {t: i for t, i in self.special_tokens.items() if self.piece_types[i] == USER_DEFINED}
        if self.specials_in_text:
            pieces.update(self.extra_specials)
        return pieces

    def _make_text_view(self) -> Tokenizer:
        """A view that leaves tokviz's added special tokens to the library as text."""
        view = super()._make_text_view()
        view.__dict__.pop("encode_ordinary", None)  # this class's own, over the view's empty splitter
        return view

    def encode(self, text: str) -> list[int]:
        """The library's ids for ``text`` (no BOS/EOS; user-defined pieces matched, as it does)."""
        check_text(text)
        return self._encode_text(text)

    def encode_ordinary(self, text: str) -> list[int]:
        """The same as :meth:`encode`: the library always matches its user-defined pieces."""
        check_text(text)
        return self._encode_text(text)

    def encode_ordinary_batch(self, texts: list[str]) -> list[list[int]]:
        """:meth:`encode_ordinary` of many texts in one library call (the audit encodes every token)."""
        if self.extra_specials:
            return [self.encode_ordinary(t) for t in texts]
        return [list(ids) for ids in self.sp.encode([replace_lone_surrogates(t) for t in texts])]

    def encode_spans(self, text: str, max_merges: int | None = None) -> list[TokenSpan]:
        """Every piece placed on ``text`` by the library's offsets (code points of the original text).

        Byte pieces that together make one character are ``partial`` and each covers that
        character; the space the model puts before the first word covers nothing (start = end).
        ``chunk`` numbers the words (a piece that begins with ``▁`` starts one).
        """
        check_text(text)
        if max_merges is not None:
            raise ReplayUnavailable(f"{self.name}: {self.replay_note}")
        if LONE_SURROGATE.search(text):
            text = replace_lone_surrogates(text)
        spans: list[TokenSpan] = []
        chunk = -1
        for start, end, special in self._splitter.segments(text):
            if special:
                sid = self.extra_specials[text[start:end]]
                chunk += 1
                spans.append(TokenSpan(sid, start, end, self.vocab[sid], False, True, chunk))
                continue
            chunk = self._place_pieces(text[start:end], start, chunk, spans)
        return spans

    def _place_pieces(self, segment: str, base: int, chunk: int, out: list[TokenSpan]) -> int:
        """Append the spans of ``segment`` (at ``base``); returns the last chunk number used."""
        mapping = self.sp.encode_as_offset_mapping(segment)
        ids: list[int] = mapping["ids"]
        pieces: list[str] = mapping["pieces"]
        offsets: list[tuple[int, int]] = mapping["offsets"]
        types = self.piece_types
        placed: list[list[Any]] = []
        pending: list[int] = []  # byte pieces still waiting for the character they belong to
        after_special = False
        for k, (token_id, piece, (s, e)) in enumerate(zip(ids, pieces, offsets)):
            kind = types[token_id] if 0 <= token_id < len(types) else NORMAL
            special = kind in (CONTROL, USER_DEFINED)
            if chunk < 0 or special or after_special or piece.startswith(SPACE_MARK):
                chunk += 1
            after_special = special
            placed.append([token_id, base + s, base + e, self.vocab[token_id], False, special, chunk])
            if kind != BYTE:
                pending = []
                continue
            pending.append(k)
            if e > s:  # the last byte piece of a character carries the character's place
                whole = len(pending) == 1 and self.vocab[token_id][0] < 0x80
                for j in pending:
                    placed[j][1], placed[j][2], placed[j][4] = base + s, base + e, not whole
                pending = []
        out.extend(TokenSpan(*row) for row in placed)
        return chunk

    # ------------------------------------------------------------------ decoding
    def decode(self, ids: Iterable[int]) -> str:
        """The library's text for ``ids``: ``▁`` becomes a space, the leading one is dropped, byte
        pieces join into characters, control pieces are left out (as ``sp.decode`` does)."""
        seq = list(ids) if not isinstance(ids, (list, tuple)) else ids
        self.decode_bytes(seq)  # an unknown id is named as for every tokenizer
        extra = {i: s for s, i in self.extra_specials.items()}
        if not extra:
            return str(self.sp.decode(list(seq)))
        out: list[str] = []
        run: list[int] = []
        for i in seq:
            if i in extra:
                out.append(str(self.sp.decode(run)))
                out.append(extra[i])
                run = []
            else:
                run.append(i)
        out.append(str(self.sp.decode(run)))
        return "".join(out)

    # ------------------------------------------------------------------ no merges to replay
    @property
    def is_bpe(self) -> bool:
        """True for a SentencePiece BPE model (its merges are not byte-level: see :attr:`replay_note`)."""
        return self.model_type == "BPE"

    @property
    def merges(self) -> list[tuple[bytes, bytes]]:
        """No byte-level merge list: a SentencePiece model ranks whole pieces by score."""
        return []

    @property
    def merge_rank_of_id(self) -> dict[int, int]:
        """Empty: no id is made by a byte-level merge."""
        return {}

    @property
    def parents_of_id(self) -> dict[int, tuple[int, int]]:
        """Empty: no id is made by a byte-level merge."""
        return {}

    def id_of_merge(self, rank: int) -> int:
        """Refused: the model has no byte-level merges to number."""
        raise InvalidArgument(f"{self.name} has no byte-level merges ({self.replay_note})")

    def parents_of_merge(self, rank: int) -> tuple[int, int]:
        """Refused: the model has no byte-level merges to number."""
        raise InvalidArgument(f"{self.name} has no byte-level merges ({self.replay_note})")

    def encode_with_merges(self, text: str, max_merges: int) -> list[int]:
        """Refused with :attr:`replay_note`: replay cannot reproduce the library's ids."""
        check_text(text)
        raise ReplayUnavailable(f"{self.name}: {self.replay_note}")

    def trace_chunk(self, data: bytes) -> tuple[list[int], list[int]]:
        """Refused with :attr:`replay_note`, like :meth:`encode_with_merges`."""
        raise ReplayUnavailable(f"{self.name}: {self.replay_note}")

    def _bpe(self, data: bytes, max_rank: int | None = None) -> list[int]:
        raise ReplayUnavailable(f"{self.name}: {self.replay_note}")

    def encode_with_dropout(self, text: str, dropout: float, rng: random.Random) -> list[int]:
        """Refused like :meth:`encode_with_merges`: the model has no byte-level merges to drop (its
        BPE-dropout, merges by score, is :func:`tokviz.core.analysis.lattice.sample_segmentations`)."""
        check_text(text)
        raise ReplayUnavailable(f"{self.name}: {self.replay_note}")

    def with_special_tokens(self, extra: Iterable[str]) -> Tokenizer:
        """The same model with more special tokens: matched whole in text before the library runs."""
        if isinstance(extra, (str, bytes)) or not isinstance(extra, Iterable):
            raise ArgumentTypeError(
                f"extra special tokens must be a list of strings, got {type(extra).__name__}"
            )
        added = dict(self.extra_specials)
        next_id = max(self.vocab, default=-1) + 1
        for s in extra:
            if not isinstance(s, str):
                raise ArgumentTypeError(f"special tokens must be strings, got {s!r}")
            if s and s not in added and s not in self.special_tokens:
                added[s] = next_id
                next_id += 1
        return SentencePieceTokenizer(self.sp, self.facts, self.name, added, types=self.piece_types)

    def __repr__(self) -> str:
        return (
            f"SentencePieceTokenizer(name={self.name!r}, model={self.model_type}, "
            f"vocab_size={self.vocab_size}, normalizer={self.facts.normalizer!r})"
        )
