"""The lattice panel: a word's segmentation lattice, its N best segmentations and sampled ones.

A unigram model (a SentencePiece ``.model``) shows every piece that matches in the word with its
log-probability, the best path (Viterbi) outlined, the N best segmentations with their scores and
segmentations sampled by subword regularization (``alpha``, a seed; Resample draws with the next
seed). A BPE model has no lattice: the panel says so in one line and samples BPE-dropout
(``p``, a seed) instead. Any other tokenizer gets the one line of
:func:`~tokviz.core.analysis.lattice.lattice_problem`. The figures are the core's
(:mod:`tokviz.core.analysis.lattice`), computed off the GUI thread; only the newest request is shown.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QDoubleSpinBox,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QToolButton,
    QWidget,
)

from tokviz.core.analysis.lattice import (
    DEFAULT_ALPHA,
    Lattice,
    Segmentation,
    lattice_problem,
    sample_segmentations,
    sampling_problem,
    segment_lattice,
)
from tokviz.core.analysis.lattice_paths import path_on
from tokviz.core.bpe.tokenizer import Tokenizer
from tokviz.core.errors import TokvizError
from tokviz.gui.drawing.images import VECTOR_PROPERTY
from tokviz.gui.models.tokenizers import TokenizerRegistryModel
from tokviz.gui.panels.lattice.canvas import LatticeCanvas
from tokviz.gui.style.theme import TokenColors
from tokviz.gui.widgets.boxes import STRETCH, column, row, scrolled
from tokviz.gui.widgets.fitted_columns import FittingDelegate
from tokviz.gui.widgets.picker import TokenizerPicker
from tokviz.gui.workers.debounce import Debouncer
from tokviz.gui.workers.latest import LatestJob

MAX_LATTICE_TEXT = 64
"""Characters of the text the panel segments: a lattice is read a word or a short phrase at a time."""
DEFAULT_WORD = "reassignment"
SAMPLES = 8
LEGEND = (
    "Each box: a piece and its log-probability (stronger fill: more probable). Outlined: the best "
    "path (Viterbi); dashed: the segmentation picked in a table."
)
Spin = TypeVar("Spin", QSpinBox, QDoubleSpinBox)


@dataclass(frozen=True)
class LatticeRequest:
    """What to compute: the text, the number of best segmentations, and the sampling's parameters."""

    text: str
    nbest: int
    samples: int
    seed: int
    smoothing: float  # alpha for a unigram model, dropout p for a BPE model


@dataclass(frozen=True)
class LatticeResult:
    """What the panel shows for one request: the lattice or why there is none, and the samples or why not."""

    request: LatticeRequest
    lattice: Lattice | None
    problem: str | None
    samples: tuple[Segmentation, ...]
    sample_problem: str | None
    dropout: bool


def compute_lattice(tok: Tokenizer, request: LatticeRequest) -> LatticeResult:
    """The lattice and samples of ``request.text`` under ``tok`` (background work); a refusal is a line."""
    problem = lattice_problem(tok)
    dropout = problem is not None  # a model without a lattice samples by BPE-dropout
    lattice: Lattice | None = None
    if problem is None:
        try:
            lattice = segment_lattice(tok, request.text, request.nbest)
        except TokvizError as exc:
            problem = str(exc)
    sample_problem = sampling_problem(tok)
    samples: list[Segmentation] = []
    if sample_problem is None:
        options = {"dropout": request.smoothing} if dropout else {"alpha": request.smoothing}
        try:
            samples = sample_segmentations(
                tok, request.text, count=request.samples, seed=request.seed, **options
            )
        except TokvizError as exc:
            sample_problem = str(exc)
    return LatticeResult(request, lattice, problem, tuple(samples), sample_problem, dropout)


def segmentation_text(seg: Segmentation) -> str:
    """A segmentation on one line: its pieces between bars."""
    return " | ".join(seg.pieces)


def _table(name: str, headers: Sequence[str], parent: QWidget) -> QTableWidget:
    table = QTableWidget(0, len(headers), parent)
    table.setObjectName(name)
    table.setHorizontalHeaderLabels(list(headers))
    table.verticalHeader().hide()
    table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
    table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
    table.setTabKeyNavigation(False)
    # Every column as wide as its text (a segmentation is never elided; the table scrolls instead).
    header = table.horizontalHeader()
    header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    header.setStretchLastSection(True)
    table.setTextElideMode(Qt.TextElideMode.ElideNone)
    table.setItemDelegate(
        FittingDelegate(table)
    )  # a score half scrolled off is never cut to its first digits
    return table


def _fill(
    table: QTableWidget, rows: Sequence[Segmentation], best: Segmentation | None, with_score: bool
) -> None:
    table.setRowCount(len(rows))
    for r, seg in enumerate(rows):
        score = f"{seg.score:.4f}" if with_score else "—"
        values = (str(r + 1), segmentation_text(seg), str(len(seg.pieces)), score)
        for c, value in enumerate(values):
            item = QTableWidgetItem(value)
            item.setToolTip(value)
            if c != 1:
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            if best is not None and seg.pieces == best.pieces:
                font = item.font()
                font.setBold(True)
                item.setFont(font)
            table.setItem(r, c, item)


class LatticeView(QWidget):
    """The panel's widget: tokenizer, text and options on top, the lattice left, the tables right.

    ``updated`` fires after each result is shown; ``openTokenizerRequested`` when the picker's
    "Open tokenizer…" is chosen; ``lectureModelRequested`` when the lecture's Unigram is asked for.
    """

    updated = Signal()
    openTokenizerRequested = Signal()
    lectureModelRequested = Signal()

    def __init__(self, registry: TokenizerRegistryModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("latticeView")
        self.setProperty(VECTOR_PROPERTY, True)
        self.registry = registry
        self.key = "gpt2"
        self.result: LatticeResult | None = None
        self._jobs = LatestJob(self)
        self._debouncer = Debouncer(200, self)
        self._debouncer.triggered.connect(self.refresh)

        self.picker = TokenizerPicker(registry, self)
        self.picker.setObjectName("latticeTokenizerPicker")
        self.picker.setAccessibleName("Tokenizer of the lattice")
        # Room for a short name ("Lecture Unigram") rather than an elided one.
        self.picker.fit_name_chars = 16
        self.lecture_button = QToolButton(self)
        self.lecture_button.setObjectName("latticeLectureModel")
        self.lecture_button.setText("Lecture's Unigram")
        self.lecture_button.setToolTip(
            "A Unigram model of 2,000 pieces trained by sentencepiece on the Python docs"
        )
        self.text_edit = QLineEdit(DEFAULT_WORD, self)
        self.text_edit.setObjectName("latticeText")
        self.text_edit.setAccessibleName("Word or short text to segment")
        self.text_edit.setMaxLength(MAX_LATTICE_TEXT)
        self.text_edit.setPlaceholderText("a word or a short text")
        self.text_edit.setMinimumWidth(self.fontMetrics().horizontalAdvance("reassignment") + 24)
        self.selection_button = QToolButton(self)
        self.selection_button.setObjectName("latticeFromSelection")
        self.selection_button.setText("Selection")
        self.selection_button.setToolTip("Segment the editor's selection")
        self.nbest = self._spin(QSpinBox(self), "latticeNBest", "Best segmentations listed", 1, 20, 5)
        self.problem = QLabel(self)
        self.problem.setObjectName("latticeProblem")
        self.problem.setWordWrap(True)
        self.legend = QLabel(LEGEND, self)
        self.legend.setObjectName("latticeLegend")
        self.legend.setWordWrap(True)
        self.canvas = LatticeCanvas(self)
        canvas_area = QWidget(self)
        column(self.problem, self.canvas, self.legend, STRETCH, parent=canvas_area, margins=0)
        self.canvas_scroll = scrolled(canvas_area, "latticeScroll", self)

        self.best_table = _table("latticeNBestTable", ("#", "segmentation", "pieces", "score"), self)
        self.samples_table = _table("latticeSamplesTable", ("#", "segmentation", "pieces", "score"), self)
        self.smoothing_label = QLabel("alpha", self)
        self.smoothing = self._spin(
            QDoubleSpinBox(self), "latticeSmoothing", "alpha", 0.0, 10.0, DEFAULT_ALPHA
        )
        self.smoothing.setDecimals(2)
        self.smoothing.setSingleStep(0.05)
        self.seed = self._spin(QSpinBox(self), "latticeSeed", "Seed of the samples", 0, 2**31 - 1, 0)
        self.resample = QPushButton("Resample", self)
        self.resample.setObjectName("latticeResample")
        self.resample.setToolTip("Draw again with the next seed")
        self.sample_note = QLabel(self)
        self.sample_note.setObjectName("latticeSampleNote")
        self.sample_note.setWordWrap(True)
        samples_page = QWidget(self)
        column(
            row(
                self.smoothing_label, self.smoothing, QLabel("seed", self), self.seed, self.resample, STRETCH
            ),
            self.sample_note,
            (self.samples_table, 1),
            parent=samples_page,
            margins=0,
        )
        self.tabs = QTabWidget(self)
        # Whether the Samples tab was brought to the front because the model has no N best.
        self._samples_forced = False
        self.tabs.setObjectName("latticeTabs")
        self.tabs.addTab(self.best_table, "N best")
        self.tabs.addTab(samples_page, "Samples")
        splitter = QSplitter(Qt.Orientation.Horizontal, self)
        splitter.setObjectName("latticeSplitter")
        splitter.addWidget(self.canvas_scroll)
        splitter.addWidget(self.tabs)
        splitter.setStretchFactor(0, 2)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([640, 320])  # the lattice takes two thirds of the width (scaled to the dock's)
        top = row(
            QLabel("Tokenizer:", self), self.picker, self.lecture_button, QLabel("Text:", self),
            (self.text_edit, 1), self.selection_button, QLabel("N best", self), self.nbest,
        )  # fmt: skip
        column(top, (splitter, 1), parent=self)

        self.picker.picked.connect(self.set_tokenizer)
        self.picker.openRequested.connect(self.openTokenizerRequested.emit)
        self.lecture_button.clicked.connect(self.lectureModelRequested.emit)
        self.text_edit.textEdited.connect(self._debouncer.trigger)
        self.nbest.valueChanged.connect(self._debouncer.trigger)
        self.smoothing.valueChanged.connect(self._debouncer.trigger)
        self.seed.valueChanged.connect(self._debouncer.trigger)
        self.resample.clicked.connect(lambda: self.seed.setValue(self.seed.value() + 1))
        registry.tokenizerLoaded.connect(self._on_loaded)
        self.best_table.itemSelectionChanged.connect(lambda: self._mark_picked(self.best_table))
        self.samples_table.itemSelectionChanged.connect(lambda: self._mark_picked(self.samples_table))
        self.picker.show_key(self.key)

    @staticmethod
    def _spin(box: Spin, name: str, tip: str, low: float, high: float, value: float) -> Spin:
        box.setObjectName(name)
        box.setAccessibleName(tip)
        box.setToolTip(tip)
        box.setRange(low, high)  # type: ignore[arg-type]
        box.setValue(value)  # type: ignore[arg-type]
        box.setKeyboardTracking(False)
        return box

    # ---------------------------------------------------------------- the tokenizer and the text
    def set_tokenizer(self, key: str) -> None:
        """Segment with another tokenizer of the registry (loaded in the background if needed)."""
        self.key = key
        self.picker.show_key(key)
        self.refresh()

    @property
    def tokenizer(self) -> Tokenizer | None:
        """The tokenizer whose lattice is shown (None while it loads)."""
        return self.registry.tokenizer(self.key)

    def _on_loaded(self, key: str) -> None:
        """A tokenizer finished loading: the one waited for is segmented with at once."""
        if key == self.key:
            self.refresh()

    def set_text(self, text: str) -> None:
        """Segment ``text`` (cut to :data:`MAX_LATTICE_TEXT` characters, a line at most)."""
        self.text_edit.setText(text.strip().splitlines()[0][:MAX_LATTICE_TEXT] if text.strip() else "")
        self.refresh()

    def request(self) -> LatticeRequest:
        """The request the controls describe now."""
        return LatticeRequest(
            self.text_edit.text(), self.nbest.value(), SAMPLES, self.seed.value(), self.smoothing.value()
        )

    @property
    def computing(self) -> bool:
        """True while a lattice is being computed in the background."""
        return self._jobs.busy

    def refresh(self) -> None:
        """Compute the lattice of the text under the tokenizer again, in the background."""
        tok = self.tokenizer
        if tok is None:
            self.problem.setText(f"loading {self.registry.label(self.key)}…")
            self.problem.show()
            self.registry.ensure_loaded(self.key)
            return
        request = self.request()
        if not request.text:
            self.show_result(
                LatticeResult(request, None, "Type a word or select one in the editor.", (), None, False)
            )
            return
        self._jobs.submit(lambda: compute_lattice(tok, request), self.show_result, self._failed)
        if self.result is None or self.result.request.text != request.text:
            self.problem.setText(f"segmenting “{request.text}” with {tok.name}…")
            self.problem.show()

    # ---------------------------------------------------------------- results
    def show_result(self, result: LatticeResult) -> None:
        """Show a computed result: the lattice (or its one-line problem), the N best and the samples."""
        self.result = result
        lattice = result.lattice
        self.problem.setText(result.problem or (lattice.note if lattice and lattice.note else ""))
        self.problem.setVisible(bool(self.problem.text()))
        self.legend.setVisible(lattice is not None)
        self.canvas.set_lattice(lattice)
        if lattice is not None:
            best = f"best path: {segmentation_text(lattice.best)} · log p = {lattice.best.score:.4f}"
            self.legend.setText(f"{LEGEND} {best}")
        _fill(self.best_table, lattice.nbest if lattice else (), lattice.best if lattice else None, True)
        self.smoothing_label.setText("dropout p" if result.dropout else "alpha")
        self.smoothing.setMaximum(1.0 if result.dropout else 10.0)
        if result.sample_problem:
            self.sample_note.setText(result.sample_problem)
        elif result.dropout:
            self.sample_note.setText(
                "BPE-dropout: each merge is skipped with probability p (a BPE sample has no score)"
            )
        else:
            self.sample_note.setText(
                "Subword regularization: score = log-probability under the alpha-smoothed distribution"
            )
        _fill(self.samples_table, result.samples, None, not result.dropout)
        if lattice is None and result.samples:  # no N best to list: the samples are what there is
            self._samples_forced = True
            self.tabs.setCurrentIndex(1)
        elif lattice is not None and self._samples_forced:  # a model with a lattice again: its N best
            self._samples_forced = False
            self.tabs.setCurrentIndex(0)
        self.updated.emit()

    def _mark_picked(self, table: QTableWidget) -> None:
        """Dash the lattice path of the segmentation picked in ``table`` (nothing when it is no path)."""
        result, lattice = self.result, self.canvas.lattice
        rows = table.selectionModel().selectedRows()
        if result is None or lattice is None or not rows:
            self.canvas.mark(())
            return
        listed = lattice.nbest if table is self.best_table else result.samples
        row = rows[0].row()
        self.canvas.mark(path_on(lattice, listed[row].pieces) or () if row < len(listed) else ())

    def _failed(self, exc: BaseException) -> None:
        self.show_result(LatticeResult(self.request(), None, f"could not segment: {exc}", (), None, False))

    def set_colors(self, colors: TokenColors) -> None:
        self.canvas.set_colors(colors)

    def set_text_font(self, font: QFont) -> None:
        self.canvas.set_text_font(font)
