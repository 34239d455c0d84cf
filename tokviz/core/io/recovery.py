"""Recover the ordered merge list behind a byte-level BPE rank table (tiktoken's ``.tiktoken`` files).

A rank file lists tokens and ranks but no merges; tokviz's tokenizer, the replay and the
timeline need the merges. :func:`recover_merges` rebuilds them exactly, with tiktoken's compiled
BPE doing most of the work.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from operator import itemgetter

from ..errors import TokenizerLoadError

# tiktoken's pattern that takes the whole text as one piece: tiktoken then only merges it.
WHOLE_PIECE_PATTERN = r"[\s\S]+"

# Builds, for a rank table, a function that merges a token's bytes with it (None: not possible).
Runner = Callable[[dict[bytes, int]], Callable[[bytes], list[int] | None]]


def recover_merges(ranks: Mapping[bytes, int]) -> list[tuple[bytes, bytes]]:
    """The merge list behind a byte-level BPE rank table, in rank order.

    For each multi-byte token of rank ``r`` (in rank order), its merge is the pair of parts that
    rank-based BPE leaves when run on the token's own bytes with only the ranks below ``r``
    (merge the adjacent pair whose concatenation has the lowest rank, leftmost first, until no
    pair is left). That must leave exactly two parts, or :class:`TokenizerLoadError` is raised.

    Ranks must be distinct non-negative integers and all 256 single bytes must be present.
    """
    items = _checked_items(ranks)
    # tiktoken stores ranks as u32 and uses the largest one as "no rank".
    runner = _tiktoken_runner() if items[-1][1] < _U32_MAX else None
    return _recover(items, ranks, runner)


def _checked_items(ranks: Mapping[bytes, int]) -> list[tuple[bytes, int]]:
    """The (token, rank) pairs sorted by rank, after checking the table is a usable BPE table."""
    # One quick pass for the common, valid case; the slow loop below only runs to name the problem.
    tokens_ok = all(type(t) is bytes and t for t in ranks)
    ranks_ok = all(type(r) is int and r >= 0 for r in ranks.values())
    if not (tokens_ok and ranks_ok and len(set(ranks.values())) == len(ranks)):
        seen: dict[int, bytes] = {}
        for token, rank in ranks.items():
            if not isinstance(token, bytes) or not token:
                raise TokenizerLoadError(f"token {token!r} is not a non-empty bytes value")
            if not isinstance(rank, int) or isinstance(rank, bool) or rank < 0:
                raise TokenizerLoadError(f"token {token!r} has rank {rank!r}; ranks must be integers >= 0")
            if rank in seen:
                raise TokenizerLoadError(f"tokens {seen[rank]!r} and {token!r} share rank {rank}")
            seen[rank] = token
    for b in range(256):
        if bytes([b]) not in ranks:
            raise TokenizerLoadError(f"the rank table has no token for the single byte {b:02X}")
    return sorted(ranks.items(), key=itemgetter(1))


# The fast path runs tiktoken's compiled BPE with all ranks below a batch start, then finishes in
# Python with the ranks between the batch start and the token's own rank. Batches grow
# geometrically: few tables to build, while most tokens already come back as two parts.
_FIRST_BATCH = 4096
_GROWTH = 2
_U32_MAX = 2**32 - 1


def _recover(
    items: list[tuple[bytes, int]],
    ranks: Mapping[bytes, int],
    runner: Runner | None,
    first_batch: int = _FIRST_BATCH,
    growth: int = _GROWTH,
) -> list[tuple[bytes, bytes]]:
    """Merges for ``items`` (sorted by rank): tiktoken's run below each batch start, then Python."""
    get = ranks.get
    token_of_rank = {rank: token for token, rank in items}
    known = {token: rank for token, rank in items if len(token) == 1}
    merges: list[tuple[bytes, bytes]] = []
    append = merges.append
    start = 0
    size = first_batch
    while start < len(items):
        batch = items[start : start + size]
        # Every rank below the batch start is below each token's own rank, so tiktoken's run on
        # that table is a prefix of the exact run; _merge_below finishes it with the ranks between.
        encode = runner(known) if runner is not None and len(known) > 256 else None
        for token, rank in batch:
            if len(token) == 1:
                continue
            ids = encode(token) if encode is not None else None
            if ids is None:
                parts = [token[i : i + 1] for i in range(len(token))]
            else:
                if len(ids) == 2:
                    append((token_of_rank[ids[0]], token_of_rank[ids[1]]))
                    continue
                parts = [token_of_rank[i] for i in ids]
            if len(parts) > 2:
                parts = _merge_below(parts, rank, get)
            if len(parts) != 2:
                raise TokenizerLoadError(
                    f"token {token!r} (rank {rank}) is not one merge of two lower-ranked tokens: "
                    f"BPE with the lower ranks leaves {len(parts)} parts {parts!r}"
                )
            append((parts[0], parts[1]))
        known.update(batch)
        start += len(batch)
        size *= growth
    return merges


def _merge_below(parts: list[bytes], limit: int, get: Callable[[bytes], int | None]) -> list[bytes]:
    """Rank-based BPE from ``parts`` on: merge the lowest-ranked adjacent pair below ``limit``
    (leftmost among equals) until none is left or two parts remain.

    With two parts left the only pair is the token itself, whose rank is ``limit``: stopping
    there gives the same result as running on.
    """
    while len(parts) > 2:
        best = limit
        at = -1
        for i in range(len(parts) - 1):
            r = get(parts[i] + parts[i + 1])
            if r is not None and r < best:
                best = r
                at = i
        if at < 0:
            break
        parts[at : at + 2] = [parts[at] + parts[at + 1]]
    return parts


def _tiktoken_runner() -> Runner | None:
    """A factory of tiktoken BPE runners over a rank table, or None without tiktoken.

    A runner merges one token's bytes as tiktoken would merge a piece of text. tiktoken's public
    API takes text, so the encoding's pattern takes the whole text as one piece, and a token
    that is not valid UTF-8 (part of a character) gets None: it is merged in Python instead.
    """
    try:
        import tiktoken
    except ImportError:  # pragma: no cover - tiktoken is a dependency
        return None

    def build(table: dict[bytes, int]) -> Callable[[bytes], list[int] | None]:
        encode = tiktoken.Encoding(
            "tokviz-merge-recovery", pat_str=WHOLE_PIECE_PATTERN, mergeable_ranks=table, special_tokens={}
        ).encode_ordinary

        def run(token: bytes) -> list[int] | None:
            try:
                text = token.decode("utf-8")
            except UnicodeDecodeError:
                return None
            return encode(text)

        return run

    return build
