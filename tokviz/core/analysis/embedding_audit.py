"""Rank tokens by how under-trained their embedding rows look (the "Fishing for Magikarp" indicators).

A token the model never saw during training keeps its initial embedding, or one that weight
decay shrank; those rows resemble each other and differ from trained ones. Two indicators per
token, from the embedding matrix ``E`` (one row per id, see :mod:`tokviz.core.analysis.embedding_file`):

* **norm**: ``||E[id]||``, the L2 norm of its row. Weight decay pulls an untrained row to zero.
* **distance**: the cosine distance between ``E[id] - m`` and ``r - m``, where ``m`` is the mean
  row of the audited ids and ``r`` the mean row of the *reference*: ids known to be untrained
  (the unreachable tokens and reserved specials, :meth:`~tokviz.core.analysis.audit.VocabularyAudit.
  reference_unused_ids`, or a list given). 0 means "points where the untrained rows point".

**Likely under-trained**, the rule: a distance at most the :data:`REFERENCE_PERCENTILE`-th
percentile of the reference rows' own distances (when there are at least
:data:`MIN_REFERENCE` of them), or a norm below :data:`NORM_FRACTION` of the median norm.
Tokens are ranked by distance (by norm without a reference), most suspect first.

**Not finite**: a row holding a NaN or an infinite value has no norm or direction to compare.
Such rows are a class of their own: left out of the median, the means and the reference, never
ranked as under-trained, and reported apart (a model whose rows overflowed in training, or a
file cut or written badly). Norms are summed in float64, so a finite row always has a finite norm.

The matrix is read twice in blocks of rows (sums first, then distances), so memory stays flat.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import Cancelled
from ..show.html_table import table_html
from .audit import Cancel, VocabularyAudit
from .embedding_file import EmbeddingTensor, WeightsError, find_embedding, list_tensors

# At least this many known-untrained rows make a reference; fewer leave the norm alone.
MIN_REFERENCE = 3
# Flag a token at least as close to the untrained mean as this share of the reference rows are.
REFERENCE_PERCENTILE = 90.0
# Flag a token whose row's norm is below this fraction of the median norm.
NORM_FRACTION = 0.5


@dataclass
class EmbeddingIndicators:
    """Per audited id (``ids``, sorted): norm, distance (NaN without a reference), rank, flags.

    ``not_finite`` marks the rows holding a NaN or an infinite value (their norm and distance
    are NaN, and they are never ``likely``).
    """

    tensor: str
    shape: tuple[int, int]
    ids: np.ndarray
    norms: np.ndarray
    distances: np.ndarray
    reference: np.ndarray
    likely: np.ndarray
    distance_threshold: float | None
    norm_threshold: float
    not_finite: np.ndarray

    @property
    def has_reference(self) -> bool:
        """Whether enough known-untrained rows were there to measure distances."""
        return self.distance_threshold is not None

    def order(self) -> np.ndarray:
        """Positions into ``ids``, most suspect first (smallest distance, or smallest norm)."""
        key = self.distances if self.has_reference else self.norms
        return np.lexsort((self.ids, key))

    def ranks(self) -> np.ndarray:
        """``ranks[k]``: 1 for the most suspect id, aligned with ``ids``."""
        out = np.empty(len(self.ids), dtype=np.int64)
        out[self.order()] = np.arange(1, len(self.ids) + 1)
        return out

    def likely_ids(self) -> np.ndarray:
        """The ids marked likely under-trained, most suspect first."""
        order = self.order()
        return self.ids[order[self.likely[order]]]

    def not_finite_ids(self) -> np.ndarray:
        """The ids whose rows hold a NaN or an infinite value, in id order."""
        return self.ids[self.not_finite]

    def rule(self) -> str:
        """The marking rule in one line, with the thresholds found."""
        if not np.isfinite(self.norm_threshold):
            return "nothing to compare: every audited row holds a NaN or an infinite value"
        norm = f"norm below {self.norm_threshold:.4g} ({NORM_FRACTION:g} x the median)"
        if not self.has_reference:
            return (
                f"{norm}; no distance: fewer than {MIN_REFERENCE} known-unused tokens, "
                "or their rows do not differ from the rest"
            )
        return (
            f"cosine distance to the mean of {len(self.reference):,} known-unused tokens at most "
            f"{self.distance_threshold:.4g} (their {REFERENCE_PERCENTILE:g}th percentile), or {norm}"
        )

    def to_html(self) -> str:
        """The result as an HTML table (a notebook shows it through ``_repr_html_``)."""
        ranks = self.ranks()
        position = {int(i): k for k, i in enumerate(self.ids.tolist())}
        rows = []
        for i in self.likely_ids()[:20].tolist():
            k = position[i]
            rows.append([str(ranks[k]), str(i), f"{self.norms[k]:.4g}", f"{self.distances[k]:.4g}"])
        caption = f"{self.tensor} {list(self.shape)}: {int(self.likely.sum()):,} likely under-trained"
        if self.not_finite.any():
            caption += f", {int(self.not_finite.sum()):,} rows not finite"
        note = f"marked when {self.rule()}"
        return table_html(["rank", "id", "norm", "distance"], rows, [True, True, True, True], caption, note)

    def _repr_html_(self) -> str:
        return self.to_html()


def embedding_indicators(
    audit: VocabularyAudit,
    weights: str | Path,
    tensor: str | None = None,
    reference: Iterable[int] | None = None,
    *,
    progress: Callable[[int, int], None] | None = None,
    cancel: Cancel | None = None,
) -> EmbeddingIndicators:
    """Read the embedding of ``audit``'s tokenizer from ``weights`` and compute the indicators.

    ``tensor`` names the matrix (else it is found by shape, :func:`find_embedding`); ``reference``
    lists known-untrained ids (else :meth:`VocabularyAudit.reference_unused_ids`).
    """
    path = Path(weights)
    ids = audit.ids
    space = int(ids.max()) + 1 if len(ids) else 0
    name = tensor or find_embedding(list_tensors(path), space, path.name).name
    matrix = EmbeddingTensor(path, name)
    if matrix.rows_count < space:
        raise WeightsError(
            f"{path.name}: {name} has {matrix.rows_count:,} rows, but {audit.name}'s ids go up to {space - 1:,}"
        )
    ref = np.intersect1d(
        np.asarray(
            list(reference) if reference is not None else audit.reference_unused_ids(), dtype=np.int64
        ),
        ids,
    )
    passes = 2 if len(ref) >= MIN_REFERENCE else 1
    total = matrix.rows_count * passes

    def step(done: int) -> None:
        if cancel is not None and cancel():
            raise Cancelled()
        if progress is not None:
            progress(done, total)

    norms = np.full(space, np.nan)
    row_sum = np.zeros(matrix.dim, dtype=np.float64)
    ref_sum = np.zeros(matrix.dim, dtype=np.float64)
    audited = np.zeros(space, dtype=bool)
    audited[ids] = True
    is_ref = np.zeros(space, dtype=bool)
    is_ref[ref] = True
    finite = np.ones(space, dtype=bool)
    with np.errstate(all="ignore"):  # NaN and infinite rows are found and set apart, not warned about
        for start, block in matrix.rows():
            block = block[: max(0, space - start)]
            stop = start + len(block)
            ok = np.isfinite(block).all(axis=1)
            finite[start:stop] = ok
            squares = np.einsum("ij,ij->i", block, block, dtype=np.float64)  # summed in float64, no copy
            norms[start:stop] = np.where(ok, np.sqrt(squares), np.nan)
            row_sum += block.sum(axis=0, dtype=np.float64, where=(audited[start:stop] & ok)[:, None])
            ref_sum += block.sum(axis=0, dtype=np.float64, where=(is_ref[start:stop] & ok)[:, None])
            step(start + len(block))
        ref = ref[finite[ref]]
        distances = np.full(space, np.nan)
        mean = row_sum / max(int((audited & finite).sum()), 1)
        direction = ref_sum / max(len(ref), 1) - mean
        scale = float(np.linalg.norm(direction))
        if len(ref) < MIN_REFERENCE or scale == 0.0 or not np.isfinite(scale):
            ref = ref[:0]  # too few known-unused rows, or they average to the mean of all: no direction
            if passes == 2:
                step(total)  # the second pass is not needed: the work is done
        if len(ref):
            for start, block in matrix.rows():
                block = block[: max(0, space - start)] - mean
                lengths = np.linalg.norm(block, axis=1)
                cosine = (block @ direction) / (np.where(lengths > 0, lengths, 1.0) * scale)
                distances[start : start + len(block)] = np.where(
                    finite[start : start + len(block)], 1.0 - cosine, np.nan
                )
                step(matrix.rows_count + start + len(block))
    return _marked(
        name, (matrix.rows_count, matrix.dim), ids, norms[ids], distances[ids], ref, distances, ~finite[ids]
    )


def _marked(
    name: str,
    shape: tuple[int, int],
    ids: np.ndarray,
    norms: np.ndarray,
    distances: np.ndarray,
    reference: np.ndarray,
    all_distances: np.ndarray,
    not_finite: np.ndarray,
) -> EmbeddingIndicators:
    """The indicators with the rule of the module docstring applied (to the finite rows only)."""
    finite_norms = norms[~not_finite]
    norm_threshold = float(np.median(finite_norms)) * NORM_FRACTION if len(finite_norms) else math.nan
    with np.errstate(invalid="ignore"):
        likely = ~not_finite & (norms < norm_threshold)
        distance_threshold = None
        if len(reference) >= MIN_REFERENCE:
            distance_threshold = float(np.percentile(all_distances[reference], REFERENCE_PERCENTILE))
            likely |= ~not_finite & (distances <= distance_threshold)
    return EmbeddingIndicators(
        name, shape, ids, norms, distances, reference, likely, distance_threshold, norm_threshold, not_finite
    )
