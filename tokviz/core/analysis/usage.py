"""What a vocabulary really uses on an evaluation set, and how two merge lists differ.

:func:`count_tokens` / :func:`count_files` encode held-out text with the tokenizer's own ids
(its fast engine when it has one) and add them up with ``numpy.bincount``; :class:`VocabularyUsage`
answers the questions an engineer asks of the counts: how much of the vocabulary is used, which
merges never fire, which tokens look under-trained, how long the tokens are.

Merges are numbered as the merge timeline numbers them, everywhere a person reads them: **step N is
the N-th merge of the list, 1-based** (the merge with 0-based index 4,370 is step 4,371).

Two meanings of "a merge never fires", both reported:

* **never final**: the token the merge makes never appears in the encoded text. It may still be
  made on the way to a longer token (``"ing"`` on the way to ``" sing"``).
* **never applied**: the merge is not used at all, not even as an intermediate step. A token in the
  output was made by its own merge from its two parents, which were made before it, and so on down
  to single bytes; the merges applied are exactly those that make a token in the derivation trees of
  the output tokens, so they are found from the counts alone, without tracing the encoder. (When a
  merge list makes the same bytes twice, which trained lists almost never do, the later merge is
  counted with the first: :attr:`MergeFiring.repeated` says how many there are.)

Special tokens count in the vocabulary, as in ``tokviz eval``: "14,715 of 32,000 tokens used" is
out of every distinct token, the vocabulary size the model was trained for. The text is encoded by
``tokenizer.encode`` exactly as ``tokviz eval`` encodes it, so both give the same token totals:
special-token text becomes its id unless the tokenizer passed is the plain-text view
(:func:`tokviz.core.bpe.specials_text.reading_specials` decides which, for every command alike).
"""

from __future__ import annotations

import math
import os
import threading
import weakref
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np

from ..bpe.tokenizer import Tokenizer
from ..corpus.containers import container_of
from ..corpus.documents import CorpusReader, ReadOptions
from ..corpus.reading import BLOCK_SIZE, CorpusFile, sniff
from ..errors import ArgumentTypeError, Cancelled, CorpusError, InvalidArgument
from ..pretok.stretches import slices

# Ids are added up in batches of about this many, so memory stays flat on a large folder.
_BATCH = 1 << 20
# A token whose under-training score (see :func:`undertrained_score`) reaches this is "suspicious":
# an unused token of 8 bytes or more, one seen once of 16 bytes or more, seen 3 times of 24 or more.
SUSPICIOUS_SCORE = 8.0

Cancel = Callable[[], bool]


def step_of_index(index: int) -> int:
    """The step number people read for the merge at 0-based ``index`` (the timeline's convention)."""
    return index + 1


def undertrained_score(length: int, count: int) -> float:
    """How under-trained a token of ``length`` bytes seen ``count`` times looks: long and rare is high.

    ``length / (1 + log2(1 + count))``: an unused token scores its length, one seen once half of
    it, seen 3 times a third, seen 7 times a quarter. Long tokens that a held-out set never or
    hardly uses (96-byte table borders, 80 ``#``) are the ones whose embeddings got few updates.
    """
    return length / (1.0 + math.log2(1 + count))


# ----------------------------------------------------------------------------- counting
@dataclass
class TokenCounts:
    """How often each id occurred in some text: ``counts[id]``, plus how much text that was."""

    counts: np.ndarray
    documents: int = 0
    bytes: int = 0

    @property
    def tokens(self) -> int:
        """Tokens in all the text counted."""
        return int(self.counts.sum())


# A vocabulary's ordinary ids and their byte lengths, per tokenizer for as long as it lives: the
# browser counts again after every pause in typing, and the characters tokenizer has 1.1M ids.
_tables: weakref.WeakKeyDictionary[Tokenizer, tuple[np.ndarray, np.ndarray, int]] = (
    weakref.WeakKeyDictionary()
)
_tables_lock = threading.Lock()


def vocabulary_table(tokenizer: Tokenizer) -> tuple[np.ndarray, np.ndarray, int]:
    """``(ordinary ids sorted, their byte lengths, id space)`` of a tokenizer, computed once per tokenizer.

    Ordinary ids leave out the special tokens; the id space is the highest id (special ones too) + 1.
    """
    with _tables_lock:
        found = _tables.get(tokenizer)
    if found is not None:
        return found
    vocab = tokenizer.vocab
    specials = set(tokenizer.special_tokens.values())
    ids = np.array(sorted(i for i in vocab if i not in specials), dtype=np.int64)
    lengths = np.fromiter((len(vocab[i]) for i in ids.tolist()), dtype=np.int64, count=len(ids))
    space = max(int(ids[-1]) if len(ids) else -1, max(specials, default=-1)) + 1
    table = (ids, lengths, space)
    with _tables_lock:
        _tables[tokenizer] = table
    return table


def _id_space(tokenizer: Tokenizer) -> int:
    return vocabulary_table(tokenizer)[2]


class _Counter:
    """Adds ids up in batches: one ``bincount`` per million ids instead of a dict update per id."""

    def __init__(self, tokenizer: Tokenizer, cancel: Cancel | None) -> None:
        self.tokenizer = tokenizer
        self.cancel = cancel
        self.counts = np.zeros(_id_space(tokenizer), dtype=np.int64)
        self.pending: list[int] = []
        self.documents = 0
        self.bytes = 0

    def count_bytes(self, n: int) -> None:
        """Add ``n`` bytes of input read (as :func:`~tokviz.core.corpus.reading.iter_file_text` counts them)."""
        self.bytes += n

    def add_stream(self, pieces: Iterable[str]) -> None:
        """Encode one document given in pieces, block by block as ``tokviz eval`` does."""
        for _text, ids in self.tokenizer.encode_blocks(pieces, BLOCK_SIZE):
            if self.cancel is not None and self.cancel():
                raise Cancelled()
            self.pending += ids
            if len(self.pending) >= _BATCH:
                self.flush()

    def flush(self) -> None:
        if not self.pending:
            return
        ids = np.fromiter(self.pending, dtype=np.int64, count=len(self.pending))
        self.pending = []
        if ids.size and (int(ids.max()) >= len(self.counts) or int(ids.min()) < 0):
            raise InvalidArgument(f"{self.tokenizer.name} produced an id outside its vocabulary")
        self.counts += np.bincount(ids, minlength=len(self.counts))

    def result(self) -> TokenCounts:
        self.flush()
        return TokenCounts(self.counts, self.documents, self.bytes)


def count_tokens(tokenizer: Tokenizer, texts: Iterable[str], cancel: Cancel | None = None) -> TokenCounts:
    """How often ``tokenizer`` produces each id on ``texts`` (each one a document, encoded by ``encode``).

    ``cancel`` is checked between texts (and between parts of a long one); when it returns True
    the count stops with :class:`~tokviz.core.errors.Cancelled`.
    """
    if isinstance(texts, str):
        raise ArgumentTypeError("count_tokens takes a list of texts; wrap a single text as [text]")
    counter = _Counter(tokenizer, cancel)
    for text in texts:
        if not isinstance(text, str):
            raise ArgumentTypeError(f"every text must be a str, got {type(text).__name__}")
        if counter.cancel is not None and counter.cancel():
            raise Cancelled()
        counter.documents += 1
        counter.bytes += len(text.encode("utf-8", errors="surrogatepass"))
        counter.add_stream(slices(text, BLOCK_SIZE))
    return counter.result()


def _corpus_file(path: str | os.PathLike[str] | CorpusFile) -> CorpusFile:
    if isinstance(path, CorpusFile):
        return path
    p = Path(path)
    try:
        size = p.stat().st_size
        sniffed = sniff(p)
    except OSError as exc:
        raise CorpusError(f"cannot read {p}: {exc.strerror or exc}", path=str(p)) from None
    return CorpusFile(p, size, sniffed.compression, container_of(p, sniffed))


def count_files(
    tokenizer: Tokenizer,
    files: Sequence[str | os.PathLike[str] | CorpusFile],
    cancel: Cancel | None = None,
    on_bytes: Callable[[int], None] | None = None,
    errors: str = "strict",
    reading: ReadOptions | None = None,
    reader: CorpusReader | None = None,
) -> TokenCounts:
    """:func:`count_tokens` over text files, each a document, read block by block (gzip, bzip2, xz,
    zstd too), and files of records, each record a document (``reading`` says how; ``reader``,
    when given, reads them and keeps the counts of records).

    A long file is encoded in parts cut where the tokenizer's chunking cannot change (a space
    after a non-space, for the named patterns), so memory follows the block size. ``on_bytes``
    receives the bytes read from disk, for progress. Invalid UTF-8 is an error naming the file
    unless ``errors="replace"``; the bytes counted are the files' content (decompressed, an
    invalid byte as the one byte it was), as :mod:`tokviz.core.corpus.sizes` defines them.
    """
    counter = _Counter(tokenizer, cancel)
    reader = reader or CorpusReader(reading, errors)
    chosen = [_corpus_file(item) for item in files]
    for document in reader.corpus(chosen, on_read=on_bytes, on_content=counter.count_bytes):
        counter.documents += 1
        counter.add_stream(document)
    return counter.result()


# ----------------------------------------------------------------------------- the report
@dataclass(frozen=True)
class TokenUse:
    """One token in a list of the report: its id, bytes, count on the text, merge step and score."""

    id: int
    data: bytes
    count: int
    step: int | None
    score: float


@dataclass(frozen=True)
class LengthHistogram:
    """Tokens by length in bytes: in the vocabulary, used on the text, and occurrences in the text.

    Index ``i`` of each array is length ``i + 1``; ordinary tokens only (no special tokens).
    """

    vocabulary: np.ndarray
    used: np.ndarray
    occurrences: np.ndarray

    @property
    def longest(self) -> int:
        """The longest token length in the vocabulary."""
        return len(self.vocabulary)

    def buckets(self, last: int = 16) -> list[tuple[str, int, int, int]]:
        """``(label, vocabulary, used, occurrences)`` per length 1 .. ``last - 1`` and ``"last+"``."""
        out: list[tuple[str, int, int, int]] = []
        for i in range(min(last - 1, self.longest)):
            out.append((str(i + 1), int(self.vocabulary[i]), int(self.used[i]), int(self.occurrences[i])))
        if self.longest >= last:
            tail = slice(last - 1, None)
            out.append(
                (
                    f"{last}+",
                    int(self.vocabulary[tail].sum()),
                    int(self.used[tail].sum()),
                    int(self.occurrences[tail].sum()),
                )
            )
        return out


@dataclass(frozen=True)
class MergeFiring:
    """Which merges never fire on the text (see the module docstring for the two meanings).

    The arrays hold 0-based merge indices, in merge order; show them with :func:`step_of_index`.
    """

    merges: int
    never_final: np.ndarray
    never_applied: np.ndarray
    repeated: int = 0


@dataclass
class VocabularyUsage:
    """A tokenizer's token counts on an evaluation set, and what they say about its vocabulary."""

    tokenizer: Tokenizer
    counted: TokenCounts
    _cache: dict[str, object] = field(default_factory=dict, repr=False)

    @property
    def counts(self) -> np.ndarray:
        """``counts[id]``: occurrences of each id on the text."""
        return self.counted.counts

    @property
    def ordinary_ids(self) -> np.ndarray:
        """The ids of the vocabulary that plain text can produce (special tokens left out), sorted."""
        return vocabulary_table(self.tokenizer)[0]

    @property
    def lengths(self) -> np.ndarray:
        """Byte length of each of :attr:`ordinary_ids`."""
        return vocabulary_table(self.tokenizer)[1]

    @cached_property
    def all_ids(self) -> np.ndarray:
        """Every distinct id of the vocabulary, special tokens too, sorted."""
        specials = np.array(sorted(set(self.tokenizer.special_tokens.values())), dtype=np.int64)
        return np.union1d(self.ordinary_ids, specials)

    @cached_property
    def used_ids(self) -> np.ndarray:
        """Ids that occur at least once on the text, sorted."""
        ids = self.all_ids
        return ids[self.counts[ids] > 0]

    @cached_property
    def unused_ids(self) -> np.ndarray:
        """Ids that never occur on the text (special tokens among them), sorted."""
        ids = self.all_ids
        return ids[self.counts[ids] == 0]

    @property
    def vocabulary(self) -> int:
        """Distinct tokens in the vocabulary, special tokens included (the denominator of the share)."""
        return len(self.all_ids)

    @property
    def used(self) -> int:
        """How many of them the text uses."""
        return len(self.used_ids)

    @property
    def share(self) -> float:
        """The share of the vocabulary used, 0..1."""
        return self.used / self.vocabulary if self.vocabulary else 0.0

    def percent(self) -> str:
        """The share used as people write it: "46%", "0.2%" below one per cent, "0%" for none."""
        percent = self.share * 100
        return (f"{percent:.0f}" if percent >= 1 or percent == 0 else f"{percent:.1g}") + "%"

    def headline(self) -> str:
        """The line the report starts with: "14,715 of 32,000 tokens used (46%)"."""
        return f"{self.used:,} of {self.vocabulary:,} tokens used ({self.percent()})"

    def merge_firing(self) -> MergeFiring:
        """Which merges never make a token in the output, and which are never applied at all.

        Needs the merge list (recovered on first use for GPT-2 and cl100k, about a second).
        """
        cached = self._cache.get("firing")
        if isinstance(cached, MergeFiring):
            return cached
        tok = self.tokenizer
        n = tok.merge_count if tok.is_bpe else 0
        if n == 0:
            empty = np.zeros(0, dtype=np.int64)
            firing = MergeFiring(0, empty, empty, 0)
        else:
            n = len(tok.merges)
            made = np.fromiter((tok.id_of_merge(r) for r in range(n)), dtype=np.int64, count=n)
            parents = tok.parents_of_id
            applied = np.zeros(len(self.counts), dtype=bool)
            stack = [int(i) for i in np.flatnonzero(self.counts)]
            while stack:
                i = stack.pop()
                if applied[i]:
                    continue
                applied[i] = True
                pair = parents.get(i)
                if pair is not None:
                    stack.extend(pair)
            repeated = n - len(np.unique(made))
            never_final = np.flatnonzero(self.counts[made] == 0)
            never_applied = np.flatnonzero(~applied[made])
            firing = MergeFiring(n, never_final, never_applied, repeated)
        self._cache["firing"] = firing
        return firing

    def token(self, token_id: int) -> TokenUse:
        """One token's row: bytes, count, the merge step that made it, under-training score."""
        tok = self.tokenizer
        data = tok.vocab[token_id]
        rank = tok.merge_rank_of_id.get(token_id) if tok.is_bpe else None
        count = int(self.counts[token_id])
        return TokenUse(
            token_id,
            data,
            count,
            None if rank is None else step_of_index(rank),
            undertrained_score(len(data), count),
        )

    def scores(self) -> np.ndarray:
        """The under-training score of each of :attr:`ordinary_ids` (0 for single bytes)."""
        counts = self.counts[self.ordinary_ids]
        scores = self.lengths / (1.0 + np.log2(1.0 + counts))
        scores[self.lengths < 2] = 0.0
        return scores

    def suspicious_ids(self, min_score: float = SUSPICIOUS_SCORE) -> np.ndarray:
        """Ids of the likely under-trained tokens, highest score first (no merge list needed).

        Ties (the same score) put the higher id first: in a trained vocabulary, the later merge,
        learned from fewer occurrences.
        """
        scores = self.scores()
        keep = np.flatnonzero(scores >= min_score)
        ids = self.ordinary_ids[keep]
        return ids[np.lexsort((-ids, -scores[keep]))]

    def undertrained(self, top: int | None = None, min_score: float = SUSPICIOUS_SCORE) -> list[TokenUse]:
        """Likely under-trained tokens: merged tokens scoring at least ``min_score``, highest first,
        with the merge step that made each (see :meth:`suspicious_ids` for the order)."""
        ids = self.suspicious_ids(min_score)
        return [self.token(int(i)) for i in (ids if top is None else ids[:top])]

    def length_histogram(self) -> LengthHistogram:
        """Tokens by byte length: in the vocabulary, used on the text, occurrences in the text."""
        lengths = self.lengths
        longest = int(lengths.max()) if len(lengths) else 0
        counts = self.counts[self.ordinary_ids]
        vocab = np.bincount(lengths, minlength=longest + 1)[1:]
        used = np.bincount(lengths[counts > 0], minlength=longest + 1)[1:]
        occurrences = np.bincount(lengths, weights=counts, minlength=longest + 1)[1:].astype(np.int64)
        return LengthHistogram(vocab, used, occurrences)

    def mean_token_length(self) -> float:
        """Mean bytes per token occurrence on the text (0 for no tokens)."""
        tokens = self.counted.tokens
        return self.counted.bytes / tokens if tokens else 0.0


def vocabulary_usage(
    tokenizer: Tokenizer, texts: Iterable[str], cancel: Cancel | None = None
) -> VocabularyUsage:
    """Count ``tokenizer``'s ids on ``texts`` and return the report on its vocabulary."""
    return VocabularyUsage(tokenizer, count_tokens(tokenizer, texts, cancel))


def file_usage(
    tokenizer: Tokenizer,
    files: Sequence[str | os.PathLike[str] | CorpusFile],
    cancel: Cancel | None = None,
    on_bytes: Callable[[int], None] | None = None,
    errors: str = "strict",
) -> VocabularyUsage:
    """:func:`vocabulary_usage` over text files (each file a document)."""
    return VocabularyUsage(tokenizer, count_files(tokenizer, files, cancel, on_bytes, errors))


# ----------------------------------------------------------------------------- merge-list diff
Pair = tuple[bytes, bytes]


@dataclass(frozen=True)
class StepShift:
    """A merge both lists hold, at a different step in each."""

    pair: Pair
    step_a: int
    step_b: int

    @property
    def shift(self) -> int:
        """How many steps later (positive) or earlier the merge comes in B."""
        return self.step_b - self.step_a


@dataclass(frozen=True)
class MergeDiff:
    """How two merge lists differ; steps are 1-based (see the module docstring).

    ``common_prefix`` merges are identical from the start; ``first_divergence`` is the first step
    where they differ, with each list's merge there (None past the end of the shorter list), or
    None when one list is a prefix of the other. ``shifts`` are the shared merges at different
    steps, largest move first; ``only_a``/``only_b`` the merges one list lacks, as ``(step, pair)``
    in merge order; ``tokens_only_a``/``tokens_only_b`` the ordinary tokens (bytes) one vocabulary
    lacks, in the order their own list made them.
    """

    a_name: str
    b_name: str
    a_merges: int
    b_merges: int
    common_prefix: int
    first_divergence: tuple[int, Pair | None, Pair | None] | None
    shared: int
    shifts: list[StepShift]
    only_a: list[tuple[int, Pair]]
    only_b: list[tuple[int, Pair]]
    tokens_only_a: list[bytes]
    tokens_only_b: list[bytes]

    @property
    def is_prefix(self) -> bool:
        """True when the shorter list is exactly the start of the longer one (or they are equal)."""
        return self.first_divergence is None

    def summary(self) -> str:
        """One sentence: equal, a prefix, or where the lists part."""
        a, b = self.a_name, self.b_name
        if not self.a_merges or not self.b_merges:
            none = [n for n, m in ((a, self.a_merges), (b, self.b_merges)) if not m]
            who = " and ".join(none)
            return f"{who} {'has' if len(none) == 1 else 'have'} no merges (not BPE): only the tokens compare"
        if self.is_prefix:
            if self.a_merges == self.b_merges:
                return f"{a} and {b} have the same {self.a_merges:,} merges"
            short, long_, ns, nl = (
                (a, b, self.a_merges, self.b_merges)
                if self.a_merges < self.b_merges
                else (b, a, self.b_merges, self.a_merges)
            )
            return f"the {ns:,} merges of {short} are the first {ns:,} of the {nl:,} of {long_}"
        step = self.common_prefix + 1
        return (
            f"{a} ({self.a_merges:,} merges) and {b} ({self.b_merges:,}) agree on the first "
            f"{self.common_prefix:,} merges and part at step {step:,}; {self.shared:,} merges are shared, "
            f"{len(self.shifts):,} of them at another step"
        )


def _merge_list(x: Tokenizer | Sequence[Pair]) -> list[Pair]:
    if isinstance(x, Tokenizer):
        return list(x.merges) if x.is_bpe else []
    return [(bytes(p[0]), bytes(p[1])) for p in x]


def _ordinary_tokens(x: Tokenizer | Sequence[Pair], merges: list[Pair]) -> dict[bytes, int]:
    """Token bytes -> the step that made them (0 for single bytes), ordinary tokens only."""
    out: dict[bytes, int] = {bytes([b]): 0 for b in range(256)}
    for k, (left, right) in enumerate(merges):
        out.setdefault(left + right, step_of_index(k))
    if isinstance(x, Tokenizer):
        specials = set(x.special_tokens.values())
        for i, data in x.vocab.items():
            if i not in specials:
                out.setdefault(data, 0)
    return out


def diff_merges(
    a: Tokenizer | Sequence[Pair], b: Tokenizer | Sequence[Pair], a_name: str = "A", b_name: str = "B"
) -> MergeDiff:
    """Compare two merge lists (tokenizers or lists of ``(left, right)`` byte pairs).

    Merges are compared by their bytes, so two vocabularies with different id layouts still match.
    A pair listed twice counts at its first step.
    """
    ma, mb = _merge_list(a), _merge_list(b)
    prefix = 0
    for x, y in zip(ma, mb):
        if x != y:
            break
        prefix += 1
    divergence: tuple[int, Pair | None, Pair | None] | None = None
    if prefix < min(len(ma), len(mb)):
        divergence = (step_of_index(prefix), ma[prefix], mb[prefix])
    rank_a: dict[Pair, int] = {}
    for k, pair in enumerate(ma):
        rank_a.setdefault(pair, k)
    rank_b: dict[Pair, int] = {}
    for k, pair in enumerate(mb):
        rank_b.setdefault(pair, k)
    shared = [p for p in rank_a if p in rank_b]
    shifts = [
        StepShift(p, step_of_index(rank_a[p]), step_of_index(rank_b[p]))
        for p in shared
        if rank_a[p] != rank_b[p]
    ]
    shifts.sort(key=lambda s: (-abs(s.shift), s.step_a))
    only_a = [(step_of_index(k), p) for p, k in rank_a.items() if p not in rank_b]
    only_b = [(step_of_index(k), p) for p, k in rank_b.items() if p not in rank_a]
    tokens_a, tokens_b = _ordinary_tokens(a, ma), _ordinary_tokens(b, mb)
    only_tokens_a = sorted((t for t in tokens_a if t not in tokens_b), key=lambda t: (tokens_a[t], t))
    only_tokens_b = sorted((t for t in tokens_b if t not in tokens_a), key=lambda t: (tokens_b[t], t))
    return MergeDiff(
        a_name,
        b_name,
        len(ma),
        len(mb),
        prefix,
        divergence,
        len(shared),
        shifts,
        only_a,
        only_b,
        only_tokens_a,
        only_tokens_b,
    )
