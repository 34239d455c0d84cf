"""Drawing the exchange-rate chart: the canvas, its style, and headless PNG/SVG rendering.

:class:`ChartCanvas` draws one :class:`~tokviz.core.exchange.ExchangeTable` in one of three views
(bytes per token, attention cost, vocabulary vs embedding size); ``write_chart`` and
``plot_compare_rows`` render it offscreen for exports and ``tokviz compare --plot``. Every number
comes from the core; this module only draws. pyqtgraph is imported when a canvas is first built
(it takes most of a second), and the plot items are built once and then updated.
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import (
    QEvent,
    QPoint,
    QPointF,
    QRectF,
    QSize,
    Qt,
)
from PySide6.QtGui import QColor, QCursor, QFont, QFontMetricsF, QImage, QPainter, QPalette
from PySide6.QtWidgets import (
    QGraphicsView,
    QLabel,
    QSizePolicy,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from tokviz.core.errors import ExportError
from tokviz.core.exchange import (
    DEFAULT_EMBEDDING_DIM,
    ExchangeTable,
    attention_caption,
    caption,
    embedding_caption,
    format_count,
    format_factor,
)
from tokviz.core.metrics import TextMetrics
from tokviz.gui.drawing.images import blank_image, check_scale, svg_drawing, write_image
from tokviz.gui.style.theme import token_colors
from tokviz.gui.text.samples import CATEGORY_SAMPLES

if TYPE_CHECKING:
    import pyqtgraph as pg


VIEWS = {
    "bytes": "Bytes per token",
    "attention": "Attention cost",
    "vocab": "Vocabulary vs embedding size",
}
VIEW_TIPS = {
    "bytes": "UTF-8 bytes over tokens for every input and tokenizer: higher means more text per token",
    "attention": "Dense attention cost (n / n_best)² against the tokenizer with the fewest tokens",
    "vocab": "What a bigger vocabulary costs (V × d embedding parameters) and buys (bytes per token)",
}
EDITOR_LABEL = "Editor text"
# Short names for the category samples: they are the x-axis labels.
SAMPLE_LABELS = {
    "english.txt": "English prose",
    "python.py": "Python source",
    "data.json": "JSON",
    "chinese.txt": "Chinese",
    "digits.txt": "Digits (π)",
}
# Exports have the shape of a slide whatever the dock's shape on screen.
EXPORT_SIZE = QSize(1280, 720)
# Series hues (degrees) from the token views' palette, in the order tokenizers are added: GPT-2
# blue, cl100k green, then magenta, violet, teal, red, ... Amber is left to the byte tokenizer.
SERIES_HUES = (215, 150, 320, 280, 175, 0, 245, 110, 195, 72)
BASE_POINT_SIZE = 10.0
LARGE_POINT_SIZE = 15.0
DEBOUNCE_MS = 150
CACHE_ENTRIES = 256


def series_color(slot: int, dark: bool) -> QColor:
    """Fill colour of the ``slot``-th tokenizer that is not byte-level, for a light or dark background."""
    hue = SERIES_HUES[slot % len(SERIES_HUES)] / 360.0
    return QColor.fromHslF(hue, 0.68, 0.62 if dark else 0.47)


def byte_color(dark: bool) -> QColor:
    """The byte tokenizer's colour: the amber the token views give tokens that are single bytes of a character."""
    return token_colors(dark).partial_border


@dataclass(frozen=True)
class ChartInput:
    """One group of bars: the editor's text, a category sample, or a file the user added."""

    label: str
    text: str
    kind: str  # "editor", "sample" or "file"


def sample_inputs() -> list[ChartInput]:
    """The five category samples (English prose, Python source, JSON, Chinese, digits)."""
    return [
        ChartInput(SAMPLE_LABELS.get(s.filename or "", s.title), s.load(), "sample") for s in CATEGORY_SAMPLES
    ]


def _esc(text: str) -> str:
    return html.escape(text, quote=False)


def _fmt_bpt(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}"


@dataclass(frozen=True)
class ChartStyle:
    """Colours and font sizes of one rendering: light or dark, normal or presentation size."""

    dark: bool = False
    large: bool = False
    # Line widths and marker sizes are in device pixels: a 2x image needs them doubled.
    pen_scale: float = 1.0

    @property
    def point_size(self) -> float:
        """Size of tick labels, legend and caption; titles and bar labels are derived from it."""
        return LARGE_POINT_SIZE if self.large else BASE_POINT_SIZE

    @property
    def background(self) -> QColor:
        """The token views' background, so the chart sits in the window like they do."""
        return token_colors(self.dark).base

    @property
    def foreground(self) -> QColor:
        """Text and tick labels."""
        return token_colors(self.dark).text

    @property
    def muted(self) -> QColor:
        """Axis lines, reference lines and hints."""
        return token_colors(self.dark).muted

    def font(self, scale: float = 1.0, bold: bool = False) -> QFont:
        """The application's font at this style's size times ``scale``."""
        font = QFont()
        font.setPointSizeF(self.point_size * scale)
        font.setBold(bold)
        return font


class ChartCanvas(QWidget):
    """The drawing of an :class:`ExchangeTable`: title, legend, plot and a caption, in one frame.

    It draws what it is given (``show_table``) in one of three views and knows nothing about
    where the numbers came from; exports render this frame, so a PNG or SVG matches the screen.
    """

    def __init__(self, parent: QWidget | None = None, show_title: bool = True) -> None:
        super().__init__(parent)
        self.setObjectName("chartCanvas")
        self.setAccessibleName("Exchange rate chart")
        self.setMinimumSize(360, 260)
        self.setAutoFillBackground(True)
        self.table: ExchangeTable | None = None
        self.view = "bytes"
        self.style_ = ChartStyle()
        self.embedding_dim = DEFAULT_EMBEDDING_DIM
        self.slots: list[int] = []
        self.hover_html: str | None = None
        self._bars: list[pg.BarGraphItem] = []
        self._labels: list[pg.TextItem] = []
        # Vocabulary view: a marker and its label per tokenizer, and the tokenizer's column.
        self._marks: list[tuple[pg.ScatterPlotItem, pg.TextItem]] = []
        self._mark_info: list[int] = []
        self._mark_html: dict[int, tuple[str, str]] = {}
        self._label_texts: list[tuple[str, str]] = []
        self._bars_top = 1.0
        self._bar_geometry: list[tuple[float, float, float, int, int]] = []
        self._empty_marks: list[pg.TextItem] = []
        self.graphics: pg.GraphicsLayoutWidget | None = None

        self.title = QLabel(self)
        self.title.setObjectName("chartTitle")
        self.title.setWordWrap(True)
        # On screen the view picker names the view; exports carry the full title.
        self.title.setVisible(show_title)
        self.legend = QLabel(self)
        self.legend.setObjectName("chartLegend")
        self.legend.setWordWrap(True)
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        self.caption = QLabel(self)
        self.caption.setObjectName("chartCaption")
        self.caption.setWordWrap(True)
        self.caption.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.caption.setAccessibleName("Chart summary")
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(12, 8, 12, 8)
        self._layout.setSpacing(4)
        self._layout.addWidget(self.title)
        self._layout.addWidget(self.legend)
        self._layout.addWidget(self.caption)

    # ---------------------------------------------------------------- building
    @property
    def built(self) -> bool:
        """True once the pyqtgraph items exist."""
        return self.graphics is not None

    def showEvent(self, event: QEvent) -> None:
        super().showEvent(event)
        self.build()

    def build(self) -> None:
        """Create the plot and its items (on first show; tests and the command line call it directly)."""
        if self.graphics is not None:
            return
        import pyqtgraph as pg

        graphics = pg.GraphicsLayoutWidget(self)
        graphics.setObjectName("chartGraphics")
        graphics.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        graphics.ci.layout.setContentsMargins(0, 4, 8, 0)
        self._layout.insertWidget(2, graphics, 1)
        self.graphics = graphics
        plot = graphics.addPlot(row=0, col=0)
        plot.setMenuEnabled(False)
        plot.setMouseEnabled(x=False, y=False)
        plot.hideButtons()
        plot.vb.setDefaultPadding(0.0)
        self.plot = plot
        self.floor = pg.PlotDataItem([], [])
        self.floor.setZValue(5)
        self.baseline = pg.PlotDataItem([], [])
        self.hint = pg.TextItem("", anchor=(0.5, 0.5))
        self.hint.setZValue(20)
        plot.addItem(self.hint)
        graphics.scene().sigMouseMoved.connect(self._on_mouse_moved)
        plot.vb.sigResized.connect(self._fit_labels)
        self._redraw()

    # ---------------------------------------------------------------- settings
    def show_table(self, table: ExchangeTable | None, slots: Sequence[int] | None = None) -> None:
        """Draw ``table``; ``slots`` give each tokenizer's colour slot (default: by order)."""
        self.table = table
        self.slots = list(slots) if slots is not None else self._default_slots(table)
        self._redraw()

    def set_view(self, view: str) -> None:
        """``"bytes"``, ``"attention"`` or ``"vocab"``."""
        if view not in VIEWS:
            raise ValueError(f"unknown chart view {view!r}; choose one of {', '.join(VIEWS)}")
        self.view = view
        self._redraw()

    def set_style(self, style: ChartStyle) -> None:
        """Light or dark colours, normal or presentation-size text."""
        self.style_ = style
        self._redraw()

    def set_embedding_dim(self, d: int) -> None:
        """The model width d in V x d."""
        self.embedding_dim = max(1, int(d))
        self._redraw()

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
        return [self.table.tokenizers[j] for j in self._bar_columns()]

    def bar_heights(self) -> dict[str, list[float]]:
        """Bar heights per tokenizer as drawn (NaN where an input is empty), read back from the items."""
        out: dict[str, list[float]] = {}
        for name, item in zip(self.bar_series(), self._bars):
            out[name] = [float(h) for h in item.opts["height"]]
        return out

    def floor_level(self) -> float | None:
        """Height of the byte floor line in the bytes-per-token view, None when it is not drawn."""
        if not self.built or self.view != "bytes":
            return None
        _x, y = self.floor.getData()
        return float(y[0]) if y is not None and len(y) else None

    def plot_title(self) -> str:
        """The title exports carry (rich text)."""
        return self.title.text()

    # ---------------------------------------------------------------- drawing
    def _bar_columns(self) -> list[int]:
        assert self.table is not None
        if self.view == "bytes":
            return [j for j in range(len(self.table.tokenizers)) if not self.table.is_byte_level(j)]
        return list(range(len(self.table.tokenizers)))

    def _apply_palette(self) -> None:
        st = self.style_
        pal = self.palette()
        for group in (QPalette.ColorGroup.Active, QPalette.ColorGroup.Inactive):
            pal.setColor(group, QPalette.ColorRole.Window, st.background)
            pal.setColor(group, QPalette.ColorRole.WindowText, st.foreground)
            pal.setColor(group, QPalette.ColorRole.Text, st.foreground)
        self.setPalette(pal)
        self.title.setFont(st.font(1.3, bold=True))
        self.legend.setFont(st.font())
        self.caption.setFont(st.font(1.1))
        if self.graphics is None:
            return
        import pyqtgraph as pg

        self.graphics.setBackground(st.background)
        fg = st.foreground
        for name in ("left", "bottom"):
            axis = self.plot.getAxis(name)
            axis.setPen(pg.mkPen(st.muted, width=st.pen_scale))
            axis.setTextPen(pg.mkPen(fg))
            axis.enableAutoSIPrefix(False)
            axis.setStyle(tickFont=st.font(), tickTextOffset=6, autoExpandTextSpace=True)
        # Room for the widest tick label and the rotated axis title beside it.
        metrics = QFontMetricsF(st.font())
        self.plot.getAxis("left").setStyle(hideOverlappingLabels=False)
        self.plot.getAxis("left").setWidth(
            int(metrics.horizontalAdvance("8.88") + metrics.height() * 1.6 + 14)
        )
        self.hint.setColor(st.muted)
        self.hint.setFont(st.font(1.2))

    def _set_axis_labels(self, left: str, bottom: str) -> None:
        style = {"font-size": f"{self.style_.point_size}pt", "color": self.style_.foreground.name()}
        self.plot.setLabel("left", left, **style)
        self.plot.setLabel("bottom", bottom, **style)

    def _redraw(self) -> None:
        self._apply_palette()
        table = self.table
        self.caption.setText(self._caption_text())
        self.title.setText(self._title_text())
        if self.graphics is None:
            self.legend.setText(self._legend_html())
            return
        self.hover_html = None
        for item in (self.floor, self.baseline):
            if item.scene() is not None:
                self.plot.removeItem(item)
        empty = table is None or table.empty or not table.tokenizers
        self.hint.setText(
            "Nothing to measure yet: type some text, or add a sample or a file" if empty else ""
        )
        if self.view == "vocab":
            self._hide_bars()
            self._draw_vocab()
        else:
            self._hide_points(0)
            self.plot.hideAxis("top")
            self._draw_bars()
        self.legend.setText(self._legend_html())
        self._fit_labels()

    def _title_text(self) -> str:
        if self.view == "bytes":
            return "Bytes per token: how much text one token carries (higher is cheaper)"
        if self.view == "attention":
            return "Attention cost against the best tokenizer for each input, (n / n<sub>best</sub>)²"
        return f"Vocabulary size: embedding parameters V × d (d = {self.embedding_dim:,}) against bytes per token"

    def _caption_text(self) -> str:
        if self.table is None:
            return "Measuring…"
        if self.view == "attention":
            return _esc(attention_caption(self.table))
        if self.view == "vocab":
            return _esc(embedding_caption(self.table, self.embedding_dim))
        return _esc(caption(self.table))

    def _legend_html(self) -> str:
        table = self.table
        if table is None or not table.tokenizers:
            return ""

        def swatch(color: QColor, label: str, line: bool = False) -> str:
            if line:
                box = f"<span style='color:{color.name()};'><b>━━</b></span>"
            else:
                box = f"<span style='background:{color.name()};'>&nbsp;&nbsp;&nbsp;&nbsp;</span>"
            return f"<span style='white-space:nowrap'>{box}&nbsp;{label}</span>"

        parts = []
        if self.view == "bytes":
            parts.append(swatch(byte_color(self.style_.dark), "bytes (1.0: the floor)", line=True))
            columns = self._bar_columns()
        else:
            columns = list(range(len(table.tokenizers)))
        for j in columns:
            label = _esc(table.tokenizers[j])
            if self.view == "vocab" and table.vocab_sizes[j] is None:
                continue
            parts.append(swatch(self.color_of(j), label))
        if self.view == "attention":
            parts.append(swatch(self.style_.muted, "1× = the best tokenizer for that input", line=True))
        return "&nbsp;&nbsp;&nbsp; ".join(parts)

    # ---------------------------------------------------------------- bars
    def _hide_bars(self) -> None:
        for item in self._bars:
            item.setVisible(False)
        for label in self._labels:
            label.setVisible(False)
        for mark in self._empty_marks:
            mark.setVisible(False)

    def _hide_points(self, keep: int) -> None:
        for item, label in self._marks[keep:]:
            item.setVisible(False)
            label.setVisible(False)

    def _draw_bars(self) -> None:
        import numpy as np
        import pyqtgraph as pg

        table = self.table
        st = self.style_
        bottom = self.plot.getAxis("bottom")
        if self.view == "bytes":
            self._set_axis_labels("bytes per token", "input (its size in UTF-8 bytes)")
        else:
            self._set_axis_labels(
                "attention cost (×)",
                "input (bar labels: cost multiplier, then token count)",
            )
        self._bar_geometry = []
        self._hide_bars()
        # Categories, not numbers: no tick marks between the groups.
        bottom.setStyle(tickLength=0)
        if table is None or table.empty:
            bottom.setTicks([[]])
            self.plot.setRange(xRange=(-0.5, 0.5), yRange=(0, 1), padding=0)
            self.hint.setPos(0, 0.5)
            return
        columns = self._bar_columns()
        n_in, n_col = len(table.inputs), max(1, len(columns))
        group = 0.8
        width = group / n_col
        top = 1.0
        label_font = self.style_.font(0.9)
        self._label_texts = []
        label_count = 0
        for k, j in enumerate(columns):
            x = np.arange(n_in) - group / 2 + (k + 0.5) * width
            heights = np.array(
                [self._value(i, j) if not table.is_empty(i) else np.nan for i in range(n_in)], dtype=float
            )
            color = self.color_of(j)
            if k >= len(self._bars):
                self._bars.append(pg.BarGraphItem(x=[], height=[], width=width))
            item = self._bars[k]
            if item.scene() is None:
                self.plot.addItem(item)
            item.setOpts(
                x=x,
                height=heights,
                width=width * 0.92,
                brush=pg.mkBrush(color),
                pen=pg.mkPen(color.darker(130), width=st.pen_scale),
            )
            # An empty input's NaN bar draws nothing, and reads back as NaN.
            item.setVisible(True)
            finite = heights[np.isfinite(heights)]
            if finite.size:
                top = max(top, float(finite.max()))
            for i in range(n_in):
                if not math.isfinite(heights[i]):
                    continue
                self._bar_geometry.append(
                    (float(x[i]) - width / 2, float(x[i]) + width / 2, float(heights[i]), i, j)
                )
                label = self._label(label_count)
                label_count += 1
                self._label_texts.append(self._bar_label_texts(i, j))
                label.setFont(label_font)
                label.setColor(self.style_.foreground)
                label.setPos(float(x[i]), float(heights[i]))
                label.setVisible(True)
        # Mark empty inputs so a missing group is explained, not mysterious.
        marks = 0
        for i in range(n_in):
            if table.is_empty(i):
                mark = self._empty_mark(marks)
                marks += 1
                mark.setText("empty text")
                mark.setColor(self.style_.muted)
                mark.setFont(self.style_.font(0.9))
                mark.setPos(i, top * 0.5)
                mark.setVisible(True)
        bottom.setTicks(
            [[(i, f"{name}\n{table.input_bytes(i):,} bytes") for i, name in enumerate(table.inputs)], []]
        )
        self._reserve_bottom_axis(3.4)
        if self.view == "bytes":
            self.floor.setData([-0.5, n_in - 0.5], [1.0, 1.0])
            self.floor.setPen(
                pg.mkPen(byte_color(st.dark), width=2.5 * st.pen_scale, style=Qt.PenStyle.DashLine)
            )
            self.plot.addItem(self.floor)
        else:
            self.baseline.setData([-0.5, n_in - 0.5], [1.0, 1.0])
            self.baseline.setPen(pg.mkPen(st.muted, width=1.5 * st.pen_scale, style=Qt.PenStyle.DotLine))
            self.plot.addItem(self.baseline)
        self._bars_top = top
        self.plot.setRange(xRange=(-0.5, n_in - 0.5), yRange=(0, top * 1.2), padding=0)
        self.plot.getAxis("left").setTicks(None)

    def _reserve_bottom_axis(self, lines: float) -> None:
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
        self.graphics.setMinimumHeight(height + 120)

    def _value(self, i: int, j: int) -> float:
        table = self.table
        assert table is not None
        if self.view == "bytes":
            value = table.bytes_per_token(i, j)
        else:
            value = table.attention(i, j)
        return math.nan if value is None else value

    def _bar_label_texts(self, i: int, j: int) -> tuple[str, str]:
        """A bar's value label, in full and in short (for narrow bars), as lines joined by <br>."""
        table = self.table
        assert table is not None
        if self.view == "bytes":
            value = table.bytes_per_token(i, j) or 0.0
            return f"{value:.2f}", f"{value:.1f}"
        multiplier = format_factor(table.attention(i, j) or 1.0)
        return f"×{multiplier}<br>{table.tokens(i, j):,}", f"×{multiplier}"

    def _label(self, index: int) -> pg.TextItem:
        import pyqtgraph as pg

        while index >= len(self._labels):
            label = pg.TextItem("", anchor=(0.5, 1.0))
            label.setZValue(10)
            self.plot.addItem(label)
            self._labels.append(label)
        return self._labels[index]

    def _empty_mark(self, index: int) -> pg.TextItem:
        import pyqtgraph as pg

        while index >= len(self._empty_marks):
            mark = pg.TextItem("", anchor=(0.5, 0.5))
            self.plot.addItem(mark)
            self._empty_marks.append(mark)
        return self._empty_marks[index]

    def _fit_labels(self) -> None:
        """Give bars the longest value labels that fit over them (none at tiny sizes), and place the
        vocabulary view's labels where they overlap nothing."""
        if self.graphics is None:
            return
        if self.view == "vocab":
            self._place_vocab_labels()
            return
        if not self._bar_geometry:
            return
        px, _py = self.plot.vb.viewPixelSize()
        if not px or not math.isfinite(px):
            return
        bar_px = (self._bar_geometry[0][1] - self._bar_geometry[0][0]) / px
        metrics = QFontMetricsF(self.style_.font(0.9))
        labels = self._labels[: len(self._bar_geometry)]

        def widest(variant: int) -> float:
            return max(
                metrics.horizontalAdvance(line)
                for texts in self._label_texts
                for line in texts[variant].split("<br>")
            )

        variant = next((v for v in (0, 1) if widest(v) <= bar_px * 1.15), None)
        # Headroom over the tallest bar for its label, in pixels whatever the plot's height.
        lines = 0 if variant is None else max(t[variant].count("<br>") + 1 for t in self._label_texts)
        height = self.plot.vb.height()
        room = (lines * metrics.height() + 10) / height if height > 0 else 0.2
        top = self._bars_top / (1 - min(room, 0.6))
        if not math.isclose(self.plot.vb.viewRange()[1][1], top, rel_tol=1e-3):
            # A hair below zero, or the axis drops the 0 tick that sits exactly on the plot's edge.
            self.plot.setYRange(-top * 0.002, top, padding=0)
        for label, texts in zip(labels, self._label_texts):
            if variant is None:
                label.setVisible(False)
                continue
            text = texts[variant]
            label.setTextWidth(max(metrics.horizontalAdvance(line) for line in text.split("<br>")) + 12)
            label.setHtml(f"<div style='text-align:center'>{text}</div>")
            label.setVisible(True)

    def _place_vocab_labels(self) -> None:
        """Put each label beside its marker where it stays inside the plot and overlaps no other
        label or marker; when points crowd, labels shrink to the tokenizer's name (hover has the rest)."""
        area = self.plot.vb.sceneBoundingRect()
        if area.width() < 20 or area.height() < 20:
            return
        for short in (False, True):
            if self._try_vocab_labels(area, short) or short:
                return

    def _try_vocab_labels(self, area: QRectF, short: bool) -> bool:
        """Place every label (full or short); True when none overlaps anything."""
        radius, gap = 10.0, 6.0
        marks = self.mark_scene_positions()
        placed = [QRectF(at.x() - radius, at.y() - radius, 2 * radius, 2 * radius) for _name, at in marks]
        visible = [(pair, j) for pair, j in zip(self._marks, self._mark_info) if pair[0].isVisible()]
        clean = True
        # Right, left, above, below, and the four corners in between.
        sides = ((1, -1), (-1, -1), (1, 1), (-1, 1), (0, -1), (0, 1), (1, 0), (-1, 0))
        for ((_item, label), j), (_name, at) in zip(visible, marks):
            name, detail = self._mark_html[j]
            body = name if short else f"{name}<br>{detail}"
            label.setHtml(f"<div style='text-align:left'>{body}</div>")
            box = label.textItem.boundingRect()
            w, h = box.width(), box.height()
            best: tuple[int, QRectF, int] | None = None
            for dx, dy in sides:
                left = {1: at.x() + gap, -1: at.x() - gap - w, 0: at.x() - w / 2}[dx]
                top = {-1: at.y() - gap - h + 4, 1: at.y() + gap - 4, 0: at.y() - h / 2}[dy]
                if dy == 0:
                    left += dx * radius
                rect = QRectF(left, top, w, h)
                score = (0 if area.contains(rect) else 4) + sum(
                    2 for other in placed if rect.intersects(other)
                )
                if best is None or score < best[0]:
                    best = (score, rect, dx)
                if score == 0:
                    break
            assert best is not None
            score, rect, dx = best
            clean = clean and score == 0
            placed.append(rect)
            align = {1: "left", -1: "right", 0: "center"}[dx]
            label.setHtml(f"<div style='text-align:{align}'>{body}</div>")
            label.setAnchor(((at.x() - rect.left()) / w, (at.y() - rect.top()) / h))
        return clean

    # ---------------------------------------------------------------- vocabulary view
    def _draw_vocab(self) -> None:
        """Bytes per token against V (bottom axis) and V x d (top axis, the same positions times d)."""
        import pyqtgraph as pg

        table = self.table
        self._hide_bars()
        self._bar_geometry = []
        self._mark_info = []
        self._mark_html = {}
        d = self.embedding_dim
        st = self.style_
        label_style = {"font-size": f"{st.point_size}pt", "color": st.foreground.name()}
        self._set_axis_labels("bytes per token, all inputs", "vocabulary size V (entries, log scale)")
        self.plot.getAxis("left").setTicks(None)
        points = table.embedding_points(d) if table is not None else []
        points = [
            p
            for p in points
            if table is not None and table.overall_bytes_per_token(table.tokenizers.index(p.tokenizer))
        ]
        if not points:
            self._hide_points(0)
            self.plot.hideAxis("top")
            self.plot.getAxis("bottom").setTicks([[]])
            self.hint.setText("Nothing to measure yet: type some text, or add a sample or a file")
            self.plot.setRange(xRange=(0, 1), yRange=(0, 1), padding=0)
            self.hint.setPos(0.5, 0.5)
            return
        assert table is not None
        self.hint.setText("")
        names = {name: j for j, name in enumerate(table.tokenizers)}
        xs = [math.log10(p.vocab_size) for p in points]
        bpts = [table.overall_bytes_per_token(names[p.tokenizer]) or 0.0 for p in points]
        x_lo, x_hi = math.floor(min(xs) - 0.25), math.ceil(max(xs) + 0.25)
        # A little beyond the decades at the ends, so their tick labels are not cut off.
        x_range = (x_lo - 0.08, x_hi + 0.08)
        top = self.plot.getAxis("top")
        self.plot.showAxis("top")
        top.setPen(pg.mkPen(st.muted, width=st.pen_scale))
        top.enableAutoSIPrefix(False)
        top.setTextPen(pg.mkPen(st.foreground))
        top.setStyle(tickFont=st.font(), tickTextOffset=6, autoExpandTextSpace=True)
        top.setLabel(f"embedding parameters V × d at d = {d:,} (log scale)", **label_style)
        # V x d is proportional to V: the top axis is the bottom one with its labels multiplied by d.
        lo_e, hi_e = math.floor(x_lo + math.log10(d)), math.ceil(x_hi + math.log10(d))
        top.setTicks([[(e - math.log10(d), format_count(10**e)) for e in range(lo_e, hi_e + 1)], []])
        size = (18 if st.large else 14) * st.pen_scale
        outline = pg.mkPen(st.foreground, width=st.pen_scale)
        for k, point in enumerate(points):
            j = names[point.tokenizer]
            color = self.color_of(j)
            item, label = self._mark(k)
            self._mark_info.append(j)
            item.setData(x=[xs[k]], y=[bpts[k]], symbol="o", size=size, brush=color, pen=outline)
            item.setVisible(True)
            self._mark_html[j] = (
                f"<b style='color:{color.name()}'>{_esc(point.tokenizer)}</b>",
                f"{format_count(point.parameters)} parameters · {bpts[k]:.2f} bytes/token",
            )
            label.setFont(st.font(0.95))
            label.setHtml("<br>".join(self._mark_html[j]))
            label.setColor(st.foreground)
            label.setPos(xs[k], bpts[k])
            label.setVisible(True)
        self._hide_points(len(points))
        self.plot.getAxis("bottom").setStyle(tickLength=5)
        self.plot.getAxis("bottom").setTicks([[(e, format_count(10**e)) for e in range(x_lo, x_hi + 1)], []])
        self._reserve_bottom_axis(2.4)
        self.plot.setRange(xRange=x_range, yRange=(-max(bpts) * 0.003, max(bpts) * 1.3), padding=0)

    def _mark(self, index: int) -> tuple[pg.ScatterPlotItem, pg.TextItem]:
        """The index-th marker of the vocabulary view and its label."""
        import pyqtgraph as pg

        while index >= len(self._marks):
            # Symbols drawn as paths, not from a bitmap cache: sharp at 2x and vector in an SVG.
            item = pg.ScatterPlotItem(pxMode=True, useCache=False)
            label = pg.TextItem("", anchor=(0.0, 1.0))
            label.setZValue(10)
            self._marks.append((item, label))
        item, label = self._marks[index]
        if item.scene() is None:
            self.plot.addItem(item)
            self.plot.addItem(label)
        return item, label

    # ---------------------------------------------------------------- hover
    def describe_bar(self, i: int, j: int) -> str:
        """The exact numbers of one bar, as HTML."""
        table = self.table
        assert table is not None
        m: TextMetrics = table.metric(i, j)
        best = table.best(i)
        best_names = ", ".join(table.tokenizers[b] for b in best)
        multiplier = table.attention(i, j)
        lines = [
            f"<b>{_esc(table.tokenizers[j])}</b> on <b>{_esc(table.inputs[i])}</b>",
            f"{m.bytes:,} bytes ({m.code_points:,} code points) → {m.tokens:,} tokens",
            f"<b>{_fmt_bpt(m.bytes_per_token)} bytes per token</b>",
        ]
        if multiplier is not None:
            if j in best:
                lines.append(f"attention cost ×1 (fewest tokens, {table.fewest_tokens(i):,})")
            else:
                lines.append(
                    f"attention cost ×{multiplier:.2f} = ({m.tokens:,} / {table.fewest_tokens(i):,})² "
                    f"against {_esc(best_names)}"
                )
        return "<br>".join(lines)

    def describe_point(self, j: int) -> str:
        """The exact numbers of one tokenizer in the vocabulary view, as HTML."""
        table = self.table
        assert table is not None
        size = table.vocab_sizes[j]
        d = self.embedding_dim
        bpt = table.overall_bytes_per_token(j)
        lines = [f"<b>{_esc(table.tokenizers[j])}</b>"]
        if size is not None:
            lines.append(f"V = {size:,} entries")
            lines.append(f"V × d = {size:,} × {d:,} = {size * d:,} parameters")
        lines.append(f"{_fmt_bpt(bpt)} bytes per token over all inputs")
        return "<br>".join(lines)

    def describe_at(self, x: float, y: float) -> str | None:
        """What is under the data point (x, y) of the current view, or None."""
        table = self.table
        if table is None or self.graphics is None:
            return None
        if self.view == "vocab":
            return self._describe_scene(self.plot.vb.mapViewToScene(QPointF(x, y)))
        for x0, x1, h, i, j in self._bar_geometry:
            if x0 <= x <= x1 and 0 <= y <= max(h, 0.0):
                return self.describe_bar(i, j)
        return None

    def _describe_scene(self, pos: QPointF, radius: float = 14.0) -> str | None:
        """The tokenizer whose marker is nearest the scene point, within ``radius`` pixels."""
        best: tuple[float, int] | None = None
        for name, at in self.mark_scene_positions():
            dist = math.hypot(at.x() - pos.x(), at.y() - pos.y())
            if dist <= radius and (best is None or dist < best[0]):
                best = (dist, self.table.tokenizers.index(name) if self.table else -1)
        return None if best is None or best[1] < 0 else self.describe_point(best[1])

    def mark_scene_positions(self) -> list[tuple[str, QPointF]]:
        """Where each tokenizer's marker of the vocabulary view is drawn, in scene coordinates."""
        if self.table is None or self.view != "vocab":
            return []
        out = []
        for (item, _label), j in zip(self._marks, self._mark_info):
            xs, ys = item.getData()
            if item.isVisible() and xs is not None and len(xs):
                out.append(
                    (
                        self.table.tokenizers[j],
                        self.plot.vb.mapViewToScene(QPointF(float(xs[0]), float(ys[0]))),
                    )
                )
        return out

    def _on_mouse_moved(self, pos: QPointF) -> None:
        if self.graphics is None or not self.plot.vb.sceneBoundingRect().contains(pos):
            self.hover_html = None
            QToolTip.hideText()
            return
        if self.view == "vocab":
            text = self._describe_scene(pos)
        else:
            point = self.plot.vb.mapSceneToView(pos)
            text = self.describe_at(point.x(), point.y())
        self.hover_html = text
        if text is None:
            QToolTip.hideText()
        else:
            QToolTip.showText(QCursor.pos(), text, self.graphics)

    # ---------------------------------------------------------------- rendering
    def render_image(self, scale: float = 1.0) -> QImage:
        """The frame as it looks now, at ``scale`` device pixels per logical pixel."""
        self.build()
        image, painter = blank_image(self.size(), scale, self.style_.background)
        self._render_into(painter)
        painter.end()
        return image

    def svg_bytes(self, title: str = "tokviz exchange rate") -> bytes:
        """The frame as SVG (text stays text, bars stay rectangles, plot coordinates baked into pixels)."""
        self.build()
        svg = svg_drawing(
            self.size(),
            self.logicalDpiY(),
            self.style_.background,
            self._render_into,
            title,
            self.caption.text(),
        )
        return flatten_svg(svg)

    def _render_into(self, painter: QPainter) -> None:
        graphics = self.graphics
        assert graphics is not None
        # The view caches its background as a bitmap; a vector export must not contain that picture.
        mode = graphics.cacheMode()
        graphics.setCacheMode(QGraphicsView.CacheModeFlag.CacheNone)
        QToolTip.hideText()
        try:
            self.render(painter, QPoint(0, 0))
        finally:
            graphics.setCacheMode(mode)


# ----------------------------------------------------------------------------- SVG clean-up
_NUMBER = r"-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_PAIR = re.compile(rf"({_NUMBER}),({_NUMBER})")
_MATRIX = re.compile(rf"matrix\(({_NUMBER}),({_NUMBER}),({_NUMBER}),({_NUMBER}),({_NUMBER}),({_NUMBER})\)")


def flatten_svg(data: bytes) -> bytes:
    """Bake plot coordinates into pixels so any SVG reader draws the chart as Qt does.

    Qt writes plot items in data coordinates under a scaling ``transform`` with
    ``vector-effect="non-scaling-stroke"`` (lines a pixel wide however the data is scaled).
    Browsers follow that; many slide and drawing programs do not, and draw strokes a thousand
    times too wide. Every group whose shapes all use it gets its transform applied to their
    coordinates instead, and loses the effect.
    """
    from xml.dom import minidom

    doc = minidom.parseString(data)
    for group in doc.getElementsByTagName("g"):
        match = _MATRIX.fullmatch(group.getAttribute("transform").replace(" ", ""))
        shapes = [n for n in group.childNodes if n.nodeType == n.ELEMENT_NODE]
        if match is None or not shapes:
            continue
        if not all(n.getAttribute("vector-effect") == "non-scaling-stroke" for n in shapes):
            continue
        a, b, c, d, e, f = (float(v) for v in match.groups())
        bakeable = ("path", "polyline", "polygon") + (("rect",) if b == 0 and c == 0 else ())
        if not all(n.tagName in bakeable for n in shapes):
            continue

        def point(x: float, y: float) -> tuple[float, float]:
            return a * x + c * y + e, b * x + d * y + f  # noqa: B023 - called within this iteration

        def pairs(text: str) -> str:
            def sub(m: re.Match[str]) -> str:
                x, y = point(float(m.group(1)), float(m.group(2)))
                return f"{x:.6g},{y:.6g}"

            return _PAIR.sub(sub, text)

        for node in shapes:
            node.removeAttribute("vector-effect")
            if node.tagName == "rect":
                x0, y0 = point(float(node.getAttribute("x")), float(node.getAttribute("y")))
                x1, y1 = point(
                    float(node.getAttribute("x")) + float(node.getAttribute("width")),
                    float(node.getAttribute("y")) + float(node.getAttribute("height")),
                )
                for name, value in (
                    ("x", min(x0, x1)),
                    ("y", min(y0, y1)),
                    ("width", abs(x1 - x0)),
                    ("height", abs(y1 - y0)),
                ):
                    node.setAttribute(name, f"{value:.6g}")
            elif node.tagName == "path":
                node.setAttribute("d", pairs(node.getAttribute("d")))
            else:
                node.setAttribute("points", pairs(node.getAttribute("points")))
        group.setAttribute("transform", "matrix(1,0,0,1,0,0)")
    return doc.toxml(encoding="UTF-8")


# ----------------------------------------------------------------------------- offscreen rendering
def render_canvas(
    table: ExchangeTable,
    *,
    view: str = "bytes",
    style: ChartStyle | None = None,
    embedding_dim: int = DEFAULT_EMBEDDING_DIM,
    slots: Sequence[int] | None = None,
    size: QSize = EXPORT_SIZE,
) -> ChartCanvas:
    """A canvas laid out offscreen at ``size`` showing ``table``: what exports and the command line render.

    Needs a QApplication. The caller owns the canvas (``deleteLater`` it when done).
    """
    from PySide6.QtWidgets import QApplication

    canvas = ChartCanvas()
    canvas.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen)
    canvas.set_style(style or ChartStyle())
    canvas.set_embedding_dim(embedding_dim)
    canvas.view = view if view in VIEWS else "bytes"
    canvas.resize(size)
    canvas.build()
    canvas.show_table(table, slots)
    canvas.show()
    # Lay out the frame and the plot (layout requests are posted events) before painting.
    QApplication.sendPostedEvents()
    QApplication.processEvents()
    canvas._fit_labels()
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
    out = Path(path)
    if out.suffix.lower() not in (".png", ".svg"):
        raise ExportError(f"{out.name}: the chart can be written as .png or .svg")
    check_scale(scale)
    style = replace(style or ChartStyle(), pen_scale=scale if out.suffix.lower() == ".png" else 1.0)
    canvas = render_canvas(table, view=view, style=style, embedding_dim=embedding_dim, slots=slots, size=size)
    try:
        return write_image(canvas, out, scale)
    finally:
        canvas.hide()
        canvas.deleteLater()


def short_labels(labels: Sequence[str]) -> dict[str, str]:
    """File paths shortened to their names when that keeps them apart (x-axis labels must be short)."""
    names = {label: Path(label).name or label for label in labels}
    if len(set(names.values())) != len(names):
        return {label: label for label in labels}
    return names


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
    from PySide6.QtWidgets import QApplication

    from tokviz.gui.compat import protect_none_refcount

    protect_none_refcount()
    app = QApplication.instance() or QApplication(["tokviz"])
    assert app is not None
    renamed = short_labels([str(r["input"]) for r in rows])
    table = ExchangeTable.from_rows([dict(r, input=renamed[str(r["input"])]) for r in rows], vocab_sizes)
    return write_chart(
        table, path, view=view, scale=scale, style=ChartStyle(dark, large), embedding_dim=embedding_dim
    )
