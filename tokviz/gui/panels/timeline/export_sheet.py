"""The merge timeline as an exported picture: its plot and the table's rows on screen, whole.

Grabbing the dock draws what a narrow window shows: a table cut at its right edge, scroll bars and
all. The sheet draws the same plot and the same rows (those on screen, from the same first row)
in a table as wide and as tall as its columns and rows, with no scroll bar, as a slide needs it.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QPixmap
from PySide6.QtWidgets import QLabel, QTableView, QVBoxLayout, QWidget

from tokviz.gui.models.merge_model import MergeTableModel
from tokviz.gui.panels.timeline.merge_table import MergeTableView
from tokviz.gui.widgets.fitted_columns import rows_on_screen

# The most table rows a sheet shows (a tall dock's screenful is about this many).
MAX_SHEET_ROWS = 40


def timeline_sheet(plot: QWidget, table: QTableView, caption: str = "") -> QWidget:
    """A widget (not shown) of ``caption``, ``plot`` as it is drawn and ``table``'s rows on screen."""
    sheet = QWidget()
    sheet.setObjectName("timelineSheet")
    # Shown off screen, so that Qt lays the table out (a hidden scroll area has no viewport size yet).
    sheet.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen)
    sheet.setAutoFillBackground(True)
    sheet.setPalette(table.palette())
    sheet.setFont(table.font())
    layout = QVBoxLayout(sheet)
    layout.setContentsMargins(8, 8, 8, 8)
    if caption:
        title = QLabel(caption, sheet)
        title.setWordWrap(True)
        layout.addWidget(title)
    picture = QLabel(sheet)
    picture.setPixmap(QPixmap(plot.grab()))
    layout.addWidget(picture)
    model = table.model()
    copy, first = _whole_rows(model, table, sheet) if isinstance(model, MergeTableModel) else (None, 0)
    if copy is not None:
        layout.addWidget(copy)
    layout.addStretch(1)
    sheet.show()
    sheet.adjustSize()
    if copy is not None:
        copy.verticalScrollBar().setValue(first)  # laid out now: scroll to the live table's first row
    return sheet


def _whole_rows(model: MergeTableModel, live: QTableView, parent: QWidget) -> tuple[MergeTableView, int]:
    """A copy of the live table as tall as its rows on screen, every column whole, without scroll
    bars; and the first of those rows (the copy scrolls to it once laid out)."""
    copy = MergeTableView(model, parent)
    copy.setFont(live.font())
    header = live.horizontalHeader()
    for col in range(model.columnCount()):
        copy.setColumnHidden(col, live.isColumnHidden(col))
        copy.horizontalHeader().moveSection(copy.horizontalHeader().visualIndex(col), header.visualIndex(col))
    copy.horizontalHeader().setStretchLastSection(False)
    copy.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    copy.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    rows = rows_on_screen(live)
    shown = rows[:MAX_SHEET_ROWS] if len(rows) else range(min(model.rowCount(), MAX_SHEET_ROWS))
    copy.fitter.fit_now()
    for col in range(model.columnCount()):  # the rows shown decide the widths, as on screen
        if not copy.isColumnHidden(col):
            need = max(
                [copy.horizontalHeader().sectionSizeFromContents(col).width()]
                + [copy.sizeHintForIndex(model.index(r, col)).width() + 1 for r in shown]
            )
            copy.setColumnWidth(col, max(need, copy.columnWidth(col)))
    frame = 2 * copy.frameWidth()
    row_height = copy.verticalHeader().defaultSectionSize()
    copy.setFixedSize(
        copy.horizontalHeader().length() + frame,
        copy.horizontalHeader().sizeHint().height() + row_height * len(shown) + frame,
    )
    return copy, shown[0] if len(shown) else 0
