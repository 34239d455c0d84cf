"""The merge-history timeline: replay BPE on the editor's text, merge by merge.

A slider runs over merge steps 0..M of one tokenizer (trained here, loaded, GPT-2, cl100k). At step
k the replay view shows the text encoded with only the first k merges, and the tokens the current
merge made are outlined. The core's :class:`~tokviz.core.replay.ReplayTrace` records once which
merges change the text (at most one per byte), so token counts at any step are lookups, play and
step buttons skip straight to the merges that matter, and a jump costs one encoding of the text.
While a model trains, its merges stream into the table and the corpus curve instead.
"""

from __future__ import annotations

import importlib
import sys
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from PySide6.QtCore import QEvent, QModelIndex, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QPainter, QPaintEvent, QPalette, QPen
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QSizePolicy,
    QSlider,
    QSpinBox,
    QSplitter,
    QStackedLayout,
    QStyle,
    QTableView,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from tokviz.core.bytes_ import printable_token
from tokviz.core.replay import ReplayTrace
from tokviz.core.tokenizer import Tokenizer
from tokviz.core.train import MergeRecord

from .display import DisplayOptions
from .merge_table import (
    CORPUS_TOKENS,
    COUNT,
    ID,
    MERGE,
    NEW,
    STEP,
    TEXT_TOKENS,
    TIES,
    MergeTableModel,
)
from .models import TokenizerRegistryModel
from .picker import TokenizerPicker
from .theme import token_colors
from .token_table import TokenTable
from .token_view import TokenView
from .workers import Job, run_job

if TYPE_CHECKING:
    import pyqtgraph as pg

# Only the first this many characters of the editor's text are replayed (each step re-encodes them).
REPLAY_LIMIT = 100_000
# Texts up to this many code points are re-encoded in the GUI thread at each step (a few ms).
SYNC_CHARS = 4000
_LABEL_STYLE = {"font-size": "9pt"}
SPEEDS = (0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0)
DEFAULT_SPEED = 2.0


@dataclass
class ReplaySource:
    """What the timeline replays: a tokenizer, and for a model trained here its merge history."""

    tokenizer: Tokenizer
    key: str = ""
    history: Sequence[MergeRecord] = ()
    corpus_initial: int | None = None


def _prepare_trace(tokenizer: Tokenizer, text: str) -> ReplayTrace:
    """Worker-thread part: build the merge tables (GPT-2 recovers its merges here) and the trace."""
    tokenizer.merge_rank_of_id  # noqa: B018 - forces the tables; ~0.5 s for cl100k the first time
    return ReplayTrace(tokenizer, text)


def _table_at(trace: ReplayTrace, step: int) -> TokenTable:
    return TokenTable.from_spans(trace.text, trace.spans_at(step))


class ReplayView(TokenView):
    """A token view that also outlines the tokens made by the current merge."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("timelineView")
        self.setAccessibleName("Replay view")
        self.setAccessibleDescription("The text encoded with only the first k merges")
        self.marked = np.zeros(0, dtype=bool)
        self.mark_color = QColor("#e8590c")

    def set_marked(self, marked: np.ndarray) -> None:
        """Outline the tokens where ``marked`` is true."""
        self.marked = marked
        self.viewport().update()

    def set_colors(self, colors: Any) -> None:
        super().set_colors(colors)
        self.mark_color = QColor("#ffa94d") if colors.dark else QColor("#d9480f")

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        if not self.marked.any():
            return
        fill = QColor(self.mark_color)
        fill.setAlpha(55)
        painter = QPainter(self.viewport())
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(QPen(self.mark_color, 2.5))
        painter.setBrush(QBrush(fill))
        n = len(self.marked)
        for box in self.visible_boxes():
            if box.token < n and self.marked[box.token]:
                painter.drawRoundedRect(box.rect.adjusted(0.5, 0.5, -0.5, -0.5), 3, 3)
        painter.end()

    def first_marked_rect(self) -> QRectF | None:
        """Where the first outlined token is drawn, if it is on screen."""
        for box in self.visible_boxes():
            if box.token < len(self.marked) and self.marked[box.token]:
                return box.rect
        return None


def short_count(value: float) -> str:
    """An axis label for a count: 950, 12k, 1.5M."""
    v = abs(value)
    if v >= 1e6:
        return f"{value / 1e6:.3g}M"
    if v >= 1e4:
        return f"{value / 1e3:.3g}k"
    return f"{value:.6g}"


def _count_axis(pg: Any, orientation: str) -> Any:
    """A pyqtgraph axis that labels counts as 950, 12k, 1.5M instead of 1.5e+06."""

    class CountAxis(pg.AxisItem):
        def tickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:
            return [short_count(v * scale) for v in values]

    return CountAxis(orientation)


_warmup: threading.Thread | None = None


def warm_up_plotting() -> None:
    """Import pyqtgraph in a background thread, so that the plot later opens without a pause.

    The import takes most of a second of pure Python; in a worker thread it only costs the GUI
    thread a few milliseconds here and there. It creates no Qt object.
    """
    global _warmup
    if "pyqtgraph" in sys.modules or _warmup is not None:
        return
    _warmup = threading.Thread(target=_import_pyqtgraph, name="tokviz-pyqtgraph-import", daemon=True)
    _warmup.start()


def plotting_ready() -> bool:
    """True when importing pyqtgraph is free (done, or never started in the background)."""
    return _warmup is None or not _warmup.is_alive()


def _import_pyqtgraph() -> None:
    try:
        importlib.import_module("pyqtgraph")
    except ImportError:
        pass  # the GUI thread will report it when it builds the plot


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
        self.setMinimumSize(220, 160)
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self.widget: pg.GraphicsLayoutWidget | None = None
        self._text_xy: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        self._corpus = _Series()
        self._corpus_visible = False
        self._corpus_top = 0.0
        self._step = 0
        self._x_max = 1
        self._moving = False
        self._pending = False

    @property
    def built(self) -> bool:
        """True once the pyqtgraph items exist."""
        return self.widget is not None

    def showEvent(self, event: QEvent) -> None:
        super().showEvent(event)
        if self.widget is None:
            self.build()

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
        text_plot = w.addPlot(row=0, col=0, axisItems={"left": _count_axis(pg, "left")})
        text_plot.setMenuEnabled(False)
        text_plot.setLabel("left", "text tokens", **_LABEL_STYLE)
        text_plot.showGrid(x=True, y=True, alpha=0.15)
        text_plot.setMouseEnabled(x=True, y=False)
        text_plot.hideButtons()
        self.text_plot = text_plot
        self.text_curve = text_plot.plot([], [], pen=pg.mkPen("#2f6fb3", width=2), name="tokens")
        # Bytes per token on a right-hand axis of its own (a second view box sharing the x axis).
        self.ratio_box = pg.ViewBox()
        self.ratio_box.setMouseEnabled(x=False, y=False)
        text_plot.showAxis("right")
        text_plot.scene().addItem(self.ratio_box)
        text_plot.getAxis("right").linkToView(self.ratio_box)
        text_plot.getAxis("right").setLabel("bytes/token", **_LABEL_STYLE)
        self.ratio_box.setXLink(text_plot)
        self.ratio_curve = pg.PlotDataItem(
            [], [], pen=pg.mkPen("#e8590c", width=1.5, style=Qt.PenStyle.DashLine)
        )
        self.ratio_box.addItem(self.ratio_curve)
        text_plot.vb.sigResized.connect(self._sync_ratio_box)
        self.cursor = pg.InfiniteLine(pos=0, angle=90, movable=True, pen=pg.mkPen("#d9480f", width=2))
        self.cursor.setZValue(10)
        self.cursor.setToolTip("Drag to another merge step")
        self.cursor.sigPositionChanged.connect(self._on_cursor_dragged)
        text_plot.addItem(self.cursor)

        corpus_plot = w.addPlot(
            row=1, col=0, axisItems={"left": _count_axis(pg, "left"), "bottom": _count_axis(pg, "bottom")}
        )
        corpus_plot.setMenuEnabled(False)
        corpus_plot.setLabel("left", "corpus tokens", **_LABEL_STYLE)
        corpus_plot.setLabel("bottom", "merge step", **_LABEL_STYLE)
        corpus_plot.showGrid(x=True, y=True, alpha=0.15)
        corpus_plot.setMouseEnabled(x=True, y=False)
        corpus_plot.hideButtons()
        self.corpus_plot = corpus_plot
        self.corpus_curve = corpus_plot.plot([], [], pen=pg.mkPen("#2b8a3e", width=2))
        self.corpus_cursor = pg.InfiniteLine(pos=0, angle=90, movable=False, pen=pg.mkPen("#d9480f", width=1))
        corpus_plot.addItem(self.corpus_cursor)
        # Same axis widths in both plots, so that their x axes line up step for step.
        corpus_plot.showAxis("right")
        corpus_plot.getAxis("right").setStyle(showValues=False)
        for plot in (text_plot, corpus_plot):
            plot.getAxis("left").setWidth(64)
            plot.getAxis("right").setWidth(48)
        self._shown_x_max = -1
        self.apply_palette()
        self._refresh_text()
        self._refresh_corpus()
        self._refresh_layout()

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
        tick_font = QFont(self.font())
        tick_font.setPointSizeF(max(7.0, tick_font.pointSizeF() - 2))
        for plot in (self.text_plot, self.corpus_plot):
            for name in ("left", "bottom", "right"):
                axis = plot.getAxis(name)
                axis.setPen(pg.mkPen(fg))
                axis.setTextPen(pg.mkPen(fg))
                axis.setStyle(tickFont=tick_font, tickTextOffset=3)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
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

    def set_corpus(self, history: Sequence[MergeRecord], initial: int | None) -> None:
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

    def append_corpus(self, records: Sequence[MergeRecord]) -> None:
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
        if not self._pending:
            self._pending = True
            QTimer.singleShot(0, self, self.flush)

    def flush(self) -> None:
        """Apply pending data changes now."""
        self._pending = False
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
            self.cursor.setValue(step)
            self.corpus_cursor.setValue(step)
        finally:
            self._moving = False

    def _on_cursor_dragged(self) -> None:
        if self._moving:
            return
        step = int(round(self.cursor.value()))
        step = min(max(step, 0), self._x_max)
        self.corpus_cursor.setValue(step)
        self.cursorMoved.emit(step)

    def _refresh_text(self) -> None:
        if self.widget is None:
            return
        if self._text_xy is None:
            self.text_curve.setData([], [])
            self.ratio_curve.setData([], [])
            return
        x, y, ratio = self._text_xy
        self.text_curve.setData(x, y)
        self.ratio_curve.setData(x, ratio)
        if y.size:
            self.text_plot.setYRange(0, float(y.max()) * 1.05, padding=0)
            self.ratio_box.setYRange(0, max(float(ratio.max()) * 1.1, 1.0), padding=0)

    def _refresh_corpus(self) -> None:
        if self.widget is None:
            return
        x, y = self._corpus.data()
        self.corpus_curve.setData(x, y)
        if self._corpus_top > 0 and self._corpus_top != getattr(self, "_shown_top", None):
            self._shown_top = self._corpus_top
            self.corpus_plot.setYRange(0, self._corpus_top * 1.05, padding=0)

    def _refresh_layout(self) -> None:
        if self.widget is None:
            return
        text_visible = self._text_xy is not None or not self._corpus_visible
        self.text_plot.setVisible(text_visible)
        self.corpus_plot.setVisible(self._corpus_visible)
        # Linked x axes only while both plots are shown: a hidden view box has no width to map.
        linked = text_visible and self._corpus_visible
        if linked != getattr(self, "_linked", None):
            self._linked = linked
            self.corpus_plot.setXLink(self.text_plot if linked else None)
            self._shown_x_max = -1
        # The lower plot carries the step axis; the upper one's would only repeat it.
        below = self._corpus_visible
        self.text_plot.getAxis("bottom").setStyle(showValues=not below)
        self.text_plot.setLabel("bottom", "" if below else "merge step", **_LABEL_STYLE)
        if self._x_max != self._shown_x_max:
            self._shown_x_max = self._x_max
            # Set on both: a hidden plot's view box cannot drive its visible partner.
            self.text_plot.setXRange(0, self._x_max, padding=0.02)
            self.corpus_plot.setXRange(0, self._x_max, padding=0.02)
            self.cursor.setBounds((0, self._x_max))
            for plot in (self.text_plot, self.corpus_plot):
                # Steps are whole numbers: no 0.5 ticks on a three-merge demo.
                if self._x_max <= 12:
                    plot.getAxis("bottom").setTickSpacing(1, 1)
                else:
                    plot.getAxis("bottom").setTickSpacing()
        self.set_step(self._step)

    def curve_data(self) -> tuple[np.ndarray, np.ndarray]:
        """The text-token curve as plotted (for tests)."""
        if self.widget is None:
            self.build()
        self.flush()
        x, y = self.text_curve.getData()
        return (np.zeros(0) if x is None else x), (np.zeros(0) if y is None else y)

    def corpus_data(self) -> tuple[np.ndarray, np.ndarray]:
        """The corpus curve's points (for tests)."""
        return self._corpus.data()


class TimelineWidget(QWidget):
    """The timeline dock's contents: tokenizer picker, transport controls, replay view, merge table, plot.

    Signals: ``stepChanged(step)`` when the slider moves; ``stepShown(step)`` once the view shows
    that step; ``traceReady()`` when a new text or tokenizer has been traced;
    ``openTokenizerRequested()`` when "Open tokenizer…" is picked.
    """

    stepChanged = Signal(int)
    stepShown = Signal(int)
    traceReady = Signal()
    openTokenizerRequested = Signal()

    def __init__(self, registry: TokenizerRegistryModel | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._window_colors = False  # True once the window hands out token colours
        self.setObjectName("timeline")
        self.registry = registry
        self.source: ReplaySource | None = None
        self.text = ""
        self.trace: ReplayTrace | None = None
        self.step = 0
        self.live = False
        self.histories: dict[str, tuple[Sequence[MergeRecord], int | None]] = {}
        self._generation = 0
        self._trace_job: Job | None = None
        self._trace_dirty = False
        self._render_job: Job | None = None
        self._render_wanted: int | None = None
        self._shown_step = -1
        self._saved: tuple[ReplaySource | None, int] | None = None
        self._waiting_for: str | None = None
        self._syncing = False
        self._build_ui()
        self._wire()
        self._set_enabled(False)
        self._set_message("Pick a BPE tokenizer to replay its merges on the editor's text.")

    # ================================================================ layout
    def _build_ui(self) -> None:
        self.picker = TokenizerPicker(self.registry, self)
        self.picker.setObjectName("timelineTokenizerPicker")
        self.picker.setAccessibleName("Tokenizer to replay")
        self.picker.setToolTip("Whose merges to replay on the editor's text")
        self.picker.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)

        style = self.style()
        icons = QStyle.StandardPixmap

        def button(name: str, icon: QStyle.StandardPixmap, tip: str) -> QToolButton:
            b = QToolButton(self)
            b.setObjectName(name)
            b.setIcon(style.standardIcon(icon))
            b.setToolTip(tip)
            b.setAccessibleName(tip.split(" (")[0])
            b.setAutoRaise(True)
            return b

        self.first_button = button("timelineFirst", icons.SP_MediaSkipBackward, "Go to step 0: single bytes")
        self.back_button = button(
            "timelineBack", icons.SP_MediaSeekBackward, "Previous merge that changes the text (Ctrl+[)"
        )
        self.play_button = button("playButton", icons.SP_MediaPlay, "Play / pause (Ctrl+Shift+P)")
        self.play_button.setCheckable(True)
        self.forward_button = button(
            "timelineForward", icons.SP_MediaSeekForward, "Next merge that changes the text (Ctrl+])"
        )
        self.last_button = button(
            "timelineLast", icons.SP_MediaSkipForward, "Go to the last merge: the tokenizer's real output"
        )
        self.slider = QSlider(Qt.Orientation.Horizontal, self)
        self.slider.setObjectName("timelineSlider")
        self.slider.setAccessibleName("Merge step")
        self.slider.setToolTip("Merge step: drag, or use the arrow keys for single steps")
        self.slider.setRange(0, 0)
        self.slider.setPageStep(10)
        self.slider.setMinimumWidth(160)
        self.step_box = QSpinBox(self)
        self.step_box.setObjectName("timelineStep")
        self.step_box.setAccessibleName("Jump to step")
        self.step_box.setToolTip("Jump to a merge step")
        self.step_box.setKeyboardTracking(False)
        self.step_box.setRange(0, 0)
        self.step_box.setPrefix("step ")
        self.total_label = QLabel("/ 0", self)
        self.total_label.setObjectName("timelineTotal")
        self.speed = QComboBox(self)
        self.speed.setObjectName("timelineSpeed")
        self.speed.setAccessibleName("Replay speed")
        self.speed.setToolTip("Replay speed: merges that change the text, per second")
        for s in SPEEDS:
            self.speed.addItem(f"{s:g}×/s", s)
        self.speed.setCurrentIndex(SPEEDS.index(DEFAULT_SPEED))

        self.chunks = QCheckBox("Chunks", self)
        self.chunks.setObjectName("timelineChunks")
        self.chunks.setToolTip("Mark where the pre-tokenizer cuts the text: merges never cross these marks")
        self.chunks.setChecked(True)

        controls = QHBoxLayout()
        controls.setContentsMargins(6, 4, 6, 0)
        controls.setSpacing(4)
        controls.addWidget(QLabel("Replay", self))
        controls.addWidget(self.picker)
        controls.addSpacing(6)
        for b in (
            self.first_button,
            self.back_button,
            self.play_button,
            self.forward_button,
            self.last_button,
        ):
            controls.addWidget(b)
        controls.addWidget(self.slider, 1)
        controls.addWidget(self.step_box)
        controls.addWidget(self.total_label)
        controls.addWidget(self.speed)
        controls.addWidget(self.chunks)

        self.caption = QLabel(self)
        self.caption.setObjectName("timelineCaption")
        self.caption.setTextFormat(Qt.TextFormat.RichText)
        self.caption.setWordWrap(True)
        self.caption.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.caption.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Minimum)

        self.view = ReplayView(self)
        self.view.set_options(DisplayOptions(whitespace=True))
        self.view.set_show_chunks(True)
        self.message = QLabel(self)
        self.message.setObjectName("timelineMessage")
        self.message.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.message.setWordWrap(True)
        self.message.setMargin(12)
        self.view_stack = QStackedLayout()
        self.view_stack.addWidget(self.view)
        self.view_stack.addWidget(self.message)
        view_box = QWidget(self)
        view_layout = QVBoxLayout(view_box)
        view_layout.setContentsMargins(0, 0, 0, 0)
        view_layout.setSpacing(2)
        view_layout.addWidget(self.caption)
        view_layout.addLayout(self.view_stack, 1)

        self.model = MergeTableModel(self)
        self.table = QTableView(self)
        self.table.setObjectName("mergeTable")
        self.table.setAccessibleName("Merges")
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.table.verticalHeader().setDefaultSectionSize(self.table.fontMetrics().height() + 6)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.horizontalHeader().setHighlightSections(False)
        self._size_columns()
        self.changes_only = QCheckBox("Only merges that change the text", self)
        self.changes_only.setObjectName("changesOnly")
        self.changes_only.setToolTip("Hide the merges that do not occur in the editor's text")
        table_box = QWidget(self)
        table_layout = QVBoxLayout(table_box)
        table_layout.setContentsMargins(0, 0, 0, 0)
        table_layout.setSpacing(2)
        table_layout.addWidget(self.table, 1)
        table_layout.addWidget(self.changes_only)

        self.plot = TokenCountPlot(self)
        # Left: the replay above its token-count plot; right: the merge table.
        self.left_splitter = QSplitter(Qt.Orientation.Vertical, self)
        self.left_splitter.setObjectName("timelineLeftSplitter")
        self.left_splitter.setChildrenCollapsible(False)
        self.left_splitter.addWidget(view_box)
        self.left_splitter.addWidget(self.plot)
        self.left_splitter.setStretchFactor(0, 2)
        self.left_splitter.setStretchFactor(1, 3)
        self.splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.splitter.setObjectName("timelineSplitter")
        self.splitter.setChildrenCollapsible(False)
        self.splitter.addWidget(self.left_splitter)
        self.splitter.addWidget(table_box)
        self.splitter.setStretchFactor(0, 1)
        self.splitter.setStretchFactor(1, 1)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 4)
        layout.setSpacing(4)
        layout.addLayout(controls)
        layout.addWidget(self.splitter, 1)

        self.play_timer = QTimer(self)
        self.play_timer.setObjectName("timelinePlayTimer")
        self._apply_speed()
        self.view.set_colors(token_colors(self._dark()))

    def _size_columns(self) -> None:
        """Column widths from the font, so headers and typical values fit at any zoom."""
        fm = self.table.fontMetrics()
        samples = {
            STEP: "100,000",
            MERGE: "·the + ·cat",
            NEW: "·token",
            ID: "100,276",
            COUNT: "3,437,840",
            TIES: "999",
            TEXT_TOKENS: "100,000",
            CORPUS_TOKENS: "25,000,000",
        }
        for col, sample in samples.items():
            header = str(self.model.headerData(col, Qt.Orientation.Horizontal))
            width = (
                max(fm.horizontalAdvance(sample), fm.horizontalAdvance(header)) + 2 * fm.averageCharWidth()
            )
            self.table.setColumnWidth(col, width)

    def _wire(self) -> None:
        self.slider.valueChanged.connect(self._on_slider)
        self.step_box.valueChanged.connect(self._on_slider)
        self.first_button.clicked.connect(lambda: self.set_step(0))
        self.last_button.clicked.connect(lambda: self.set_step(self.total_steps))
        self.back_button.clicked.connect(self.step_back)
        self.forward_button.clicked.connect(self.step_forward)
        self.play_button.toggled.connect(self._on_play_toggled)
        self.play_timer.timeout.connect(self._on_play_tick)
        self.speed.currentIndexChanged.connect(self._apply_speed)
        self.table.clicked.connect(self._on_table_clicked)
        self.table.activated.connect(self._on_table_clicked)
        self.changes_only.toggled.connect(self._on_changes_only)
        self.chunks.toggled.connect(self.view.set_show_chunks)
        self.plot.cursorMoved.connect(self.set_step)
        self.picker.picked.connect(self.set_tokenizer_key)
        self.picker.openRequested.connect(self.openTokenizerRequested.emit)
        if self.registry is not None:
            self.registry.tokenizerLoaded.connect(self._on_registry_loaded)
            self.registry.mergesReady.connect(self._on_registry_merges_ready)

    # ================================================================ public API
    @property
    def total_steps(self) -> int:
        """M, the number of merges of the replayed tokenizer (0 when there is none)."""
        return self.source.tokenizer.merge_count if self.source is not None else 0

    @property
    def tokenizer(self) -> Tokenizer | None:
        """The tokenizer being replayed."""
        return self.source.tokenizer if self.source is not None else None

    @property
    def key(self) -> str:
        """Registry key of the tokenizer being replayed ('' for one given directly)."""
        return self.source.key if self.source is not None else ""

    def is_ready(self) -> bool:
        """True when the view shows the current step of the current text (nothing pending)."""
        return (
            not self.live
            and self.trace is not None
            and self._trace_job is None
            and not self._trace_dirty
            and self._render_job is None
            and self.trace.text == self.replay_text
            and self._shown_step == self.step
        )

    @property
    def replay_text(self) -> str:
        """The part of the text that is replayed: all of it, up to ``REPLAY_LIMIT`` characters."""
        return self.text[:REPLAY_LIMIT]

    def set_text(self, text: str) -> None:
        """Replay on a new text (the editor's); the trace is rebuilt in a worker."""
        if text == self.text and (self.trace is None or self.trace.text == self.replay_text):
            return
        self.text = text
        if self.source is not None and not self.live:
            self._prepare()

    def remember_history(self, key: str, history: Sequence[MergeRecord], corpus_initial: int | None) -> None:
        """Keep a trained model's history so the table shows counts and ties whenever it is picked."""
        self.histories[key] = (history, corpus_initial)

    def set_tokenizer_key(self, key: str) -> None:
        """Replay a tokenizer from the registry (loaded and prepared in the background if needed)."""
        if self.registry is None or self.live:
            return
        self._waiting_for = None
        tok = self.registry.tokenizer(key)
        self.picker.show_key(key)
        if tok is None:
            self._waiting_for = key
            self._detach(f"Loading {self.registry.label(key)}…")
            self.registry.ensure_loaded(key)
            return
        if tok.is_bpe and not self.registry.merges_ready(key):
            # The registry builds merge tables one tokenizer at a time (shared with hover cards).
            self._waiting_for = key
            self._detach(f"Recovering the merges of {self.registry.label(key)}…")
            self.registry.prepare_merges(key)
            return
        history, initial = self.histories.get(key, ((), None))
        self.set_tokenizer(tok, history, initial, key)

    def set_tokenizer(
        self,
        tokenizer: Tokenizer,
        history: Sequence[MergeRecord] = (),
        corpus_initial: int | None = None,
        key: str = "",
    ) -> None:
        """Replay ``tokenizer``'s merges; ``history`` (a training run's records) adds counts and ties."""
        self.pause()
        self._waiting_for = None
        self.source = ReplaySource(tokenizer, key, history, corpus_initial)
        if key:
            self.picker.show_key(key)
        if not tokenizer.is_bpe:
            self._detach(f"{tokenizer.name} has no merges: every byte stays a token of its own.")
            return
        self._prepare(keep_step=False)

    def set_step(self, step: int) -> None:
        """Show the text after the first ``step`` merges (clamped to 0..M)."""
        if self.source is None or self.live:
            return
        step = min(max(int(step), 0), self.total_steps)
        changed = step != self.step
        self.step = step
        self._sync_controls()
        if self.trace is not None and (step != self._shown_step or self._render_job is not None):
            self._render(step)
        if changed:
            self.stepChanged.emit(step)

    def step_forward(self) -> None:
        """Jump to the next merge that changes the text (or the last step)."""
        if self.trace is None:
            return
        nxt = self.trace.next_event(self.step)
        self.set_step(nxt if nxt is not None else self.total_steps)

    def step_back(self) -> None:
        """Jump to the previous merge that changes the text (or step 0)."""
        if self.trace is None:
            return
        prev = self.trace.previous_event(self.step)
        self.set_step(prev if prev is not None else 0)

    def play(self) -> None:
        """Step through the merges that change the text, at the chosen speed (restarts at 0 from the end)."""
        if self.trace is None or self.live:
            return
        if self.trace.next_event(self.step) is None:
            self.set_step(0)
        self.play_button.setChecked(True)

    def pause(self) -> None:
        """Stop playing."""
        self.play_button.setChecked(False)

    @property
    def playing(self) -> bool:
        """True while the replay plays."""
        return self.play_timer.isActive()

    def toggle_play(self) -> None:
        """Play if paused, pause if playing."""
        if self.playing:
            self.pause()
        else:
            self.play()

    def set_display_options(self, options: DisplayOptions) -> None:
        """Ids instead of text (whitespace stays visible: boundaries at spaces are the point here)."""
        self.view.set_options(DisplayOptions(show_ids=options.show_ids, whitespace=True))

    # ---------------------------------------------------------------- live training
    def prepare_plot_in_background(self) -> None:
        """Import pyqtgraph in a worker thread now, and build the plot once that is done."""
        warm_up_plotting()
        timer = QTimer(self)
        timer.setInterval(200)

        def check() -> None:
            if plotting_ready():
                timer.stop()
                timer.deleteLater()
                self.plot.build()

        timer.timeout.connect(check)
        timer.start()

    def begin_live(self, planned_merges: int = 0) -> None:
        """A training run started: its merges stream into the table and the corpus plot."""
        if self.live:
            return
        self.pause()
        self._saved = (self.source, self.step)
        self._generation += 1
        self._trace_dirty = False
        self.live = True
        self.model.begin_live()
        self.plot.begin_live(planned_merges)
        self.picker.show_key(None)
        self.picker.setCurrentIndex(-1)  # nothing to pick from until the model exists
        self._set_enabled(False)
        self._set_message("Training… the merges appear in the table as they are made.")
        self.caption.setText("<b>Training</b> · merges stream into the table")

    def append_merges(self, records: Sequence[MergeRecord]) -> None:
        """A batch of merges from the running trainer (the table follows the end while at the bottom)."""
        if not self.live or not records:
            return
        bar = self.table.verticalScrollBar()
        at_end = bar.value() >= bar.maximum() - 2
        self.model.append_merges(records)
        self.plot.append_corpus(records)
        last = records[-1]
        self.caption.setText(
            f"<b>Training</b> · {last.step:,} merges · latest "
            f"<code>{_html(printable_token(last.left))} + {_html(printable_token(last.right))}</code>"
            f" (count {last.count:,})"
        )
        if at_end:
            self.table.scrollToBottom()

    def end_live(self, key: str | None = None) -> None:
        """Training ended: show the new model (``key``), or put back what was shown before (cancel, error)."""
        if not self.live:
            return
        self.live = False
        saved, self._saved = self._saved, None
        tok = self.registry.tokenizer(key) if key is not None and self.registry is not None else None
        if key is not None and tok is not None:
            # The trainer built the merge tables already; the live rows stay until the trace is ready.
            history, initial = self.histories.get(key, ((), None))
            self.set_tokenizer(tok, history, initial, key)
            return
        prev_source, prev_step = saved if saved is not None else (None, 0)
        if prev_source is None:
            self.source = None
            self.model.set_source(None)
            self.plot.set_trace(None, 0)
            self.plot.set_corpus((), None)
            self._detach("Pick a BPE tokenizer to replay its merges on the editor's text.")
            return
        self.source = prev_source
        self.step = prev_step
        self.picker.show_key(prev_source.key)
        self._prepare(keep_step=True)

    # ================================================================ internals
    def _dark(self) -> bool:
        return self.palette().color(QPalette.ColorRole.Window).lightness() < 128

    def follow_colors(self, colors_changed: Any) -> None:
        """Take token colours from the window (theme and presentation mode) from now on."""
        self._window_colors = True
        colors_changed.connect(self.view.set_colors)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            dark = self._dark()
            if not self._window_colors:
                self.view.set_colors(token_colors(dark))
            self.model.muted = QColor("#8a8a8a") if not dark else QColor("#7d7d7d")
        elif event.type() == QEvent.Type.FontChange:
            self._size_columns()

    def _set_enabled(self, on: bool) -> None:
        for w in (
            self.first_button,
            self.back_button,
            self.play_button,
            self.forward_button,
            self.last_button,
            self.slider,
            self.step_box,
            self.speed,
        ):
            w.setEnabled(on)
        self.picker.setEnabled(not self.live)
        self.changes_only.setEnabled(on)

    def _set_message(self, text: str) -> None:
        self.message.setText(text)
        self.view_stack.setCurrentWidget(self.message)

    def _detach(self, message: str) -> None:
        """Nothing to replay right now (loading, no merges): say why."""
        self.pause()
        self._generation += 1
        self._trace_dirty = False
        self.trace = None
        self.model.set_source(None)
        self.plot.set_trace(None, 0)
        self.plot.set_corpus((), None)
        self._set_enabled(False)
        self.slider.setRange(0, 0)
        self.caption.setText("")
        self._set_message(message)

    def _on_registry_loaded(self, key: str) -> None:
        if self.live or self.registry is None:
            return
        if key == self._waiting_for or (self.source is not None and key == self.source.key):
            tok = self.registry.tokenizer(key)
            if self._waiting_for == key or (
                tok is not None and self.source is not None and tok is not self.source.tokenizer
            ):
                self.set_tokenizer_key(key)

    def _on_registry_merges_ready(self, key: str) -> None:
        if key == self._waiting_for and not self.live:
            self.set_tokenizer_key(key)

    def _prepare(self, keep_step: bool = True) -> None:
        """Trace the text under the tokenizer in a worker; the view follows when it is ready.

        One trace is built at a time: a change while one is running (typing in a long text) is
        traced once that one ends, so the worker pool never fills with stale work.
        """
        if self.source is None:
            return
        if not keep_step:
            self.step = 0
        self._generation += 1
        self._trace_dirty = True
        tok = self.source.tokenizer
        if self.trace is None or self.trace.tokenizer is not tok:
            self._set_message(f"Tracing the merges of {tok.name} on the text…")
        if self._trace_job is None:
            self._start_trace()

    def _start_trace(self) -> None:
        source = self.source
        assert source is not None
        self._trace_dirty = False
        generation = self._generation
        text = self.replay_text
        tok = source.tokenizer
        job = run_job(lambda: _prepare_trace(tok, text), self)
        self._trace_job = job

        def done(trace: ReplayTrace) -> None:
            if generation == self._generation:
                self._on_trace(trace)

        def failed(exc: BaseException) -> None:
            if generation == self._generation:
                self._detach(f"Cannot replay {tok.name}: {exc}")

        def finished() -> None:
            self._trace_job = None
            if self._trace_dirty and self.source is not None and not self.live:
                self._start_trace()

        job.returned.connect(done)
        job.errored.connect(failed)
        job.finished.connect(finished)

    def _on_trace(self, trace: ReplayTrace) -> None:
        source = self.source
        assert source is not None
        same_tokenizer = (
            self.trace is not None
            and self.trace.tokenizer is trace.tokenizer
            and self.model.tokenizer is trace.tokenizer
        )
        self.trace = trace
        if same_tokenizer:
            self.model.set_trace(trace)
        else:
            self.model.set_source(source.tokenizer, source.history, trace, source.corpus_initial)
        self.plot.set_trace(trace, self.total_steps)
        self.plot.set_corpus(source.history, source.corpus_initial)
        self._syncing = True
        try:
            self.slider.setRange(0, self.total_steps)
            self.slider.setPageStep(max(1, self.total_steps // 50))
            self.step_box.setRange(0, self.total_steps)
            self.total_label.setText(f"/ {self.total_steps:,}")
        finally:
            self._syncing = False
        self._set_enabled(True)
        self.step = min(self.step, self.total_steps)
        self._shown_step = -1
        self.traceReady.emit()
        self.set_step(self.step)

    def _sync_controls(self) -> None:
        self._syncing = True
        try:
            if self.slider.value() != self.step:
                self.slider.setValue(self.step)
            if self.step_box.value() != self.step:
                self.step_box.setValue(self.step)
        finally:
            self._syncing = False
        self.plot.set_step(self.step)
        self.model.set_current_step(self.step)
        row = self.model.nearest_row(self.step)
        if row >= 0:
            index = self.model.index(row, 0)
            self._syncing = True
            try:
                self.table.selectionModel().setCurrentIndex(
                    index,
                    self.table.selectionModel().SelectionFlag.ClearAndSelect
                    | self.table.selectionModel().SelectionFlag.Rows,
                )
            finally:
                self._syncing = False
            self.table.scrollTo(index, QAbstractItemView.ScrollHint.EnsureVisible)

    def _on_slider(self, value: int) -> None:
        if not self._syncing:
            self.set_step(value)

    def _on_table_clicked(self, index: QModelIndex) -> None:
        if self._syncing or not index.isValid() or self.model.live:
            return
        self.set_step(self.model.step_of_row(index.row()))

    def _on_changes_only(self, on: bool) -> None:
        self.model.set_changes_only(on)
        self.model.set_current_step(self.step)
        self._sync_controls()

    def _apply_speed(self, *_args: object) -> None:
        speed = float(self.speed.currentData() or DEFAULT_SPEED)
        self.play_timer.setInterval(max(15, int(1000 / speed)))

    def _on_play_toggled(self, on: bool) -> None:
        icon = QStyle.StandardPixmap.SP_MediaPause if on else QStyle.StandardPixmap.SP_MediaPlay
        self.play_button.setIcon(self.style().standardIcon(icon))
        if on and self.trace is not None:
            self.play_timer.start()
        else:
            self.play_timer.stop()

    def _on_play_tick(self) -> None:
        if self.trace is None or self.live:
            self.pause()
            return
        if self._render_job is not None:
            return  # a large text is still being encoded: wait for it rather than pile up steps
        nxt = self.trace.next_event(self.step)
        if nxt is None:
            self.set_step(self.total_steps)
            self.pause()
            return
        self.set_step(nxt)

    # ---------------------------------------------------------------- rendering a step
    def _render(self, step: int) -> None:
        trace = self.trace
        assert trace is not None
        if len(trace.text) <= SYNC_CHARS:
            self._show(step, _table_at(trace, step))
            return
        self._render_wanted = step
        if self._render_job is None:
            self._start_render()

    def _start_render(self) -> None:
        trace = self.trace
        step = self._render_wanted
        if trace is None or step is None:
            return
        self._render_wanted = None
        generation = self._generation
        job = run_job(lambda: _table_at(trace, step), self)
        self._render_job = job

        def done(table: TokenTable) -> None:
            self._render_job = None
            if generation != self._generation or self.trace is not trace:
                return
            if self._render_wanted is None:
                self._show(step, table)
            self._start_render()

        def failed(exc: BaseException) -> None:
            self._render_job = None
            if generation == self._generation:
                self._set_message(f"Cannot encode the text at step {step}: {exc}")

        job.returned.connect(done)
        job.errored.connect(failed)

    def _show(self, step: int, table: TokenTable) -> None:
        trace = self.trace
        assert trace is not None
        tok = trace.tokenizer
        self.view.set_content(table, tok)
        new_id = trace.new_id_at(step) if trace.changes_text(step) else None
        marked = table.ids == new_id if new_id is not None else np.zeros(len(table), dtype=bool)
        self.view.set_marked(marked)
        self.view_stack.setCurrentWidget(self.view)
        self._shown_step = step
        self._update_caption(step, len(table))
        if new_id is not None and self.view.first_marked_rect() is None:
            first = int(np.flatnonzero(marked)[0])
            self.view.scroll_to_source(int(table.start[first]))
        self.stepShown.emit(step)

    def _update_caption(self, step: int, n_tokens: int) -> None:
        trace = self.trace
        assert trace is not None
        total = self.total_steps
        nbytes = trace.text_bytes
        ratio = f"{nbytes / n_tokens:.2f}" if n_tokens else "–"
        head = f"<b>Step {step:,}</b> of {total:,}"
        if step == 0:
            what = "the text as single bytes"
        else:
            parts = self.model.merge_parts(step)
            what = ""
            if parts is not None:
                left, right, new_id = parts
                what = (
                    f"<code>{_html(printable_token(left))}</code> + <code>{_html(printable_token(right))}</code>"
                    f" → <code>{_html(printable_token(left + right))}</code> (id {new_id})"
                )
            if not trace.changes_text(step):
                what += " <i>does not occur in this text</i>"
            else:
                what += f", {trace.token_count(step - 1) - trace.token_count(step)}× here"
        note = f" · first {REPLAY_LIMIT:,} characters" if len(self.text) > REPLAY_LIMIT else ""
        self.caption.setText(f"{head} · {what} · <b>{n_tokens:,}</b> tokens · {ratio} bytes/token{note}")


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


__all__ = ["ReplaySource", "ReplayView", "TimelineWidget", "TokenCountPlot", "warm_up_plotting"]
