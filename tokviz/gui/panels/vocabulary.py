"""The vocabulary browser: every token of a tokenizer in a sortable, filterable table.

:class:`VocabModel` is a QAbstractTableModel over the core's vocabulary. Sorting and filtering
happen inside the model on numpy arrays (a proxy model would call back into Python millions of
times to sort 200K rows), and cells are formatted only when the view asks for a visible row, so
cl100k's 100K tokens scroll without lag. With a second tokenizer it also shows the overlap.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDockWidget,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QSpinBox,
    QTableView,
    QWidget,
)

from tokviz.gui.context import PanelContext
from tokviz.gui.models.tokenizers import OPEN_KEY, KeyRole, TokenizerRegistryModel
from tokviz.gui.models.vocabulary import (
    BYTES,
    COUNT,
    ID,
    LENGTH,
    PARENTS,
    RANK,
    TOKEN,
    VocabModel,
    overlap,
)
from tokviz.gui.workers.debounce import Debouncer


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
        self.table.setTabKeyNavigation(False)  # Tab moves on to the next control, as everywhere else
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
        # Two columns, so the dock fits beside the views on a 1024-pixel projector.
        grid.addWidget(QLabel("Vocabulary of", self), 0, 0)
        grid.addWidget(self.picker, 0, 1)
        grid.addWidget(QLabel("compared with", self), 1, 0)
        grid.addWidget(self.compare, 1, 1)
        grid.addWidget(self.filter, 2, 0, 1, 2)
        filters = QHBoxLayout()
        filters.addWidget(self.use_regex)
        filters.addWidget(self.jump, 1)
        grid.addLayout(filters, 3, 0, 1, 2)
        grid.addWidget(self.overlap_mode, 4, 0, 1, 2)
        grid.addWidget(self.summary, 5, 0, 1, 2)
        grid.addWidget(self.table, 6, 0, 1, 2)
        grid.setColumnStretch(1, 1)

        # The filter runs once typing pauses (a regex over 100K tokens is not free).
        self._filter_debouncer = Debouncer(150, self)
        self._filter_debouncer.triggered.connect(self._apply_filter)
        self.filter.textChanged.connect(self._filter_debouncer.trigger)
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
        # A third of the window at most: on a 1024-pixel projector the views keep the room.
        first_size=lambda: min(470, context.parent_widget().width() // 3),
    )
    browser.openTokenizerRequested.connect(context.open_tokenizer_dialog)
    browser.show_tokenizer(context.first_view_key(), "")
    context.referenceViewChanged.connect(browser.follow_reference)
    browser.follow_editor_font(context.text_font())
    context.fontChanged.connect(browser.follow_editor_font)
    return dock
