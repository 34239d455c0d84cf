"""The vocabulary browser's table: copy rows, a context menu, export of the filtered list, show in text.

Ctrl+C copies the selected rows as tab-separated text with the tokens' real spaces (the table
draws them as ``·``), so they paste into a spreadsheet as cells. The context menu copies the token,
its id or the whole row, and finds the token in the editor's text; File-like export writes every
row the filters keep as CSV.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from PySide6.QtCore import QPoint, Qt, Signal
from PySide6.QtGui import QAction, QGuiApplication, QKeySequence
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QMenu, QTableView, QWidget

from tokviz.core.bpe.tokenizer import Tokenizer
from tokviz.core.io.atomic import atomic_write_text
from tokviz.gui.models.vocabulary import (
    BYTES,
    COLUMNS,
    COUNT,
    ID,
    LENGTH,
    PARENTS,
    RANK,
    TOKEN,
    VocabModel,
    plain_token,
)
from tokviz.gui.widgets.fitted_columns import fit_columns


class VocabTable(QTableView):
    """A table of :class:`VocabModel` rows that copies real text and offers a context menu: rows
    selected whole, sorted by id at first, the count beside the token, number columns as narrow
    as their numbers allow and never cut.

    ``showInTextRequested(id)`` asks for the token's next occurrence in the editor's text;
    ``exportRequested()`` asks for the filtered list to be saved (the panel picks the file).
    """

    showInTextRequested = Signal(int)
    exportRequested = Signal()

    def __init__(self, model: VocabModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.vocab_model = model
        self.setModel(model)
        self.setTabKeyNavigation(False)  # Tab moves on to the next control, as everywhere else
        self.setObjectName("vocabTable")
        self.setAccessibleName("Vocabulary")
        self.setSortingEnabled(True)
        self.sortByColumn(ID, Qt.SortOrder.AscendingOrder)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setAlternatingRowColors(True)
        self.verticalHeader().hide()
        self.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.horizontalHeader().setStretchLastSection(True)
        # The count is read beside the token: shown third (the model's columns keep their order).
        self.horizontalHeader().moveSection(COUNT, TOKEN + 1)
        self.setWordWrap(False)
        # The token is what one reads: its column is the wide one; numbers need few digits.
        for col, width in (
            (ID, 58),
            (TOKEN, 150),
            (COUNT, 64),
            (BYTES, 92),
            (LENGTH, 50),
            (RANK, 70),
            (PARENTS, 140),
        ):
            # Numeric columns are as wide as their title (and the sort arrow), no wider.
            title = self.horizontalHeader().fontMetrics().horizontalAdvance(COLUMNS[col]) + 26
            self.setColumnWidth(col, width if col in (TOKEN, PARENTS, BYTES) else max(width, title))
        # Numbers follow what they show (a usage count of a whole corpus, a 100,000th id): never cut.
        fit_columns(self, columns=(ID, COUNT, LENGTH, RANK))

        self.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.customContextMenuRequested.connect(self._menu)
        self.copy_action = QAction("&Copy rows", self)
        self.copy_action.setShortcut(QKeySequence.StandardKey.Copy)
        self.copy_action.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
        self.copy_action.triggered.connect(self.copy_selection)
        self.addAction(self.copy_action)

    def selected_rows(self) -> list[int]:
        """The selected rows in the order shown (the current row when nothing is selected)."""
        rows = (
            sorted({i.row() for i in self.selectionModel().selectedRows()}) if self.selectionModel() else []
        )
        if not rows and self.currentIndex().isValid():
            rows = [self.currentIndex().row()]
        return rows

    def copy_selection(self) -> str:
        """Copy the selected rows as TSV with a header line, columns as on screen (real spaces; tabs and
        newlines in a token escaped); returns it."""
        header = self.horizontalHeader()
        shown = [header.logicalIndex(v) for v in range(header.count())]  # the order on screen, with a header
        columns = [c for c in shown if not header.isSectionHidden(c)]
        text = self.vocab_model.rows_tsv(self.selected_rows(), columns)
        if text:
            QGuiApplication.clipboard().setText(text)
        return text

    def _copy(self, text: str) -> None:
        QGuiApplication.clipboard().setText(text)

    def _menu(self, pos: QPoint) -> None:
        index = self.indexAt(pos)
        menu = QMenu(self)
        menu.setObjectName("vocabContextMenu")
        if index.isValid():
            if index.row() not in self.selected_rows():
                self.selectRow(index.row())
            tid = self.vocab_model.token_id(index.row())
            tok = self.vocab_model.tokenizer
            assert tok is not None
            menu.addAction("Copy &token", lambda: self._copy(plain_token(tok.vocab[tid])))
            menu.addAction("Copy &id", lambda: self._copy(str(tid)))
            rows = len(self.selected_rows())
            menu.addAction(self.copy_action)
            self.copy_action.setText("Copy &row" if rows == 1 else f"Copy {rows:,} &rows")
            menu.addSeparator()
            menu.addAction("&Show in text", lambda: self.showInTextRequested.emit(tid))
            menu.addSeparator()
        export = menu.addAction(
            f"&Export {self.vocab_model.rowCount():,} listed tokens to CSV…", self.exportRequested.emit
        )
        export.setEnabled(self.vocab_model.rowCount() > 0)
        menu.popup(self.viewport().mapToGlobal(pos))


def write_filtered_csv(model: VocabModel, path: str | Path) -> int:
    """Write the rows the filters keep to ``path`` as CSV (atomically); returns how many rows."""
    atomic_write_text(path, model.filtered_csv())
    return model.rowCount()


class TextTarget(Protocol):
    """Where "Show in text" selects: the editor, reached through the panel context."""

    def editor_text(self) -> str: ...

    def editor_selection(self) -> tuple[int, int]: ...

    def show_in_editor(self, start: int, end: int) -> None: ...


def select_next_occurrence(target: TextTarget, tokenizer: Tokenizer, token_id: int) -> bool:
    """Select the next place ``tokenizer`` makes ``token_id`` in the target's text (after the
    selection, wrapping to the first); False when the text has none."""
    after = target.editor_selection()[1]
    spans = [(s.start, s.end) for s in tokenizer.encode_spans(target.editor_text()) if s.id == token_id]
    if not spans:
        return False
    start, end = next(((a, b) for a, b in spans if a >= after), spans[0])
    target.show_in_editor(start, end)
    return True
