"""Table columns as wide as what they show, so a number is never cut to its first digits.

A right-aligned count in a column sized for a guess loses its tail without a sign ("19,021" read
as "19"), and a font change (presentation mode, zoom) makes every guess wrong. :class:`ColumnFitter`
sizes the chosen columns of a table or tree from their header and the values on screen, again
whenever the font, the model or the rows shown change; a text column may be capped, and then
elides with a visible "…" (its tooltip holds the whole text). :func:`clipped_cells` is the check:
the cells on screen whose text needs more width than their column gives.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

from PySide6.QtCore import QEvent, QModelIndex, QObject, QPersistentModelIndex, QRect, Qt, QTimer, Signal
from PySide6.QtGui import QFontMetrics, QPainter
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QHeaderView,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableView,
    QTreeView,
    QWidget,
)

ItemView = QTableView | QTreeView

# Rows measured beyond those on screen: the first and the last few (a merge table's largest counts
# are at the top, a vocabulary's largest ids at the bottom), so scrolling rarely widens a column.
EDGE_ROWS = 40
# The most rows a viewport is taken to show when it cannot say (hidden, or not laid out yet).
SCREEN_ROWS = 100


def _header(view: ItemView) -> QHeaderView:
    return view.horizontalHeader() if isinstance(view, QTableView) else view.header()


def rows_on_screen(view: ItemView) -> range:
    """The rows of the view's viewport (top-level rows for a tree)."""
    model = view.model()
    count = model.rowCount() if model is not None else 0
    if count == 0:
        return range(0)
    if isinstance(view, QTableView):
        first = view.rowAt(0)
        last = view.rowAt(view.viewport().height() - 1)
    else:
        first = view.indexAt(view.viewport().rect().topLeft()).row()
        last = view.indexAt(view.viewport().rect().bottomLeft()).row()
    first = max(first, 0)
    # Past the last row (or not laid out yet) rowAt says -1: the rows from ``first`` on, a screenful at most.
    last = min(count - 1, first + SCREEN_ROWS) if last < 0 else last
    return range(first, last + 1)


def needed_width(view: QAbstractItemView, index: QModelIndex | QPersistentModelIndex) -> int:
    """The width the cell's text (in its own font, bold or not) and its margins need."""
    plain = index if isinstance(index, QModelIndex) else index.model().index(index.row(), index.column())
    return view.sizeHintForIndex(plain).width()


def abbreviated(text: str) -> list[str]:
    """Shorter honest forms of a number, longest first: ``1,884,123`` → ``1.9 M``, ``2 M``; then ``…``."""
    digits = text.replace(",", "").strip()
    forms = []
    if digits.lstrip("-").isdigit():
        n = int(digits)
        for size, unit in ((10**9, "G"), (10**6, "M"), (10**3, "k")):
            if abs(n) >= size:
                forms += [f"{n / size:.1f} {unit}", f"{round(n / size)} {unit}"]
                break
    return [*forms, "…"]


def visible_part(view: QAbstractItemView, rect: QRect) -> QRect:
    """The part of a cell's rectangle inside the viewport (a column half scrolled off is cut)."""
    return rect.intersected(view.viewport().rect())


def shown_text(view: QAbstractItemView, index: QModelIndex | QPersistentModelIndex, width: int) -> str:
    """What a cell shows in ``width`` pixels: its text whole, or a shorter form that fits (see
    :class:`FittingDelegate`); for a text cell, the text elided with "…" as Qt draws it."""
    text = str(index.data() or "")
    margin = needed_width(view, index) - _metrics(view, index).horizontalAdvance(text)
    if _metrics(view, index).horizontalAdvance(text) + margin <= width:
        return text
    if not _is_number(index):
        return _metrics(view, index).elidedText(text, Qt.TextElideMode.ElideRight, max(0, width - margin))
    for form in abbreviated(text):
        if _metrics(view, index).horizontalAdvance(form) + margin <= width:
            return form
    return ""


def _metrics(view: QAbstractItemView, index: QModelIndex | QPersistentModelIndex) -> QFontMetrics:
    font = index.data(Qt.ItemDataRole.FontRole)
    return QFontMetrics(font) if font is not None else view.fontMetrics()


def _is_number(index: QModelIndex | QPersistentModelIndex) -> bool:
    align = index.data(Qt.ItemDataRole.TextAlignmentRole)
    right = bool(int(align or 0) & int(Qt.AlignmentFlag.AlignRight))
    return right and str(index.data() or "").replace(",", "").replace(".", "").strip().lstrip("-").isdigit()


def clipped_cells(view: ItemView) -> list[tuple[int, int, str, str]]:
    """(row, column, text, what it shows) for each cell on screen that shows a cut number: a number
    whose text runs past its column or the viewport (a shorter honest form, "1.9 M", is not cut) or a
    text that is cut without a visible "…"."""
    model = view.model()
    if model is None:
        return []  # type: ignore[unreachable]  # the stubs say never None; a view without a model returns None
    header = _header(view)
    fitting = isinstance(view.itemDelegate(), FittingDelegate)
    cut = []
    for row in rows_on_screen(view):
        for col in range(model.columnCount()):
            if header.isSectionHidden(col):
                continue
            index = model.index(row, col)
            text = str(index.data() or "")
            full = view.visualRect(index)
            seen = visible_part(view, full)
            if not text or seen.width() <= 0:
                continue
            number = _is_number(index)
            width = seen.width() if number else full.width()
            if fitting or not number:
                shown = shown_text(view, index, width)
            else:  # Qt's own delegate: a number runs past the edge of what is seen
                shown = text if needed_width(view, index) <= width else text[: len(text) // 2]
            honest = shown in (text, "") or shown in abbreviated(text) or shown.endswith("…")
            fits = _metrics(view, index).horizontalAdvance(shown) <= width
            if not (honest and fits):
                cut.append((row, col, text, shown))
    return cut


class FittingDelegate(QStyledItemDelegate):
    """Draws a number whole or, when its column (or the part of it on screen) is too narrow, as a
    shorter honest form ("1.9 M", then "…") in the part that is seen: never its first digits alone."""

    def paint(
        self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> None:
        view = self.parent()
        if not isinstance(view, QAbstractItemView) or not _is_number(index):
            super().paint(painter, option, index)
            return
        seen = visible_part(view, option.rect)
        text = str(index.data() or "")
        shown = shown_text(view, index, seen.width())
        if shown == text and seen == option.rect:
            super().paint(painter, option, index)
            return
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        opt.text = shown
        opt.rect = seen
        widget: QWidget | None = opt.widget
        style = widget.style() if widget is not None else QApplication.style()
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, widget)


class ColumnFitter(QObject):
    """Keeps ``columns`` of ``view`` as wide as their header and their values (see the module docstring).

    ``caps`` maps a text column to the most average characters it takes; longer text elides.
    ``fitted()`` fires after the widths changed (a pane may then ask for the room they need).
    """

    fitted = Signal()

    def __init__(
        self,
        view: ItemView,
        columns: Collection[int] | None = None,
        caps: dict[int, int] | None = None,
    ) -> None:
        super().__init__(view)
        self.view = view
        self.columns = columns
        self.caps = dict(caps or {})
        view.setTextElideMode(Qt.TextElideMode.ElideRight)
        view.setItemDelegate(FittingDelegate(view))
        self._grow_only = False
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self._refit)
        view.installEventFilter(self)
        view.verticalScrollBar().valueChanged.connect(self._grow)
        self._watch_model()

    def _watch_model(self) -> None:
        """Refit on the model's changes, through bound methods of this fitter: Qt drops those
        connections when the fitter goes with its view. A lambda would stay connected to a model that
        outlives the view (an exported sheet's copy of a live table) and reach a deleted timer."""
        model = self.view.model()
        if model is None:
            return  # type: ignore[unreachable]  # the stubs say never None; a view without a model returns None
        model.modelReset.connect(self._refit_all)
        model.layoutChanged.connect(self._refit_all)
        model.rowsInserted.connect(self._grow)
        model.dataChanged.connect(self._grow)
        model.headerDataChanged.connect(self._refit_all)

    def _refit_all(self, *_args: object) -> None:
        self.schedule()

    def _grow(self, *_args: object) -> None:
        self.schedule(grow_only=True)

    def schedule(self, grow_only: bool = False) -> None:
        """Fit once control returns to the event loop (many changes in a row fit once)."""
        self._grow_only = grow_only if not self._timer.isActive() else self._grow_only and grow_only
        self._timer.start()

    def fit_now(self) -> None:
        """Fit at once, from scratch."""
        self._timer.stop()
        self._grow_only = False
        self._refit()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.view and event.type() in (
            QEvent.Type.FontChange,
            QEvent.Type.StyleChange,
            QEvent.Type.Show,
            QEvent.Type.Resize,
        ):
            self.schedule(grow_only=event.type() == QEvent.Type.Resize)
        return super().eventFilter(watched, event)

    def _rows(self) -> Iterable[int]:
        model = self.view.model()
        count = model.rowCount() if model is not None else 0
        shown = rows_on_screen(self.view)
        return sorted(
            set(range(min(count, EDGE_ROWS))) | set(range(max(0, count - EDGE_ROWS), count)) | set(shown)
        )

    def widths(self) -> dict[int, int]:
        """The width each fitted column needs now (its header, its values, its cap)."""
        view, model, header = self.view, self.view.model(), _header(self.view)
        if model is None:
            return {}  # type: ignore[unreachable]  # the stubs say never None; a view without a model returns None
        columns = range(model.columnCount()) if self.columns is None else self.columns
        rows = list(self._rows())
        char = view.fontMetrics().averageCharWidth()
        grid = (
            1 if isinstance(view, QTableView) and view.showGrid() else 0
        )  # a cell is a column less its grid line
        result = {}
        for col in columns:
            if header.isSectionHidden(col):
                continue
            need = header.sectionSizeFromContents(col).width()
            for row in rows:
                need = max(need, needed_width(view, model.index(row, col)))
            if col in self.caps:
                need = min(need, max(header.sectionSizeFromContents(col).width(), self.caps[col] * char))
            result[col] = need + grid
        return result

    def _refit(self) -> None:
        header = _header(self.view)
        changed = False
        for col, need in self.widths().items():
            if self._grow_only:
                need = max(need, header.sectionSize(col))
            if need != header.sectionSize(col):
                header.resizeSection(col, need)
                changed = True
        self._grow_only = False
        if changed:
            self.fitted.emit()


def fit_columns(
    view: QAbstractItemView, columns: Collection[int] | None = None, caps: dict[int, int] | None = None
) -> ColumnFitter:
    """Size ``view``'s columns (all by default) to their contents from now on; returns the fitter."""
    assert isinstance(view, QTableView | QTreeView)
    fitter = ColumnFitter(view, columns, caps)
    fitter.schedule()
    return fitter
