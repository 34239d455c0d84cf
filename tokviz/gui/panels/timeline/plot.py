"""The timeline's plot: the text's token count against the merge step, and the corpus's while training.

pyqtgraph takes most of a second to import: it is imported when the plot is first shown
(:func:`when_plotting_ready`), in the GUI thread.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QFont, QPalette, QResizeEvent, QShowEvent
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from tokviz.core.bpe.merges import MergeStep
from tokviz.core.training.replay import ReplayTrace
from tokviz.gui.drawing.plot_canvas import set_axis_title
from tokviz.gui.panels.timeline.plot_axes import readable_axis
from tokviz.gui.panels.timeline.plot_legend import (
    CORPUS_COLOR,
    CURSOR_COLOR,
    RATIO_COLOR,
    TEXT_COLOR,
    legend_html,
)
from tokviz.gui.workers.debounce import Debouncer

if TYPE_CHECKING:
    import pyqtgraph as pg

_LABEL_STYLE = {"font-size": "9pt"}


# ----------------------------------------------------------------------------- when to import
def when_plotting_ready(slot: Callable[[], object]) -> None:
    """Call ``slot``, which builds the plot and imports pyqtgraph, in the GUI thread, on first need.

    pyqtgraph takes most of a second to import. It is imported here, in the GUI thread, and only
    when a plot is first shown: importing it in a worker thread raced PySide6's set-up of its types
    against the GUI thread and could crash the process.
    """
    slot()


def _relabel(plot: Any, side: str, text: str) -> None:
    """Change an axis title, keeping its colour (pyqtgraph's setLabel replaces the whole style, so
    a title set after the dark theme's colours would be drawn in the default dark grey)."""
    axis = plot.getAxis(side)
    set_axis_title(axis, text, **{**_LABEL_STYLE, **axis.labelStyle})


# ----------------------------------------------------------------------------- the plot
class _Series:
    """A growing (x, y) series in numpy arrays with spare room, so appending a batch is cheap."""

    def __init__(self) -> None:
        self.x = np.zeros(1024)
        self.y = np.zeros(1024)
        self.n = 0

    def clear(self) -> None:
        self.n = 0

    def extend(self, xs: Sequence[float], ys: Sequence[float]) -> None:
        k = len(xs)
        if self.n + k > self.x.size:
            size = max(self.x.size * 2, self.n + k)
            self.x = np.resize(self.x, size)
            self.y = np.resize(self.y, size)
        self.x[self.n : self.n + k] = xs
        self.y[self.n : self.n + k] = ys
        self.n += k

    def data(self) -> tuple[np.ndarray, np.ndarray]:
        return self.x[: self.n], self.y[: self.n]


class TokenCountPlot(QWidget):
    """Token count (and bytes per token) of the text against the merge step, with a step cursor.

    For a model trained in the app a second plot shows the corpus's token count per step. pyqtgraph
    is imported in the background (see :func:`warm_up_plotting`) and the items are built on first
    show; every item is built once and then updated with ``setData``, and the axes are set only
    when their range has to change.
    """

    cursorMoved = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("tokenCountPlot")
        self.setAccessibleName("Token count per merge step")
        self.setMinimumSize(160, 160)
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.setSpacing(0)
        # What each line is, for when the plot is too short for its rotated axis titles.
        self.key = QLabel(self)
        self.key.setObjectName("tokenCountLegend")
        self.key.setTextFormat(Qt.TextFormat.RichText)
        self.key.setWordWrap(True)
        self.key.setContentsMargins(6, 2, 6, 2)
        self.key.hide()
        self._layout.addWidget(self.key)
        self.widget: pg.GraphicsLayoutWidget | None = None
        # What a plot shown before the window is up waits for (see TimelineWidget.set_start_gate).
        self.start_gate: Callable[[Callable[[], object]], None] | None = None
        self._showing = False
        self._linked: bool | None = None
        self._shown_top: float | None = None
        self._text_xy: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        self._corpus = _Series()
        self._corpus_visible = False
        self._corpus_top = 0.0
        self._step = 0
        self._x_max = 1
        self._moving = False
        # The highest bytes/token of curves others draw on the right-hand axis (held-out files).
        self.extra_ratio_top = 0.0
        # Data changes are applied once, on the next turn of the event loop (see ``_schedule``).
        self._refresh = Debouncer(0, self)
        self._refresh.triggered.connect(self.flush)

    @property
    def built(self) -> bool:
        """True once the pyqtgraph items exist."""
        return self.widget is not None

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self.widget is not None:
            return
        if self.start_gate is None:
            self.build()
            return
        # Shown with a window that is not up yet (a dock restored from the last session):
        # importing pyqtgraph (0.3-1 s) and its first paint (0.2 s) wait until the window is on
        # screen and its views show their tokens, and the import runs in the background. A gate
        # that is open already runs the build at once, inside this show.
        self._showing = True
        try:
            self.start_gate(self._build_after_start_up)
        finally:
            self._showing = False

    def _build_after_start_up(self) -> None:
        if self._showing:
            self.build()
        else:
            when_plotting_ready(self.build)

    @staticmethod
    def _add_plot(w: pg.GraphicsLayoutWidget, row: int, title: str) -> pg.PlotItem:
        """A plot in ``row`` of ``w`` with readable axes (counts on the left, a ratio on the right),
        ``title`` on its left axis, a faint grid, and the mouse scrolling along the merge steps only."""
        import pyqtgraph as pg

        plot = w.addPlot(
            row=row,
            col=0,
            axisItems={
                "left": readable_axis(pg, "left"),
                "right": readable_axis(pg, "right", counts=False),
                "bottom": readable_axis(pg, "bottom"),
            },
        )
        plot.setMenuEnabled(False)
        plot.setLabel("left", title, **_LABEL_STYLE)
        plot.showGrid(x=True, y=True, alpha=0.15)
        plot.setMouseEnabled(x=True, y=False)
        plot.hideButtons()
        return plot

    def build(self) -> None:
        """Create the plot items (done on first show; tests and scripts may call it directly)."""
        if self.widget is not None:
            return
        import pyqtgraph as pg

        pg.setConfigOptions(antialias=True)
        w = pg.GraphicsLayoutWidget(self)
        w.setObjectName("tokenCountGraphics")
        self._layout.addWidget(w)
        self.widget = w
        text_plot = self._add_plot(w, 0, "tokens")  # "text" over a corpus plot (_refresh_layout)
        self.text_plot = text_plot
        self.text_curve = text_plot.plot([], [], pen=pg.mkPen(TEXT_COLOR, width=2), name="tokens")
        # Bytes per token on a right-hand axis of its own (a second view box sharing the x axis).
        self.ratio_box = pg.ViewBox()
        self.ratio_box.setMouseEnabled(x=False, y=False)
        text_plot.showAxis("right")
        text_plot.scene().addItem(self.ratio_box)
        text_plot.getAxis("right").linkToView(self.ratio_box)
        text_plot.getAxis("right").setLabel("bytes/token", **_LABEL_STYLE)
        self.ratio_box.setXLink(text_plot)
        self.ratio_curve = pg.PlotDataItem(
            [], [], pen=pg.mkPen(RATIO_COLOR, width=1.5, style=Qt.PenStyle.DashLine)
        )
        self.ratio_box.addItem(self.ratio_curve)
        # A long text has thousands of steps that change it: draw what fits the plot's pixels
        # (each step repaints the plot as its cursor moves; 20 ms per step for 8,700 points).
        for curve in (self.text_curve, self.ratio_curve):
            curve.setDownsampling(auto=True, method="peak")
            curve.setClipToView(True)
        text_plot.vb.sigResized.connect(self._sync_ratio_box)
        self.step_line = pg.InfiniteLine(pos=0, angle=90, movable=True, pen=pg.mkPen(CURSOR_COLOR, width=2))
        self.step_line.setZValue(10)
        self.step_line.setToolTip("Drag to another merge step")
        self.step_line.sigPositionChanged.connect(self._on_cursor_dragged)
        text_plot.addItem(self.step_line)

        corpus_plot = self._add_plot(w, 1, "corpus")
        corpus_plot.setLabel("bottom", "merge step", **_LABEL_STYLE)
        self.corpus_plot = corpus_plot
        self.corpus_curve = corpus_plot.plot([], [], pen=pg.mkPen(CORPUS_COLOR, width=2))
        self.corpus_cursor = pg.InfiniteLine(
            pos=0, angle=90, movable=False, pen=pg.mkPen(CURSOR_COLOR, width=1)
        )
        corpus_plot.addItem(self.corpus_cursor)
        # Same axis widths in both plots, so that their x axes line up step for step.
        corpus_plot.showAxis("right")
        corpus_plot.getAxis("right").setStyle(showValues=False)
        for plot in (text_plot, corpus_plot):
            plot.getAxis("left").setWidth(64)
            plot.getAxis("right").setWidth(48)
        self._shown_x_max = -1
        # pyqtgraph's setXLink maps ranges through the two views' pixels, and a plot that has just
        # appeared is not laid out yet: its partner then showed steps 124-959 of 0-1,047. The
        # ranges are copied as values instead (the equal axis widths above keep steps aligned).
        self._following = False
        for plot, other in ((text_plot, corpus_plot), (corpus_plot, text_plot)):
            plot.vb.sigXRangeChanged.connect(lambda _vb, rng, other=other: self._follow_x(other, rng))
        self.apply_palette()
        self._refresh_text()
        self._refresh_corpus()
        self._refresh_layout()

    def _follow_x(self, other: Any, x_range: tuple[float, float]) -> None:
        """Show in ``other`` the steps the user or the code just showed in its partner."""
        if self._following or not self._linked:
            return
        self._following = True
        try:
            other.setXRange(*x_range, padding=0)
        finally:
            self._following = False

    def _sync_ratio_box(self) -> None:
        self.ratio_box.setGeometry(self.text_plot.vb.sceneBoundingRect())
        self.ratio_box.linkedViewChanged(self.text_plot.vb, self.ratio_box.XAxis)

    def apply_palette(self) -> None:
        """Follow the application's light or dark palette."""
        if self.widget is None:
            return
        import pyqtgraph as pg

        pal = self.palette()
        self.widget.setBackground(pal.color(QPalette.ColorRole.Base))
        fg = pal.color(QPalette.ColorRole.Text)
        # Sizes follow the widget's font, which grows in presentation mode (the window's font).
        tick_font = QFont(self.font())
        tick_font.setPointSizeF(self._tick_point_size())
        label_size = f"{max(9.0, self.font().pointSizeF()):.0f}pt"
        for plot in (self.text_plot, self.corpus_plot):
            for name in ("left", "bottom", "right"):
                axis = plot.getAxis(name)
                axis.setPen(pg.mkPen(fg))
                axis.setTextPen(pg.mkPen(fg))
                axis.setStyle(tickFont=tick_font, tickTextOffset=3)
                if axis.labelText:
                    set_axis_title(axis, axis.labelText, **{**axis.labelStyle, "font-size": label_size})
        self.fit_axis_titles()

    def fit_axis_titles(self) -> None:
        """Shrink a side axis's title that is longer than its plot is high (the axis cuts it off),
        but never below the tick labels' size: a title that does not fit even then is hidden, and
        the legend above the plot names the lines instead (in presentation mode the small plots
        keep large titles only where they fit)."""
        if self.widget is None:
            return
        base = max(9.0, self.font().pointSizeF())
        smallest = self._tick_point_size()
        hidden = False
        for plot in (self.text_plot, self.corpus_plot):
            for name in ("left", "right"):
                axis = plot.getAxis(name)
                room = plot.vb.height() - 2
                if not axis.labelText or room <= 0:
                    continue
                size = base
                set_axis_title(axis, axis.labelText, **{**axis.labelStyle, "font-size": f"{size:.0f}pt"})
                width = axis.label.boundingRect().width()
                for _attempt in range(4):  # the text's margins do not shrink with it: a few steps
                    if width <= room or size <= smallest:
                        break
                    size = max(smallest, size * room / width * 0.97)
                    set_axis_title(axis, axis.labelText, **{**axis.labelStyle, "font-size": f"{size:.1f}pt"})
                    width = axis.label.boundingRect().width()
                fits = width <= room
                axis.label.setVisible(fits)
                hidden = hidden or (not fits and plot.isVisible())
        self._show_legend(hidden)

    def _tick_point_size(self) -> float:
        """The tick labels' size: the widget's font, which grows in presentation mode, less a little."""
        return max(7.0, self.font().pointSizeF() - 2)

    def _show_legend(self, on: bool) -> None:
        """The legend over the plot, shown while an axis title is hidden (see :meth:`fit_axis_titles`)."""
        text = self.legend_html(short=True)
        if self.key.text() != text:
            self.key.setText(text)
        if self.key.isHidden() == (on and bool(text)):
            self.key.setVisible(on and bool(text))

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.fit_axis_titles()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            # Room for two plots with their ticks and titles in the font's size (presentation mode).
            self.setMinimumHeight(max(160, 10 * self.fontMetrics().height()))
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.FontChange):
            self.apply_palette()

    # ---------------------------------------------------------------- data
    def set_trace(self, trace: ReplayTrace | None, total_steps: int) -> None:
        """Plot the text's token count as a step curve over 0..total_steps."""
        self._x_max = max(total_steps, 1)
        if trace is None:
            self._text_xy = None
        else:
            steps = [0] + [e.step for e in trace.events] + [total_steps]
            counts = [trace.initial_tokens] + [e.tokens_after for e in trace.events] + [trace.final_tokens]
            # A step curve: each count holds until the next event.
            x = np.repeat(np.asarray(steps, dtype=float), 2)[1:-1]
            y = np.repeat(np.asarray(counts[:-1], dtype=float), 2)
            ratio = np.divide(float(trace.text_bytes), y, out=np.zeros_like(y), where=y > 0)
            self._text_xy = (x, y, ratio)
        self._schedule()

    def set_corpus(self, history: Sequence[MergeStep], initial: int | None) -> None:
        """Plot the training corpus's token count per step (models trained in the app)."""
        self._corpus.clear()
        if history:
            start = initial if initial is not None else history[0].tokens_after + history[0].count
            self._corpus.extend([0.0], [float(start)])
            self._corpus.extend([r.step for r in history], [r.tokens_after for r in history])
            self._corpus_top = float(start)
        self._corpus_visible = bool(history)
        self._schedule()

    def begin_live(self, planned_merges: int = 0) -> None:
        """Training started: only the corpus curve, growing as merges arrive, over 0..planned_merges."""
        self._text_xy = None
        self._corpus.clear()
        self._corpus_visible = True
        self._corpus_top = 0.0
        self._x_max = max(planned_merges, 1)
        self._schedule()

    def append_corpus(self, records: Sequence[MergeStep]) -> None:
        """More merges from the running trainer: one ``setData``, and the axes only if they must grow."""
        if not records:
            return
        if self._corpus.n == 0:
            first = records[0]
            self._corpus.extend([0.0], [float(first.tokens_after + first.count)])
            self._corpus_top = float(first.tokens_after + first.count)
        self._corpus.extend([r.step for r in records], [r.tokens_after for r in records])
        self._x_max = max(self._x_max, records[-1].step)
        self._schedule()

    def _schedule(self) -> None:
        """Apply data changes on the next turn of the event loop, once, however many arrived.

        Training batches and a new model's trace then cost one ``setData`` each, and the plot's
        relayout does not add to the work of the event that changed the data.
        """
        self._refresh.trigger()

    def flush(self) -> None:
        """Apply pending data changes now."""
        self._refresh.cancel()
        self._refresh_text()
        self._refresh_corpus()
        self._refresh_layout()

    def set_step(self, step: int) -> None:
        """Move the cursor to ``step``."""
        self._step = step
        if self.widget is None:
            return
        self._moving = True
        try:
            self.step_line.setValue(step)
            self.corpus_cursor.setValue(step)
        finally:
            self._moving = False

    def _on_cursor_dragged(self) -> None:
        if self._moving:
            return
        step = int(round(self.step_line.value()))
        step = min(max(step, 0), self._x_max)
        self.corpus_cursor.setValue(step)
        self.cursorMoved.emit(step)

    def _refresh_text(self) -> None:
        if self.widget is None:
            return
        if self._text_xy is None:
            self.text_curve.setData([], [])
            self.ratio_curve.setData([], [])
            # No stale ranges of the tokenizer replayed before (80…20 tokens, 2.5 bytes/token).
            self.text_plot.setYRange(0, 1, padding=0)
            self.ratio_box.setYRange(0, max(1.0, self.extra_ratio_top), padding=0)
            return
        x, y, ratio = self._text_xy
        self.text_curve.setData(x, y)
        self.ratio_curve.setData(x, ratio)
        if y.size:
            self.text_plot.setYRange(0, float(y.max()) * 1.05, padding=0)
            self.ratio_box.setYRange(0, max(float(ratio.max()) * 1.1, 1.0, self.extra_ratio_top), padding=0)

    def _refresh_corpus(self) -> None:
        if self.widget is None:
            return
        x, y = self._corpus.data()
        self.corpus_curve.setData(x, y)
        if self._corpus_top > 0 and self._corpus_top != self._shown_top:
            self._shown_top = self._corpus_top
            self.corpus_plot.setYRange(0, self._corpus_top * 1.05, padding=0)

    def _refresh_layout(self) -> None:
        if self.widget is None:
            return
        text_visible = self._text_xy is not None or not self._corpus_visible
        self.text_plot.setVisible(text_visible)
        self.corpus_plot.setVisible(self._corpus_visible)
        # Both plots show the same steps while both are shown (see _follow_x).
        linked = text_visible and self._corpus_visible
        if linked != self._linked:
            self._linked = linked
            self._shown_x_max = -1
        # The lower plot carries the step axis; the upper one's would only repeat it.
        below = self._corpus_visible
        self.text_plot.getAxis("bottom").setStyle(showValues=not below)
        _relabel(self.text_plot, "bottom", "" if below else "merge step")
        # The editor text's token count; over the corpus's plot, "text" tells the two apart in less height.
        _relabel(self.text_plot, "left", "text" if below else "tokens")
        if self._x_max != self._shown_x_max:
            self._shown_x_max = self._x_max
            # Set on both: a hidden plot's view box cannot drive its visible partner.
            self.text_plot.setXRange(0, self._x_max, padding=0.02)
            self.corpus_plot.setXRange(0, self._x_max, padding=0.02)
            self.step_line.setBounds((0, self._x_max))
            for plot in (self.text_plot, self.corpus_plot):
                # Steps are whole numbers: no 0.5 ticks on a three-merge demo.
                if self._x_max <= 12:
                    plot.getAxis("bottom").setTickSpacing(1, 1)
                else:
                    plot.getAxis("bottom").setTickSpacing()
        self.set_step(self._step)
        self.fit_axis_titles()

    def legend_html(self, short: bool = False) -> str:
        """The legend of the lines drawn now as rich text (``short`` names fit one line over the plot)."""
        return legend_html(self._text_xy is not None, self._corpus_visible, short)

    def curve_data(self) -> tuple[np.ndarray, np.ndarray]:
        """The text-token curve's points, all of them (what is drawn may be thinned to the pixels)."""
        if self.widget is None:
            self.build()
        self.flush()
        x, y = self.text_curve.getOriginalDataset()
        return (np.zeros(0) if x is None else x), (np.zeros(0) if y is None else y)

    def corpus_data(self) -> tuple[np.ndarray, np.ndarray]:
        """The corpus curve's points (for tests)."""
        return self._corpus.data()
