"""Arguments of :class:`~tokviz.core.bpe.tokenizer.Tokenizer` and the loaders, checked at the door.

A caller from Python may pass anything; each check turns a wrong type or value into one
:class:`~tokviz.core.errors.ArgumentTypeError` or :class:`~tokviz.core.errors.InvalidArgument`
line naming what was wrong, and the common, well-formed case is checked at C speed so a
200K-token vocabulary costs no start-up time.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Mapping
from itertools import chain
from typing import SupportsIndex

from ..errors import ArgumentTypeError, InvalidArgument
from ..pretok.pretokenize import LONE_SURROGATE


def checked_special_names(names: Iterable[object]) -> list[str]:
    """``names`` as a list, each a ``str`` that UTF-8 can encode (a special token is matched as text)."""
    checked: list[str] = []
    for s in names:
        if not isinstance(s, str):
            raise ArgumentTypeError(f"special tokens must be strings, got {s!r}")
        if LONE_SURROGATE.search(s):
            raise InvalidArgument(
                f"the special token {s!r} holds a lone surrogate, which UTF-8 cannot encode"
            )
        checked.append(s)
    return checked


def extra_special_names(extra: object) -> list[str]:
    """The special tokens given to ``with_special_tokens``: a list (not one bare string) of names."""
    if isinstance(extra, (str, bytes)) or not isinstance(extra, Iterable):
        raise ArgumentTypeError(f"extra special tokens must be a list of strings, got {type(extra).__name__}")
    return checked_special_names(extra)


def check_text(text: object, what: str = "text") -> None:
    """Refuse a non-``str`` text with a message naming it (bytes must be decoded first)."""
    if not isinstance(text, str):
        hint = "; decode bytes to str first" if isinstance(text, (bytes, bytearray)) else ""
        raise ArgumentTypeError(f"{what} must be a str, got {type(text).__name__}{hint}")


def check_count(value: object, what: str) -> int:
    """A whole number >= 0 (a merge count or index), or :class:`InvalidArgument` naming ``what``."""
    if type(value) is int:  # the common case, without the protocol check (a replay makes 100,000 calls)
        n = value
    elif isinstance(value, bool) or not isinstance(value, SupportsIndex):
        raise ArgumentTypeError(f"{what} must be a whole number, got {value!r}")
    else:
        n = operator.index(value)
    if n < 0:
        raise InvalidArgument(f"{what} must not be negative, got {n}")
    return n


def vocab_argument(vocab: object) -> dict[int, bytes]:
    """``vocab`` as ``{id: bytes}``; anything else is an :class:`ArgumentTypeError` saying what is wrong."""
    if not isinstance(vocab, Mapping):
        raise ArgumentTypeError(f"vocab must be a mapping of int ids to bytes, got {type(vocab).__name__}")
    # The common case, checked at C speed: int keys >= 0 and bytes values (a 200K-token vocabulary
    # is checked in milliseconds, so start-up does not pay for the validation).
    if set(map(type, vocab)) <= {int} and set(map(type, vocab.values())) <= {bytes}:
        if not vocab or min(vocab) >= 0:
            return dict(vocab)
    out: dict[int, bytes] = {}
    for i, b in vocab.items():
        if isinstance(i, bool) or not isinstance(i, int) or i < 0:
            raise ArgumentTypeError(f"vocab ids must be ints >= 0, got {i!r}")
        if not isinstance(b, (bytes, bytearray, memoryview)):
            raise ArgumentTypeError(f"vocab id {i} must map to bytes, got {type(b).__name__}")
        out[int(i)] = bytes(b)
    return out


def merges_argument(merges: object) -> list[tuple[bytes, bytes]]:
    """``merges`` as a list of (left bytes, right bytes); anything else is an :class:`ArgumentTypeError`."""
    if isinstance(merges, (str, bytes)) or not isinstance(merges, Iterable):
        raise ArgumentTypeError(f"merges must be a list of (bytes, bytes) pairs, got {type(merges).__name__}")
    merges = list(merges)
    # The common case at C speed: every item unpacks to two bytes objects (50K merges in ~10 ms).
    try:
        pairs = [(a, b) for a, b in merges]
    except (TypeError, ValueError):
        pairs = None
    if pairs is not None and set(map(type, chain.from_iterable(pairs))) <= {bytes}:
        return pairs
    out: list[tuple[bytes, bytes]] = []
    for pair in merges:
        if (
            not isinstance(pair, (tuple, list))
            or len(pair) != 2
            or not all(isinstance(x, (bytes, bytearray, memoryview)) for x in pair)
        ):
            raise ArgumentTypeError(f"merge {len(out)} must be a (bytes, bytes) pair, got {pair!r}")
        out.append((bytes(pair[0]), bytes(pair[1])))
    return out
