"""The vocabulary as a sortable Qt table model (id, token, length, merge step, parents, bytes, count),
and the overlap of two vocabularies.

The Count column shows how often each token occurs on the text the browser counted (the editor's
text or a folder, see :mod:`tokviz.gui.panels.vocabulary.usage`), or, before any count, the counts
a trained model came with. A usage filter keeps the tokens used, never used, or suspicious (long
and rare: :data:`tokviz.core.analysis.usage.SUSPICIOUS_SCORE`). Merge steps are 1-based, as the timeline
numbers them.
"""

from __future__ import annotations

import csv
import io
import time
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import regex
from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtWidgets import (
    QWidget,
)

from tokviz.core.analysis.usage import SUSPICIOUS_SCORE
from tokviz.core.bpe.tokenizer import Tokenizer
from tokviz.core.errors import PretokenizerError
from tokviz.core.io.safe_text import csv_cell
from tokviz.core.pretok.bytes_ import hex_bytes, printable_token
from tokviz.core.pretok.pretokenize import shorten_pattern
from tokviz.core.pretok.regex_bounds import check_pattern_bounds
from tokviz.gui.models.columns import ColumnsModel
from tokviz.gui.text.display import merge_step

COLUMNS = ("Id", "Token", "Length", "Merge step", "Parents", "Bytes", "Count")
ID, TOKEN, LENGTH, RANK, PARENTS, BYTES, COUNT = range(len(COLUMNS))
STEP = RANK  # the column shows the merge's 1-based step (rank + 1), as the timeline does
OVERLAP_MODES = ("all", "both", "only_a", "only_b")
USAGE_MODES = ("all", "used", "unused", "suspicious", "idle")
_TOOLTIPS = {
    STEP: "The merge that made the token, numbered as the timeline numbers it (step 1 is the first merge)",
    COUNT: "How often the token occurs on the counted text (or, for a model trained here, in its corpus)",
    LENGTH: "Length in bytes",
}


class VocabModel(ColumnsModel):
    """Rows are token ids of one tokenizer, in the current sort order, after the current filter."""

    columns = COLUMNS
    column_tips = _TOOLTIPS

    rowsFiltered = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.tokenizer: Tokenizer | None = None
        self.counts: dict[int, int] | None = None
        self.merges_ready = False
        self._ids = np.zeros(0, dtype=np.int64)
        self._rows = np.zeros(0, dtype=np.int64)
        self._texts: list[str] | None = None
        self._filter = ""
        self._regex = False
        self._membership: np.ndarray | None = None
        self._class_ids: np.ndarray | None = None
        self.usage_counts: np.ndarray | None = None
        self.never_applied: np.ndarray | None = None
        self._usage_mode = "all"
        self._sort: tuple[int, Qt.SortOrder] = (ID, Qt.SortOrder.AscendingOrder)
        self.filter_error: str | None = None
        self._cell_cache: dict[int, str] = {}

    # ---------------------------------------------------------------- data source
    def set_tokenizer(
        self, tokenizer: Tokenizer | None, counts: dict[int, int] | None = None, merges_ready: bool = False
    ) -> None:
        """Show ``tokenizer``'s vocabulary (None: empty table)."""
        self.beginResetModel()
        self.tokenizer = tokenizer
        self.counts = counts
        self.merges_ready = merges_ready
        self._ids = browsable_ids(tokenizer) if tokenizer else np.zeros(0, dtype=np.int64)
        self._texts = None
        self._membership = None
        self._class_ids = None
        self.usage_counts = self.never_applied = None
        self._cell_cache = {}
        self._rows = self._compute_rows()
        self.endResetModel()
        self.rowsFiltered.emit()

    def set_merges_ready(self, ready: bool) -> None:
        """Merge ranks and parents are now available: refresh those columns."""
        self.merges_ready = ready
        if self.rowCount():
            self.dataChanged.emit(self.index(0, RANK), self.index(self.rowCount() - 1, PARENTS))

    def set_filter(self, text: str, use_regex: bool = False) -> None:
        """Keep tokens whose text contains ``text`` (or matches it as a regex)."""
        self._filter = text
        self._regex = use_regex
        self._refilter()

    def set_membership(self, mask_ids: np.ndarray | None) -> None:
        """Keep only these ids (an overlap set), or all of them with None."""
        self._membership = mask_ids
        self._refilter()

    def set_class_filter(self, ids: np.ndarray | None) -> None:
        """Keep only these ids (the audit classes checked, :mod:`tokviz.core.analysis.audit`), or all with None."""
        self._class_ids = ids
        self._refilter()

    def set_usage(self, counts: np.ndarray | None, never_applied: np.ndarray | None = None) -> None:
        """Counts per id on the counted text (``counts[id]``), or None; the Count column shows them.

        ``never_applied`` are the ids made by merges the text never applies (the "idle" filter).
        """
        self.usage_counts = counts
        self.never_applied = never_applied
        if self._usage_mode != "all" or self._sort[0] == COUNT:
            self._refilter()
        elif self.rowCount():
            self.dataChanged.emit(self.index(0, COUNT), self.index(self.rowCount() - 1, COUNT))

    def set_usage_filter(self, mode: str) -> None:
        """Keep every token ("all"), those "used" or "unused" on the counted text, the "suspicious", or
        the tokens of merges never applied ("idle")."""
        if mode not in USAGE_MODES:
            raise ValueError(f"unknown usage filter {mode!r}; expected one of {', '.join(USAGE_MODES)}")
        self._usage_mode = mode
        self._refilter()

    def count_of(self, token_id: int) -> int | None:
        """The token's count on the counted text (or the trained model's corpus), None when unknown."""
        if self.usage_counts is not None:
            return int(self.usage_counts[token_id]) if 0 <= token_id < len(self.usage_counts) else 0
        if self.counts is not None:
            return self.counts.get(token_id)
        return None

    def _usage_mask(self) -> np.ndarray | None:
        counts = self.usage_counts
        tok = self.tokenizer
        if self._usage_mode == "all" or counts is None or tok is None:
            return None
        ids = self._ids
        inside = ids < len(counts)
        c = np.zeros(len(ids), dtype=np.int64)
        c[inside] = counts[ids[inside]]
        special = np.isin(ids, np.fromiter(tok.special_tokens.values(), dtype=np.int64))
        if self._usage_mode == "used":
            return c > 0
        if self._usage_mode == "unused":
            return c == 0  # special tokens too: plain text never produces them
        if self._usage_mode == "idle":
            idle = self.never_applied
            return np.isin(ids, idle) if idle is not None else np.zeros(len(ids), dtype=bool)
        lengths = self._lengths()
        scores = lengths / (1.0 + np.log2(1.0 + c))
        return (scores >= SUSPICIOUS_SCORE) & (lengths > 1) & ~special

    def _lengths(self) -> np.ndarray:
        tok = self.tokenizer
        assert tok is not None
        vocab = tok.vocab
        return np.fromiter((len(vocab[i]) for i in self._ids.tolist()), dtype=np.int64, count=len(self._ids))

    def _refilter(self) -> None:
        self.beginResetModel()
        self._rows = self._compute_rows()
        self.endResetModel()
        self.rowsFiltered.emit()

    def texts(self) -> list[str]:
        """Every token's text (invalid UTF-8 replaced), aligned with the sorted ids; built on first use."""
        if self._texts is None:
            assert self.tokenizer is not None
            vocab = self.tokenizer.vocab
            self._texts = [vocab[i].decode("utf-8", errors="replace") for i in self._ids.tolist()]
        return self._texts

    def _compute_rows(self) -> np.ndarray:
        self.filter_error = None
        if self.tokenizer is None:
            return np.zeros(0, dtype=np.int64)
        keep = np.ones(len(self._ids), dtype=bool)
        usage = self._usage_mask()
        if usage is not None:
            keep &= usage
        if self._membership is not None:
            keep &= np.isin(self._ids, self._membership)
        if self._class_ids is not None:
            keep &= np.isin(self._ids, self._class_ids)
        if self._filter:
            texts = self.texts()
            if self._regex:
                try:
                    check_pattern_bounds(self._filter, "the filter regex")  # before the engine builds it
                    pattern = regex.compile(self._filter)
                except PretokenizerError as exc:
                    self.filter_error = str(exc)
                    return np.zeros(0, dtype=np.int64)
                except regex.error as exc:
                    self.filter_error = f"invalid regex: {exc}"
                    return np.zeros(0, dtype=np.int64)
                try:
                    keep &= np.fromiter(_searches(pattern, texts), dtype=bool, count=len(texts))
                except TimeoutError:
                    self.filter_error = (
                        f"the regex {shorten_pattern(self._filter)} takes too long "
                        "(catastrophic backtracking): over "
                        f"{FILTER_TIME_LIMIT:.0f} s on this vocabulary"
                    )
                    return np.zeros(0, dtype=np.int64)
            else:
                needle = self._filter
                keep &= np.fromiter((needle in t for t in texts), dtype=bool, count=len(texts))
        rows = self._ids[keep]
        return self._sorted(rows)

    def _sort_key(self, column: int, rows: np.ndarray) -> np.ndarray | list[Any]:
        tok = self.tokenizer
        assert tok is not None
        if column == LENGTH:
            return np.fromiter((len(tok.vocab[i]) for i in rows.tolist()), dtype=np.int64, count=len(rows))
        if column in (RANK, PARENTS) and self.merges_ready:
            ranks = tok.merge_rank_of_id
            return np.fromiter((ranks.get(i, -1) for i in rows.tolist()), dtype=np.int64, count=len(rows))
        if column == COUNT and self.usage_counts is not None:
            usage = self.usage_counts
            inside = rows < len(usage)
            key = np.full(len(rows), -1, dtype=np.int64)
            key[inside] = usage[rows[inside]]
            return key
        if column == COUNT and self.counts:
            counts = self.counts
            return np.fromiter((counts.get(i, -1) for i in rows.tolist()), dtype=np.int64, count=len(rows))
        if column in (TOKEN, BYTES):
            return [tok.vocab[i] for i in rows.tolist()]
        return rows

    def _sorted(self, rows: np.ndarray) -> np.ndarray:
        column, order = self._sort
        if column == ID or not len(rows):
            out = np.sort(rows)
        else:
            key = self._sort_key(column, rows)
            if isinstance(key, list):
                order_idx = np.array(sorted(range(len(rows)), key=key.__getitem__), dtype=np.int64)
            else:
                order_idx = np.lexsort((rows, key))
            out = rows[order_idx]
        return out[::-1].copy() if order == Qt.SortOrder.DescendingOrder else out

    # ---------------------------------------------------------------- Qt model
    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else int(len(self._rows))

    def token_id(self, row: int) -> int:
        """The id shown in ``row``."""
        return int(self._rows[row])

    def row_of_id(self, token_id: int) -> int:
        """Row showing ``token_id`` under the current sort and filter, or -1."""
        hits = np.flatnonzero(self._rows == token_id)
        return int(hits[0]) if hits.size else -1

    def data(
        self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if not index.isValid() or self.tokenizer is None:
            return None
        row, col = index.row(), index.column()
        if not (0 <= row < len(self._rows) and 0 <= col < len(COLUMNS)):
            return None
        tok = self.tokenizer
        tid = int(self._rows[row])
        if role == Qt.ItemDataRole.DisplayRole:
            return self._display(tok, tid, col)
        if role == Qt.ItemDataRole.TextAlignmentRole:
            if col in (ID, LENGTH, RANK, COUNT):
                return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            return None
        if role == Qt.ItemDataRole.ToolTipRole and col == TOKEN:
            return f"id {tid}: {hex_bytes(tok.vocab[tid])}"
        if role == Qt.ItemDataRole.UserRole:
            return tid
        return None

    def _display(self, tok: Tokenizer, tid: int, col: int) -> str:
        data = tok.vocab[tid]
        if col == ID:
            return str(tid)
        if col == TOKEN:
            return self._token_text(tok, tid, data)
        if col == BYTES:
            return hex_bytes(data)
        if col == LENGTH:
            return str(len(data))
        if col == RANK:
            return self._step_text(tok, tid, data)
        if col == PARENTS:
            return self._parents_text(tok, tid)
        if col == COUNT:
            count = self.count_of(tid)
            return "" if count is None else f"{count:,}"
        return ""

    def _token_text(self, tok: Tokenizer, tid: int, data: bytes) -> str:
        """The token as shown (· for a space, <F0> for a stray byte), cached: views ask on every repaint."""
        cached = self._cell_cache.get(tid)
        if cached is None:
            cached = data.decode("utf-8", errors="replace") if tok.is_special(tid) else printable_token(data)
            self._cell_cache[tid] = cached
        return cached

    def _step_text(self, tok: Tokenizer, tid: int, data: bytes) -> str:
        """The merge step that made the token ("…" while the merge tables are still being built)."""
        if tok.is_special(tid):
            return "special"
        if not self.merges_ready:
            return "…" if len(data) > 1 else ""
        rank = tok.merge_rank_of_id.get(tid)
        return "" if rank is None else f"{merge_step(rank):,}"

    def _parents_text(self, tok: Tokenizer, tid: int) -> str:
        """The two tokens the token was merged from."""
        if not self.merges_ready or tok.is_special(tid):
            return ""
        pair = tok.parents_of_id.get(tid)
        if pair is None:
            return ""
        a, b = pair
        return f"{printable_token(tok.vocab[a])} + {printable_token(tok.vocab[b])}"

    # ---------------------------------------------------------------- copying and export
    def plain_cells(self, token_id: int) -> list[str]:
        """One token's row as plain text: the token with real spaces (never the · glyph), every column."""
        tok = self.tokenizer
        assert tok is not None
        data = tok.vocab[token_id]
        special = tok.is_special(token_id)
        step = parents = ""
        if special:
            step = "special"
        elif self.merges_ready:
            rank = tok.merge_rank_of_id.get(token_id)
            step = "" if rank is None else str(merge_step(rank))
            pair = tok.parents_of_id.get(token_id)
            if pair is not None:
                parents = f"{plain_token(tok.vocab[pair[0]])} + {plain_token(tok.vocab[pair[1]])}"
        count = self.count_of(token_id)
        return [
            str(token_id),
            plain_token(data),
            str(len(data)),
            step,
            parents,
            hex_bytes(data),
            "" if count is None else str(count),
        ]

    def rows_tsv(self, rows: list[int], columns: Sequence[int] | None = None) -> str:
        """The given rows as tab-separated lines (a spreadsheet pastes them as cells); tabs and line
        breaks inside a token are written ``\\t``, ``\\n``, ``\\r`` so each token stays one cell.

        With ``columns`` (the table's on-screen order), a header line of their titles comes first
        and every row's cells follow that order.
        """
        lines = [] if columns is None or not rows else ["\t".join(COLUMNS[c] for c in columns)]
        for row in rows:
            cells = self.plain_cells(self.token_id(row))
            shown = cells if columns is None else [cells[c] for c in columns]
            lines.append("\t".join(_one_cell(c) for c in shown))
        return "\n".join(lines) + ("\n" if lines else "")

    def filtered_csv(self) -> str:
        """Every row the filter keeps, in the shown order, as CSV with a header (quoted; a token's
        control characters escaped and a formula start guarded by :func:`csv_cell`, its exact
        bytes in the Bytes column)."""
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n", quoting=csv.QUOTE_ALL)
        writer.writerow(COLUMNS)
        for tid in self._rows.tolist():
            writer.writerow([csv_cell(cell) for cell in self.plain_cells(int(tid))])
        return out.getvalue()

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        if not 0 <= column < len(COLUMNS):
            return
        self.layoutAboutToBeChanged.emit()
        self._sort = (column, order)
        if self.tokenizer is not None:
            self._rows = self._sorted(self._rows)
        self.layoutChanged.emit()


def browsable_ids(tokenizer: Tokenizer) -> np.ndarray:
    """The ids the browser lists, sorted: every id, except for a vocabulary that offers a shorter
    list of the ids worth listing (the characters tokenizer: the ~145,000 assigned code points of
    its 1,114,112 ids), so the table stays responsive."""
    assigned = getattr(tokenizer.vocab, "assigned_ids", None)
    ids = assigned() if callable(assigned) else sorted(tokenizer.vocab)
    return np.array(ids, dtype=np.int64)


def plain_token(data: bytes) -> str:
    """Token bytes as text with real whitespace: valid UTF-8 as itself, other bytes as ``<F0 9F>``."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return printable_token(data, whitespace=False)


_CELL_ESCAPES = str.maketrans({"\t": "\\t", "\n": "\\n", "\r": "\\r"})


def _one_cell(text: str) -> str:
    return text.translate(_CELL_ESCAPES)


def overlap(a: Tokenizer, b: Tokenizer) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Ids of ``a`` whose bytes ``b`` also has, ids only in ``a``, and ids of ``b`` only in ``b``.

    Tokens are compared by their bytes, so the same string under different ids counts as shared.
    Only the ids the browser lists are compared (:func:`browsable_ids`).
    """
    a_bytes = {a.vocab[i]: i for i in browsable_ids(a).tolist()}
    b_bytes = {b.vocab[i]: i for i in browsable_ids(b).tolist()}
    both = np.array(sorted(i for v, i in a_bytes.items() if v in b_bytes), dtype=np.int64)
    only_a = np.array(sorted(i for v, i in a_bytes.items() if v not in b_bytes), dtype=np.int64)
    only_b = np.array(sorted(i for v, i in b_bytes.items() if v not in a_bytes), dtype=np.int64)
    return both, only_a, only_b


# The filter regex runs in the GUI thread on every token's text (a few tens of milliseconds for
# cl100k's 100,000 tokens); a pattern that backtracks catastrophically stops at this total.
FILTER_TIME_LIMIT = 2.0


# Texts up to this long are searched without a per-call limit, which costs 1.7 us a call (seven
# times the search itself): even 2**12 backtracking steps take well under a millisecond.
_SHORT_TEXT = 12


def _searches(pattern: regex.Pattern, texts: list[str]) -> Iterator[bool]:
    """Whether ``pattern`` occurs in each text, all within about :data:`FILTER_TIME_LIMIT` seconds.

    Raises ``TimeoutError`` once the total is spent (a long text's search gets what is left).
    """
    search = pattern.search
    clock = time.monotonic
    deadline = clock() + FILTER_TIME_LIMIT
    for text in texts:
        left = deadline - clock()
        if left <= 0:
            raise TimeoutError
        yield (search(text) if len(text) <= _SHORT_TEXT else search(text, timeout=left)) is not None
