"""What a tokenization costs: bytes per token, the attention multiplier, and embedding size.

Every number here is computed from an actual encoding, never typed in, so a comparison table
always agrees with the tokenizers it describes. Bytes per token is a sequence-length measure
(UTF-8 bytes over token count), not a file-compression ratio.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ..bpe.tokenizer import LONE_SURROGATE, replace_lone_surrogates
from ..errors import ArgumentTypeError, InvalidArgument
from ..pretok.stretches import LONGEST_ENCODED_PART, slices


class _Encodes(Protocol):
    name: str

    def encode(self, text: str) -> list[int]: ...


@dataclass(frozen=True, slots=True)
class TextMetrics:
    """Size of one text under one tokenizer; ``bytes_per_token`` is None when there are no tokens."""

    bytes: int
    code_points: int
    tokens: int
    bytes_per_token: float | None
    # Tokens that stand for text the tokenizer could not represent (<unk>): the text is lost.
    unknown: int = 0
    # Whether decoding the ids gives back the text: a normalizer (lowercase, NFKC, collapsed
    # spaces) can lose text without a single <unk>.
    round_trip: bool = True

    @property
    def lossy(self) -> bool:
        """True when the tokens do not carry the whole text (an <unk>, or no round trip).

        A lossy tokenizer's token count is not a rate: fewer tokens for less text is no saving, so
        it is never called the best while another kept the text (:func:`best_of`).
        """
        return bool(self.unknown) or not self.round_trip

    @classmethod
    def of(cls, tokenizer: _Encodes, text: str) -> TextMetrics:
        """Encode ``text`` (special tokens included) and measure it.

        A lone surrogate counts as the U+FFFD the encoders read it as (three UTF-8 bytes).
        """
        _check_encoder(tokenizer)
        if not isinstance(text, str):
            raise ArgumentTypeError(f"the text to measure must be a str, got {type(text).__name__}")
        if LONE_SURROGATE.search(text):
            text = replace_lone_surrogates(text)
        n_bytes = n_tokens = unknown = 0
        round_trip = True
        unk = getattr(tokenizer, "unk_id", None)
        decode = getattr(tokenizer, "decode", None)
        for part, ids in encoded_parts(tokenizer, text):
            n_bytes += len(part.encode("utf-8"))
            n_tokens += len(ids)
            unknown += ids.count(unk) if isinstance(unk, int) else 0
            if round_trip and callable(decode):
                round_trip = decode(ids) == part
        bpt = n_bytes / n_tokens if n_tokens else None
        return cls(n_bytes, len(text), n_tokens, bpt, unknown, round_trip)


def best_of(measured: Sequence[tuple[int, bool]]) -> tuple[int, ...]:
    """Which of several ``(tokens, lossy)`` measurements of one text need the fewest tokens.

    Only those that kept the text whole compete while any did (fewer tokens for less text is no
    saving); when every one lost some, all do. None for a text with no tokens (an empty one). This
    is the rule behind every "best" and "x fewest" tokviz shows: compare, eval, the exchange chart
    and the lecture's slides.
    """
    with_tokens = [i for i, (n, _) in enumerate(measured) if n]
    kept = [i for i in with_tokens if not measured[i][1]] or with_tokens
    fewest = min((measured[i][0] for i in kept), default=0)
    return tuple(i for i in kept if measured[i][0] == fewest)


def encoded_parts(tokenizer: _Encodes, text: str) -> Iterator[tuple[str, list[int]]]:
    """``text`` with its ids: whole, or, when longer than an encoder takes at once, in the parts
    the tokenizer's block encoder cuts (so a 200 MB text never becomes one list of ids)."""
    blocks = getattr(tokenizer, "encode_blocks", None)
    if blocks is None or len(text) <= LONGEST_ENCODED_PART:
        yield text, tokenizer.encode(text)
        return
    yield from blocks(slices(text, LONGEST_ENCODED_PART), LONGEST_ENCODED_PART)


def attention_multiplier(n: int, n_ref: int) -> float:
    """Relative size of the n x n attention score matrix against one of n_ref x n_ref: (n / n_ref)^2.

    Dense attention forms one score per pair of positions, so its work grows with the square of
    the sequence length; 1,000 tokens against 250 is a factor of 16.
    """
    _check_whole(n, "the token count")
    _check_whole(n_ref, "the reference token count")
    if n_ref <= 0:
        raise InvalidArgument(f"the reference token count must be positive, got {n_ref}")
    if n < 0:
        raise InvalidArgument(f"the token count cannot be negative, got {n}")
    return (n / n_ref) ** 2


def embedding_parameters(vocab_size: int, d: int) -> int:
    """Parameters of a V x d embedding table: it grows linearly with the vocabulary size."""
    _check_whole(vocab_size, "the vocabulary size")
    _check_whole(d, "the embedding width")
    if vocab_size < 0 or d < 0:
        raise InvalidArgument(f"vocabulary size and width must not be negative, got V={vocab_size}, d={d}")
    return vocab_size * d


def compare_rows(texts: Mapping[str, str], tokenizers: Sequence[_Encodes]) -> list[dict[str, Any]]:
    """One row per (input, tokenizer), in input order then tokenizer order.

    Each row has ``input``, ``tokenizer`` (its name), ``bytes``, ``code_points``, ``tokens``,
    ``bytes_per_token`` (None for an empty input), ``attention_multiplier`` against the tokenizer
    that needs the fewest tokens for that input (1.0 for that one, and for all on an empty input),
    ``best`` (whether this tokenizer is one of those, by :func:`best_of`: a lossy one only when
    every one is) and ``lossy`` (:attr:`TextMetrics.lossy`).
    """
    if not isinstance(texts, Mapping):
        raise ArgumentTypeError(f"texts must be a mapping of labels to texts, got {type(texts).__name__}")
    # A str is a Sequence too: refused by name, since its characters are no tokenizers.
    if isinstance(tokenizers, (str, bytes)) or not isinstance(tokenizers, Sequence):  # type: ignore[unreachable]
        raise ArgumentTypeError(f"tokenizers must be a list of tokenizers, got {type(tokenizers).__name__}")
    for tok in tokenizers:
        _check_encoder(tok)
    rows: list[dict[str, Any]] = []
    for label, text in texts.items():
        measured = [(tok, TextMetrics.of(tok, text)) for tok in tokenizers]
        best = best_of([(m.tokens, m.lossy) for _, m in measured])
        fewest = measured[best[0]][1].tokens if best else 0
        for index, (tok, m) in enumerate(measured):
            if fewest > 0:
                multiplier = attention_multiplier(m.tokens, fewest)
            else:
                multiplier = 1.0  # only an empty text has zero tokens, and then it has zero everywhere
            rows.append(
                {
                    "input": label,
                    "tokenizer": getattr(tok, "name", type(tok).__name__),
                    "bytes": m.bytes,
                    "code_points": m.code_points,
                    "tokens": m.tokens,
                    "bytes_per_token": m.bytes_per_token,
                    "attention_multiplier": multiplier,
                    "best": index in best or not best,
                    "lossy": m.lossy,
                }
            )
    return rows


def _check_whole(value: object, what: str) -> None:
    """Refuse a count that is not a whole number (``bool`` included), naming what it counts."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ArgumentTypeError(f"{what} must be a whole number, got {value!r}")


def _check_encoder(tokenizer: object) -> None:
    """Refuse something that cannot encode text (a tokenizer is needed, not its name)."""
    if not callable(getattr(tokenizer, "encode", None)):
        raise ArgumentTypeError(
            f"a tokenizer is needed (something with encode()), got {type(tokenizer).__name__}"
        )
