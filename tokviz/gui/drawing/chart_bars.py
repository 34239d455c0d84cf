"""The bars of the exchange-rate chart's bytes-per-token and attention views.

A group of bars per input, a bar per tokenizer, each with its value on top when that fits; the byte
floor (bytes view) or the 1× line (attention view) across; and a note where an input is empty. The
pyqtgraph items are made once and then updated, as the number of inputs and tokenizers allows.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QFontMetricsF

from tokviz.core.analysis.exchange import ExchangeTable
from tokviz.gui.drawing.chart_style import byte_color
from tokviz.gui.drawing.chart_text import bar_label_texts

if TYPE_CHECKING:
    import numpy as np
    import pyqtgraph as pg

    from tokviz.gui.drawing.chart_surface import ChartSurface

# Where one bar is drawn: x from, x to, height, input row, tokenizer column.
BarGeometry = tuple[float, float, float, int, int]
# A lossy bar (text lost to <unk>) more than LOSSY_CLIP times the tallest honest one is cut at
# LOSSY_CAP times it, with a break and its value in its label: its rate is not a real one, and at
# full height it squashed every honest bar into the floor.
LOSSY_CLIP = 1.5
LOSSY_CAP = 1.3
# The most of the plot's height left over the tallest bar for its label, and the smallest font
# (a share of the value labels' own) a label turned on its side takes to fit there.
MAX_HEADROOM = 0.6
MIN_SIDE_SCALE = 0.55


def bar_value(table: ExchangeTable, view: str, i: int, j: int) -> float:
    """The height of tokenizer ``j``'s bar over input ``i`` in ``view`` (NaN when there is none)."""
    value = table.bytes_per_token(i, j) if view == "bytes" else table.attention(i, j)
    return math.nan if value is None else value


def category_labels(name: str, n_bytes: int) -> list[str]:
    """An input's x-axis label, longest first: name and size; over lines; the name alone; first
    word; 4 letters; 3; none.

    Docked at a narrow width the full labels of neighbouring groups would run into each other,
    and pyqtgraph silently drops a label that sticks out of the axis (the first group lost its).
    """
    words = name.split()
    size = f"{n_bytes:,} bytes"
    first = words[0] if words else name
    half = len(words) // 2
    two_lines = (
        "\n".join([" ".join(words[:half]), " ".join(words[half:]), size]) if half else f"{name}\n{size}"
    )
    short = first if len(first) <= 5 else first[:4] + "…"
    return [f"{name}\n{size}", two_lines, name, first, short, first[:3], ""]


# Each view's y-axis title, in full and short (a short plot cannot hold the full one).
AXIS_TITLES = {
    "bytes": ("bytes per token", "bytes/token"),
    "attention": ("attention cost (×)", "cost (×)"),
    "vocab": ("bytes per token, all inputs", "bytes/token"),
}


def bottom_title(view: str, sizes_shown: bool, counts_shown: bool) -> str:
    """The x axis's title of a bar view, naming only what the tick and bar labels show."""
    notes = ["its size in UTF-8 bytes"] if sizes_shown else []
    if view == "attention":
        notes.append(
            "bar labels: cost multiplier, then token count" if counts_shown else "bar labels: cost multiplier"
        )
    return f"input ({'; '.join(notes)})" if notes else "input"


class BarLayer:
    """The bar items of one chart canvas (a :class:`ChartSurface`), drawn from its table, view and style."""

    def __init__(self, canvas: ChartSurface) -> None:
        self.canvas = canvas
        self.items: list[pg.BarGraphItem] = []
        self.labels: list[pg.TextItem] = []
        self.label_texts: list[tuple[str, str]] = []
        self.empty_marks: list[pg.TextItem] = []
        self.geometry: list[BarGeometry] = []
        # Bars drawn shorter than their value: (input row, tokenizer column, value).
        self.clipped: list[tuple[int, int, float]] = []
        self.label_angle = 0.0
        self.top = 1.0
        # Each input's x-axis label in ever shorter forms; fit_labels picks the longest that fits.
        self.tick_variants: list[list[str]] = []
        self.tick_variant = -1

    def build(self) -> None:
        """Create the reference lines (with the canvas's plot)."""
        import pyqtgraph as pg

        self.floor = pg.PlotDataItem([], [])
        self.floor.setZValue(5)
        self.baseline = pg.PlotDataItem([], [])
        self.breaks = pg.PlotDataItem([], [], connect="pairs")
        self.breaks.setZValue(6)
        self.canvas.plot.addItem(self.breaks)

    def remove_lines(self) -> None:
        """Take the byte floor and the 1× line off the plot."""
        for item in (self.floor, self.baseline):
            if item.scene() is not None:
                self.canvas.plot.removeItem(item)

    def clear(self) -> None:
        """Hide every bar, value label and empty-input note."""
        self.geometry = []
        self.clipped = []
        self.breaks.setData([], [])
        for item in self.items:
            item.setVisible(False)
        for label in self.labels:
            label.setVisible(False)
        for mark in self.empty_marks:
            mark.setVisible(False)

    def draw(self) -> None:
        """Draw the canvas's table as bars in its current view ("bytes" or "attention")."""
        import numpy as np
        import pyqtgraph as pg

        canvas = self.canvas
        table, view, st, plot = canvas.table, canvas.view, canvas.style_, canvas.plot
        bottom = plot.getAxis("bottom")
        canvas.set_axis_labels(AXIS_TITLES[view][0], bottom_title(view, True, True))
        self.clear()
        # Categories, not numbers: no tick marks between the groups.
        bottom.setStyle(tickLength=0)
        if table is None or table.empty:
            bottom.setTicks([[]])
            plot.setRange(xRange=(-0.5, 0.5), yRange=(0, 1), padding=0)
            canvas.hint.setPos(0, 0.5)
            return
        columns = canvas.bar_columns()
        n_in, n_col = len(table.inputs), max(1, len(columns))
        group = 0.8
        width = group / n_col
        values = {
            j: np.array(
                [bar_value(table, view, i, j) if not table.is_empty(i) else np.nan for i in range(n_in)],
                dtype=float,
            )
            for j in columns
        }
        cap = self._lossy_cap(table, values)
        top = 1.0
        label_font = st.font(0.9)
        self.label_texts = []
        label_count = 0
        breaks_x: list[float] = []
        breaks_y: list[float] = []
        for k, j in enumerate(columns):
            x = np.arange(n_in) - group / 2 + (k + 0.5) * width
            heights = values[j].copy()
            for i in range(n_in):
                if cap is not None and table.metric(i, j).lossy and heights[i] > cap * LOSSY_CLIP / LOSSY_CAP:
                    self.clipped.append((i, j, float(heights[i])))
                    heights[i] = cap
                    for y in (cap * 0.86, cap * 0.9):
                        breaks_x += [float(x[i]) - width * 0.55, float(x[i]) + width * 0.55]
                        breaks_y += [y, y + cap * 0.03]
            color = canvas.color_of(j)
            if k >= len(self.items):
                self.items.append(pg.BarGraphItem(x=[], height=[], width=width))
            item = self.items[k]
            if item.scene() is None:
                plot.addItem(item)
            # A tokenizer that lost text (an <unk>, a normalizer) gets a hatched bar: its rate is not comparable.
            lossy = QBrush(color, Qt.BrushStyle.BDiagPattern)
            solid = pg.mkBrush(color)
            item.setOpts(
                x=x,
                height=heights,
                width=width * 0.92,
                brushes=[lossy if table.metric(i, j).lossy else solid for i in range(n_in)],
                pen=pg.mkPen(color.darker(130), width=st.pen_scale),
            )
            # An empty input's NaN bar draws nothing, and reads back as NaN.
            item.setVisible(True)
            top = max(top, float(np.nanmax(heights, initial=0.0)))
            clipped_here = {i for i, jj, _v in self.clipped if jj == j}
            for i in range(n_in):
                if not math.isfinite(heights[i]):
                    continue
                self.geometry.append(
                    (float(x[i]) - width / 2, float(x[i]) + width / 2, float(heights[i]), i, j)
                )
                label = self._label(label_count)
                label_count += 1
                self.label_texts.append(bar_label_texts(table, view, i, j, clipped=i in clipped_here))
                label.setFont(label_font)
                label.setColor(st.foreground)
                label.setPos(float(x[i]), float(heights[i]))
                label.setVisible(True)
        # The break across each cut bar, in the background's colour.
        self.breaks.setData(breaks_x, breaks_y)
        self.breaks.setPen(pg.mkPen(st.background, width=3 * st.pen_scale))
        self._mark_empty_inputs(table, top)
        self.tick_variants = [
            category_labels(name, table.input_bytes(i)) for i, name in enumerate(table.inputs)
        ]
        self.tick_variant = -1
        self._set_ticks(0)
        if view == "bytes":
            self.floor.setData([-0.5, n_in - 0.5], [1.0, 1.0])
            self.floor.setPen(
                pg.mkPen(byte_color(st.dark), width=2.5 * st.pen_scale, style=Qt.PenStyle.DashLine)
            )
            plot.addItem(self.floor)
        else:
            self.baseline.setData([-0.5, n_in - 0.5], [1.0, 1.0])
            self.baseline.setPen(pg.mkPen(st.muted, width=1.5 * st.pen_scale, style=Qt.PenStyle.DotLine))
            plot.addItem(self.baseline)
        self.top = top
        plot.setRange(xRange=(-0.5, n_in - 0.5), yRange=(0, top * 1.2), padding=0)
        plot.getAxis("left").setTicks(None)

    def _cut_lossy(self, table: ExchangeTable, j: int, values: np.ndarray, cap: float | None) -> np.ndarray:
        """Tokenizer ``j``'s bar heights, each lossy bar far over the honest ones cut at ``cap``."""
        heights = values.copy()
        for i in range(len(heights)):
            if cap is not None and table.metric(i, j).lossy and heights[i] > cap * LOSSY_CLIP / LOSSY_CAP:
                self.clipped.append((i, j, float(heights[i])))
                heights[i] = cap
        return heights

    def _break_marks(
        self, j: int, x: np.ndarray, width: float, heights: np.ndarray, xs: list[float], ys: list[float]
    ) -> None:
        """Add to ``xs``/``ys`` the two slanted strokes across each cut bar of tokenizer ``j``."""
        for i, column, _value in self.clipped:
            if column == j:
                for y in (heights[i] * 0.86, heights[i] * 0.9):
                    xs += [float(x[i]) - width * 0.55, float(x[i]) + width * 0.55]
                    ys += [y, y + heights[i] * 0.03]

    @staticmethod
    def _lossy_cap(table: ExchangeTable, values: dict[int, np.ndarray]) -> float | None:
        """The height lossy bars are cut at, from the tallest honest bar (None when none is honest)."""
        honest = [
            float(v[i])
            for j, v in values.items()
            for i in range(len(v))
            if math.isfinite(v[i]) and not table.metric(i, j).lossy
        ]
        return max(honest) * LOSSY_CAP if honest else None

    def _mark_empty_inputs(self, table: ExchangeTable, top: float) -> None:
        """Mark empty inputs so a missing group is explained, not mysterious."""
        st = self.canvas.style_
        marks = 0
        for i in range(len(table.inputs)):
            if table.is_empty(i):
                mark = self._empty_mark(marks)
                marks += 1
                mark.setText("empty text")
                mark.setColor(st.muted)
                mark.setFont(st.font(0.9))
                mark.setPos(i, top * 0.5)
                mark.setVisible(True)

    def _label(self, index: int) -> pg.TextItem:
        import pyqtgraph as pg

        while index >= len(self.labels):
            label = pg.TextItem("", anchor=(0.5, 1.0))
            label.setZValue(10)
            self.canvas.plot.addItem(label)
            self.labels.append(label)
        return self.labels[index]

    def _empty_mark(self, index: int) -> pg.TextItem:
        import pyqtgraph as pg

        while index >= len(self.empty_marks):
            mark = pg.TextItem("", anchor=(0.5, 0.5))
            self.canvas.plot.addItem(mark)
            self.empty_marks.append(mark)
        return self.empty_marks[index]

    def _set_ticks(self, variant: int) -> None:
        """Label the inputs on the x axis with the given form of their names."""
        if variant == self.tick_variant or not self.tick_variants:
            return
        self.tick_variant = variant
        texts = [forms[variant] for forms in self.tick_variants]
        self.canvas.plot.getAxis("bottom").setTicks([list(enumerate(texts)), []])
        self.canvas.reserve_bottom_axis(max(t.count("\n") + 1 for t in texts) + 1.4)

    def _fit_ticks(self, slot_px: float) -> None:
        """Use the longest form of the x-axis labels whose every line fits its input's slot."""
        if not self.tick_variants:
            return
        metrics = QFontMetricsF(
            self.canvas.plot.getAxis("bottom").style.get("tickFont") or self.canvas.style_.font()
        )
        room = slot_px - 8
        # A short chart (a docked one in presentation mode) keeps room for the plot and the summary
        # under it: no more label lines than its height allows (see ChartCanvas.reserve_bottom_axis).
        max_lines = max(1, int((self.canvas.graphics_room() - 130) / metrics.height() - 1.4))
        for variant in range(len(self.tick_variants[0])):
            widest = max(
                metrics.horizontalAdvance(line)
                for forms in self.tick_variants
                for line in forms[variant].split("\n")
            )
            lines = max(forms[variant].count("\n") + 1 for forms in self.tick_variants)
            if widest <= room and lines <= max_lines:
                break
        self._set_ticks(variant)

    def fit_labels(self) -> None:
        """Give bars the longest value labels that fit over them (none at tiny sizes), and the inputs
        the longest names that fit under them."""
        if not self.geometry:
            return
        plot = self.canvas.plot
        px, _py = plot.vb.viewPixelSize()
        if not px or not math.isfinite(px):
            return
        self._fit_ticks(1 / px)
        bar_px = (self.geometry[0][1] - self.geometry[0][0]) / px
        metrics = QFontMetricsF(self.canvas.style_.font(0.9))
        labels = self.labels[: len(self.geometry)]

        def widest(variant: int) -> float:
            return max(
                metrics.horizontalAdvance(line)
                for texts in self.label_texts
                for line in texts[variant].split("<br>")
            )

        variant = next((v for v in (0, 1) if widest(v) <= bar_px * 1.15), None)
        # Too narrow for either: the short values on their side, in a font no taller than the bar is wide.
        scale = 1.0 if variant is not None else min(1.0, max(0.55, bar_px / metrics.height()))
        height = plot.vb.height()
        if variant is None:
            # A short plot in a large font: a smaller font, or the tallest label would reach past the top.
            longest = max(metrics.horizontalAdvance(t[1]) + metrics.height() for t in self.label_texts)
            scale = max(MIN_SIDE_SCALE, min(scale, MAX_HEADROOM * height / (0.9 * longest)))
        font = self.canvas.style_.font(0.9 * scale)
        side = QFontMetricsF(font)
        if variant is None:
            room_px = max(side.horizontalAdvance(t[1]) for t in self.label_texts) + side.height()
        else:
            lines = max(t[variant].count("<br>") + 1 for t in self.label_texts)
            room_px = lines * metrics.height() + 10
        # Headroom over the tallest bar for its label, in pixels whatever the plot's height.
        room = room_px / height if height > 0 else 0.2
        top = self.top / (1 - min(room, MAX_HEADROOM))
        if not math.isclose(plot.vb.viewRange()[1][1], top, rel_tol=1e-3):
            # A hair below zero, or the axis drops the 0 tick that sits exactly on the plot's edge.
            plot.setYRange(-top * 0.002, top, padding=0)
        self.label_angle = 0.0 if variant is not None else 90.0
        sizes_shown = self.tick_variant in (0, 1)
        self.canvas.set_bottom_title(bottom_title(self.canvas.view, sizes_shown, variant == 0))
        for label, texts in zip(labels, self.label_texts):
            if variant is None:
                label.setAngle(90)
                label.setAnchor((0.0, 0.5))
                label.setFont(font)
                label.setTextWidth(-1)
                label.setHtml(texts[1])
            else:
                text = texts[variant]
                label.setAngle(0)
                label.setAnchor((0.5, 1.0))
                label.setFont(self.canvas.style_.font(0.9))
                label.setTextWidth(max(metrics.horizontalAdvance(line) for line in text.split("<br>")) + 12)
                label.setHtml(f"<div style='text-align:center'>{text}</div>")
            label.setVisible(True)
