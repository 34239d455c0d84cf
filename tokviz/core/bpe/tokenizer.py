"""The exact byte-level BPE tokenizer: encode by the merge list, decode by joining bytes.

Within each pre-token chunk the adjacent pair with the lowest merge index is merged, again and
again. That is the definition the merge list carries, and it is what GPT-2's files mean; it can
differ from "merge the pair whose bytes have the lowest rank" on unusual vocabularies.
"""

from __future__ import annotations

import copy
import heapq
import random
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from itertools import accumulate, chain, repeat
from typing import NamedTuple, Protocol

from ..errors import ArgumentTypeError, InternalError, InvalidArgument, TokenizerLoadError
from ..pretok.normalize import Normalizer
from ..pretok.pretokenize import (
    LONE_SURROGATE,
    NAMED_PATTERNS,
    Pretokenizer,
    SpecialSplitter,
    last_cut_before,
    replace_lone_surrogates,
    resolve_pretokenizer,
)
from ..pretok.stretches import LONGEST_ENCODED_PART, PartCutter, PieceMemo, encoding_pieces
from .arguments import (
    check_count,
    check_text,
    checked_special_names,
    extra_special_names,
    merges_argument,
    vocab_argument,
)
from .rankrule import RankEngine, consistent_merges
from .vocab_rules import vocabulary_problem

# The merge tables :meth:`Tokenizer._build_tables` makes; a plain-text view shares its tokenizer's.
_TABLES = (
    "_byte_ids",
    "_identity_bytes",
    "_ranks",
    "_merge_limit",
    "_merge_new_ids",
    "_merge_parents",
    "_repeated_bytes",
    "_merge_rank_of_id",
    "_parents_of_id",
    "_merges",
    "_tables_built",
)
# Chunks longer than this are merged with a heap instead of rescanning all pairs each round.
_LONG_CHUNK = 96
# Bound on the chunk -> ids cache so memory stays flat on endless input.
_CACHE_LIMIT = 200_000


# bytes.translate table: 1 for a byte that starts a UTF-8 character, 0 for a continuation byte.
_CHAR_STARTS = bytes(0 if 0x80 <= b < 0xC0 else 1 for b in range(256))


class FastEngine(Protocol):
    """An exact external encoder for the same vocabulary (tiktoken's, for its own rank files)."""

    def encode_ordinary(self, text: str) -> list[int]: ...


class TokenSpan(NamedTuple):
    """One token of an encoded text, placed on the text.

    ``start``/``end`` are code-point offsets. A token that holds only part of a UTF-8 character
    (``partial``) covers the whole character it belongs to, so both halves of a split emoji point
    at the emoji. ``chunk`` numbers the pre-token chunk the token came from.
    """

    id: int
    start: int
    end: int
    bytes: bytes
    partial: bool
    special: bool = False
    chunk: int = 0


class Tokenizer:
    """A byte-level BPE tokenizer defined by a vocabulary, an ordered merge list and specials.

    ``vocab`` may use any id layout (GPT-2's vocab.json ids, say): ids are looked up by bytes,
    and the merges define the algorithm. ``special_tokens`` is a list of strings (their ids are
    found in ``vocab`` by bytes, or appended after the largest id) or a ``{text: id}`` mapping.
    ``normalizer`` runs on the text between special tokens before it is cut (special tokens match
    the text as typed, as HF's do); spans still point into the text as typed
    (:meth:`~tokviz.core.pretok.normalize.Normalizer.aligned`).
    """

    # tiktoken's engine over this merge list when its rank rule provably gives the same ids
    # (decided on the first encode, see rankrule.py). Class-level defaults, so a subclass that
    # sets its attributes without this constructor still reads them.
    _rank_engine: RankEngine | None = None
    _rank_checked = False
    # Whether encode() reads special-token strings in the text (see __init__); a class default too.
    specials_in_text = True
    # Whether merge k makes the k-th multi-byte id in id order (a rank table: its merges are
    # recovered in rank order), so :meth:`merge_rank` can answer without recovering them.
    merges_follow_ids = False
    _merged_ids: list[int] | None = None
    # What the text between special tokens goes through before it is cut (none by default).
    normalizer = Normalizer(())

    def __init__(
        self,
        vocab: Mapping[int, bytes],
        merges: Sequence[tuple[bytes, bytes]] | Callable[[], Sequence[tuple[bytes, bytes]]],
        special_tokens: Mapping[str, int] | Iterable[str] | None = None,
        pretokenizer: str | Pretokenizer | None = "gpt2",
        name: str = "custom",
        engine: FastEngine | None = None,
        *,
        specials_in_text: bool = True,
        normalizer: Normalizer | None = None,
    ) -> None:
        if not isinstance(name, str):
            raise ArgumentTypeError(f"a tokenizer's name must be a str, got {type(name).__name__}")
        self.name = name
        self.pretokenizer = resolve_pretokenizer(pretokenizer)
        if normalizer is not None and not isinstance(normalizer, Normalizer):
            raise ArgumentTypeError(f"normalizer= must be a Normalizer, got {type(normalizer).__name__}")
        self.normalizer = normalizer or Normalizer(())
        self.vocab: dict[int, bytes] = vocab_argument(vocab)
        # ``merges`` may be a callable: tiktoken-ranked vocabularies recover their merges only
        # when something needs them (the timeline, hover parents), so start-up stays fast.
        self._merges_source = merges if callable(merges) else None
        self._merges: list[tuple[bytes, bytes]] | None = None if callable(merges) else merges_argument(merges)
        self._merge_count_hint = len(self.vocab) - 256
        self.special_tokens: dict[str, int] = self._resolve_specials(special_tokens)
        problem = vocabulary_problem(
            self.vocab, self.special_tokens, None if self._merges is None else len(self._merges)
        )
        if problem:
            raise TokenizerLoadError(problem)
        self._special_ids = set(self.special_tokens.values())
        self._merge_count_hint = len(self.vocab) - 256 - len(self._special_ids)
        # Whether encode() reads special-token strings in the text as their ids (tiktoken's
        # allowed_special="all"). A format whose library never does (Mistral's tekken) turns it
        # off: its special ids then only decode.
        self.specials_in_text = specials_in_text
        self._splitter = SpecialSplitter(self.special_tokens if specials_in_text else ())
        self._engine = engine
        # What the loader had to guess (e.g. "pre-tokenizer assumed: GPT-2"): shown by
        # ``tokviz info``, the pickers and the views' tooltips, so a guess never reads as a fact.
        self.assumptions: tuple[str, ...] = ()
        # Why merge-by-merge replay cannot reproduce this tokenizer's ids (a normalizer, byte
        # fallback, a model that is not BPE); None when replay is exact.
        self.replay_note: str | None = None
        self._tables_built = False
        self._cache: dict[str, list[int]] = {}
        if engine is None:
            self._build_tables()

    @property
    def pattern_assumed(self) -> bool:
        """Whether the pre-tokenizer is a guess (a rank file or a folder that holds no pattern):
        what rests on how text is cut (which tokens are reachable, where a sweep's knee is) is
        then true of the guess, not necessarily of the model."""
        return any(a.startswith("pre-tokenizer") for a in self.assumptions)

    @property
    def merges(self) -> list[tuple[bytes, bytes]]:
        """The ordered merge list (recovered on first use for tiktoken-ranked vocabularies)."""
        if self._merges is None:
            source = self.__dict__.get("_view_of")
            if source is not None:  # a plain-text view: the list its tokenizer recovers (once)
                self._merges = source.merges
                return self._merges
            assert self._merges_source is not None
            self._merges = [(bytes(a), bytes(b)) for a, b in self._merges_source()]
        return self._merges

    @property
    def merge_rank_of_id(self) -> dict[int, int]:
        """Merge index that created each merged id."""
        self._ensure_tables()
        return self._merge_rank_of_id

    def merge_rank(self, token_id: int) -> int | None:
        """The index of the merge that made ``token_id`` (None for a byte, a special or an id no
        merge makes). A rank table answers from its ids alone, so a page that names the ranks of a
        few tokens does not recover 200,000 merges first; otherwise the merge tables answer."""
        if self._tables_built or not self.merges_follow_ids:
            return self.merge_rank_of_id.get(token_id)
        if self._merged_ids is None:
            self._merged_ids = sorted(
                i for i, b in self.vocab.items() if len(b) > 1 and i not in self._special_ids
            )
        k = bisect_left(self._merged_ids, token_id)
        return k if k < len(self._merged_ids) and self._merged_ids[k] == token_id else None

    @property
    def parents_of_id(self) -> dict[int, tuple[int, int]]:
        """The (left id, right id) each merged id was made from."""
        self._ensure_tables()
        return self._parents_of_id

    def _ensure_tables(self) -> None:
        if not self._tables_built:
            source = self.__dict__.get("_view_of")
            if source is None:
                self._build_tables()
                return
            source._ensure_tables()  # a plain-text view takes its tokenizer's tables, built once
            for name in _TABLES:
                setattr(self, name, getattr(source, name))

    # ------------------------------------------------------------------ construction
    def _resolve_specials(self, specials: Mapping[str, int] | Iterable[str] | None) -> dict[str, int]:
        """The special tokens as ``{text: id}``, from a list of texts or a mapping (checked first)."""
        if specials is None:
            return {}
        if isinstance(specials, (str, bytes)) or not isinstance(specials, (Mapping, Iterable)):
            raise ArgumentTypeError(
                f"special_tokens must be a list of strings or a {{text: id}} mapping, got {type(specials).__name__}"
            )
        names = checked_special_names(specials)
        if isinstance(specials, Mapping):
            return self._specials_by_id(specials)
        return self._specials_by_text(names)

    def _specials_by_id(self, specials: Mapping[str, int]) -> dict[str, int]:
        """Specials given as ``{text: id}``: each id is taken as given (and gets the text's bytes if new)."""
        given: dict[str, int] = {}
        for s, i in specials.items():
            if isinstance(i, bool) or not isinstance(i, int) or i < 0:
                raise InvalidArgument(f"the special token {s!r} needs an id >= 0, got {i!r}")
            given[s] = i
        for s, i in given.items():
            self.vocab.setdefault(i, s.encode("utf-8"))
        return given

    def _specials_by_text(self, names: Sequence[str]) -> dict[str, int]:
        """Specials given by text: an id the vocabulary already has for the text, else a new one."""
        # A special given by text keeps an id the vocabulary already has for it past the BPE region
        # (trained models and GPT-2's vocab.json put specials there); otherwise it is appended.
        bpe_end = 256 + (len(self._merges) if self._merges is not None else self._merge_count_hint)
        existing = {b: i for i, b in sorted(self.vocab.items()) if i >= bpe_end}
        out: dict[str, int] = {}
        next_id = max(self.vocab, default=-1) + 1
        for s in names:
            if not s or s in out:
                continue
            data = s.encode("utf-8")
            if data in existing:
                out[s] = existing[data]
            else:
                out[s] = next_id
                self.vocab[next_id] = data
                next_id += 1
        return out

    def _build_tables(self) -> None:
        ids_by_bytes: dict[bytes, list[int]] = {}
        for i in sorted(self.vocab):
            if i in getattr(self, "_special_ids", ()):
                continue
            ids_by_bytes.setdefault(self.vocab[i], []).append(i)
        byte_ids: list[int] = []
        for b in range(256):
            found = ids_by_bytes.get(bytes([b]))
            if not found:
                raise TokenizerLoadError(f"the vocabulary has no token for the single byte {b:02X}")
            byte_ids.append(found[0])
        self._byte_ids = byte_ids
        self._identity_bytes = byte_ids == list(range(256))
        # (left id, right id) -> (merge index, new id); a bytes value made by several merges gets
        # the ids in order, so trained vocabularies with repeated bytes keep one id per merge.
        ranks: dict[tuple[int, int], tuple[int, int]] = {}
        used: dict[bytes, int] = {}
        known: dict[bytes, list[int]] = {bytes([b]): [byte_ids[b]] for b in range(256)}
        merge_rank_of_id: dict[int, int] = {}
        parents_of_id: dict[int, tuple[int, int]] = {}
        merge_new_ids: list[int] = []
        merge_parents: list[tuple[int, int]] = []
        for rank, (left, right) in enumerate(self.merges):
            if left not in known or right not in known:
                missing = left if left not in known else right
                raise TokenizerLoadError(
                    f"merge {rank} ({left!r} + {right!r}) uses {missing!r}, which no earlier merge makes"
                )
            merged = left + right
            candidates = ids_by_bytes.get(merged)
            if not candidates:
                raise TokenizerLoadError(f"merge {rank} makes {merged!r}, which is not in the vocabulary")
            k = used.get(merged, 0)
            new_id = candidates[min(k, len(candidates) - 1)]
            used[merged] = k + 1
            merge_new_ids.append(new_id)
            parents = (known[left][-1], known[right][-1])
            merge_parents.append(parents)
            if new_id not in merge_rank_of_id:
                merge_rank_of_id[new_id] = rank
                parents_of_id[new_id] = parents
            for a in known[left]:
                for b in known[right]:
                    ranks.setdefault((a, b), (rank, new_id))
            known.setdefault(merged, [])
            if new_id not in known[merged]:
                known[merged].append(new_id)
        self._ranks = ranks
        self._merge_limit = len(self.merges)
        self._merge_new_ids = merge_new_ids
        self._merge_parents = merge_parents
        self._repeated_bytes = any(len(v) > 1 for v in known.values())
        self._merge_rank_of_id = merge_rank_of_id
        self._parents_of_id = parents_of_id
        self._tables_built = True

    # ------------------------------------------------------------------ properties
    @property
    def vocab_size(self) -> int:
        """Number of distinct ids, special tokens included."""
        return len(self.vocab)

    @property
    def is_bpe(self) -> bool:
        """True when the tokenizer has merges (the pure byte tokenizer has none)."""
        if self._merges is None:
            return self._merge_count_hint > 0
        return bool(self._merges)

    @property
    def merge_count(self) -> int:
        """Number of merges, without forcing a lazy merge list to be recovered."""
        return len(self._merges) if self._merges is not None else self._merge_count_hint

    def size_after(self, merges: int) -> int:
        """The vocabulary size of the first ``merges`` merges of this list: 256 bytes, a token per
        merge and the special tokens. The one rule behind every size a replay, a sweep, a held-out
        curve or a prefix tokenizer names."""
        return 256 + merges + len(self.special_tokens)

    def id_bytes(self, token_id: int) -> bytes:
        """The bytes of one id; :class:`InvalidArgument` for an id outside the vocabulary."""
        try:
            return self.vocab[token_id]
        except (KeyError, TypeError):
            raise self._unknown_id(token_id) from None

    def _unknown_id(self, token_id: object) -> InvalidArgument:
        """The error for an id that is not in the vocabulary (or not an id at all)."""
        if isinstance(token_id, bool) or not isinstance(token_id, int):
            return ArgumentTypeError(f"a token id must be an int, got {token_id!r}")
        return InvalidArgument(
            f"token id {token_id} is not in the vocabulary of {self.name} (ids 0 to {max(self.vocab, default=0)})"
        )

    def _merge_index(self, rank: object) -> int:
        """``rank`` checked as a merge number: 0 up to the merge count, never counted from the end."""
        n = check_count(rank, "a merge number")
        self._ensure_tables()
        if n >= len(self._merge_new_ids):
            raise InvalidArgument(
                f"{self.name} has {len(self._merge_new_ids):,} merges (numbered from 0), so there is no merge {n}"
            )
        return n

    def id_of_merge(self, rank: int) -> int:
        """The id that merge number ``rank`` (0-based) creates."""
        index = self._merge_index(rank)  # builds the tables on first use
        return self._merge_new_ids[index]

    def parents_of_merge(self, rank: int) -> tuple[int, int]:
        """The (left id, right id) that merge number ``rank`` (0-based) joins."""
        index = self._merge_index(rank)
        return self._merge_parents[index]

    def is_special(self, token_id: int) -> bool:
        """Whether the id is one of the special tokens (False for anything that is not an id)."""
        try:
            return token_id in self._special_ids
        except TypeError:  # an unhashable value is no id at all
            return False

    # ------------------------------------------------------------------ BPE
    def _bpe(self, data: bytes, max_rank: int | None = None) -> list[int]:
        """Merge one chunk's bytes by the merge list, optionally using only merges below max_rank."""
        self._ensure_tables()
        ids = list(data) if self._identity_bytes else [self._byte_ids[b] for b in data]
        if len(ids) < 2:
            return ids
        if len(ids) > _LONG_CHUNK:
            return self._bpe_heap(ids, max_rank)
        get = self._ranks.get
        limit = self._merge_limit if max_rank is None else max_rank
        none = (limit, -1)
        while len(ids) > 1:
            pairs = list(zip(ids, ids[1:]))
            found = list(map(get, pairs, repeat(none)))
            best = min(found)
            if best[0] >= limit:
                break
            rank, new_id = best
            n = len(ids)
            if found.count(best) == 1 and not self._repeated_bytes:
                i = found.index(best)
                ids[i : i + 2] = [new_id]  # the common case: the pair occurs once
            else:
                out: list[int] = []
                i = 0
                while i < n:
                    if i + 1 < n and found[i][0] == rank:
                        out.append(new_id)
                        i += 2
                    else:
                        out.append(ids[i])
                        i += 1
                ids = out
            if len(ids) >= n:
                raise _merge_pass_error(data, rank, new_id, n, ids)
        return ids

    def _bpe_heap(
        self,
        ids: list[int],
        max_rank: int | None,
        trace: list[int] | None = None,
        skip: Callable[[], bool] | None = None,
    ) -> list[int]:
        """The same merge rule for long chunks: a heap of (rank, position) over a linked list.

        With ``trace``, the merge index of every merge applied is appended to it, in order. With
        ``skip`` (BPE-dropout), each merge due is first offered to it: when it answers True the
        merge is left out this time and offered again after the next merge that is made, as the
        ``tokenizers`` library drops merges.
        """
        self._ensure_tables()
        ranks = self._ranks
        limit = len(self.merges) if max_rank is None else max_rank
        n = len(ids)
        nxt = list(range(1, n + 1))
        prv = list(range(-1, n - 1))
        alive = [True] * n
        heap: list[tuple[int, int, int, int]] = []
        for i in range(n - 1):
            r = ranks.get((ids[i], ids[i + 1]))
            if r is not None and r[0] < limit:
                heap.append((r[0], i, ids[i], ids[i + 1]))
        heapq.heapify(heap)
        skipped: list[tuple[int, int, int, int]] = []
        while heap:
            rank, i, a, b = entry = heapq.heappop(heap)
            j = nxt[i] if alive[i] else n
            if j >= n or ids[i] != a or ids[j] != b:
                continue
            if skip is not None and _dropped(entry, skip, skipped, heap):
                continue
            ids[i] = ranks[(a, b)][1]
            if trace is not None:
                trace.append(rank)
            alive[j] = False
            k = nxt[j]
            nxt[i] = k
            if k < n:
                prv[k] = i
                r = ranks.get((ids[i], ids[k]))
                if r is not None and r[0] < limit:
                    heapq.heappush(heap, (r[0], i, ids[i], ids[k]))
            p = prv[i]
            if p >= 0:
                r = ranks.get((ids[p], ids[i]))
                if r is not None and r[0] < limit:
                    heapq.heappush(heap, (r[0], p, ids[p], ids[i]))
        return [ids[i] for i in range(n) if alive[i]]

    def trace_chunk(self, data: bytes) -> tuple[list[int], list[int]]:
        """Encode one chunk's bytes with every merge, returning (ids, merge index of each merge applied).

        The applied merge indices never decrease, so the chunk at step k is the result of the
        merges in the trace that are below k: that is what makes replay cheap.
        """
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise ArgumentTypeError(
                f"trace_chunk takes bytes, got {type(data).__name__}; encode text to UTF-8 first"
            )
        data = bytes(data)
        self._ensure_tables()
        start = list(data) if self._identity_bytes else [self._byte_ids[b] for b in data]
        trace: list[int] = []
        ids = self._bpe_heap(start, None, trace) if len(start) > 1 else start
        return ids, trace

    # ------------------------------------------------------------------ encode
    def segments(self, text: str) -> Iterator[tuple[int, int, bool]]:
        """``(start, end, is_special)`` code-point ranges that tile ``text``, cut at special tokens.

        A special range is one special token (one id); the ordinary ranges between them are
        what the pre-tokenizer splits into chunks.
        """
        check_text(text)
        return self._splitter.segments(text)

    def normalize(self, text: str) -> str:
        """``text`` as the model sees it, before it is cut into chunks (itself without a normalizer)."""
        return self.normalizer(text)

    def encode_ordinary(self, text: str) -> list[int]:
        """Encode text as plain text: special-token strings are encoded like any other text.

        A lone surrogate reads as U+FFFD (see :data:`LONE_SURROGATE`).
        """
        check_text(text)
        if self.normalizer:
            text = self.normalizer(text)
        return self._encode_normalized(text)

    def _encode_normalized(self, text: str) -> list[int]:
        """:meth:`encode_ordinary` of text already normalized."""
        engine = self._engine
        if engine is None:
            if not self._rank_checked:
                self._rank_engine = self._make_rank_engine()
                self._rank_checked = True
            engine = self._rank_engine
        if engine is not None:
            return engine.encode_ordinary(text)
        out: list[int] = []
        cache = self._cache
        get = cache.get
        bpe = self._bpe
        try:
            for chunk in self.pretokenizer.split(text):
                ids = get(chunk)
                if ids is None:
                    if len(chunk) > _LONG_CHUNK:  # rare and long: merged in bounded pieces, not kept
                        out += self._long_chunk_ids(chunk)
                        continue
                    ids = bpe(chunk.encode("utf-8"))
                    if len(cache) >= _CACHE_LIMIT:
                        cache.clear()
                    cache[chunk] = ids
                out += ids
        except UnicodeEncodeError:  # rare: checked only when it happens, so plain text pays nothing
            return self._encode_normalized(replace_lone_surrogates(text))
        return out

    def _long_chunk_ids(self, chunk: str) -> list[int]:
        """The ids of a chunk too long for the cache, merged in the bounded pieces every encoder uses."""
        pieces = encoding_pieces(chunk)
        if len(pieces) == 1:
            return self._bpe(chunk.encode("utf-8"))
        memo = self.__dict__.setdefault("_piece_memo", PieceMemo())
        out: list[int] = []
        for piece in pieces:
            out += memo.ids(piece, lambda p: self._bpe(p.encode("utf-8")))
        return out

    def _make_rank_engine(self) -> RankEngine | None:
        """tiktoken's engine when it gives exactly this merge list's ids, else None.

        It does when the ids are tiktoken's ranks (bytes 0-255, merge ``k`` making id 256 + k,
        no bytes made twice) and every merge is consistent (:func:`~tokviz.core.bpe.rankrule.consistent_merges`),
        as every merge of a trained vocabulary is. Checked once per tokenizer (35 ms for a 10K
        vocabulary). Under ``none`` a text is one chunk, which tiktoken merges in the bounded
        pieces every encoder uses, ten to twenty times faster than the Python heap.
        """
        if type(self)._bpe is not Tokenizer._bpe or not self.merges:
            return None  # a subclass with its own merge rule
        self._ensure_tables()
        if not self._identity_bytes or self._repeated_bytes:
            return None
        new_ids = self._merge_new_ids
        if new_ids != list(range(256, 256 + len(new_ids))):
            return None
        if not consistent_merges(self.merges):
            return None
        try:
            return RankEngine([a + b for a, b in self.merges], self.pretokenizer)
        except (ImportError, ValueError):  # tiktoken missing, or a table it cannot hold
            return None

    def encode(self, text: str) -> list[int]:
        """Encode text to ids; special tokens in the text become their single ids, longest first."""
        check_text(text)
        if not self._splitter:
            return self.encode_ordinary(text)
        out: list[int] = []
        for start, end, special in self._splitter.segments(text):
            if special:
                out.append(self.special_tokens[text[start:end]])
            else:
                out.extend(self.encode_ordinary(text[start:end]))
        return out

    def encode_with_merges(self, text: str, max_merges: int) -> list[int]:
        """Encode using only the first ``max_merges`` merges (the timeline's step k).

        ``max_merges`` beyond the merge count means all of them; a negative one is refused.
        """
        check_text(text)
        max_merges = check_count(max_merges, "max_merges")
        if LONE_SURROGATE.search(text):
            text = replace_lone_surrogates(text)
        out: list[int] = []
        for start, end, special in self._splitter.segments(text):
            if special:
                out.append(self.special_tokens[text[start:end]])
                continue
            for chunk in self.pretokenizer.split(self.normalizer(text[start:end])):
                for piece in encoding_pieces(chunk):
                    out.extend(self._bpe(piece.encode("utf-8"), max_merges))
        return out

    def encode_with_dropout(self, text: str, dropout: float, rng: random.Random) -> list[int]:
        """One BPE-dropout sample (Provilkov et al., 2020): every merge due is left out with
        probability ``dropout``, drawn from ``rng``. ``dropout`` 0 gives :meth:`encode`'s ids, 1 the
        bytes; special tokens stay whole, the text between them is normalized first as :meth:`encode` does."""
        check_text(text)
        if isinstance(dropout, bool) or not isinstance(dropout, (int, float)) or not 0 <= dropout <= 1:
            raise InvalidArgument(f"dropout must be a probability from 0 to 1, got {dropout!r}")
        if LONE_SURROGATE.search(text):
            text = replace_lone_surrogates(text)
        self._ensure_tables()
        byte_ids = self._byte_ids

        def skip() -> bool:
            return rng.random() < dropout

        out: list[int] = []
        for start, end, special in self.segments(text):
            if special:
                out.append(self.special_tokens[text[start:end]])
                continue
            ordinary = text[start:end]
            for chunk in self.pretokenizer.split(self.normalizer(ordinary) if self.normalizer else ordinary):
                for piece in encoding_pieces(chunk):
                    ids = [byte_ids[b] for b in piece.encode("utf-8")]
                    out.extend(self._bpe_heap(ids, None, skip=skip) if len(ids) > 1 else ids)
        return out

    def encode_spans(self, text: str, max_merges: int | None = None) -> list[TokenSpan]:
        """Encode and place every token on the text (code-point offsets, partial flags, chunk index).

        The ids come from the ordinary encoder (so from the fast engine where there is one);
        tokens are then laid on the text by their byte lengths, which never cross a chunk.
        A lone surrogate reads as U+FFFD, which is one code point too, so offsets hold.
        """
        check_text(text)
        if max_merges is not None:
            max_merges = check_count(max_merges, "max_merges")
        try:
            return self._encode_spans(text, max_merges)
        except UnicodeEncodeError:
            return self._encode_spans(replace_lone_surrogates(text), max_merges)

    def _encode_spans(self, text: str, max_merges: int | None) -> list[TokenSpan]:
        spans: list[TokenSpan] = []
        vocab = self.vocab
        chunk_base = 0
        for seg_start, seg_end, special in self._splitter.segments(text):
            if special:
                sid = self.special_tokens[text[seg_start:seg_end]]
                spans.append(TokenSpan(sid, seg_start, seg_end, vocab[sid], False, True, chunk_base))
                chunk_base += 1
                continue
            segment = text[seg_start:seg_end]
            origin = None
            if self.normalizer:
                segment, origin = self.normalizer.aligned(segment)
            chunks = self.pretokenizer.spans(segment)
            if max_merges is None:
                ids = self._encode_normalized(segment)
            else:
                ids = []
                for cs, ce in chunks:
                    for piece in encoding_pieces(segment[cs:ce]):
                        ids.extend(self._bpe(piece.encode("utf-8"), max_merges))
            if origin is None:
                self._place(segment, seg_start, ids, chunks, chunk_base, spans)
            else:
                placed: list[TokenSpan] = []
                self._place(segment, 0, ids, chunks, chunk_base, placed)
                spans.extend(_on_typed_text(placed, origin, seg_start, seg_end))
            chunk_base += len(chunks)
        return spans

    def _place(
        self,
        segment: str,
        base: int,
        ids: list[int],
        chunks: list[tuple[int, int]],
        chunk_base: int,
        out: list[TokenSpan],
    ) -> None:
        """Append a span per id of ``segment``, walking tokens and chunks together."""
        vocab = self.vocab
        new = tuple.__new__  # TokenSpan without the keyword-argument layer: 250K spans per MB
        data = segment.encode("utf-8")
        ascii_only = len(data) == len(segment)
        # For non-ASCII text: 1-based index of the character that holds each byte.
        char_at = None if ascii_only else list(accumulate(data.translate(_CHAR_STARTS)))
        n_bytes = len(data)
        ci = 0
        chunk_end = chunks[0][1] if chunks else 0
        last_chunk = len(chunks) - 1
        pos = 0
        for i in ids:
            b = vocab[i]
            end = pos + len(b)
            if char_at is None:
                start_cp, end_cp, partial = pos, end, False
            else:
                start_cp = char_at[pos] - 1
                end_cp = char_at[end - 1]
                partial = (data[pos] & 0xC0) == 0x80 or (end < n_bytes and (data[end] & 0xC0) == 0x80)
            while start_cp >= chunk_end and ci < last_chunk:
                ci += 1
                chunk_end = chunks[ci][1]
            out.append(
                new(TokenSpan, (i, base + start_cp, base + end_cp, b, partial, False, chunk_base + ci))
            )
            pos = end

    def encode_iterable(self, iterable: Iterable[str], block: int = 1 << 16) -> Iterator[int]:
        """Encode a stream of strings lazily, with memory independent of the total input size.

        Pieces are gathered into blocks of about ``block`` characters; each block is encoded up
        to a cut where chunking provably cannot change: a special token, or (for the named
        GPT-2 / cl100k patterns) a space after a non-space. A stretch with no such cut (one
        document under ``none`` or a custom pattern, a 200 MB line) is cut every
        :data:`~tokviz.core.pretok.stretches.LONGEST_ENCODED_PART` characters, counted in the current
        :class:`~tokviz.core.pretok.stretches.CutCount`.
        """
        if isinstance(iterable, (str, bytes)) or not isinstance(iterable, Iterable):
            raise ArgumentTypeError(
                f"encode_iterable takes an iterable of str pieces (a list, a file), got {type(iterable).__name__}"
            )
        return chain.from_iterable(ids for _, ids in self.encode_blocks(iterable, block))

    def encode_blocks(self, iterable: Iterable[str], block: int = 1 << 16) -> Iterator[tuple[str, list[int]]]:
        """Encode a stream of strings block by block: ``(text, ids)`` for consecutive blocks.

        The blocks joined are the input, and their ids joined are ``encode`` of the whole input
        (but for the forced cuts of :meth:`encode_iterable`); each block is cut as it cuts, so a
        caller can write a block's output and drop it, and memory stays bounded on any input.
        """
        if isinstance(iterable, (str, bytes)) or not isinstance(iterable, Iterable):
            raise ArgumentTypeError(
                f"encode_blocks takes an iterable of str pieces (a list, a file), got {type(iterable).__name__}"
            )
        block = check_count(block, "block")
        if block < 1:
            raise InvalidArgument("block must be 1 or more characters")
        return self._encode_pieces(iterable, block)

    def _encode_pieces(self, iterable: Iterable[str], block: int) -> Iterator[tuple[str, list[int]]]:
        safe_spaces = self.pretokenizer.name in NAMED_PATTERNS and self.pretokenizer.pattern is not None
        longest = max((len(s) for s in self.special_tokens), default=0)
        cutter = PartCutter(
            lambda buffer: self._safe_cut(buffer, safe_spaces), block, LONGEST_ENCODED_PART, max(longest, 1)
        )
        for part in cutter.parts(_checked_pieces(iterable)):
            yield part, self.encode(part)

    def _safe_cut(self, buffer: str, safe_spaces: bool) -> int:
        """The last place in ``buffer`` where encoding can be split without changing the result."""
        longest = max((len(s) for s in self.special_tokens), default=0)
        # Keep a tail that could still grow into a (longer) special token or a whitespace run.
        limit = len(buffer) - max(longest, 1)
        if limit <= 0:
            return 0
        cut = last_cut_before(buffer, limit + 1) if safe_spaces else 0
        if self._splitter:
            for start, end, special in self._splitter.segments(buffer):
                if not special or start > limit:
                    continue
                if start < cut < end:
                    cut = start  # never cut inside a special token
                elif start > cut:
                    cut = start
        return cut

    # ------------------------------------------------------------------ decode
    def decode_bytes(self, ids: Iterable[int]) -> bytes:
        """Join the bytes of every id (raises :class:`InvalidArgument` for an unknown id).

        ``ids`` may be any iterable, a generator included: it is read once, and an unknown id is
        named in the error (the lookup runs at C speed; the search for the culprit only on error).
        """
        if isinstance(ids, (str, bytes, bytearray)) or not isinstance(ids, Iterable):
            raise ArgumentTypeError(
                f"ids must be an iterable of ints (a list of ids), got {type(ids).__name__}"
            )
        seq = ids if isinstance(ids, (list, tuple)) else list(ids)
        vocab = self.vocab
        try:
            return b"".join(map(vocab.__getitem__, seq))
        except (KeyError, TypeError):
            for i in seq:
                try:
                    vocab[i]
                except (KeyError, TypeError):
                    raise self._unknown_id(i) from None
            raise  # pragma: no cover - the lookup that failed above fails again here

    def decode(self, ids: Iterable[int]) -> str:
        """Join bytes then decode UTF-8, replacing invalid sequences with U+FFFD."""
        return self.decode_bytes(ids).decode("utf-8", errors="replace")

    def with_special_tokens(self, extra: Iterable[str]) -> Tokenizer:
        """The same vocabulary and merges with more special tokens (new ids after the largest).

        Tokens it already has keep their ids; a lazy merge list stays lazy.
        """
        extra = extra_special_names(extra)
        specials = dict(self.special_tokens)
        next_id = max(self.vocab, default=-1) + 1
        for s in extra:
            if s and s not in specials:
                specials[s] = next_id
                next_id += 1
        merges: Sequence[tuple[bytes, bytes]] | Callable[[], Sequence[tuple[bytes, bytes]]]
        merges = self._merges if self._merges is not None else (lambda: self.merges)
        return Tokenizer(
            self.vocab,
            merges,
            specials,
            self.pretokenizer,
            self.name,
            self._engine,
            specials_in_text=self.specials_in_text,
            normalizer=self.normalizer,
        )

    def matched_in_text(self) -> dict[str, int]:
        """``{text: id}`` of every text :meth:`encode` reads as one id, whole, wherever it occurs.

        The special tokens when this tokenizer parses them; a format whose library also matches
        added tokens that are not special (a ``tokenizer.json``) adds those. ``tokviz info`` lists
        what this returns, so it names exactly what the encoder uses.
        """
        return dict(self.special_tokens) if self.specials_in_text else {}

    def specials_as_text(self) -> Tokenizer:
        """This tokenizer reading special-token text as ordinary text (tiktoken's ``encode_ordinary``).

        The same object when it already does (or has no special tokens); otherwise one view, made
        once and kept, that shares the vocabulary and merges and whose every encoder (``encode``,
        spans, blocks) leaves ``<|endoftext|>`` in the text to BPE. Special ids still decode.
        """
        if not self.specials_in_text or not self.special_tokens:
            return self
        view = self.__dict__.get("_text_view")
        if view is None:
            view = self._make_text_view()
            self.__dict__["_text_view"] = view
        return view

    def _make_text_view(self) -> Tokenizer:
        """A shallow copy whose splitter matches no special token (see :meth:`specials_as_text`)."""
        view = copy.copy(self)
        view.__dict__.pop("_text_view", None)
        view.specials_in_text = False
        view._splitter = SpecialSplitter(())
        # Plain text encodes exactly as this tokenizer's encode_ordinary does: the view uses it
        # (its engine, cache and tables), and takes the merge tables from here when it needs them.
        view.__dict__["encode_ordinary"] = self.encode_ordinary
        view.__dict__["_encode_normalized"] = self._encode_normalized
        view.__dict__["_view_of"] = self
        return view

    def __repr__(self) -> str:
        return (
            f"Tokenizer(name={self.name!r}, vocab_size={self.vocab_size}, merges={self.merge_count}, "
            f"pretokenizer={self.pretokenizer.name!r}"
            + (f", normalizer={self.normalizer.name!r})" if self.normalizer else ")")
        )


def _on_typed_text(spans: list[TokenSpan], origin: list[int], base: int, end: int) -> Iterator[TokenSpan]:
    """Spans placed on normalized text moved onto the text as typed (``origin``: the typed index
    each normalized character came from, see :meth:`Normalizer.aligned`; ``base``/``end``: the
    segment's place in the whole text). A token covers the typed characters its normalized ones
    came from, whole: both halves of ``"ﬁ"`` cover the ligature, and are ``partial`` as a token
    holding part of a UTF-8 character is."""
    n = len(origin)
    # cluster_end[j]: where the typed cluster of normalized character j ends.
    cluster_end = [end - base] * n
    for j in range(n - 2, -1, -1):
        cluster_end[j] = origin[j + 1] if origin[j + 1] != origin[j] else cluster_end[j + 1]
    new = tuple.__new__
    for span in spans:
        s, e = span.start, span.end
        if e <= s:  # a token of no characters (never made by BPE; kept where it stands)
            at = base + (origin[s] if s < n else end - base)
            yield new(TokenSpan, (span.id, at, at, span.bytes, span.partial, span.special, span.chunk))
            continue
        start, stop = origin[s], cluster_end[e - 1]
        whole = (s == 0 or origin[s - 1] != origin[s]) and (e == n or origin[e] != origin[e - 1])
        yield new(
            TokenSpan,
            (
                span.id,
                base + start,
                base + stop,
                span.bytes,
                span.partial or not whole,
                span.special,
                span.chunk,
            ),
        )


def _checked_pieces(iterable: Iterable[str]) -> Iterator[str]:
    """The pieces of a stream to encode, each checked to be a ``str``; empty ones left out."""
    for piece in iterable:
        if not isinstance(piece, str):
            check_text(piece, "every piece of encode_iterable's input")  # type: ignore[unreachable]  # callers from Python may pass anything; refused with a clear message
        if piece:
            yield piece


def _dropped(
    entry: tuple[int, int, int, int],
    skip: Callable[[], bool],
    skipped: list[tuple[int, int, int, int]],
    heap: list[tuple[int, int, int, int]],
) -> bool:
    """BPE-dropout's turn at a merge due: True when ``skip`` leaves it out (it waits in
    ``skipped``), else False, after the merges left out so far go back on the heap."""
    if skip():
        skipped.append(entry)
        return True
    for again in skipped:
        heapq.heappush(heap, again)
    skipped.clear()
    return False


def _merge_pass_error(data: bytes, rank: int, new_id: int, before: int, ids: list[int]) -> InternalError:
    """The error for a merge pass that left the ids no shorter: every pass joins at least one pair,
    so the loop would otherwise run forever on a bug in the replacement."""
    return InternalError(
        f"BPE merge {rank} (-> id {new_id}) left {len(ids)} ids from {before} while encoding "
        f"{data[:64]!r}{'...' if len(data) > 64 else ''}: ids now {ids[:16]}{'...' if len(ids) > 16 else ''}"
    )
