"""The parity chart: each language's token premium over the reference language, as sorted bars.

:class:`ParityCanvas` draws one :class:`~tokviz.core.analysis.parity.ParityTable`: a group of bars per language
(dearest first under the first tokenizer), one series per tokenizer in the exchange-rate chart's
colours, a line at 1× (the reference), a legend and a caption naming the dearest languages.
:func:`plot_parity` renders it offscreen for ``tokviz parity --plot``; the chart panel's parity view
shows the same canvas, so a PNG or SVG matches the screen. pyqtgraph is imported on first build.
"""

from __future__ import annotations

import html
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QPoint, QPointF, QSize, Qt
from PySide6.QtGui import QColor, QCursor, QFontMetricsF, QImage, QPainter, QPalette, QResizeEvent, QShowEvent
from PySide6.QtWidgets import QGraphicsView, QLabel, QSizePolicy, QToolTip, QVBoxLayout, QWidget

from tokviz.core.analysis.parity import ParityTable
from tokviz.core.errors import ExportError
from tokviz.gui.drawing.chart_style import EXPORT_SIZE, ChartStyle, series_color
from tokviz.gui.drawing.images import blank_image, check_scale, svg_drawing, write_image
from tokviz.gui.drawing.svg_flatten import flatten_svg

if TYPE_CHECKING:
    import pyqtgraph as pg

EMPTY_HINT = "Choose a tokenizer and two or more languages"
# Of a group's width, the share its bars fill (the rest separates the groups).
GROUP_FILL = 0.8


def language_order(table: ParityTable) -> list[int]:
    """Indices of ``table.languages``, dearest first under the first tokenizer (ties by code)."""
    if not table.tokenizers:
        return list(range(len(table.languages)))
    premium = {r.language: r.premium or 0.0 for r in table.of(table.tokenizers[0])}
    return sorted(
        range(len(table.languages)),
        key=lambda i: (-premium.get(table.languages[i], 0.0), table.languages[i].code),
    )


def caption_text(table: ParityTable | None, worst: int = 3) -> str:
    """The line under the chart: the dearest languages under each tokenizer (rich text)."""
    if table is None or not table.entries:
        return ""
    return "Dearest under " + "; ".join(html.escape(line) for line in table.summary(worst)) + "."


def axis_title(table: ParityTable | None, room: float, metrics: QFontMetricsF) -> str:
    """The y-axis title: "tokens over English (×)", or "premium (×)" where the plot is too short."""
    full = f"tokens over {table.reference.name} (×)" if table is not None else "premium (×)"
    return full if metrics.horizontalAdvance(full) + 8 <= room else "premium (×)"


class ParityCanvas(QWidget):
    """The drawing of a :class:`ParityTable`: title, legend, bars and a caption, in one frame."""

    def __init__(self, parent: QWidget | None = None, show_title: bool = True) -> None:
        super().__init__(parent)
        self.setObjectName("parityCanvas")
        self.setAccessibleName("Parity across languages chart")
        self.setMinimumSize(360, 220)
        self.setAutoFillBackground(True)
        self.table: ParityTable | None = None
        self.style_ = ChartStyle()
        self.order: list[int] = []
        self.graphics: pg.GraphicsLayoutWidget | None = None
        self.bars: list[pg.BarGraphItem] = []
        self.tick_form = "name"

        self.title = QLabel(self)
        self.title.setObjectName("parityTitle")
        self.title.setVisible(show_title)
        self.legend = QLabel(self)
        self.legend.setObjectName("parityLegend")
        self.legend.setWordWrap(True)
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        self.caption = QLabel(self)
        self.caption.setObjectName("parityCaption")
        self.caption.setWordWrap(True)
        self.caption.setTextFormat(Qt.TextFormat.RichText)
        self.caption.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(12, 8, 12, 8)
        self._layout.setSpacing(4)
        self._layout.addWidget(self.title)
        self._layout.addWidget(self.legend)
        self._layout.addWidget(self.caption)

    # ---------------------------------------------------------------- building
    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.build()

    def build(self) -> None:
        """Create the plot (on first show; the command line calls it directly)."""
        if self.graphics is not None:
            return
        import pyqtgraph as pg

        graphics = pg.GraphicsLayoutWidget(self)
        graphics.setObjectName("parityGraphics")
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
        self.reference_line = pg.InfiniteLine(pos=1.0, angle=0)
        self.reference_line.setZValue(10)
        plot.addItem(self.reference_line)
        self.hint = pg.TextItem("", anchor=(0.5, 0.5))
        plot.addItem(self.hint)
        plot.vb.sigResized.connect(self._fit_ticks)
        graphics.scene().sigMouseMoved.connect(self._on_mouse_moved)
        self._redraw()

    # ---------------------------------------------------------------- settings
    def show_table(self, table: ParityTable | None) -> None:
        """Draw ``table`` (None: nothing to show)."""
        self.table = table
        self.order = language_order(table) if table is not None else []
        self._redraw()

    def set_style(self, style: ChartStyle) -> None:
        """Light or dark, normal or presentation size."""
        self.style_ = style
        self._redraw()

    def color_of(self, j: int) -> QColor:
        """Tokenizer ``j``'s colour: the exchange-rate chart's series colours, in order."""
        return series_color(j, self.style_.dark)

    def bar_heights(self) -> dict[str, list[float]]:
        """Each tokenizer's bar heights (premiums), in the order the languages are drawn."""
        table = self.table
        if table is None:
            return {}
        out = {}
        for tok in table.tokenizers:
            premium = {r.language: r.premium for r in table.of(tok)}
            out[tok] = [premium.get(table.languages[i]) or 0.0 for i in self.order]
        return out

    def tick_labels(self) -> list[str]:
        """The x-axis labels now shown: language names (on two staggered rows when one row is too
        narrow for them), or their codes where even that does not fit."""
        table = self.table
        if table is None:
            return []
        languages = [table.languages[i] for i in self.order]
        if self.tick_form == "code":
            return [lang.code for lang in languages]
        if self.tick_form == "staggered":
            return [lang.name if k % 2 == 0 else f"\n{lang.name}" for k, lang in enumerate(languages)]
        return [lang.name for lang in languages]

    # ---------------------------------------------------------------- drawing
    def _apply_palette(self) -> None:
        st = self.style_
        pal = self.palette()
        for group in (QPalette.ColorGroup.Active, QPalette.ColorGroup.Inactive):
            pal.setColor(group, QPalette.ColorRole.Window, st.background)
            pal.setColor(group, QPalette.ColorRole.WindowText, st.foreground)
        self.setPalette(pal)
        self.title.setFont(st.font(1.3, bold=True))
        self.legend.setFont(st.font())
        self.caption.setFont(st.font())
        if self.graphics is None:
            return
        import pyqtgraph as pg

        self.graphics.setBackground(st.background)
        for name in ("left", "bottom"):
            axis = self.plot.getAxis(name)
            axis.setPen(pg.mkPen(st.muted, width=st.pen_scale))
            axis.setTextPen(pg.mkPen(st.foreground))
            axis.enableAutoSIPrefix(False)
            axis.setStyle(tickFont=st.font(), tickTextOffset=6)
        self.plot.getAxis("bottom").setStyle(tickLength=0)
        self._set_axis_title()
        pen = pg.mkPen(st.muted, width=1.5 * st.pen_scale, style=Qt.PenStyle.DashLine)
        self.reference_line.setPen(pen)
        self.hint.setColor(st.muted)
        self.hint.setFont(st.font(1.2))

    def _redraw(self) -> None:
        self._apply_palette()
        table = self.table
        self.title.setText(
            f"Parity across languages: tokens over {html.escape(table.reference.name)}'s for the same text"
            if table is not None
            else "Parity across languages"
        )
        self.caption.setText(caption_text(table))
        self.caption.setToolTip(table.caption() if table is not None else "")
        self.legend.setText(self._legend_html())
        if self.graphics is None:
            return
        import pyqtgraph as pg

        for item in self.bars:
            self.plot.removeItem(item)
        self.bars = []
        heights = self.bar_heights()
        n_lang = len(self.order)
        if table is None or not heights or n_lang == 0:
            self.hint.setText(EMPTY_HINT)
            self.hint.setPos(0, 0.5)
            self.plot.getAxis("bottom").setTicks([[]])
            self.plot.setRange(xRange=(-0.5, 0.5), yRange=(0, 1), padding=0)
            return
        self.hint.setText("")
        width = GROUP_FILL / len(heights)
        for j, values in enumerate(heights.values()):
            x = [i - GROUP_FILL / 2 + width * (j + 0.5) for i in range(n_lang)]
            color = self.color_of(j)
            bars = pg.BarGraphItem(x=x, height=values, width=width * 0.92, brush=color, pen=pg.mkPen(None))
            self.plot.addItem(bars)
            self.bars.append(bars)
        top = max((v for values in heights.values() for v in values), default=1.0)
        self.plot.setRange(xRange=(-0.6, n_lang - 0.4), yRange=(0, max(1.2, top * 1.08)), padding=0)
        self._fit_ticks()

    def _legend_html(self) -> str:
        table = self.table
        if table is None or not table.tokenizers:
            return ""
        parts = []
        for j, tok in enumerate(table.tokenizers):
            box = f"<span style='background:{self.color_of(j).name()};'>&nbsp;&nbsp;&nbsp;&nbsp;</span>"
            parts.append(f"<span style='white-space:nowrap'>{box}&nbsp;{html.escape(tok)}</span>")
        line = f"<span style='color:{self.style_.muted.name()};'><b>╌╌</b></span>"
        lines = table.entries[0].lines if table.entries else 0
        key = f"1× = {table.reference.name}, the same {lines:,} {'line' if lines == 1 else 'lines'}"
        parts.append(f"<span style='white-space:nowrap'>{line}&nbsp;{html.escape(key)}</span>")
        return "&nbsp;&nbsp; ".join(parts)

    def _fit_ticks(self) -> None:
        """Name the languages under their bars: full names where they fit, on two rows where one is
        too narrow, else codes (the caption names the dearest in full)."""
        if self.graphics is None or self.table is None or not self.order:
            return
        metrics = QFontMetricsF(self.style_.font())
        slot = self.plot.vb.width() / max(1, len(self.order) + 0.2)
        widest = max(metrics.horizontalAdvance(self.table.languages[i].name) for i in self.order)
        if widest + 8 <= slot:
            self.tick_form = "name"
        elif widest + 8 <= 2 * slot:
            self.tick_form = "staggered"
        else:
            self.tick_form = "code"
        rows = 2 if self.tick_form == "staggered" else 1
        axis = self.plot.getAxis("bottom")
        height = int(metrics.height() * rows + 12)
        if axis.fixedHeight != height:
            axis.setHeight(height)
        axis.setTicks([list(enumerate(self.tick_labels()))])
        self._set_axis_title()

    def _set_axis_title(self) -> None:
        st = self.style_
        title = axis_title(self.table, self.plot.vb.height(), QFontMetricsF(st.font()))
        self.plot.setLabel(
            "left", title, **{"font-size": f"{st.point_size}pt", "color": st.foreground.name()}
        )

    def describe(self, k: int) -> str:
        """The ``k``-th language drawn, in words: its name and code, then each tokenizer's tokens and premium."""
        table = self.table
        if table is None or not 0 <= k < len(self.order):
            return ""
        language = table.languages[self.order[k]]
        lines = [f"{language.name} ({language.code})"]
        for tok in table.tokenizers:
            row = next((r for r in table.of(tok) if r.language == language), None)
            if row is not None and row.premium is not None:
                lines.append(f"{tok}: {row.tokens:,} tokens, {row.premium:.2f}× {table.reference.name}")
        return "\n".join(lines)

    def _on_mouse_moved(self, pos: QPointF) -> None:
        if not self.plot.sceneBoundingRect().contains(pos):
            QToolTip.hideText()
            return
        x = self.plot.vb.mapSceneToView(pos).x()
        text = self.describe(round(x))
        if text:
            QToolTip.showText(QCursor.pos(), text, self)
        else:
            QToolTip.hideText()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit_ticks()

    # ---------------------------------------------------------------- rendering
    def render_image(self, scale: float = 1.0) -> QImage:
        """The frame as it looks now, at ``scale`` device pixels per logical pixel."""
        self.build()
        image, painter = blank_image(self.size(), scale, self.style_.background)
        self._render_into(painter)
        painter.end()
        return image

    def svg_bytes(self, title: str = "tokviz parity across languages") -> bytes:
        """The frame as SVG (text stays text, bars stay rectangles)."""
        self.build()
        paint = self._render_into
        svg = svg_drawing(
            self.size(), self.logicalDpiY(), self.style_.background, paint, title, self.caption.text()
        )
        return flatten_svg(svg)

    def _render_into(self, painter: QPainter) -> None:
        graphics = self.graphics
        assert graphics is not None
        mode = graphics.cacheMode()
        graphics.setCacheMode(QGraphicsView.CacheModeFlag.CacheNone)
        QToolTip.hideText()
        try:
            self.render(painter, QPoint(0, 0))
        finally:
            graphics.setCacheMode(mode)


def write_parity_chart(
    table: ParityTable,
    path: str | Path,
    *,
    scale: float = 1.0,
    style: ChartStyle | None = None,
    size: QSize = EXPORT_SIZE,
) -> Path:
    """Write the chart of ``table`` as PNG (at ``scale``) or SVG, chosen by the file's extension."""
    from PySide6.QtWidgets import QApplication

    out = Path(path)
    if out.suffix.lower() not in (".png", ".svg"):
        raise ExportError(f"{out.name}: the chart can be written as .png or .svg")
    check_scale(scale)
    style = replace(style or ChartStyle(), pen_scale=scale if out.suffix.lower() == ".png" else 1.0)
    canvas = ParityCanvas()
    canvas.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen)
    canvas.resize(size)
    canvas.set_style(style)
    canvas.build()
    canvas.show_table(table)
    canvas.show()
    QApplication.sendPostedEvents()
    QApplication.processEvents()
    canvas._fit_ticks()
    try:
        return write_image(canvas, out, scale)
    finally:
        canvas.hide()
        canvas.deleteLater()


def plot_parity(
    table: ParityTable, path: str | Path, *, scale: float = 1.0, dark: bool = False, large: bool = False
) -> Path:
    """Draw a ``tokviz parity`` table into a PNG or SVG file (makes the QApplication it needs)."""
    from tokviz.gui.drawing.sheet import ensure_app

    ensure_app()
    return write_parity_chart(table, path, scale=scale, style=ChartStyle(dark, large))
