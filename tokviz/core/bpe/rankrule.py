"""When tiktoken's rank rule provably gives a merge list's ids, and tiktoken's engine over such a list.

tiktoken merges, again and again, the adjacent pair whose joined bytes have the lowest rank; the
merge list merges the adjacent pair with the lowest merge index. With ranks = ids = 256 + merge
index the two agree on every text when each merge ``k`` (``left + right -> t``) is *consistent*:
the merge list with only the merges before ``k`` turns the bytes of ``t`` into exactly
``[left, right]``.

Why: the merge list applies merges in index order. Say that just before its first merge of index
``m``, tiktoken would instead join an adjacent ``x, y`` whose bytes make a token ``t_j`` with
``j <= m``, where ``(x, y)`` is not merge ``j``. ``x`` and ``y`` were built only from bytes inside
their own span (a merge across its edge would leave a token crossing it), so the merges before
``m`` turn ``t_j``'s bytes alone into ``[x, y]`` too. But consistency says they turn them into
``[left_j, right_j]`` (``j = m``) or into ``[t_j]`` (``j < m``, after merge ``j``): a
contradiction. So every pair tiktoken picks is the merge list's, leftmost first, and the ids are
equal. Every merge of a trained vocabulary is consistent (it was made from an occurrence whose
bytes the earlier merges had cut exactly so), except when training makes the same bytes twice
(tiktoken cannot hold that vocabulary at all); a hand-made list may not be (the test suite has one).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import TokvizError
from ..io.recovery import recover_merges
from ..pretok.pretokenize import NAMED_PATTERNS, Pretokenizer
from .native_bpe import BoundedBPE

# tiktoken's pattern that takes the whole text as one piece: tiktoken then only merges it.
_WHOLE_PIECE = r"[\s\S]+"


def consistent_merges(merges: Sequence[tuple[bytes, bytes]]) -> bool:
    """Whether every merge is consistent (see the module docstring), so tiktoken's rule is exact.

    The merges must make distinct bytes. Checked with tiktoken's compiled BPE: if merges
    ``0 .. k-1`` are consistent, the two rules agree below ``k`` (the argument above, for the
    shorter list), so merge ``k`` is consistent exactly when the rank rule with the ranks below
    ``k`` splits its bytes into its own two parts, which is the merge
    :func:`~tokviz.core.io.recovery.recover_merges` recovers. By induction: every merge is
    consistent exactly when the recovered list is the list itself (about 35 ms for 10K merges).
    """
    ranks = {bytes([b]): b for b in range(256)}
    for k, (left, right) in enumerate(merges):
        ranks[left + right] = 256 + k
    if len(ranks) != 256 + len(merges):
        return False  # some bytes are made twice (or a merge makes a single byte)
    try:
        return recover_merges(ranks) == list(merges)
    except TokvizError:  # a token the rank rule cannot split in two
        return False


class RankEngine:
    """tiktoken's compiled BPE over a consistent merge list (ids 0-255 bytes, 256 + k merge ``k``).

    For the GPT-2 and cl100k patterns tiktoken also cuts the text (the same patterns); otherwise
    (a custom pattern, or ``none``: the text is one chunk) tokviz cuts it and tiktoken merges
    each chunk. Pre-tokens longer than the bound are merged in the pieces training counts (see
    :class:`~tokviz.core.bpe.native_bpe.BoundedBPE`); at that length tiktoken merges ten times faster
    than the Python encoder.
    """

    def __init__(self, merged: Sequence[bytes], pretokenizer: Pretokenizer) -> None:
        import tiktoken

        ranks = {bytes([b]): b for b in range(256)}
        for k, data in enumerate(merged):
            ranks[data] = 256 + k
        whole_text = pretokenizer.pattern is not None and pretokenizer.pattern == NAMED_PATTERNS.get(
            pretokenizer.name
        )
        pattern = pretokenizer.pattern if whole_text and pretokenizer.pattern else _WHOLE_PIECE
        self.encoding = tiktoken.Encoding(
            "tokviz-merges", pat_str=pattern, mergeable_ranks=ranks, special_tokens={}
        )
        self._bpe = BoundedBPE(self.encoding, pretokenizer, whole_text)

    def encode_ordinary(self, text: str) -> list[int]:
        """Ids of ``text`` with special-token strings read as plain text (lone surrogates as U+FFFD)."""
        return self._bpe.encode_ordinary(text)
