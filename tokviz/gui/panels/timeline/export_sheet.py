"""The merge timeline as an exported picture: caption, token strip, plot with its legend, table.

Grabbing the dock draws what a narrow window shows: a table cut at its right edge, scroll bars and
all. The sheet draws the same things laid out for a slide: the caption, the text's tokens at the
step shown (the new merge's tokens outlined) with its lines whole, the plot and a legend of its
lines, and the table's rows on screen (from the same first row) as wide and as tall as its columns
and rows, with no scroll bar. Everything is drawn when the picture is made, at the picture's
scale: a 2× export is drawn at 2×, not a 1× screenshot scaled up.
"""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QPainter, QPaintEvent
from PySide6.QtWidgets import QLabel, QTableView, QVBoxLayout, QWidget

from tokviz.gui.models.merge_model import MergeTableModel
from tokviz.gui.panels.timeline.merge_table import MergeTableView
from tokviz.gui.panels.timeline.plot import TokenCountPlot
from tokviz.gui.panels.timeline.view import ReplayView
from tokviz.gui.widgets.fitted_columns import rows_on_screen

# The most table rows a sheet shows (a tall dock's screenful is about this many).
MAX_SHEET_ROWS = 40
# The most lines of the text's tokens a sheet shows (a long text: those around the step shown).
MAX_STRIP_ROWS = 12


class PlotPicture(QWidget):
    """Draws the plot's scene as it is whenever this widget is painted, at the painter's resolution.

    A plot grabbed into a pixmap is a 1× bitmap that a 2× export can only scale up; drawn here
    from its scene, its lines and text are drawn again at the export's scale.
    """

    def __init__(self, plot: TokenCountPlot, parent: QWidget) -> None:
        super().__init__(parent)
        self.setObjectName("timelineSheetPlot")
        self.plot = plot
        self.setFixedSize(plot.size())

    def paintEvent(self, event: QPaintEvent) -> None:
        graphics = self.plot.widget
        if graphics is None:
            return
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.fillRect(self.rect(), graphics.backgroundBrush())
        source = graphics.viewport().rect()
        graphics.render(painter, QRectF(graphics.geometry()), source)
        painter.end()


def timeline_sheet(plot: TokenCountPlot, table: QTableView, view: ReplayView, caption: str = "") -> QWidget:
    """A widget (not shown) of ``caption``, ``view``'s tokens, ``plot`` and its legend, and
    ``table``'s rows on screen."""
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
        title.setObjectName("timelineSheetCaption")
        title.setWordWrap(True)
        layout.addWidget(title)
    strip = _token_strip(view, sheet)
    if strip is not None:
        layout.addWidget(strip)
    layout.addWidget(PlotPicture(plot, sheet))
    legend = plot.legend_html()
    if legend:
        key = QLabel(legend, sheet)
        key.setObjectName("timelineSheetLegend")
        key.setTextFormat(Qt.TextFormat.RichText)
        key.setWordWrap(True)
        layout.addWidget(key)
    model = table.model()
    copy, first = _whole_rows(model, table, sheet) if isinstance(model, MergeTableModel) else (None, 0)
    if copy is not None:
        layout.addWidget(copy)
    layout.addStretch(1)
    width = max([plot.width()] + ([copy.width()] if copy is not None else []))
    if strip is not None:
        strip.setFixedWidth(width)
    sheet.show()
    if strip is not None:
        _fit_strip(strip, view)
    sheet.adjustSize()
    if copy is not None:
        copy.verticalScrollBar().setValue(first)  # laid out now: scroll to the live table's first row
    return sheet


def _token_strip(view: ReplayView, parent: QWidget) -> ReplayView | None:
    """A copy of the replay view (same tokens, colours, marks and font) without scroll bars."""
    if view.table is None or view.tokenizer is None:
        return None
    strip = ReplayView(parent)
    strip.setObjectName("timelineSheetTokens")
    strip.setFont(view.font())
    strip.set_colors(view.colors)
    strip.set_options(view.options)
    strip.set_show_chunks(view.show_chunks)
    strip.set_content(view.table, view.tokenizer)
    strip.set_marked(view.marked)
    strip.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    strip.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    return strip


def _fit_strip(strip: ReplayView, live: ReplayView) -> None:
    """As tall as the text's lines at the strip's width, up to ``MAX_STRIP_ROWS``, from where the
    live view is."""
    _baseline, row = strip.row_metrics()
    lines = 0
    block = strip.document().firstBlock()
    while block.isValid() and lines < MAX_STRIP_ROWS:
        layout = block.layout()
        lines += layout.lineCount() if layout is not None and layout.lineCount() else 1
        block = block.next()
    margins = strip.contentsMargins()
    strip.setFixedHeight(
        int(min(lines, MAX_STRIP_ROWS) * row)
        + 2 * int(strip.document().documentMargin())
        + margins.top()
        + margins.bottom()
    )
    if lines >= MAX_STRIP_ROWS:
        strip.scroll_to_source(live.top_source_position())


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
