"""The vocabulary browser: every token of a tokenizer in a sortable, filterable table.

:class:`VocabModel` is a QAbstractTableModel over the core's vocabulary. Sorting and filtering
happen inside the model on numpy arrays (a proxy model would call back into Python millions of
times to sort 200K rows), and cells are formatted only when the view asks for a visible row, so
cl100k's 100K tokens scroll without lag. With a second tokenizer it also shows the overlap.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import regex
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDockWidget,
    QGridLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QSpinBox,
    QTableView,
    QWidget,
)
from superqt.utils import QSignalDebouncer

from tokviz.core.bytes_ import hex_bytes, printable_token
from tokviz.core.tokenizer import Tokenizer
from tokviz.gui.context import PanelContext
from tokviz.gui.models.tokenizers import OPEN_KEY, KeyRole, TokenizerRegistryModel

COLUMNS = ("Id", "Token", "Length", "Merge rank", "Parents", "Bytes", "Count")
ID, TOKEN, LENGTH, RANK, PARENTS, BYTES, COUNT = range(len(COLUMNS))
OVERLAP_MODES = ("all", "both", "only_a", "only_b")


class VocabModel(QAbstractTableModel):
    """Rows are token ids of one tokenizer, in the current sort order, after the current filter."""

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
        self._ids = (
            np.array(sorted(tokenizer.vocab), dtype=np.int64) if tokenizer else np.zeros(0, dtype=np.int64)
        )
        self._texts = None
        self._membership = None
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
        if self._membership is not None:
            keep &= np.isin(self._ids, self._membership)
        if self._filter:
            texts = self.texts()
            if self._regex:
                try:
                    pattern = regex.compile(self._filter)
                except regex.error as exc:
                    self.filter_error = f"invalid regex: {exc}"
                    return np.zeros(0, dtype=np.int64)
                search = pattern.search
                keep &= np.fromiter((search(t) is not None for t in texts), dtype=bool, count=len(texts))
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

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if (
            role == Qt.ItemDataRole.DisplayRole
            and orientation == Qt.Orientation.Horizontal
            and 0 <= section < len(COLUMNS)
        ):
            return COLUMNS[section]
        return None

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
            cached = self._cell_cache.get(tid)
            if cached is None:
                cached = (
                    data.decode("utf-8", errors="replace") if tok.is_special(tid) else printable_token(data)
                )
                self._cell_cache[tid] = cached
            return cached
        if col == BYTES:
            return hex_bytes(data)
        if col == LENGTH:
            return str(len(data))
        if col == RANK:
            if tok.is_special(tid):
                return "special"
            if not self.merges_ready:
                return "…" if len(data) > 1 else ""
            rank = tok.merge_rank_of_id.get(tid)
            return "" if rank is None else str(rank)
        if col == PARENTS:
            if not self.merges_ready or tok.is_special(tid):
                return ""
            pair = tok.parents_of_id.get(tid)
            if pair is None:
                return ""
            a, b = pair
            return f"{printable_token(tok.vocab[a])} + {printable_token(tok.vocab[b])}"
        if col == COUNT:
            if self.counts is None:
                return ""
            count = self.counts.get(tid)
            return "" if count is None else f"{count:,}"
        return ""

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        if not 0 <= column < len(COLUMNS):
            return
        self.layoutAboutToBeChanged.emit()
        self._sort = (column, order)
        if self.tokenizer is not None:
            self._rows = self._sorted(self._rows)
        self.layoutChanged.emit()


def overlap(a: Tokenizer, b: Tokenizer) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Ids of ``a`` whose bytes ``b`` also has, ids only in ``a``, and ids of ``b`` only in ``b``.

    Tokens are compared by their bytes, so the same string under different ids counts as shared.
    """
    a_bytes = {v: i for i, v in a.vocab.items()}
    b_bytes = {v: i for i, v in b.vocab.items()}
    both = np.array(sorted(i for v, i in a_bytes.items() if v in b_bytes), dtype=np.int64)
    only_a = np.array(sorted(i for v, i in a_bytes.items() if v not in b_bytes), dtype=np.int64)
    only_b = np.array(sorted(i for v, i in b_bytes.items() if v not in a_bytes), dtype=np.int64)
    return both, only_a, only_b


class VocabBrowser(QWidget):
    """Dock contents: tokenizer picker, filter, jump to id, overlap with a second tokenizer, the table."""

    openTokenizerRequested = Signal()

    def __init__(self, registry: TokenizerRegistryModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._shown_key = ""
        self.setObjectName("vocabBrowser")
        self.registry = registry
        self.model = VocabModel(self)
        self._overlap: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

        self.picker = QComboBox(self)
        self.picker.setObjectName("vocabTokenizerPicker")
        self.picker.setAccessibleName("Vocabulary of")
        self.picker.setModel(registry)
        self.compare = QComboBox(self)
        self.compare.setObjectName("vocabComparePicker")
        self.compare.setAccessibleName("Compare vocabulary with")
        self.overlap_mode = QComboBox(self)
        self.overlap_mode.setObjectName("vocabOverlapMode")
        self.overlap_mode.setAccessibleName("Which tokens to list")
        self.filter = QLineEdit(self)
        self.filter.setObjectName("vocabFilter")
        self.filter.setAccessibleName("Filter tokens")
        self.filter.setPlaceholderText("Filter by text…")
        self.filter.setClearButtonEnabled(True)
        self.use_regex = QCheckBox("Regex", self)
        self.use_regex.setObjectName("vocabRegex")
        self.use_regex.setAccessibleName("Filter is a regular expression")
        self.jump = QSpinBox(self)
        self.jump.setObjectName("vocabJump")
        self.jump.setAccessibleName("Jump to id")
        self.jump.setPrefix("id ")
        self.jump.setKeyboardTracking(False)
        self.summary = QLabel(self)
        self.summary.setObjectName("vocabSummary")
        self.summary.setWordWrap(True)
        self.table = QTableView(self)
        self.table.setObjectName("vocabTable")
        self.table.setAccessibleName("Vocabulary")
        self.table.setModel(self.model)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(ID, Qt.SortOrder.AscendingOrder)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setAlternatingRowColors(True)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setWordWrap(False)
        for col, width in (
            (ID, 58),
            (TOKEN, 92),
            (BYTES, 92),
            (LENGTH, 54),
            (RANK, 82),
            (PARENTS, 140),
            (COUNT, 60),
        ):
            self.table.setColumnWidth(col, width)

        grid = QGridLayout(self)
        grid.setContentsMargins(6, 6, 6, 6)
        grid.addWidget(QLabel("Vocabulary of", self), 0, 0)
        grid.addWidget(self.picker, 0, 1)
        grid.addWidget(QLabel("compared with", self), 0, 2)
        grid.addWidget(self.compare, 0, 3)
        grid.addWidget(self.filter, 1, 0, 1, 2)
        grid.addWidget(self.use_regex, 1, 2)
        grid.addWidget(self.jump, 1, 3)
        grid.addWidget(self.overlap_mode, 2, 0, 1, 2)
        grid.addWidget(self.summary, 2, 2, 1, 2)
        grid.addWidget(self.table, 3, 0, 1, 4)
        grid.setColumnStretch(1, 1)
        grid.setColumnStretch(3, 1)

        # The filter runs once typing pauses (a regex over 100K tokens is not free).
        self._filter_debouncer = QSignalDebouncer(parent=self)
        self._filter_debouncer.setTimeout(150)
        self._filter_debouncer.triggered.connect(self._apply_filter)
        self.filter.textChanged.connect(self._filter_debouncer.throttle)
        self.use_regex.toggled.connect(self._apply_filter)
        self.jump.valueChanged.connect(self.jump_to_id)
        self.picker.currentIndexChanged.connect(self._on_pick)
        self.compare.currentIndexChanged.connect(self._on_pick)
        self.overlap_mode.currentIndexChanged.connect(self._apply_membership)
        self.model.rowsFiltered.connect(self._update_summary)
        registry.tokenizerLoaded.connect(self._on_loaded)
        registry.mergesReady.connect(self._on_merges_ready)
        registry.rowsInserted.connect(self._refill_compare)
        self._refill_compare()
        self._update_summary()

    # ---------------------------------------------------------------- selection
    def key(self) -> str:
        """Key of the tokenizer whose vocabulary is shown."""
        return str(self.picker.currentData(KeyRole) or "")

    def compare_key(self) -> str:
        """Key of the second tokenizer ("" for none)."""
        return str(self.compare.currentData() or "")

    def show_tokenizer(self, key: str, compare_with: str = "") -> None:
        """Show one tokenizer's vocabulary, optionally compared with a second."""
        row = self.registry.row_of(key)
        if row >= 0:
            self.picker.setCurrentIndex(row)
        i = self.compare.findData(compare_with)
        self.compare.setCurrentIndex(max(i, 0))
        self._on_pick()

    def _refill_compare(self, *_args: object) -> None:
        current = self.compare_key()
        self.compare.blockSignals(True)
        self.compare.clear()
        self.compare.addItem("—", "")
        for key in self.registry.keys():
            self.compare.addItem(self.registry.label(key), key)
        i = self.compare.findData(current)
        self.compare.setCurrentIndex(max(i, 0))
        self.compare.blockSignals(False)

    def _show_model(self, key: str) -> None:
        tok = self.registry.tokenizer(key)
        if tok is not self.model.tokenizer:
            entry = self.registry.entry(key)
            self.model.set_tokenizer(tok, entry.counts if entry else None, self.registry.merges_ready(key))
            self.jump.setRange(0, max(tok.vocab) if tok and tok.vocab else 0)

    def _on_pick(self, *_args: object) -> None:
        key = self.key()
        if key == OPEN_KEY:
            self.picker.setCurrentIndex(max(self.registry.row_of(self._shown_key), 0))
            self.openTokenizerRequested.emit()
            return
        self._shown_key = key
        tok = self.registry.tokenizer(key)
        if tok is None:
            self.registry.ensure_loaded(key)
        elif self.isVisible():
            self.registry.prepare_merges(key)
        self._show_model(key)
        other_key = self.compare_key()
        other = self.registry.tokenizer(other_key) if other_key else None
        if other_key and other is None:
            self.registry.ensure_loaded(other_key)
        self._overlap = overlap(tok, other) if tok is not None and other is not None else None
        self._fill_overlap_modes()
        self._apply_membership()

    def _fill_overlap_modes(self) -> None:
        current = max(self.overlap_mode.currentIndex(), 0)
        self.overlap_mode.blockSignals(True)
        self.overlap_mode.clear()
        a = self.registry.label(self.key())
        if self._overlap is None:
            self.overlap_mode.addItem("All tokens")
            self.overlap_mode.setEnabled(False)
            current = 0
        else:
            both, only_a, only_b = self._overlap
            b = self.registry.label(self.compare_key())
            total = len(both) + len(only_a)
            self.overlap_mode.addItem(f"All tokens of {a} ({total:,})")
            self.overlap_mode.addItem(f"In both ({len(both):,})")
            self.overlap_mode.addItem(f"Only in {a} ({len(only_a):,})")
            self.overlap_mode.addItem(f"Only in {b} ({len(only_b):,})")
            self.overlap_mode.setEnabled(True)
        self.overlap_mode.setCurrentIndex(min(current, self.overlap_mode.count() - 1))
        self.overlap_mode.blockSignals(False)

    def _apply_membership(self, *_args: object) -> None:
        mode = self.overlap_mode.currentIndex()
        if self._overlap is None or mode <= 0:
            self._show_model(self.key())
            self.model.set_membership(None)
            return
        both, only_a, only_b = self._overlap
        if mode == 3:
            # Tokens only in B are listed from B's vocabulary.
            self._show_model(self.compare_key())
            self.model.set_membership(only_b)
        else:
            self._show_model(self.key())
            self.model.set_membership(both if mode == 1 else only_a)

    def _apply_filter(self, *_args: object) -> None:
        self.model.set_filter(self.filter.text(), self.use_regex.isChecked())

    def jump_to_id(self, token_id: int) -> None:
        """Select and scroll to the row of ``token_id`` (if the filter shows it)."""
        row = self.model.row_of_id(token_id)
        if row >= 0:
            index = self.model.index(row, TOKEN)
            self.table.setCurrentIndex(index)
            self.table.scrollTo(index, QAbstractItemView.ScrollHint.PositionAtCenter)

    def _on_loaded(self, key: str) -> None:
        if key in (self.key(), self.compare_key()):
            self._on_pick()

    def _on_merges_ready(self, key: str) -> None:
        tok = self.registry.tokenizer(key)
        if tok is not None and tok is self.model.tokenizer:
            self.model.set_merges_ready(True)

    def _update_summary(self) -> None:
        tok = self.model.tokenizer
        if self.model.filter_error:
            self.summary.setText(self.model.filter_error)
        elif tok is None:
            self.summary.setText("Loading…" if self.key() else "")
        else:
            self.summary.setText(f"{self.model.rowCount():,} of {tok.vocab_size:,} tokens")

    def follow_reference(self, key: str) -> None:
        """Browse the reference view's tokenizer (keeping the comparison the user chose)."""
        self.show_tokenizer(key, self.compare_key())

    def follow_editor_font(self, font: QFont) -> None:
        """The table's monospace text, a little smaller than the editor's."""
        table_font = QFont(font)
        table_font.setPointSizeF(max(8.0, font.pointSizeF() - 2))
        self.set_table_font(table_font)

    def set_table_font(self, font: QFont) -> None:
        """Monospace font for the token cells (zoom)."""
        self.table.setFont(font)
        self.table.verticalHeader().setDefaultSectionSize(int(font.pointSizeF() * 2.2) + 4)


def install(context: PanelContext) -> QDockWidget:
    """Dock the vocabulary browser on the right (shown); it follows the first view's tokenizer."""
    browser = VocabBrowser(context.tokenizers, context.parent_widget())
    dock = context.add_dock(
        browser,
        "Vocabulary",
        "vocabDock",
        "Ctrl+Shift+V",
        action_text="&Vocabulary browser",
        area="right",
        visible=True,
        first_size=lambda: 470,
    )
    browser.openTokenizerRequested.connect(context.open_tokenizer_dialog)
    browser.show_tokenizer(context.first_view_key(), "")
    context.referenceViewChanged.connect(browser.follow_reference)
    browser.follow_editor_font(context.text_font())
    context.fontChanged.connect(browser.follow_editor_font)
    return dock
