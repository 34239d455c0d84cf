"""What each vocabulary size buys: a sweep over every prefix of one merge list, on held-out text.

Every prefix of a BPE merge list is a smaller vocabulary of its own (256 bytes, the first k merges,
the special tokens), so one trained model answers "how many tokens would this text need with 8K,
16K, 32K tokens". :func:`sweep_counts` answers it for **every** k at once from one encoding of the
text with the whole list:

* a token of the final encoding was made by its own merge from its two parents, each made earlier
  (merges apply in the order of the list, see :meth:`Tokenizer.trace_chunk`), so the text's tokens
  after the first k merges are the final tokens split back down their derivation trees until every
  piece is a byte or made by a merge below k;
* undoing the merges from the last to the first therefore walks through every prefix: undoing
  merge k turns each of its ``c`` tokens back into its left and right parent, adding ``c`` tokens.

So the cost is one encoding of the text (the tokenizer's fast engine when it has one) plus one
step per merge, whatever the number of sizes: never one encoding per size.

At every size the sweep reports, per group of files and for all of them together:

* **tokens** and **bytes/token** (the input's bytes, as :mod:`tokviz.core.corpus.sizes` counts them);
* **used**: distinct tokens that occur, and their share of the vocabulary at that size;
* **Rényi efficiency** (Zouhar et al. 2023, "Tokenization and the noiseless channel"): with ``p``
  the unigram distribution of the tokens in the text and ``V`` the vocabulary size,
  ``H_α(p) / log V`` where ``H_α(p) = log(Σ p_i^α) / (1 - α)``; ``α = 2.5`` by default, as that
  paper recommends. 1 means every token of the vocabulary is used equally often; a vocabulary with
  a few very frequent tokens and a long unused tail scores low.

The **knee** (:func:`knee_step`) is the smallest size from which on every 10% more vocabulary
shortens the text by less than 1%: past it, each extra token buys little. A curve that still gains
1% or more within 10% of the largest size has no knee inside the merge list.

Sizes count special tokens, as :class:`~tokviz.core.training.replay.Replay` does: ``256 + k + specials``
(:meth:`Tokenizer.size_after`; a sweep's curves hold them as :attr:`SweepCurve.sizes`).
:func:`prefix_tokenizer` makes the vocabulary of one size a tokenizer of its own (to export or
to open in the app). No Qt here.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from ..bpe.merges import no_merges_note
from ..bpe.tokenizer import Tokenizer
from ..corpus.documents import CorpusReader
from ..corpus.fileselect import SelectedFile, Selection
from ..corpus.languages import language_of
from ..errors import Cancelled, InvalidArgument, ReplayUnavailable, VocabSizeError
from ..formats.exports import ModelExtras
from ..show.html_table import table_html
from ..show.svg_chart import line_chart_svg
from .evaluation import EvalProgress, Grouper
from .usage import TokenCounts, count_files, count_tokens, vocabulary_table

# Zouhar et al. (2023) found alpha = 2.5 to predict downstream quality best.
DEFAULT_ALPHA = 2.5
# A curve whose bytes per token stays below this at every size has no knee: the merges do not
# cover the text (a language the vocabulary never saw is about 1.0 byte per token, raw bytes).
FLAT_BYTES_PER_TOKEN = 1.2
# The knee rule: the smallest size from which on 10% more vocabulary gains less than 1% bytes/token.
KNEE_GROWTH = 0.10
KNEE_GAIN = 0.01
TOTAL_GROUP = "all"
# The table's columns (see :meth:`Sweep.headers`), and which of them are numbers (aligned right).
SWEEP_FIELDS = (
    "group",
    "vocab_size",
    "merges",
    "tokens",
    "bytes_per_token",
    "vocab_used",
    "vocab_used_share",
    "renyi_efficiency",
    "knee",
)
_HEADERS = ("group", "vocab", "merges", "tokens", "bytes/token", "used", "used %", "Rényi eff.", "")
_RIGHT = (False, True, True, True, True, True, True, True, False)


# ----------------------------------------------------------------------------- the one-pass walk
@dataclass(frozen=True)
class StepCounts:
    """A text's numbers after the first k merges, for every k from 0 to the merge count (index k).

    ``power_sums[k]`` is ``Σ c_i^α`` over the token counts ``c_i`` at step k (Rényi entropy's sum).
    """

    tokens: np.ndarray
    used: np.ndarray
    power_sums: np.ndarray


def check_sweepable(tokenizer: Tokenizer) -> None:
    """Refuse a tokenizer whose merge prefixes are not what its encoder does (a :class:`ReplayUnavailable`)."""
    merge_table(tokenizer)


def merge_table(tokenizer: Tokenizer) -> tuple[list[int], list[tuple[int, int]]]:
    """The id each merge makes and the two ids it joins, in merge order; a :class:`ReplayUnavailable`
    for a tokenizer whose merge prefixes are not what its encoder does."""
    no_merges = (
        no_merges_note(getattr(tokenizer, "model_type", "BPE")) if isinstance(tokenizer, Tokenizer) else None
    )
    if no_merges:
        raise ReplayUnavailable(f"{tokenizer.name}: {no_merges}")
    if not isinstance(tokenizer, Tokenizer) or not tokenizer.is_bpe:
        raise ReplayUnavailable(f"{getattr(tokenizer, 'name', tokenizer)}: a sweep needs a BPE merge list")
    if tokenizer.replay_note:
        raise ReplayUnavailable(f"{tokenizer.name}: {tokenizer.replay_note}")
    rank_of = tokenizer.merge_rank_of_id  # the first merge that makes each id
    if len(rank_of) != tokenizer.merge_count:
        raise ReplayUnavailable(
            f"{tokenizer.name}: two merges make the same token, so its prefixes are not separate vocabularies"
        )
    made = [0] * tokenizer.merge_count
    for token_id, rank in rank_of.items():
        made[rank] = token_id
    parents_of = tokenizer.parents_of_id
    return made, [parents_of[token_id] for token_id in made]


def sweep_counts(tokenizer: Tokenizer, counts: np.ndarray, alpha: float = DEFAULT_ALPHA) -> StepCounts:
    """Token count, distinct tokens and Rényi power sum at every merge step, from the final counts.

    ``counts[id]`` is how often each id occurs in the text encoded with every merge (as
    :func:`~tokviz.core.analysis.usage.count_tokens` gives it). The merges are undone from the last to the
    first, each in constant time (see the module docstring), so this costs one step per merge.
    """
    _check_alpha(alpha)
    made, parents = merge_table(tokenizer)
    c = [int(x) for x in counts.tolist()]
    n = sum(c)
    distinct = sum(1 for x in c if x)
    power = math.fsum(x**alpha for x in c if x)
    # Filled from the last step back to step 0, then turned around.
    tokens, used, sums = [n], [distinct], [power]
    for new, (left, right) in zip(reversed(made), reversed(parents)):
        m = c[new]
        if m:
            c[new] = 0
            power -= m**alpha
            distinct -= 1
            n += m
            for parent in (left, right):
                before = c[parent]
                c[parent] = before + m
                power += (before + m) ** alpha - (before**alpha if before else 0.0)
                distinct += 0 if before else 1
        tokens.append(n)
        used.append(distinct)
        sums.append(power)
    return StepCounts(
        np.array(tokens[::-1], dtype=np.int64),
        np.array(used[::-1], dtype=np.int32),
        np.array(sums[::-1], dtype=np.float64),
    )


def renyi_efficiency(power_sum: float, tokens: int, vocab_size: int, alpha: float = DEFAULT_ALPHA) -> float:
    """``H_α(p) / log V`` for token counts with ``Σ c_i^α = power_sum`` and ``Σ c_i = tokens``.

    ``Σ p_i^α = power_sum / tokens^α``, so ``H_α = (log power_sum - α log tokens) / (1 - α)``.
    NaN for an empty text or a vocabulary of one token.
    """
    if tokens <= 0 or vocab_size <= 1 or power_sum <= 0:
        return math.nan
    entropy = (math.log(power_sum) - alpha * math.log(tokens)) / (1.0 - alpha)
    return max(entropy, 0.0) / math.log(vocab_size)


def renyi_of_counts(counts: Iterable[int], vocab_size: int, alpha: float = DEFAULT_ALPHA) -> float:
    """Rényi efficiency of a plain list of token counts (the definition, computed directly)."""
    nonzero = [int(x) for x in counts if x]
    return renyi_efficiency(math.fsum(x**alpha for x in nonzero), sum(nonzero), vocab_size, alpha)


def _check_alpha(alpha: object) -> None:
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not alpha > 0 or alpha == 1:
        raise InvalidArgument(f"the Rényi order alpha must be a number above 0 other than 1, got {alpha!r}")


# ----------------------------------------------------------------------------- the knee
def knee_step(sizes: np.ndarray, bytes_per_token: np.ndarray) -> int | None:
    """The index of the knee of a bytes-per-token curve over increasing vocabulary ``sizes``, or None.

    The knee is the smallest size ``V`` such that for ``V`` and every larger size ``W`` of the
    curve, going to the first size of at least ``1.1 W`` raises bytes/token by less than 1%
    (:data:`KNEE_GROWTH`, :data:`KNEE_GAIN`). Sizes whose 10% larger size lies beyond the curve
    cannot be judged; when no judged size qualifies the curve has no knee (None).
    """
    sizes = np.asarray(sizes, dtype=np.float64)
    bpt = np.asarray(bytes_per_token, dtype=np.float64)
    if len(sizes) < 2:
        return None
    ahead = np.searchsorted(sizes, np.ceil(sizes * (1.0 + KNEE_GROWTH)), side="left")
    judged = ahead < len(sizes)
    if not judged.any():
        return None
    last_judged = int(np.nonzero(judged)[0][-1])
    idx = np.arange(last_judged + 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        gain = bpt[ahead[idx]] / bpt[idx] - 1.0
    steep = np.nonzero(~(gain < KNEE_GAIN))[0]  # NaN (an empty text) counts as steep
    first = int(steep[-1]) + 1 if len(steep) else 0
    return first if first <= last_judged else None


# ----------------------------------------------------------------------------- results
@dataclass(frozen=True)
class SweepPoint:
    """One group's numbers at one vocabulary size."""

    group: str
    vocab_size: int
    merges: int
    tokens: int
    bytes_per_token: float | None
    vocab_used: int
    vocab_used_share: float
    renyi_efficiency: float
    knee: bool

    def as_dict(self) -> dict[str, Any]:
        """The point under the names of :data:`SWEEP_FIELDS` (NaN as None)."""
        out = {name: getattr(self, name) for name in SWEEP_FIELDS}
        if isinstance(out["renyi_efficiency"], float) and math.isnan(out["renyi_efficiency"]):
            out["renyi_efficiency"] = None
        return out


@dataclass(frozen=True)
class SweepCurve:
    """One group of files at every size: ``steps.tokens[k]`` etc. after the first k merges."""

    group: str
    files: int
    bytes: int
    steps: StepCounts
    base_size: int
    alpha: float

    @cached_property
    def sizes(self) -> np.ndarray:
        """The vocabulary size at every step k: ``base_size`` (the tokenizer's size with no merge,
        :meth:`Tokenizer.size_after` of 0) and one token per merge. Every size of a sweep is read here."""
        return np.arange(len(self.steps.tokens), dtype=np.int64) + self.base_size

    @property
    def bytes_per_token(self) -> np.ndarray:
        """Bytes per token at every step (NaN where the text has no tokens)."""
        tokens = self.steps.tokens.astype(np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(tokens > 0, self.bytes / tokens, np.nan)

    def knee(self) -> int | None:
        """The merge step of this curve's knee (see :func:`knee_step`), or None. A curve that stays
        near one byte per token (:attr:`flat`) has none: its "knee" at zero merges would read as
        a vocabulary saturated on the text, where the merges simply do not cover it."""
        if self.flat:
            return None
        return knee_step(self.sizes, self.bytes_per_token)

    @property
    def flat(self) -> bool:
        """Whether bytes per token stays below :data:`FLAT_BYTES_PER_TOKEN` at every size: the
        merges hardly apply to this text (a language or script the vocabulary does not cover)."""
        bpt = self.bytes_per_token
        finite = bpt[~np.isnan(bpt)]
        return finite.size > 0 and float(finite.max()) < FLAT_BYTES_PER_TOKEN

    def knee_words(self, size_of: Callable[[int], int]) -> str:
        """Where the knee is, in words: ``5,390 tokens``, ``no knee: bytes/token stays near 1.0``,
        or ``none within the merge list``."""
        if self.flat:
            return f"no knee: bytes/token stays near 1.0 (at most {np.nanmax(self.bytes_per_token):.2f})"
        knee = self.knee()
        return f"{size_of(knee):,} tokens" if knee is not None else "none within the merge list"

    def point(self, step: int, knee: int | None = None) -> SweepPoint:
        """The numbers after the first ``step`` merges."""
        tokens = int(self.steps.tokens[step])
        size = int(self.sizes[step])
        used = int(self.steps.used[step])
        return SweepPoint(
            self.group,
            size,
            step,
            tokens,
            self.bytes / tokens if tokens else None,
            used,
            used / size,
            renyi_efficiency(float(self.steps.power_sums[step]), tokens, size, self.alpha),
            step == knee,
        )


@dataclass(frozen=True)
class Sweep:
    """A tokenizer's merge prefixes measured on held-out text: the total curve and one per group."""

    tokenizer: str
    merge_count: int
    base_size: int
    alpha: float
    total: SweepCurve
    groups: tuple[SweepCurve, ...] = ()
    empty_files: int = 0

    @property
    def curves(self) -> tuple[SweepCurve, ...]:
        """The groups' curves, then the total's."""
        return (*self.groups, self.total)

    def size_of(self, merges: int) -> int:
        """The vocabulary size after ``merges`` merges (as every curve has it)."""
        return int(self.total.sizes[merges])

    def steps_to_show(self, every: int | None = None, sizes: Sequence[int] = ()) -> list[int]:
        """The merge steps a table shows: the given vocabulary ``sizes``, or every ``every`` merges
        (default: a round number giving at most about 16 rows), always with 0, the last step and
        each curve's knee."""
        last = self.merge_count
        if sizes:
            steps = {self._step_of_size(s) for s in sizes}
        else:
            stride = every if every is not None else readable_stride(last)
            if stride < 1:
                raise InvalidArgument(f"--every must be 1 or more, got {stride}")
            steps = set(range(0, last + 1, stride))
            steps |= {0, last}
        steps |= {k for k in (c.knee() for c in self.curves) if k is not None}
        return sorted(steps)

    def _step_of_size(self, size: int) -> int:
        """The step at which the vocabulary has ``size`` tokens (the inverse of :meth:`size_of`)."""
        sizes = self.total.sizes
        step = int(np.searchsorted(sizes, size))
        if step == len(sizes) or sizes[step] != size:
            raise VocabSizeError(
                f"vocabulary size {size:,} is outside this merge list's {sizes[0]:,}-{sizes[-1]:,}"
            )
        return step

    def points(self, steps: Sequence[int] | None = None) -> list[SweepPoint]:
        """Every curve (groups first, then the total) at ``steps`` (default: :meth:`steps_to_show`)."""
        chosen = self.steps_to_show() if steps is None else steps
        out: list[SweepPoint] = []
        for curve in self.curves:
            knee = curve.knee()
            out.extend(curve.point(k, knee) for k in chosen)
        return out

    def headers(self) -> list[str]:
        """The table's column titles (the last one marks the knee)."""
        return list(_HEADERS)

    def rows(self, steps: Sequence[int] | None = None) -> list[list[str]]:
        """The table's rows as text, for the points of :meth:`points`."""
        return [point_cells(p) for p in self.points(steps)]

    def right_aligned(self) -> list[bool]:
        """Which columns hold numbers."""
        return list(_RIGHT)

    def caption(self) -> str:
        """One line: what was measured, and the rules behind the less obvious columns."""
        n = self.total.files
        return (
            f"{self.tokenizer}: {self.merge_count:,} merge prefixes on {n:,} {'file' if n == 1 else 'files'}, "
            f"{self.total.bytes:,} bytes; Rényi efficiency with alpha = {self.alpha:g}; knee: the smallest "
            "size from which 10% more vocabulary gains less than 1% bytes/token"
        )

    def plot_svg(self, points: int = 400) -> str:
        """The bytes-per-token curves over vocabulary size as inline SVG, each knee marked."""
        series: dict[str, list[tuple[float, float]]] = {}
        marks: dict[str, tuple[float, float]] = {}
        stride = max(1, self.merge_count // points)
        for curve in self.curves:
            sizes, rates = curve.sizes, curve.bytes_per_token
            # Evenly spaced steps, and as many spaced evenly on the log axis the chart draws.
            last = len(sizes) - 1
            on_log = {round((last + 1) ** (k / points)) - 1 for k in range(points + 1)}
            picked = sorted({*range(0, len(sizes), stride), *on_log, last})
            knee = curve.knee()
            name = curve.group if knee is None else f"{curve.group} (knee {int(sizes[knee]):,})"
            series[name] = [(float(sizes[k]), float(rates[k])) for k in picked if rates[k] == rates[k]]
            if knee is not None:
                marks[name] = (float(sizes[knee]), float(rates[knee]))
        return line_chart_svg(
            series, title=f"{self.tokenizer}: bytes per token by vocabulary size", x_label="vocabulary size (log scale)",
            y_label="bytes per token", marks=marks, label_marks=False, width=760, log_x=True,
        )  # fmt: skip

    def _repr_html_(self) -> str:
        return self.plot_svg() + table_html(self.headers(), self.rows(), self.right_aligned(), self.caption())


def point_cells(p: SweepPoint) -> list[str]:
    """One point as the cells of a table row."""
    return [
        p.group,
        f"{p.vocab_size:,}",
        f"{p.merges:,}",
        f"{p.tokens:,}",
        "" if p.bytes_per_token is None else f"{p.bytes_per_token:.3f}",
        f"{p.vocab_used:,}",
        f"{p.vocab_used_share * 100:.1f}%",
        "" if math.isnan(p.renyi_efficiency) else f"{p.renyi_efficiency:.3f}",
        "knee" if p.knee else "",
    ]


def readable_stride(merges: int, rows: int = 16) -> int:
    """A round number of merges (1, 2 or 5 times a power of ten) that cuts ``merges`` into at most ``rows``."""
    if merges <= rows:
        return 1
    scale = 1
    while True:
        for factor in (1, 2, 5):
            if merges / (factor * scale) <= rows:
                return factor * scale
        scale *= 10


# ----------------------------------------------------------------------------- running a sweep
def by_language(file: SelectedFile) -> str:
    """The group of a file by the language its name declares (``eng_Latn.devtest`` -> "English"), else "other"."""
    language = language_of(file.path)
    return language.name if language is not None else "other"


@dataclass
class _Tally:
    """The final token counts of some files added up, with how many files and bytes they were."""

    counts: np.ndarray | None = None
    files: int = 0
    bytes: int = 0

    def add(self, counted: TokenCounts, files: int | None = None) -> None:
        """Add ``counted`` as ``files`` files (default: one per document counted; a file of
        records holds many documents)."""
        self.counts = counted.counts.copy() if self.counts is None else self.counts + counted.counts
        self.files += counted.documents if files is None else files
        self.bytes += counted.bytes


def sweep_files(
    tokenizer: Tokenizer,
    selection: Selection,
    *,
    group_of: Grouper | None = None,
    group_order: Sequence[str] = (),
    alpha: float = DEFAULT_ALPHA,
    errors: str = "strict",
    progress: Callable[[EvalProgress], None] | None = None,
    cancel: Callable[[], bool] | None = None,
    reader: CorpusReader | None = None,
) -> Sweep:
    """Encode every selected file once with the whole merge list and sweep every prefix.

    Files are read as ``tokviz eval`` reads them (the same bytes, special-token text as the
    tokenizer reads it); ``group_of`` puts each file in a group (by folder, category, language),
    ``group_order`` lists groups to show first. Empty files count in no curve. ``cancel`` is polled
    while encoding; :class:`Cancelled` is raised when it returns True. ``reader`` reads the files
    (files of records by its options; it counts their records), a plain one when not given.
    """
    check_sweepable(tokenizer)
    reader = reader or CorpusReader(errors=errors)
    _check_alpha(alpha)
    groups = {name: _Tally() for name in group_order}
    everything = _Tally()
    done = 0
    empty = 0
    for index, file in enumerate(selection.files):
        if cancel is not None and cancel():
            raise Cancelled("sweep cancelled")
        counted = count_files(tokenizer, [file.corpus_file], cancel=cancel, errors=errors, reader=reader)
        done += file.size
        if progress is not None:
            progress(EvalProgress(done, selection.bytes, index + 1, len(selection.files)))
        if counted.bytes == 0:
            empty += 1
            continue
        everything.add(counted, files=1)
        if group_of is not None:
            groups.setdefault(group_of(file), _Tally()).add(counted, files=1)
    return _sweep_of(tokenizer, everything, groups, alpha, empty, cancel)


def sweep_texts(
    tokenizer: Tokenizer, texts: Mapping[str, Iterable[str]], alpha: float = DEFAULT_ALPHA
) -> Sweep:
    """The sweep of texts in memory: ``{group: [text, ...]}``, each text a document (one group: no group curves)."""
    check_sweepable(tokenizer)
    _check_alpha(alpha)
    groups: dict[str, _Tally] = {}
    everything = _Tally()
    for name, docs in texts.items():
        counted = count_tokens(tokenizer, list(docs))
        groups.setdefault(name, _Tally()).add(counted)
        everything.add(counted)
    return _sweep_of(tokenizer, everything, groups if len(groups) > 1 else {}, alpha, 0, None)


def _sweep_of(
    tokenizer: Tokenizer,
    everything: _Tally,
    groups: Mapping[str, _Tally],
    alpha: float,
    empty: int,
    cancel: Callable[[], bool] | None,
) -> Sweep:
    base = tokenizer.size_after(0)

    def curve(name: str, tally: _Tally) -> SweepCurve:
        if cancel is not None and cancel():
            raise Cancelled("sweep cancelled")
        counts = tally.counts
        if counts is None:  # no text at all
            counts = np.zeros(vocabulary_table(tokenizer)[2], dtype=np.int64)
        return SweepCurve(name, tally.files, tally.bytes, sweep_counts(tokenizer, counts, alpha), base, alpha)

    curves = tuple(curve(name, tally) for name, tally in groups.items() if tally.files)
    total = curve(TOTAL_GROUP, everything)
    return Sweep(tokenizer.name, tokenizer.merge_count, base, alpha, total, curves, empty)


# ----------------------------------------------------------------------------- one size as a tokenizer
def merges_for_size(tokenizer: Tokenizer, vocab_size: int) -> int:
    """How many merges a vocabulary of ``vocab_size`` tokens keeps (256 bytes and the specials count)."""
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, int):
        raise VocabSizeError(f"the vocabulary size must be a whole number, got {vocab_size!r}")
    base, top = tokenizer.size_after(0), tokenizer.size_after(tokenizer.merge_count)
    if not base <= vocab_size <= top:
        raise VocabSizeError(
            f"{tokenizer.name} makes vocabularies of {base:,} to {top:,} tokens "
            f"(256 bytes, {len(tokenizer.special_tokens)} special, up to {tokenizer.merge_count:,} merges), "
            f"not {vocab_size:,}"
        )
    return vocab_size - base


def prefix_tokenizer(tokenizer: Tokenizer, vocab_size: int, name: str | None = None) -> Tokenizer:
    """The vocabulary of the first merges of ``tokenizer``, ``vocab_size`` tokens in all, as a tokenizer.

    It keeps the bytes' ids and the ids of the merges it keeps, the normalizer, the pre-tokenizer
    and the special tokens, which keep their order and follow the highest ordinary id (so the ids have no gap where
    the full list's specials did). It encodes every text as ``tokenizer.encode_with_merges`` does.
    """
    check_sweepable(tokenizer)
    k = merges_for_size(tokenizer, vocab_size)
    made = set(merge_table(tokenizer)[0][k:])
    specials = set(tokenizer.special_tokens.values())
    vocab = {i: b for i, b in tokenizer.vocab.items() if i not in made and i not in specials}
    next_id = max(vocab) + 1
    special_ids: dict[str, int] = {}
    for text, _old in sorted(tokenizer.special_tokens.items(), key=lambda item: item[1]):
        special_ids[text] = next_id
        vocab[next_id] = text.encode("utf-8")
        next_id += 1
    prefix = Tokenizer(
        vocab,
        tokenizer.merges[:k],
        special_ids,
        tokenizer.pretokenizer,
        name or f"{tokenizer.name}-{vocab_size}",
        specials_in_text=tokenizer.specials_in_text,
        normalizer=tokenizer.normalizer,
    )
    prefix.assumptions = tokenizer.assumptions
    return prefix


def prefix_extras(tokenizer: Tokenizer, prefix: Tokenizer) -> ModelExtras:
    """What a tokviz model file of ``prefix`` carries from ``tokenizer``'s: its first merges' history,
    the training settings with the smaller vocabulary size, and the provenance of the text it learnt from."""
    from ..formats.exports import extras_of

    extras = extras_of(tokenizer)
    settings = dict(extras.settings)
    if "vocab_size" in settings:
        settings["vocab_size"] = prefix.vocab_size
    return ModelExtras(settings, tuple(extras.history)[: prefix.merge_count], extras.provenance)
