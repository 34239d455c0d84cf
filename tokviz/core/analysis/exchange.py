"""The exchange rate between text and sequence length, arranged for a chart: inputs x tokenizers.

Bytes per token decides how much text fits a context window and, because dense attention is
quadratic, how much compute a text costs. :class:`ExchangeTable` holds the measured
:class:`~tokviz.core.analysis.metrics.TextMetrics` of every input under every tokenizer and derives the rest
(the attention multiplier against the best tokenizer, the spread between the cheapest and the
dearest input, the embedding size V x d) with the functions of :mod:`tokviz.core.analysis.metrics`, so a
chart, its CSV and its caption can never disagree with the core. No Qt here.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ..bpe.tokenizer import Tokenizer
from ..io.safe_text import csv_cell
from .evaluation import id_space, rounded_rows
from .metrics import TextMetrics, attention_multiplier, best_of, compare_rows, embedding_parameters

DEFAULT_EMBEDDING_DIM = 768
# The pure byte tokenizer has exactly the 256 byte values and nothing else.
BYTE_VOCAB_SIZE = 256
CSV_FIELDS = (
    "input",
    "tokenizer",
    "bytes",
    "code_points",
    "tokens",
    "bytes_per_token",
    "attention_multiplier",
    "best",
    "lossy",
    "vocab_size",
    "embedding_dim",
    "embedding_parameters",
)


class _Measurable(Protocol):
    name: str

    def encode(self, text: str) -> list[int]: ...


Measure = Callable[[Any, str], TextMetrics]


@dataclass(frozen=True)
class Spread:
    """How much dearer the dearest input is than the cheapest one under one tokenizer.

    ``token_ratio`` is tokens per byte of the dearest over the cheapest (equivalently, bytes per
    token of the cheapest over the dearest): for the same number of bytes the dearest input needs
    that many times the tokens, a context window holds that many times less of it, and its dense
    attention costs ``attention`` = ``token_ratio`` squared.
    """

    tokenizer: str
    cheapest: str
    dearest: str
    cheapest_bytes_per_token: float
    dearest_bytes_per_token: float
    token_ratio: float
    attention: float


@dataclass(frozen=True)
class EmbeddingPoint:
    """One tokenizer's vocabulary size and the parameters of its V x d embedding table."""

    tokenizer: str
    vocab_size: int
    embedding_dim: int
    parameters: int


@dataclass(frozen=True)
class ExchangeTable:
    """Metrics of every input (rows) under every tokenizer (columns), and what follows from them.

    Build it with :meth:`measure` (encodes) or :meth:`from_rows` (from
    :func:`~tokviz.core.analysis.metrics.compare_rows`). ``vocab_sizes`` may hold None for a tokenizer whose
    size is unknown (rows from the command line, say).
    """

    inputs: tuple[str, ...]
    tokenizers: tuple[str, ...]
    metrics: tuple[tuple[TextMetrics, ...], ...]
    vocab_sizes: tuple[int | None, ...]

    def __post_init__(self) -> None:
        if len(self.metrics) != len(self.inputs) or any(len(r) != len(self.tokenizers) for r in self.metrics):
            raise ValueError("metrics must have one row per input and one column per tokenizer")
        if len(self.vocab_sizes) != len(self.tokenizers):
            raise ValueError("vocab_sizes must have one entry per tokenizer")

    # ---------------------------------------------------------------- building
    @classmethod
    def measure(
        cls,
        texts: Mapping[str, str],
        tokenizers: Sequence[_Measurable],
        names: Sequence[str] | None = None,
        measure: Measure = TextMetrics.of,
    ) -> ExchangeTable:
        """Encode every text with every tokenizer.

        ``names`` label the tokenizers (default: their ``name``); ``measure`` is
        :meth:`TextMetrics.of` unless a caller wants to cache it (the chart does: its samples
        do not change while the editor's text does).
        """
        labels = tuple(names) if names is not None else tuple(_name_of(t) for t in tokenizers)
        if len(labels) != len(tokenizers):
            raise ValueError("give one name per tokenizer")
        metrics = tuple(tuple(measure(tok, text) for tok in tokenizers) for text in texts.values())
        sizes = tuple(_vocab_size_of(t) for t in tokenizers)
        return cls(tuple(texts), labels, metrics, sizes)

    @classmethod
    def from_rows(
        cls, rows: Sequence[Mapping[str, Any]], vocab_sizes: Mapping[str, int | None] | None = None
    ) -> ExchangeTable:
        """Rebuild the table from rows shaped like :func:`compare_rows` output (input-major order).

        ``vocab_sizes`` maps tokenizer labels to their vocabulary size.
        """
        inputs = tuple(dict.fromkeys(r["input"] for r in rows))
        tokenizers = tuple(dict.fromkeys(r["tokenizer"] for r in rows))
        cells = {
            (r["input"], r["tokenizer"]): TextMetrics(
                r["bytes"],
                r["code_points"],
                r["tokens"],
                r["bytes_per_token"],
                r.get("unknown") or 0,
                not r.get("lossy", False),
            )
            for r in rows
        }
        if len(cells) != len(inputs) * len(tokenizers):
            raise ValueError("the rows must measure every input with every tokenizer")
        metrics = tuple(tuple(cells[(i, t)] for t in tokenizers) for i in inputs)
        sizes = tuple((vocab_sizes or {}).get(t) for t in tokenizers)
        return cls(inputs, tokenizers, metrics, sizes)

    # ---------------------------------------------------------------- cells
    def metric(self, i: int, j: int) -> TextMetrics:
        """Metrics of input ``i`` under tokenizer ``j``."""
        return self.metrics[i][j]

    def bytes_per_token(self, i: int, j: int) -> float | None:
        """UTF-8 bytes over tokens of input ``i`` under tokenizer ``j``; None for an empty input."""
        return self.metrics[i][j].bytes_per_token

    def tokens(self, i: int, j: int) -> int:
        """Token count of input ``i`` under tokenizer ``j``."""
        return self.metrics[i][j].tokens

    def input_bytes(self, i: int) -> int:
        """UTF-8 size of input ``i`` (the same under every tokenizer)."""
        return self.metrics[i][0].bytes if self.tokenizers else 0

    def is_empty(self, i: int) -> bool:
        """True when input ``i`` has no tokens to measure (an empty text)."""
        return all(m.tokens == 0 for m in self.metrics[i])

    @property
    def empty(self) -> bool:
        """True when there is nothing to draw: no tokenizer, or no input with any tokens."""
        return not self.tokenizers or all(self.is_empty(i) for i in range(len(self.inputs)))

    def fewest_tokens(self, i: int) -> int:
        """The token count of the best tokenizer for input ``i`` (see :meth:`best`); 0 when empty."""
        best = self.best(i)
        return self.metrics[i][best[0]].tokens if best else 0

    def best(self, i: int) -> tuple[int, ...]:
        """Tokenizers (column indices) that need the fewest tokens for input ``i``; none if it is empty.

        A tokenizer that lost part of the text (to ``<unk>``, or to a normalizer: no round trip)
        cannot win while another kept it all: fewer tokens for less text is not a better rate
        (:func:`~tokviz.core.analysis.metrics.best_of`).
        """
        if self.is_empty(i):
            return ()
        return best_of([(m.tokens, m.lossy) for m in self.metrics[i]])

    def attention(self, i: int, j: int) -> float | None:
        """Dense-attention cost of input ``i`` under tokenizer ``j`` relative to the best tokenizer.

        (n / n_best)^2 by :func:`attention_multiplier`; None for an empty input.
        """
        fewest = self.fewest_tokens(i)
        if fewest <= 0:
            return None
        return attention_multiplier(self.metrics[i][j].tokens, fewest)

    def is_byte_level(self, j: int) -> bool:
        """True for a pure byte tokenizer: one token per byte, the floor of bytes per token.

        Known from its vocabulary size (exactly the 256 bytes); when the size is unknown, from the
        data (every non-empty input has exactly one token per byte).
        """
        size = self.vocab_sizes[j]
        if size is not None:
            return size == BYTE_VOCAB_SIZE
        measured = [self.metrics[i][j] for i in range(len(self.inputs)) if not self.is_empty(i)]
        return bool(measured) and all(m.tokens == m.bytes for m in measured)

    # ---------------------------------------------------------------- summaries
    def spread(self, j: int, ignore: Sequence[str] = ()) -> Spread | None:
        """The cheapest and the dearest non-empty input under tokenizer ``j`` (None with fewer than two),
        leaving out the inputs named in ``ignore``."""
        measured = [
            (self.inputs[i], bpt)
            for i in range(len(self.inputs))
            if self.inputs[i] not in ignore and (bpt := self.metrics[i][j].bytes_per_token) is not None
        ]
        if len(measured) < 2:
            return None
        cheapest = max(measured, key=lambda item: item[1])
        dearest = min(measured, key=lambda item: item[1])
        ratio = cheapest[1] / dearest[1]
        return Spread(self.tokenizers[j], cheapest[0], dearest[0], cheapest[1], dearest[1], ratio, ratio**2)

    def overall_bytes_per_token(self, j: int) -> float | None:
        """Bytes per token of tokenizer ``j`` over all inputs together (total bytes over total tokens)."""
        total_bytes = sum(self.metrics[i][j].bytes for i in range(len(self.inputs)))
        total_tokens = sum(self.metrics[i][j].tokens for i in range(len(self.inputs)))
        return total_bytes / total_tokens if total_tokens else None

    def embedding_points(self, d: int = DEFAULT_EMBEDDING_DIM) -> list[EmbeddingPoint]:
        """V and V x d for every tokenizer whose vocabulary size is known, by :func:`embedding_parameters`."""
        return [
            EmbeddingPoint(name, size, d, embedding_parameters(size, d))
            for name, size in zip(self.tokenizers, self.vocab_sizes)
            if size is not None
        ]

    def rows(self, d: int = DEFAULT_EMBEDDING_DIM) -> list[dict[str, Any]]:
        """One dict per (input, tokenizer) with the :func:`compare_rows` keys plus the embedding size."""
        out: list[dict[str, Any]] = []
        for i, label in enumerate(self.inputs):
            best = self.best(i)
            for j, name in enumerate(self.tokenizers):
                m = self.metrics[i][j]
                size = self.vocab_sizes[j]
                multiplier = self.attention(i, j)
                out.append(
                    {
                        "input": label,
                        "tokenizer": name,
                        "bytes": m.bytes,
                        "code_points": m.code_points,
                        "tokens": m.tokens,
                        "bytes_per_token": m.bytes_per_token,
                        "attention_multiplier": 1.0 if multiplier is None else multiplier,
                        "best": j in best or self.is_empty(i),
                        "lossy": m.lossy,
                        "vocab_size": size,
                        "embedding_dim": d,
                        "embedding_parameters": None if size is None else embedding_parameters(size, d),
                    }
                )
        return out

    def to_csv(self, d: int = DEFAULT_EMBEDDING_DIM) -> str:
        """The numbers behind the chart as CSV (one line per input and tokenizer), rounded as
        ``tokviz compare --format csv`` rounds them (:func:`tokviz.core.analysis.evaluation.rounded`), text
        a spreadsheet would run as a formula quoted (:func:`tokviz.core.io.safe_text.csv_cell`)."""
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=CSV_FIELDS, lineterminator="\n")
        writer.writeheader()
        for row in rounded_rows(self.rows(d)):
            writer.writerow({k: "" if row[k] is None else csv_cell(row[k]) for k in CSV_FIELDS})
        return buffer.getvalue()


def measure_rows(texts: Mapping[str, str], tokenizers: Sequence[_Measurable]) -> ExchangeTable:
    """The table built through :func:`compare_rows` (the command line's path), vocabulary sizes included."""
    rows = compare_rows(texts, tokenizers)
    sizes = {_name_of(t): _vocab_size_of(t) for t in tokenizers}
    return ExchangeTable.from_rows(rows, sizes)


# ----------------------------------------------------------------------------- words
def format_factor(x: float) -> str:
    """A multiplier for prose: 1.0, 2.7, 19 (two significant figures, at least one decimal under 10)."""
    if not math.isfinite(x):
        return "∞"
    if x < 10:
        return f"{x:.1f}"
    return f"{x:,.0f}"


def format_count(n: int) -> str:
    """A large count with a unit: 196,608 -> '197 k', 38,597,376 -> '38.6 M'."""
    for limit, unit in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(n) >= limit:
            value = n / limit
            return f"{value:.3g} {unit}" if value < 100 else f"{value:.0f} {unit}"
    return str(n)


def default_reference(table: ExchangeTable, preferred: Sequence[str] = ("GPT-2", "gpt2")) -> int | None:
    """The tokenizer a caption talks about: GPT-2 if present, else the first that is not byte-level."""
    for name in preferred:
        if name in table.tokenizers:
            return table.tokenizers.index(name)
    for j in range(len(table.tokenizers)):
        if not table.is_byte_level(j):
            return j
    return 0 if table.tokenizers else None


def caption(table: ExchangeTable, reference: int | None = None, scratch: Sequence[str] = ()) -> str:
    """One plain-English sentence that says what the chart shows, with numbers computed from it.

    With two or more non-empty inputs: which input is dearest under the reference tokenizer, by
    how much per byte, and what that does to a context window and to attention. With one: how
    the tokenizers compare on it. With none: a hint. Inputs named in ``scratch`` (the editor's
    text, which changes with every keystroke) are compared only when nothing else is there.
    """
    if table.empty:
        return "Nothing to measure yet: type some text, or add a sample or a file."
    ref = default_reference(table) if reference is None else reference
    assert ref is not None
    spread = table.spread(ref, scratch) or table.spread(ref)
    if spread is not None:
        if spread.token_ratio == 1.0:
            return (
                f"With {spread.tokenizer}, every input costs the same: "
                f"{spread.cheapest_bytes_per_token:.2f} bytes per token."
            )
        return (
            f"With {spread.tokenizer}, {spread.dearest} needs {format_factor(spread.token_ratio)}× as many "
            f"tokens per byte as {spread.cheapest} "
            f"({spread.dearest_bytes_per_token:.2f} vs {spread.cheapest_bytes_per_token:.2f} bytes/token) "
            f"→ {format_factor(spread.attention)}× the attention compute, "
            f"and a context window fits {format_factor(spread.token_ratio)}× fewer of its bytes."
        )
    i = next(i for i in range(len(table.inputs)) if not table.is_empty(i))
    best = table.best(i)
    fewest = table.fewest_tokens(i)
    if len(best) == len(table.tokenizers):
        bpt = table.bytes_per_token(i, 0)
        who = table.tokenizers[0] if len(best) == 1 else "every tokenizer"
        return f"On {table.inputs[i]}, {who} needs {fewest:,} tokens ({bpt:.2f} bytes/token)."
    best_names = " and ".join(table.tokenizers[j] for j in best)
    others = sorted(
        (j for j in range(len(table.tokenizers)) if j not in best), key=lambda j: table.tokens(i, j)
    )
    parts = []
    for k, j in enumerate(others):
        ratio = format_factor(table.tokens(i, j) / fewest)
        multiplier = format_factor(table.attention(i, j) or 1.0)
        if k == 0:
            parts.append(
                f"{table.tokenizers[j]} needs {ratio}× as many ({multiplier}× the attention compute)"
            )
        else:
            parts.append(f"{table.tokenizers[j]} {ratio}× ({multiplier}×)")
    verb = "need" if len(best) > 1 else "needs"
    return (
        f"On {table.inputs[i]}, {best_names} {verb} the fewest tokens ({fewest:,}); " + ", ".join(parts) + "."
    )


def attention_caption(table: ExchangeTable) -> str:
    """What the attention view shows: each tokenizer's worst multiplier against the best, and where."""
    if table.empty:
        return caption(table)
    worst: list[tuple[float, str, str]] = []
    for j, name in enumerate(table.tokenizers):
        cells = [(table.attention(i, j), table.inputs[i]) for i in range(len(table.inputs))]
        measured = [(m, label) for m, label in cells if m is not None]
        top = max(measured, key=lambda item: item[0])
        if format_factor(top[0]) != "1.0":  # a cost that rounds to 1.0× is no cost to name
            worst.append((top[0], name, top[1]))
    if not worst:
        return "Every tokenizer needs the same number of tokens on every input: no attention cost to save."
    worst.sort(key=lambda item: item[0])
    # Each input named once, after the tokenizers at their worst on it (a slide has little room).
    by_input: dict[str, list[str]] = {}
    for m, name, label in worst:
        by_input.setdefault(label, []).append(f"{name} up to {format_factor(m)}×")
    parts = [f"{' and '.join(costs)} (on {label})" for label, costs in by_input.items()]
    return (
        "Against the tokenizer that needs the fewest tokens for each input, dense attention costs "
        + ", ".join(parts)
        + "."
    )


def possessive(name: str) -> str:
    """``name``'s, or ``name``' when it ends in s (the characters tokenizer, the words tokenizer)."""
    return f"{name}'" if name.endswith(("s", "S")) else f"{name}'s"


def embedding_caption(table: ExchangeTable, d: int = DEFAULT_EMBEDDING_DIM) -> str:
    """What the vocabulary view shows: what a bigger vocabulary costs in parameters and buys in bytes per token."""
    points = [
        p for p in table.embedding_points(d) if not table.is_byte_level(table.tokenizers.index(p.tokenizer))
    ]
    if not points:
        return "No tokenizer with merges and a known vocabulary size to compare."
    points.sort(key=lambda p: p.vocab_size)
    big = points[-1]
    big_bpt = table.overall_bytes_per_token(table.tokenizers.index(big.tokenizer))
    if len(points) == 1 or points[0].vocab_size == big.vocab_size:
        return (
            f"At d = {d:,}, {possessive(big.tokenizer)} embedding table has {big.vocab_size:,} × {d:,} = "
            f"{format_count(big.parameters)} parameters"
            + (f" and carries {big_bpt:.2f} bytes per token over all inputs." if big_bpt else ".")
        )
    small = points[0]
    small_bpt = table.overall_bytes_per_token(table.tokenizers.index(small.tokenizer))
    text = (
        f"At d = {d:,}, {possessive(big.tokenizer)} embedding table ({format_count(big.parameters)} parameters) "
        f"is {format_factor(big.parameters / small.parameters)}× the size of {possessive(small.tokenizer)} "
        f"({format_count(small.parameters)})"
    )
    if big_bpt and small_bpt:
        text += (
            f", for {format_factor(big_bpt / small_bpt)}× the bytes per token over all inputs "
            f"({big_bpt:.2f} vs {small_bpt:.2f})"
        )
    return text + "."


def _name_of(tokenizer: object) -> str:
    return str(getattr(tokenizer, "name", type(tokenizer).__name__))


def _vocab_size_of(tokenizer: object) -> int | None:
    """V of V x d: the id space (highest id + 1; cl100k 100,277), not the distinct tokens (100,261)."""
    if isinstance(tokenizer, Tokenizer):
        return id_space(tokenizer)
    size = getattr(tokenizer, "vocab_size", None)
    return size if isinstance(size, int) else None
