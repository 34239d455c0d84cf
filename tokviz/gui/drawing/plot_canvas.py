"""The frame every chart is drawn in: a title, a legend, a pyqtgraph plot and a caption, one above the other.

:class:`PlotCanvas` is what the exchange-rate chart (:mod:`.chart_canvas`) and the parity chart
(:mod:`.parity_chart`) share: the labels and their layout, the plot built on first show (pyqtgraph
is imported then: it takes most of a second), the colours and fonts of a :class:`ChartStyle`, the
tooltip under the mouse, and rendering to PNG and SVG so an export matches the screen. A chart
adds its items in :meth:`PlotCanvas.add_items`, draws in :meth:`PlotCanvas.redraw` and fits its
labels to the plot's size in :meth:`PlotCanvas.fit_to_size`. :func:`write_offscreen` lays a canvas
out without a screen and writes it, for exports and the command line.
"""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QPoint, QPointF, QSize, Qt
from PySide6.QtGui import QCursor, QFontMetricsF, QImage, QPainter, QPalette, QShowEvent
from PySide6.QtWidgets import QApplication, QGraphicsView, QLabel, QSizePolicy, QToolTip, QVBoxLayout, QWidget

from tokviz.core.errors import ExportError
from tokviz.core.io.atomic import atomic_write_text
from tokviz.gui.drawing.chart_style import ChartStyle
from tokviz.gui.drawing.images import blank_image, check_scale, svg_drawing
from tokviz.gui.drawing.sheet import write_sheet
from tokviz.gui.drawing.svg_flatten import flatten_svg

if TYPE_CHECKING:
    import pyqtgraph as pg


def set_axis_title(axis: pg.AxisItem, text: str, **style: str) -> None:
    """Give a pyqtgraph axis the title ``text`` in ``style`` and centre it along the axis again.

    pyqtgraph places an axis's title only when the axis is resized: a new text or size keeps the
    old one's place, so a longer title ran past the plot's top and was cut ("attention cost (:").
    """
    axis.setLabel(text, **style)
    axis.resizeEvent()


class PlotCanvas(QWidget):
    """A chart's frame: title, legend, plot and caption. Subclasses draw into :attr:`plot`.

    ``name`` prefixes the object names (``chartCanvas``, ``chartTitle``, ``chartLegend``,
    ``chartGraphics``, ``chartCaption``); on screen a panel's own controls name the chart, so
    ``show_title`` is False there and exports carry the title.
    """

    svg_title = "tokviz chart"

    def __init__(
        self, parent: QWidget | None, name: str, accessible_name: str, minimum: QSize, show_title: bool
    ) -> None:
        super().__init__(parent)
        self.name = name
        self.setObjectName(f"{name}Canvas")
        self.setAccessibleName(accessible_name)
        self.setMinimumSize(minimum)
        self.setAutoFillBackground(True)
        self.style_ = ChartStyle()
        self.graphics: pg.GraphicsLayoutWidget | None = None
        self.hover_html: str | None = None

        self.title = QLabel(self)
        self.title.setObjectName(f"{name}Title")
        self.title.setWordWrap(True)
        self.title.setVisible(show_title)
        self.legend = QLabel(self)
        self.legend.setObjectName(f"{name}Legend")
        self.legend.setWordWrap(True)
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        self.caption = QLabel(self)
        self.caption.setObjectName(f"{name}Caption")
        self.caption.setWordWrap(True)
        self.caption.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.frame = QVBoxLayout(self)
        self.frame.setContentsMargins(12, 8, 12, 8)
        self.frame.setSpacing(4)
        self.frame.addWidget(self.title)
        self.frame.addWidget(self.legend)
        self.frame.addWidget(self.caption)

    # ---------------------------------------------------------------- building
    @property
    def built(self) -> bool:
        """True once the pyqtgraph items exist."""
        return self.graphics is not None

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.build()

    def build(self) -> None:
        """Create the plot and its items (on first show; tests and exports call it directly)."""
        if self.graphics is not None:
            return
        import pyqtgraph as pg

        graphics = pg.GraphicsLayoutWidget(self)
        graphics.setObjectName(f"{self.name}Graphics")
        graphics.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.frame.insertWidget(2, graphics, 1)
        self.graphics = graphics
        plot = graphics.addPlot(row=0, col=0)
        plot.setMenuEnabled(False)
        plot.setMouseEnabled(x=False, y=False)
        plot.hideButtons()
        plot.vb.setDefaultPadding(0.0)
        self.plot = plot
        # What an empty chart says, in the middle of the plot.
        self.hint = pg.TextItem("", anchor=(0.5, 0.5))
        self.hint.setZValue(20)
        plot.addItem(self.hint)
        self.add_items(plot)
        graphics.scene().sigMouseMoved.connect(self._on_mouse_moved)
        plot.vb.sigResized.connect(self.fit_to_size)
        self.redraw()

    def add_items(self, plot: pg.PlotItem) -> None:
        """Add the chart's own items to ``plot`` (once, when it is built)."""

    # ---------------------------------------------------------------- style
    def set_style(self, style: ChartStyle) -> None:
        """Light or dark colours, normal or presentation-size text."""
        self.style_ = style
        self.redraw()

    def apply_style(self) -> None:
        """The style's colours and fonts on the frame, and on the plot's axes once it is built."""
        st = self.style_
        pal = self.palette()
        for group in (QPalette.ColorGroup.Active, QPalette.ColorGroup.Inactive):
            pal.setColor(group, QPalette.ColorRole.Window, st.background)
            pal.setColor(group, QPalette.ColorRole.WindowText, st.foreground)
            pal.setColor(group, QPalette.ColorRole.Text, st.foreground)
        self.setPalette(pal)
        self.title.setFont(st.font(1.3, bold=True))
        self.legend.setFont(st.font())
        self.caption.setFont(st.font())
        if self.graphics is None:
            return
        import pyqtgraph as pg

        self.graphics.setBackground(st.background)
        # pyqtgraph centres a y tick label on its tick: one at the very top of the range (the range's
        # top lands on a round number) reaches half a line over the plot, so the plot keeps that room.
        top = max(4, math.ceil(QFontMetricsF(st.font()).height() / 2) + 1)
        self.graphics.ci.layout.setContentsMargins(0, top, 8, 0)
        for name in ("left", "bottom"):
            axis = self.plot.getAxis(name)
            axis.setPen(pg.mkPen(st.muted, width=st.pen_scale))
            axis.setTextPen(pg.mkPen(st.foreground))
            axis.enableAutoSIPrefix(False)
            axis.setStyle(tickFont=st.font(), tickTextOffset=6, autoExpandTextSpace=True)
        self.hint.setColor(st.muted)
        self.hint.setFont(st.font(1.2))

    # ---------------------------------------------------------------- drawing
    def redraw(self) -> None:
        """Draw what the chart shows now, in its style."""
        self.apply_style()

    def fit_to_size(self) -> None:
        """Fit the labels to the plot's size (called whenever the plot is resized)."""

    # ---------------------------------------------------------------- hover
    def hover_text(self, pos: QPointF) -> str | None:
        """What is under the scene point ``pos`` (shown as a tooltip), or None."""
        return None

    def _on_mouse_moved(self, pos: QPointF) -> None:
        text = self.hover_text(pos)
        self.hover_html = text
        if text is None:
            QToolTip.hideText()
        else:
            QToolTip.showText(QCursor.pos(), text, self.graphics)

    # ---------------------------------------------------------------- rendering
    def show_offscreen(self, size: QSize) -> None:
        """Lay the frame out at ``size`` without a screen (for exports and the command line).

        Layout requests are posted events: they are delivered here, so the plot has its final
        size, and the labels are then fitted to it.
        """
        self.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen)
        self.resize(size)
        self.build()
        self.show()
        QApplication.sendPostedEvents()
        self.fit_to_size()

    def write_file(self, path: Path, kind: str, scale: float = 1.0) -> Path:
        """Write what the canvas shows as ``png`` (at ``scale``) or ``svg``, drawn slide-sized on a
        copy (the export does not depend on the dock's size), or its numbers as ``csv``; the
        extension is made to fit ``kind``. A :class:`ValueError` when there is nothing to write."""
        out = path if path.suffix.lower() == f".{kind}" else path.with_suffix(f".{kind}")
        if kind == "csv":
            atomic_write_text(out, self.numbers_csv())
        else:
            self.write_slide(out, scale)
        return out

    def numbers_csv(self) -> str:
        """The numbers behind the chart, as CSV."""
        raise NotImplementedError

    def write_slide(self, out: Path, scale: float) -> None:
        """Draw the chart slide-sized into ``out`` (PNG at ``scale``, or SVG)."""
        raise NotImplementedError

    def render_image(self, scale: float = 1.0) -> QImage:
        """The frame as it looks now, at ``scale`` device pixels per logical pixel."""
        self.build()
        image, painter = blank_image(self.size(), scale, self.style_.background)
        self._render_into(painter)
        painter.end()
        return image

    def svg_bytes(self, title: str | None = None) -> bytes:
        """The frame as SVG (text stays text, bars stay rectangles, plot coordinates baked into pixels)."""
        self.build()
        svg = svg_drawing(
            self.size(),
            self.logicalDpiY(),
            self.style_.background,
            self._render_into,
            title or self.svg_title,
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


def chart_file(path: str | Path, scale: float, style: ChartStyle | None) -> tuple[Path, ChartStyle]:
    """Where a chart is written and the style it is drawn in: a PNG (lines as thick in pixels as
    ``scale`` makes everything else) or an SVG; any other extension is an :class:`ExportError`."""
    out = Path(path)
    suffix = out.suffix.lower()
    if suffix not in (".png", ".svg"):
        raise ExportError(f"{out.name}: the chart can be written as .png or .svg")
    check_scale(scale)
    return out, replace(style or ChartStyle(), pen_scale=scale if suffix == ".png" else 1.0)


def write_offscreen(canvas: PlotCanvas, out: Path, scale: float, size: QSize) -> Path:
    """Lay ``canvas`` out at ``size`` offscreen, write it to ``out`` (see :func:`chart_file`) and discard it."""
    canvas.show_offscreen(size)
    return write_sheet(canvas, out, scale)
