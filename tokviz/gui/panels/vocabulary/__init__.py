"""The vocabulary browser: every token of a tokenizer in a sortable, filterable table.

:class:`VocabModel` is a QAbstractTableModel over the core's vocabulary. Sorting and filtering
happen inside the model on numpy arrays (a proxy model would call back into Python millions of
times to sort 200K rows), and cells are formatted only when the view asks for a visible row, so
cl100k's 100K tokens scroll without lag. With a second tokenizer it also shows the overlap.

It also counts what the vocabulary uses on the editor's text or on a folder (off the GUI thread,
:mod:`.usage`): a headline ("46% of the vocabulary used"), a used / never used /
suspicious filter, the Count column and a token-length histogram. The table copies real text
and exports the filtered list (:mod:`.table`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import regex
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont, QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDockWidget,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QSpinBox,
    QWidget,
)

from tokviz.core.bpe.specials_text import reading_note
from tokviz.gui.context import PanelContext
from tokviz.gui.models.tokenizers import OPEN_KEY, KeyRole, TokenizerRegistryModel
from tokviz.gui.models.vocabulary import (
    TOKEN,
    USAGE_MODES,
    VocabModel,
    overlap,
    plain_token,
)
from tokviz.gui.panels.vocabulary.audit import ClassFilter
from tokviz.gui.panels.vocabulary.table import (
    TextTarget,
    VocabTable,
    select_next_occurrence,
    write_filtered_csv,
)
from tokviz.gui.panels.vocabulary.usage import LengthHistogram, UsageCounter, UsageResult, usage_mode_items
from tokviz.gui.widgets import file_dialogs
from tokviz.gui.workers.debounce import Debouncer


class VocabBrowser(QWidget):
    """Dock contents: tokenizer picker, filter, jump to id, overlap with a second tokenizer, the table."""

    openTokenizerRequested = Signal()
    statusMessage = Signal(str)

    def __init__(
        self,
        registry: TokenizerRegistryModel,
        parent: QWidget | None = None,
        editor_text: Callable[[], str] | None = None,
    ) -> None:
        super().__init__(parent)
        self._shown_key = ""
        self._stale = False  # the editor's text changed while the browser was hidden
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
        self.jump.setToolTip("Scroll the table to this token id")
        # Which tokens are broken (an audit, run in the background per tokenizer).
        self.classes = ClassFilter(self)
        self.summary = QLabel(self)
        self.summary.setObjectName("vocabSummary")
        self.summary.setWordWrap(True)
        self.usage_mode = QComboBox(self)
        self.usage_mode.setObjectName("vocabUsageMode")
        self.usage_mode.setAccessibleName("Which tokens to list by their use")
        self.usage_source = QComboBox(self)
        self.usage_source.setObjectName("vocabUsageSource")
        self.usage_source.setAccessibleName("Count the vocabulary's use on")
        self.usage_source.addItem("the editor's text", "")
        self.usage_source.addItem("a folder…", "?")
        self.usage_source.setToolTip(
            "Count how often each token occurs on the editor's text or on a folder's text files"
        )
        # Long entries ("Never used on this text (49,000)") elide rather than widen the dock.
        for combo in (self.overlap_mode, self.usage_mode, self.usage_source):
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            combo.setMinimumContentsLength(12)
        self.headline = QLabel(self)
        self.headline.setObjectName("vocabUsageHeadline")
        self.headline.setWordWrap(True)
        self.histogram = LengthHistogram(self)
        # On a 768-pixel projector with every panel open the histogram gives way before the window
        # outgrows the screen (its hint is 70 px); at the dock's usual height it keeps its size.
        self.histogram.setMinimumHeight(28)
        self.usage = UsageCounter(editor_text or str, self)
        self.table = VocabTable(self.model, self)
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
        jump_label = QLabel("Go to", self)  # the id box alone did not say what it does
        jump_label.setBuddy(self.jump)
        filters.addSpacing(8)
        filters.addWidget(jump_label)
        filters.addWidget(self.jump, 1)
        grid.addLayout(filters, 3, 0, 1, 2)
        grid.addWidget(QLabel("Overlap", self), 4, 0)
        grid.addWidget(self.overlap_mode, 4, 1)
        grid.addWidget(QLabel("Use", self), 5, 0)
        grid.addWidget(self.usage_mode, 5, 1)
        grid.addWidget(QLabel("counted on", self), 6, 0)
        grid.addWidget(self.usage_source, 6, 1)
        grid.addWidget(self.headline, 7, 0, 1, 2)
        grid.addWidget(self.histogram, 8, 0, 1, 2)
        listed = QHBoxLayout()  # "12 of 200,000 tokens listed" beside the classes that list them
        listed.addWidget(self.summary, 1)
        listed.addWidget(self.classes)
        grid.addLayout(listed, 9, 0, 1, 2)
        grid.addWidget(self.table, 10, 0, 1, 2)
        grid.setColumnStretch(1, 1)
        grid.setRowStretch(10, 1)

        # The filter runs once typing pauses (a regex over 100K tokens is not free).
        self._filter_debouncer = Debouncer(150, self)
        self._filter_debouncer.triggered.connect(self._apply_filter)
        self.filter.textChanged.connect(self._filter_debouncer.trigger)
        self.use_regex.toggled.connect(self._apply_filter)
        self.jump.valueChanged.connect(self.jump_to_id)
        self.picker.currentIndexChanged.connect(self._on_pick)
        self.compare.currentIndexChanged.connect(self._on_pick)
        self.overlap_mode.currentIndexChanged.connect(self._on_overlap_mode)
        self.classes.classesChanged.connect(self.model.set_class_filter)
        self.usage_mode.currentIndexChanged.connect(self._apply_usage_mode)
        self.usage_source.activated.connect(self._on_usage_source)
        self.usage.counted.connect(self._on_counted)
        self.usage.failed.connect(self._on_count_failed)
        self.usage.busyChanged.connect(self._on_count_busy)
        self.usage.progressed.connect(self._on_count_progress)
        self.table.exportRequested.connect(self.export_csv)
        self.model.rowsFiltered.connect(self._update_summary)
        registry.tokenizerLoaded.connect(self._on_loaded)
        registry.mergesReady.connect(self._on_merges_ready)
        registry.rowsInserted.connect(self._refill_compare)
        self._refill_compare()
        self._fill_usage_modes()
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
            self.usage.set_tokenizer(tok, self.registry.merges_ready(key))
            self.classes.set_tokenizer(tok)
            result = self.usage.result
            if result is not None and result.tokenizer is tok:
                self._on_counted(result)
            else:
                self._show_usage(None)

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
            # Without a second vocabulary the list offers to pick one (rather than sit disabled).
            self.overlap_mode.addItem("All tokens")
            self.overlap_mode.addItem("Compare with another vocabulary…")
            current = 0
        else:
            both, only_a, only_b = self._overlap
            b = self.registry.label(self.compare_key())
            total = len(both) + len(only_a)
            self.overlap_mode.addItem(f"All tokens of {a} ({total:,})")
            self.overlap_mode.addItem(f"In both ({len(both):,})")
            self.overlap_mode.addItem(f"Only in {a} ({len(only_a):,})")
            self.overlap_mode.addItem(f"Only in {b} ({len(only_b):,})")
        self.overlap_mode.setCurrentIndex(min(current, self.overlap_mode.count() - 1))
        self.overlap_mode.blockSignals(False)

    def _on_overlap_mode(self, *_args: object) -> None:
        if self._overlap is None and self.overlap_mode.currentIndex() == 1:
            self.overlap_mode.setCurrentIndex(0)
            self.compare.setFocus()
            self.compare.showPopup()
            return
        self._apply_membership()

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
            self.usage.set_merges_ready()

    def _update_summary(self) -> None:
        tok = self.model.tokenizer
        if self.model.filter_error:
            self.summary.setText(self.model.filter_error)
        elif tok is None:
            self.summary.setText("Loading…" if self.key() else "")
        else:
            self.summary.setText(f"{self.model.rowCount():,} of {tok.vocab_size:,} tokens listed")

    # ---------------------------------------------------------------- use on a text
    def _fill_usage_modes(self, result: UsageResult | None = None) -> None:
        current = max(self.usage_mode.currentIndex(), 0)
        self.usage_mode.blockSignals(True)
        self.usage_mode.clear()
        for i, (label, tip) in enumerate(usage_mode_items(result, self.usage.folder is not None)):
            self.usage_mode.addItem(label)
            self.usage_mode.setItemData(i, tip, Qt.ItemDataRole.ToolTipRole)
        self.usage_mode.setCurrentIndex(current)
        self.usage_mode.blockSignals(False)

    def usage_filter(self) -> str:
        """The usage filter chosen: one of :data:`~tokviz.gui.models.vocabulary.USAGE_MODES`."""
        return USAGE_MODES[max(self.usage_mode.currentIndex(), 0)]

    def _apply_usage_mode(self, *_args: object) -> None:
        self.model.set_usage_filter(self.usage_filter())

    def _show_usage(self, result: UsageResult | None) -> None:
        self._fill_usage_modes(result)
        if result is None:
            self.headline.setText("Counting…" if self.usage.busy else "")
            self.histogram.set_histogram(None)
            return
        u = result.usage
        self.headline.setText(
            f"<b>{u.percent()} of the vocabulary used</b> on {result.where} ({u.used:,} of {u.vocabulary:,})"
        )
        tip = f"{u.headline()}; {u.counted.tokens:,} tokens in {u.counted.bytes:,} bytes counted ({reading_note(u.tokenizer)})"
        self.headline.setToolTip(tip + (f"\n{result.note}" if result.note else ""))
        self.histogram.set_histogram(result.histogram)

    def _on_counted(self, result: UsageResult) -> None:
        if result.tokenizer is not self.model.tokenizer:
            return
        self.model.set_usage(result.usage.counts, result.never_applied)
        self._show_usage(result)
        if result.note:
            self.statusMessage.emit(result.note)

    def _on_count_failed(self, message: str) -> None:
        self.headline.setText(message)
        self.statusMessage.emit(message)

    def _on_count_busy(self, busy: bool) -> None:
        if busy and self.usage.result is None:
            self.headline.setText("Counting…")

    def _on_count_progress(self, done: int, total: int) -> None:
        if self.usage.busy and total:
            mb = 2**20
            self.headline.setText(f"Counting… {done / mb:,.1f} of {total / mb:,.1f} MB")

    def _on_usage_source(self, index: int) -> None:
        data = self.usage_source.itemData(index)
        if data == "?":
            folder = file_dialogs.get_existing_directory(self, "Count the vocabulary's use on a folder")
            if not folder:
                self.usage_source.setCurrentIndex(max(self.usage_source.findData(self.usage.folder or ""), 0))
                return
            self.count_folder(folder)
            return
        self.usage.set_folder(str(data) or None)

    def count_folder(self, folder: str | None) -> None:
        """Count the vocabulary's use on the text files of ``folder`` (None: the editor's text again)."""
        if folder:
            i = self.usage_source.findData(folder)
            if i < 0:
                self.usage_source.insertItem(1, f"folder {Path(folder).name or folder}", folder)
                self.usage_source.setItemData(1, folder, Qt.ItemDataRole.ToolTipRole)
                i = 1
            self.usage_source.setCurrentIndex(i)
        else:
            self.usage_source.setCurrentIndex(0)
        self.usage.set_folder(folder or None)
        self._show_usage(None)

    def text_edited(self) -> None:
        """The editor's text changed: its count is made again after a pause (once shown, if hidden)."""
        if self.isVisible():
            self.usage.text_edited()
        else:
            self._stale = True

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._stale:
            self._stale = False
            self.usage.text_edited()

    def export_csv(self) -> None:
        """Ask for a file and write the listed tokens (the filters applied) to it as CSV."""
        name = "-".join(regex.findall(r"[\w.]+", self.registry.label(self.key()))) or "vocabulary"
        path, _ = file_dialogs.get_save_file_name(
            self, "Export listed tokens", str(Path.home() / f"{name}-tokens.csv"), "CSV files (*.csv)"
        )
        if not path:
            return
        try:
            n = write_filtered_csv(self.model, path)
        except OSError as exc:
            self.statusMessage.emit(f"Cannot write {Path(path).name}: {exc.strerror or exc}")
            return
        self.statusMessage.emit(f"Exported {n:,} tokens to {Path(path).name}")

    def show_in_text(self, token_id: int, target: TextTarget) -> bool:
        """Select the token's next occurrence in the editor (after the cursor, wrapping); False if none."""
        tok = self.model.tokenizer
        if tok is None:
            return False
        if select_next_occurrence(target, tok, token_id):
            return True
        self.statusMessage.emit(f"{plain_token(tok.vocab[token_id])!r} does not occur in the editor's text")
        return False

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
    browser = VocabBrowser(context.tokenizers, context.parent_widget(), context.editor_text)
    dock = context.add_dock(
        browser,
        "Vocabulary",
        "vocabDock",
        shortcut="Ctrl+Shift+V",
        action_text="&Vocabulary browser",
        area="right",
        visible=True,
        # A third of the window at most: on a 1024-pixel projector the views keep the room.
        first_size=lambda: min(470, context.parent_widget().width() // 3),
    )
    browser.openTokenizerRequested.connect(context.open_tokenizer_dialog)
    browser.statusMessage.connect(context.show_status)
    context.textEdited.connect(browser.text_edited)
    browser.table.showInTextRequested.connect(lambda tid: browser.show_in_text(tid, context))
    browser.show_tokenizer(context.first_view_key(), "")
    context.referenceViewChanged.connect(browser.follow_reference)
    browser.follow_editor_font(context.text_font())
    context.fontChanged.connect(browser.follow_editor_font)
    return dock
