"""OpenAI's published encodings shipped with tokviz (r50k_base = GPT-2, cl100k_base), loaded offline.

The ``.tiktoken`` files live in ``resources/encodings``. Every load checks the file's SHA-256
against the published digest, so a corrupt or swapped file is refused rather than used.
:func:`recover_merges` turns a rank table back into the ordered merge list tokviz's tokenizer uses.
"""

from __future__ import annotations

import binascii
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from operator import itemgetter
from types import MappingProxyType
from typing import Any

from tiktoken.load import check_hash

from .errors import TokenizerLoadError
from .resources import resource_path


@dataclass(frozen=True)
class BundledEncoding:
    """Facts about one shipped encoding: its file, published hash, specials and chunking pattern."""

    name: str
    filename: str
    sha256: str
    rank_count: int
    special_tokens: MappingProxyType[str, int] = field(repr=False)
    # A name tokviz.core.pretokenize.resolve_pretokenizer understands.
    pattern: str


BUNDLED: dict[str, BundledEncoding] = {
    "r50k_base": BundledEncoding(
        name="r50k_base",
        filename="r50k_base.tiktoken",
        sha256="306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930",
        rank_count=50256,
        special_tokens=MappingProxyType({"<|endoftext|>": 50256}),
        pattern="gpt2",
    ),
    "cl100k_base": BundledEncoding(
        name="cl100k_base",
        filename="cl100k_base.tiktoken",
        sha256="223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
        rank_count=100256,
        special_tokens=MappingProxyType(
            {
                "<|endoftext|>": 100257,
                "<|fim_prefix|>": 100258,
                "<|fim_middle|>": 100259,
                "<|fim_suffix|>": 100260,
                "<|endofprompt|>": 100276,
            }
        ),
        pattern="cl100k",
    ),
}

_ALIASES = {
    "r50k_base": "r50k_base",
    "r50k": "r50k_base",
    "gpt2": "r50k_base",
    "gpt-2": "r50k_base",
    "cl100k_base": "cl100k_base",
    "cl100k": "cl100k_base",
}


def bundled_encoding(name: str) -> BundledEncoding:
    """The shipped encoding called ``name`` ("gpt2"/"r50k_base" or "cl100k"/"cl100k_base")."""
    key = _ALIASES.get(name.strip().lower()) if isinstance(name, str) else None
    if key is None:
        known = ", ".join(sorted(_ALIASES))
        raise TokenizerLoadError(f"no bundled encoding called {name!r}; choose one of: {known}")
    return BUNDLED[key]


def load_bundled_ranks(name: str) -> dict[bytes, int]:
    """The ``{token bytes: rank}`` table of a shipped encoding, hash-checked, without the network.

    The result is a fresh dict each call; the parsed table is cached for the process.
    """
    return dict(_load_ranks(bundled_encoding(name).name))


def bundled_merges(name: str) -> list[tuple[bytes, bytes]]:
    """The ordered merge list of a shipped encoding (see :func:`recover_merges`), cached per process."""
    return list(_merges(bundled_encoding(name).name))


@cache
def _load_ranks(key: str) -> MappingProxyType[bytes, int]:
    enc = BUNDLED[key]
    path = resource_path("encodings", enc.filename)
    # The bytes are read and checked here rather than through tiktoken.load.load_tiktoken_bpe,
    # whose read_file_cached would also write a copy into the system temp folder.
    data = path.read_bytes()
    if not check_hash(data, enc.sha256):
        raise TokenizerLoadError(
            f"bundled encoding {path} does not match its published SHA-256 {enc.sha256}; "
            "the file is corrupt or was replaced: reinstall tokviz-desktop"
        )
    ranks = parse_tiktoken_bpe(data, str(path))
    if len(ranks) != enc.rank_count:
        raise TokenizerLoadError(f"{path} has {len(ranks)} ranks, expected {enc.rank_count}")
    return MappingProxyType(ranks)


@cache
def _merges(key: str) -> tuple[tuple[bytes, bytes], ...]:
    return tuple(recover_merges(_load_ranks(key)))


def parse_tiktoken_bpe(data: bytes, source: str = "<data>") -> dict[bytes, int]:
    """Parse tiktoken's ``.tiktoken`` format, one ``base64(token) rank`` pair per line, as tiktoken does.

    Unlike tiktoken, a token listed twice is an error rather than silently keeping the last rank.
    """
    a2b = binascii.a2b_base64
    ranks: dict[bytes, int] = {}
    for number, line in enumerate(data.splitlines(), start=1):
        if not line:
            continue
        try:
            token_b64, rank_text = line.split()
            token = a2b(token_b64)
            rank = int(rank_text)
        except (ValueError, binascii.Error):
            raise TokenizerLoadError(f"{source}, line {number}: not a 'base64-token rank' pair") from None
        if token in ranks:
            raise TokenizerLoadError(f"{source}, line {number}: token {token!r} is listed twice")
        ranks[token] = rank
    return ranks


# ---------------------------------------------------------------------------- merge recovery
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
    runner: Callable[[dict[bytes, int]], Callable[[bytes], list[int]]] | None,
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
            if encode is None:
                parts = [token[i : i + 1] for i in range(len(token))]
            else:
                ids = encode(token)
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


def _tiktoken_runner() -> Callable[[dict[bytes, int]], Callable[[bytes], list[int]]] | None:
    """A factory of tiktoken BPE runners over a rank table, or None if this tiktoken lacks one."""
    try:
        import tiktoken
    except ImportError:  # pragma: no cover - tiktoken is a dependency
        return None
    if not hasattr(tiktoken.Encoding, "_encode_single_piece"):
        return None

    def build(table: dict[bytes, int]) -> Callable[[bytes], list[int]]:
        encoding: Any = tiktoken.Encoding(
            "tokviz-merge-recovery", pat_str=".", mergeable_ranks=table, special_tokens={}
        )
        core = getattr(encoding, "_core_bpe", None)
        return getattr(core, "encode_single_piece", None) or encoding._encode_single_piece

    return build
