"""The exchange-rate chart's canvas, and its headless PNG/SVG rendering.

:class:`ChartCanvas` draws one :class:`~tokviz.core.analysis.exchange.ExchangeTable` in one of three views
(bytes per token, attention cost, vocabulary vs embedding size) with a title, a legend and a
caption; ``write_chart`` and ``plot_compare_rows`` render it offscreen for exports and
``tokviz compare --plot``. Every number comes from the core; the bars (:mod:`.chart_bars`) and the
vocabulary markers (:mod:`.chart_vocab`) are drawn by layers, the words come from
:mod:`.chart_text` and the frame (labels, plot, style, rendering) is :class:`.plot_canvas.PlotCanvas`.
The plot items are built once and then updated.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QPointF, QSize
from PySide6.QtGui import QColor, QFontMetricsF, QResizeEvent
from PySide6.QtWidgets import QWidget

from tokviz.core.analysis.exchange import DEFAULT_EMBEDDING_DIM, ExchangeTable
from tokviz.gui.drawing.chart_bars import AXIS_TITLES, BarLayer
from tokviz.gui.drawing.chart_style import (
    EXPORT_SIZE,
    LARGE_POINT_SIZE,
    VIEWS,
    ChartStyle,
    byte_color,
    series_color,
    short_labels,
)
from tokviz.gui.drawing.chart_text import (
    EMPTY_HINT,
    MEASURING_HINT,
    caption_text,
    describe_bar,
    describe_point,
    legend_html,
    title_text,
)
from tokviz.gui.drawing.chart_vocab import VocabLayer
from tokviz.gui.drawing.plot_canvas import PlotCanvas, chart_file, set_axis_title, write_offscreen
from tokviz.gui.drawing.sheet import ensure_app

if TYPE_CHECKING:
    import pyqtgraph as pg


class ChartCanvas(PlotCanvas):
    """The drawing of an :class:`ExchangeTable`: title, legend, plot and a caption, in one frame.

    It draws what it is given (``show_table``) in one of three views and knows nothing about
    where the numbers came from; exports render this frame, so a PNG or SVG matches the screen.
    """

    svg_title = "tokviz exchange rate"

    def __init__(self, parent: QWidget | None = None, show_title: bool = True) -> None:
        super().__init__(parent, "chart", "Exchange rate chart", QSize(360, 260), show_title)
        self.table: ExchangeTable | None = None
        self.view = "bytes"
        self.embedding_dim = DEFAULT_EMBEDDING_DIM
        self.slots: list[int] = []
        self.measuring = False
        self.bars = BarLayer(self)
        self.vocab = VocabLayer(self)
        self.caption.setAccessibleName("Chart summary")

    def add_items(self, plot: pg.PlotItem) -> None:
        """The bars' reference lines."""
        self.bars.build()

    # ---------------------------------------------------------------- settings
    def show_table(self, table: ExchangeTable | None, slots: Sequence[int] | None = None) -> None:
        """Draw ``table``; ``slots`` give each tokenizer's colour slot (default: by order)."""
        self.table = table
        self.slots = list(slots) if slots is not None else self._default_slots(table)
        self.redraw()

    def set_view(self, view: str) -> None:
        """``"bytes"``, ``"attention"`` or ``"vocab"``."""
        if view not in VIEWS:
            raise ValueError(f"unknown chart view {view!r}; choose one of {', '.join(VIEWS)}")
        self.view = view
        self.redraw()

    def set_measuring(self, on: bool) -> None:
        """Whether numbers are on their way (tokenizers loading, a measurement running): an empty
        chart then says "Measuring…" instead of asking for text."""
        if on != self.measuring:
            self.measuring = on
            self.redraw()

    def empty_hint(self) -> str:
        """What an empty chart says."""
        return MEASURING_HINT if self.measuring or self.table is None else EMPTY_HINT

    def set_embedding_dim(self, d: int) -> None:
        """The model width d in V x d."""
        self.embedding_dim = max(1, int(d))
        self.redraw()

    @staticmethod
    def _default_slots(table: ExchangeTable | None) -> list[int]:
        if table is None:
            return []
        slots, n = [], 0
        for j in range(len(table.tokenizers)):
            slots.append(n)
            if not table.is_byte_level(j):
                n += 1
        return slots

    def color_of(self, j: int) -> QColor:
        """Colour of tokenizer ``j`` of the current table."""
        assert self.table is not None
        if self.table.is_byte_level(j):
            return byte_color(self.style_.dark)
        slot = self.slots[j] if j < len(self.slots) else j
        return series_color(slot, self.style_.dark)

    # ---------------------------------------------------------------- queries (tests, hover)
    def bar_series(self) -> list[str]:
        """Names of the tokenizers drawn as bars in the current view, in drawing order."""
        if self.table is None or self.view == "vocab" or self.table.empty:
            return []
        return [self.table.tokenizers[j] for j in self.bar_columns()]

    def bar_heights(self) -> dict[str, list[float]]:
        """Bar heights per tokenizer as drawn (NaN where an input is empty), read back from the items."""
        out: dict[str, list[float]] = {}
        for name, item in zip(self.bar_series(), self.bars.items):
            out[name] = [float(h) for h in item.opts["height"]]
        return out

    def floor_level(self) -> float | None:
        """Height of the byte floor line in the bytes-per-token view, None when it is not drawn."""
        if not self.built or self.view != "bytes":
            return None
        _x, y = self.bars.floor.getData()
        return float(y[0]) if y is not None and len(y) else None

    def plot_title(self) -> str:
        """The title exports carry (rich text)."""
        return self.title.text()

    # ---------------------------------------------------------------- drawing
    def bar_columns(self) -> list[int]:
        """The table's columns drawn as bars in the current view (the byte tokenizer is the floor)."""
        assert self.table is not None
        if self.view == "bytes":
            return [j for j in range(len(self.table.tokenizers)) if not self.table.is_byte_level(j)]
        return list(range(len(self.table.tokenizers)))

    def apply_style(self) -> None:
        """The frame's colours and fonts, and room on the left for the widest tick label and the
        rotated axis title beside it."""
        super().apply_style()
        if self.graphics is None:
            return
        metrics = QFontMetricsF(self.style_.font())
        left = self.plot.getAxis("left")
        left.setStyle(hideOverlappingLabels=False)
        left.setWidth(int(metrics.horizontalAdvance("8.88") + metrics.height() * 1.6 + 14))

    def set_axis_labels(self, left: str, bottom: str) -> None:
        """Name the axes, in this canvas's style."""
        style = {"font-size": f"{self.style_.point_size}pt", "color": self.style_.foreground.name()}
        set_axis_title(self.plot.getAxis("left"), left, **style)
        set_axis_title(self.plot.getAxis("bottom"), bottom, **style)

    def set_bottom_title(self, text: str) -> None:
        """Change the x axis's title, keeping its style."""
        axis = self.plot.getAxis("bottom")
        if axis.labelText != text:
            set_axis_title(axis, text, **axis.labelStyle)

    def fit_axis_title(self) -> None:
        """The y axis's title in full when it fits beside the plot, else its short form, smaller if need be
        (measured as drawn: the axis cuts off what sticks out of the plot's height)."""
        titles = AXIS_TITLES.get(self.view)
        if titles is None or self.graphics is None:
            return
        axis = self.plot.getAxis("left")
        room = self.plot.vb.height() - 4
        if room <= 0:
            return
        size = self.style_.point_size

        def drawn_width(text: str, points: float) -> float:
            style = {**axis.labelStyle, "font-size": f"{points:.1f}pt"}
            if axis.labelText != text or axis.labelStyle.get("font-size") != style["font-size"]:
                set_axis_title(axis, text, **style)
            return float(axis.label.boundingRect().width())

        if drawn_width(titles[0], size) <= room:
            return
        needed = drawn_width(titles[1], size)
        if needed > room:
            drawn_width(titles[1], max(6.0, size * room / needed))

    def graphics_room(self) -> float:
        """The height left for the plot once the title, legend and summary have theirs (pixels)."""
        margins = self.frame.contentsMargins()
        width = max(1, self.width() - margins.left() - margins.right())
        used = margins.top() + margins.bottom()
        # The summary counts even while hidden (see _fit_caption), so the two decisions never chase each other.
        for label in (self.title, self.legend, self.caption):
            if not label.isHidden() or label is self.caption:
                used += label.heightForWidth(width) + self.frame.spacing()
        return float(self.height() - used)

    def _fit_caption(self) -> None:
        """Show the summary under the plot only whole: a chart too short for both (docked in
        presentation mode at 768 px) keeps the plot and puts the summary in the legend's tooltip."""
        if self.graphics is None:
            return
        fits = self.graphics_room() >= self.graphics.minimumHeight()
        if self.caption.isHidden() == fits:
            self.caption.setVisible(fits)
        self.legend.setToolTip("" if fits else self.caption.text())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit_caption()

    def reserve_bottom_axis(self, lines: float, top_lines: float = 0.0) -> None:
        """Give the x axis room for ``lines`` lines of text, and never squeeze the plot below it.

        A graphics layout short of space shrinks the axis, and the axis then drops tick labels
        that no longer fit: the minimum height keeps the category names on screen.
        """
        assert self.graphics is not None
        height = int(QFontMetricsF(self.style_.font()).height() * lines + 10)
        axis = self.plot.getAxis("bottom")
        if axis.fixedHeight != height:
            axis.setHeight(height)
        # A new fixed height alone does not lay the plot out again: the axis would keep its old one.
        axis.updateGeometry()
        self.plot.layout.invalidate()
        # The plot itself keeps 100 pixels, under a top axis of ``top_lines`` lines if there is one.
        line = QFontMetricsF(self.style_.font()).height()
        self.graphics.setMinimumHeight(height + int(line * top_lines) + 100)

    def redraw(self) -> None:
        """Draw the table in the current view and style (the bars or the vocabulary markers)."""
        super().redraw()
        table = self.table
        self.caption.setText(caption_text(table, self.view, self.embedding_dim))
        self.title.setText(title_text(self.view, self.embedding_dim))
        if self.graphics is None:
            self.legend.setText(self._legend_html())
            return
        self.hover_html = None
        self.bars.remove_lines()
        empty = table is None or table.empty or not table.tokenizers
        self.hint.setText(self.empty_hint() if empty else "")
        if self.view == "vocab":
            self.bars.clear()
            self.vocab.draw()
        else:
            self.vocab.hide(0)
            self.plot.hideAxis("top")
            self.bars.draw()
        self.legend.setText(self._legend_html())
        self.fit_to_size()

    def _legend_html(self) -> str:
        table = self.table
        if table is None or not table.tokenizers:
            return ""
        columns = self.bar_columns() if self.view == "bytes" else list(range(len(table.tokenizers)))
        return legend_html(table, self.view, self.style_, columns, self.color_of)

    def fit_to_size(self) -> None:
        """Give bars the longest value labels that fit over them (none at tiny sizes), and place the
        vocabulary view's labels where they overlap nothing."""
        if self.graphics is None:
            return
        self.fit_axis_title()
        if self.view == "vocab":
            self.vocab.place_labels()
        else:
            self.bars.fit_labels()
        self._fit_caption()

    # ---------------------------------------------------------------- hover
    def describe_bar(self, i: int, j: int) -> str:
        """The exact numbers of one bar, as HTML."""
        assert self.table is not None
        return describe_bar(self.table, i, j)

    def describe_point(self, j: int) -> str:
        """The exact numbers of one tokenizer in the vocabulary view, as HTML."""
        assert self.table is not None
        return describe_point(self.table, j, self.embedding_dim)

    def describe_at(self, x: float, y: float) -> str | None:
        """What is under the data point (x, y) of the current view, or None."""
        table = self.table
        if table is None or self.graphics is None:
            return None
        if self.view == "vocab":
            return self._describe_scene(self.plot.vb.mapViewToScene(QPointF(x, y)))
        for x0, x1, h, i, j in self.bars.geometry:
            if x0 <= x <= x1 and 0 <= y <= max(h, 0.0):
                return self.describe_bar(i, j)
        return None

    def _describe_scene(self, pos: QPointF) -> str | None:
        """The tokenizer whose marker is nearest the scene point, if one is near enough."""
        j = self.vocab.nearest(pos) if self.table is not None else None
        return None if j is None else self.describe_point(j)

    def mark_scene_positions(self) -> list[tuple[str, QPointF]]:
        """Where each tokenizer's marker of the vocabulary view is drawn, in scene coordinates."""
        if self.table is None or self.view != "vocab":
            return []
        return [(self.table.tokenizers[j], at) for j, at in self.vocab.scene_positions()]

    def numbers_csv(self) -> str:
        """The table as CSV (with the V x d of the current model width)."""
        if self.table is None:
            raise ValueError("the chart has no numbers yet")
        return self.table.to_csv(self.embedding_dim)

    def write_slide(self, out: Path, scale: float) -> None:
        """The chart as shown (view, colours, model width), at the slide's size and text size."""
        if self.table is None:
            raise ValueError("the chart has no numbers yet")
        style = replace(self.style_, large_point_size=LARGE_POINT_SIZE)
        write_chart(
            self.table,
            out,
            view=self.view,
            scale=scale,
            style=style,
            embedding_dim=self.embedding_dim,
            slots=self.slots,
        )

    def hover_text(self, pos: QPointF) -> str | None:
        """The numbers of the bar or marker under the scene point ``pos``, as HTML."""
        if not self.plot.vb.sceneBoundingRect().contains(pos):
            return None
        if self.view == "vocab":
            return self._describe_scene(pos)
        point = self.plot.vb.mapSceneToView(pos)
        return self.describe_at(point.x(), point.y())


# ----------------------------------------------------------------------------- offscreen rendering
def chart_of(
    table: ExchangeTable,
    view: str,
    style: ChartStyle | None,
    embedding_dim: int,
    slots: Sequence[int] | None,
    show_title: bool = True,
) -> ChartCanvas:
    """A canvas (not yet shown) that draws ``table`` in ``view`` and ``style``."""
    canvas = ChartCanvas(show_title=show_title)
    canvas.set_style(style or ChartStyle())
    canvas.set_embedding_dim(embedding_dim)
    canvas.view = view if view in VIEWS else "bytes"
    canvas.show_table(table, slots)
    return canvas


def render_canvas(
    table: ExchangeTable,
    *,
    view: str = "bytes",
    style: ChartStyle | None = None,
    embedding_dim: int = DEFAULT_EMBEDDING_DIM,
    slots: Sequence[int] | None = None,
    size: QSize = EXPORT_SIZE,
    show_title: bool = True,
) -> ChartCanvas:
    """A canvas laid out offscreen at ``size`` showing ``table``: what exports and the command line render
    (without its title, what the dock shows).

    Needs a QApplication. The caller owns the canvas (``deleteLater`` it when done).
    """
    canvas = chart_of(table, view, style, embedding_dim, slots, show_title)
    canvas.show_offscreen(size)
    return canvas


def write_chart(
    table: ExchangeTable,
    path: str | Path,
    *,
    view: str = "bytes",
    scale: float = 1.0,
    style: ChartStyle | None = None,
    embedding_dim: int = DEFAULT_EMBEDDING_DIM,
    slots: Sequence[int] | None = None,
    size: QSize = EXPORT_SIZE,
) -> Path:
    """Write the chart of ``table`` as PNG (at ``scale``) or SVG, chosen by the file's extension."""
    out, style = chart_file(path, scale, style)
    return write_offscreen(chart_of(table, view, style, embedding_dim, slots), out, scale, size)


def plot_compare_rows(
    rows: Sequence[Mapping[str, Any]],
    path: str | Path,
    vocab_sizes: Mapping[str, int | None] | None = None,
    *,
    view: str = "bytes",
    scale: float = 1.0,
    dark: bool = False,
    large: bool = False,
    embedding_dim: int = DEFAULT_EMBEDDING_DIM,
) -> Path:
    """Draw ``tokviz compare`` rows (labelled as the user named the tokenizers) into a PNG or SVG file."""
    ensure_app()
    renamed = short_labels([str(r["input"]) for r in rows])
    table = ExchangeTable.from_rows([dict(r, input=renamed[str(r["input"])]) for r in rows], vocab_sizes)
    return write_chart(
        table, path, view=view, scale=scale, style=ChartStyle(dark, large), embedding_dim=embedding_dim
    )
