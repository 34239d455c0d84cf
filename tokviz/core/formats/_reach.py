"""Honest loading: a vocabulary whose tokens the merges cannot make is refused or flagged.

A BPE tokenizer produces a multi-byte token only if some merge makes it. A file whose merges are
missing, empty or cut short therefore encodes everything as single bytes, however large its
vocabulary; loading it quietly (or, for GPT-2 style files, calling every unmade token "special")
would show a wrong picture. A handful of unmade entries is normal (GPT-2's ``<|endoftext|>``,
RoBERTa's ``<s>``): those load, with a warning when there are more than a few of them.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable, Sequence

from ..bpe.tokenizer import Tokenizer
from ..errors import TokenizerLoadError
from ._common import _short

# Up to this many unmade entries are taken as the file's own special tokens without comment.
FEW_UNMADE = 8

_warnings: weakref.WeakKeyDictionary[Tokenizer, tuple[str, ...]] = weakref.WeakKeyDictionary()


def load_warnings(tokenizer: Tokenizer) -> tuple[str, ...]:
    """What the loader found doubtful about the file ``tokenizer`` came from (empty if nothing).

    One line each, for ``tokviz info`` and the GUI to show next to the tokenizer's name.
    """
    return _warnings.get(tokenizer, ())


def remember_warnings(tokenizer: Tokenizer, warnings: Iterable[str]) -> Tokenizer:
    """Attach loader warnings to ``tokenizer`` (kept as long as the tokenizer lives); returns it."""
    found = tuple(warnings)
    if found:
        _warnings[tokenizer] = found
    return tokenizer


def unmade(tokens: Iterable[bytes], merges: Sequence[tuple[bytes, bytes]]) -> list[bytes]:
    """The multi-byte ``tokens`` that no merge makes, in the given order."""
    made = {left + right for left, right in merges}
    return [t for t in tokens if len(t) > 1 and t not in made]


def judge_reach(
    file_name: str,
    learned: int,
    unreachable: Sequence[bytes | str],
    merge_count: int,
    fate: str,
    error: type[TokenizerLoadError] = TokenizerLoadError,
) -> list[str]:
    """Refuse a vocabulary the merges mostly cannot make; else the warnings to attach.

    ``learned``: multi-byte, non-special entries the file lists (``unreachable`` among them);
    ``fate``: what happens to an unmade entry ("are treated as special tokens", "are never
    produced"). More than :data:`FEW_UNMADE` unmade entries that are also over half of the learned
    ones is an ``error`` naming the file once; fewer is a warning, or nothing when merges exist and
    only a few entries are unmade.
    """
    n = len(unreachable)
    if n == 0:
        return []
    examples = ", ".join(_short(t, 20) for t in unreachable[:3]) + (", ..." if n > 3 else "")
    if n > FEW_UNMADE and 2 * n > learned:
        if merge_count == 0:
            raise error(
                f"{file_name}: there are no merges, but the vocabulary has {learned:,} tokens longer "
                "than one byte, which only merges can make (is the merge list missing or empty?)"
            )
        raise error(
            f"{file_name}: {n:,} of the {learned:,} tokens longer than one byte cannot be made by the "
            f"{merge_count:,} merges ({examples}); is the merge list cut short or from another vocabulary?"
        )
    if merge_count == 0 and n == 1:
        return [
            f"{file_name} has no merges; its one token longer than one byte ({examples}) {_singular(fate)}"
        ]
    if merge_count == 0:
        return [f"{file_name} has no merges; its {n:,} tokens longer than one byte ({examples}) {fate}"]
    if n > FEW_UNMADE or fate != "are treated as special tokens":
        if n == 1:
            return [f"1 token of {file_name} cannot be made by its merges ({examples}) and {_singular(fate)}"]
        return [f"{n:,} tokens of {file_name} cannot be made by its merges ({examples}) and {fate}"]
    return []


def _singular(fate: str) -> str:
    """ "are never produced" said of one token: "is never produced"."""
    return "is" + fate[3:] if fate.startswith("are ") else fate
