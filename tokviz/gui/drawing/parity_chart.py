"""The parity chart: each language's token premium over the reference language, as sorted bars.

:class:`ParityCanvas` draws one :class:`~tokviz.core.analysis.parity.ParityTable`: a group of bars per language
(dearest first under the first tokenizer), one series per tokenizer in the exchange-rate chart's
colours, a line at 1× (the reference), a legend and a caption naming the dearest languages.
:func:`plot_parity` renders it offscreen for ``tokviz parity --plot``; the chart panel's parity view
shows the same canvas, so a PNG or SVG matches the screen. The frame (labels, plot, style,
rendering) is :class:`.plot_canvas.PlotCanvas`, as the exchange-rate chart's is.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QPointF, QSize, Qt
from PySide6.QtGui import QColor, QFontMetricsF, QResizeEvent
from PySide6.QtWidgets import QWidget

from tokviz.core.analysis.parity import ParityTable, parity_csv
from tokviz.gui.drawing.chart_style import EXPORT_SIZE, ChartStyle, series_color
from tokviz.gui.drawing.plot_canvas import PlotCanvas, chart_file, set_axis_title, write_offscreen
from tokviz.gui.drawing.sheet import ensure_app

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


class ParityCanvas(PlotCanvas):
    """The drawing of a :class:`ParityTable`: title, legend, bars and a caption, in one frame."""

    svg_title = "tokviz parity across languages"

    def __init__(self, parent: QWidget | None = None, show_title: bool = True) -> None:
        super().__init__(parent, "parity", "Parity across languages chart", QSize(360, 220), show_title)
        self.table: ParityTable | None = None
        self.order: list[int] = []
        self.bars: list[pg.BarGraphItem] = []
        self.tick_form = "name"
        self.caption.setTextFormat(Qt.TextFormat.RichText)

    def add_items(self, plot: pg.PlotItem) -> None:
        """The line at 1×, the reference language."""
        import pyqtgraph as pg

        self.reference_line = pg.InfiniteLine(pos=1.0, angle=0)
        self.reference_line.setZValue(10)
        plot.addItem(self.reference_line)

    # ---------------------------------------------------------------- settings
    def show_table(self, table: ParityTable | None) -> None:
        """Draw ``table`` (None: nothing to show)."""
        self.table = table
        self.order = language_order(table) if table is not None else []
        self.redraw()

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
    def apply_style(self) -> None:
        """The frame's colours and fonts, unmarked language ticks, the axis title and the 1× line."""
        super().apply_style()
        if self.graphics is None:
            return
        import pyqtgraph as pg

        st = self.style_
        self.plot.getAxis("bottom").setStyle(tickLength=0)
        self._set_axis_title()
        self.reference_line.setPen(pg.mkPen(st.muted, width=1.5 * st.pen_scale, style=Qt.PenStyle.DashLine))

    def redraw(self) -> None:
        """Draw the table's bars, dearest language first, in the current style."""
        super().redraw()
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
        self.fit_to_size()

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

    def fit_to_size(self) -> None:
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
        set_axis_title(
            self.plot.getAxis("left"),
            title,
            **{"font-size": f"{st.point_size}pt", "color": st.foreground.name()},
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

    def numbers_csv(self) -> str:
        """Every tokenizer's tokens and premium per language, as CSV."""
        if self.table is None:
            raise ValueError("the parity chart has no numbers yet")
        return parity_csv(self.table)

    def write_slide(self, out: Path, scale: float) -> None:
        """The chart as shown, at the slide's size."""
        if self.table is None:
            raise ValueError("the parity chart has no numbers yet")
        write_parity_chart(self.table, out, scale=scale, style=self.style_)

    def hover_text(self, pos: QPointF) -> str | None:
        """The language under the scene point ``pos`` (over its bars or its name), in words."""
        if not self.plot.sceneBoundingRect().contains(pos):
            return None
        return self.describe(round(self.plot.vb.mapSceneToView(pos).x())) or None

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.fit_to_size()


def write_parity_chart(
    table: ParityTable,
    path: str | Path,
    *,
    scale: float = 1.0,
    style: ChartStyle | None = None,
    size: QSize = EXPORT_SIZE,
) -> Path:
    """Write the chart of ``table`` as PNG (at ``scale``) or SVG, chosen by the file's extension."""
    out, style = chart_file(path, scale, style)
    canvas = ParityCanvas()
    canvas.set_style(style)
    canvas.show_table(table)
    return write_offscreen(canvas, out, scale, size)


def plot_parity(
    table: ParityTable, path: str | Path, *, scale: float = 1.0, dark: bool = False, large: bool = False
) -> Path:
    """Draw a ``tokviz parity`` table into a PNG or SVG file (makes the QApplication it needs)."""
    ensure_app()
    return write_parity_chart(table, path, scale=scale, style=ChartStyle(dark, large))
