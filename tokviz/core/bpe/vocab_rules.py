"""What a vocabulary must hold to be saved and loaded back: one set of rules for the builder and the reader.

The :class:`~tokviz.core.bpe.tokenizer.Tokenizer` constructor and the model-file loader both apply
these rules, with the same messages, so a tokenizer tokviz accepts can always be written and read
again (an id of 2^40 is refused when the tokenizer is made, not when its file is opened).
"""

from __future__ import annotations

from collections.abc import Mapping

# Limits that keep a hostile file from exhausting memory, and the id range every format can hold.
MAX_ENTRIES = 10_000_000
MAX_ID = 2**31 - 1


def short(value: object, limit: int = 40) -> str:
    """``repr(value)`` cut to ``limit`` characters, for messages."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def id_problem(token_id: int) -> str | None:
    """Why ``token_id`` cannot be a vocabulary id, or ``None``."""
    if 0 <= token_id <= MAX_ID:
        return None
    return f"vocabulary id {token_id} is not a non-negative integer below 2^31"


def vocabulary_problem(
    vocab: Mapping[int, bytes], specials: Mapping[str, int], merge_count: int | None
) -> str | None:
    """The first rule ``vocab`` (with its ``specials`` and ``merge_count`` merges) breaks, or ``None``.

    ``merge_count`` is ``None`` when the merges are not known yet (recovered on first use). The
    special tokens come first: the constructor has already put their bytes in ``vocab``.
    """
    special = specials_problem(specials, vocab)
    if special:
        return special
    if len(vocab) > MAX_ENTRIES:
        return f"the vocabulary has {len(vocab):,} entries, more than the limit of {MAX_ENTRIES:,}"
    if vocab:
        for token_id in (min(vocab), max(vocab)):
            problem = id_problem(token_id)
            if problem:
                return problem
    if merge_count is not None and merge_count > len(vocab):
        return too_many(merge_count, "merges", len(vocab))
    return None


def too_many(count: int | None, what: str, vocab_size: int) -> str:
    """Why ``count`` merges (or history records: each makes a token) cannot go with a vocabulary of
    ``vocab_size`` entries; ``count`` None when reading stopped at the first one too many."""
    shown = f"{count:,}" if count is not None else f"more than {vocab_size:,}"
    return f"{shown} {what} cannot fit a vocabulary of {vocab_size:,} entries"


def specials_problem(specials: Mapping[str, int], vocab: Mapping[int, bytes]) -> str | None:
    """The first rule the special tokens break, or ``None``: each is a non-empty text with an id of
    its own in range, and the vocabulary gives that id the special's UTF-8 bytes (if it lists it)."""
    owners: dict[int, str] = {}
    for text, token_id in specials.items():
        if not text:
            return "a special token is the empty string"
        if not 0 <= token_id <= MAX_ID:
            return (
                f"special token {short(text)} has id {short(token_id)}, not a non-negative integer below 2^31"
            )
        if token_id in owners:
            return f"special tokens {short(owners[token_id])} and {short(text)} share id {token_id}"
        data = text.encode("utf-8", errors="surrogatepass")
        if token_id in vocab and vocab[token_id] != data:
            return f"special token {short(text)} has id {token_id}, which the vocabulary gives other bytes"
        owners[token_id] = text
    return None
