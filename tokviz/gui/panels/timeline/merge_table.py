"""The timeline's merge table: one row per merge step, sized from the font, following the step shown."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QModelIndex, QSize, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QHeaderView,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from tokviz.gui.models.merge_model import CORPUS_TOKENS, COUNT, ID, MERGE, NEW, STEP, TIES, MergeTableModel
from tokviz.gui.widgets.fitted_columns import fit_columns

# Text columns take at most this many average characters; a longer token elides with "…".
TEXT_CAPS = {MERGE: 16, NEW: 12}
# The columns a narrow dock (a 1024 px projector) keeps on screen, in the order shown.
KEY_COLUMNS = (STEP, MERGE, NEW, COUNT)


class MergeTableView(QTableView):
    """A table over a :class:`MergeTableModel` that selects whole rows, one at a time."""

    def __init__(self, model: MergeTableModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTabKeyNavigation(False)  # Tab moves on to the next control, as everywhere else
        self.setObjectName("mergeTable")
        self.setAccessibleName("Merges")
        self.setModel(model)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setAlternatingRowColors(True)
        self.setWordWrap(False)
        self.verticalHeader().hide()
        self.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self._fit_row_height()
        header = self.horizontalHeader()
        header.setStretchLastSection(True)
        header.setHighlightSections(False)
        # A training run's Count and Ties come right after the new token, the id after them: in a
        # narrow dock (a 1024 px projector) they are the columns a lecturer shows.
        header.moveSection(header.visualIndex(ID), header.visualIndex(TIES))
        self.fitter = fit_columns(self, caps=TEXT_CAPS)
        model.modelReset.connect(self.show_history_columns)
        model.rowsInserted.connect(self.show_history_columns)
        self.show_history_columns()

    def _fit_row_height(self) -> None:
        self.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 6)

    def changeEvent(self, event: QEvent) -> None:
        """Rows grow with the font (presentation mode's larger font would be cut at the old height)."""
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            self._fit_row_height()

    def show_history_columns(self, *_args: object) -> None:
        """Count, Ties and Corpus tokens only for merges that come with a training history."""
        model = self.model()
        shown = isinstance(model, MergeTableModel) and model.has_history()
        for col in (COUNT, TIES, CORPUS_TOKENS):
            if self.isColumnHidden(col) == shown:
                self.setColumnHidden(col, not shown)

    def key_columns_width(self) -> int:
        """The width that shows the key columns whole, with the scroll bar and the frame."""
        columns = sum(self.columnWidth(c) for c in KEY_COLUMNS if not self.isColumnHidden(c))
        return columns + self.verticalScrollBar().sizeHint().width() + 2 * self.frameWidth()

    def columns_width(self) -> int:
        """The width that shows every column shown whole, with the scroll bar and the frame."""
        header = self.horizontalHeader()
        columns = sum(header.sectionSize(c) for c in range(header.count()) if not self.isColumnHidden(c))
        return columns + self.verticalScrollBar().sizeHint().width() + 2 * self.frameWidth()

    def show_row(self, row: int) -> None:
        """Select ``row`` and scroll it into view."""
        index = self.model().index(row, 0)
        selection = self.selectionModel()
        selection.setCurrentIndex(
            index, selection.SelectionFlag.ClearAndSelect | selection.SelectionFlag.Rows
        )
        self.scrollTo(index, QAbstractItemView.ScrollHint.EnsureVisible)


class MergeTablePane(QWidget):
    """The merge table over its "only merges that change the text" switch.

    ``stepPicked(step)`` when the user clicks or activates a row (not while a model trains).
    """

    stepPicked = Signal(int)

    def __init__(self, model: MergeTableModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = model
        self.table = MergeTableView(model, self)
        self.changes_only = QCheckBox("Only changes", self)
        self.changes_only.setObjectName("changesOnly")
        self.changes_only.setToolTip("Only the merges that change the editor's text (hide the others)")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.changes_only)
        self.table.fitter.fitted.connect(self.updateGeometry)
        self.table.fitter.fitted.connect(self.claim_columns_width)
        self._syncing = False
        self.table.clicked.connect(self._on_row_clicked)
        self.table.activated.connect(self._on_row_clicked)

    def minimumSizeHint(self) -> QSize:
        """Never narrower than the key columns (step, merge, new token, count) need."""
        hint = super().minimumSizeHint()
        return QSize(max(hint.width(), self.table.key_columns_width()), hint.height())

    def claim_columns_width(self) -> None:
        """In a splitter beside one other pane, widen this one until every column shows whole (the
        columns grew: a larger font, longer counts), as far as the other can spare: it keeps two
        fifths of the width and its minimum."""
        splitter = self.parentWidget()
        if not isinstance(splitter, QSplitter) or splitter.count() != 2:
            return
        sizes = splitter.sizes()
        mine = splitter.indexOf(self)
        need = self.table.columns_width()
        if need <= sizes[mine]:
            return
        total = sum(sizes)
        other = splitter.widget(1 - mine)
        keep = max(other.minimumSizeHint().width() if other is not None else 0, total * 2 // 5)
        width = min(need, total - keep)
        if width > sizes[mine]:
            splitter.setSizes([total - width, width] if mine == 1 else [width, total - width])

    def follow_step(self, step: int) -> None:
        """Shade ``step``'s row, or the nearest one shown, and scroll it into view."""
        self.model.set_current_step(step)
        row = self.model.nearest_row(step)
        if row >= 0:
            self._syncing = True
            try:
                self.table.show_row(row)
            finally:
                self._syncing = False

    def _on_row_clicked(self, index: QModelIndex) -> None:
        if self._syncing or not index.isValid() or self.model.live:
            return
        self.stepPicked.emit(self.model.step_of_row(index.row()))
