"""A Unigram run's timeline: its pruning rounds, and a sample text segmented round by round.

sentencepiece trains a Unigram model by EM from a large seed vocabulary, pruning the pieces that
least lower the corpus likelihood round after round until the size asked for is reached. Its log
gives each round's size and objective (``EngineModel.rounds``), but it keeps no model of a round.
So the text under round k is segmented by **a model trained to that round's size** on the same
corpus with the same options: trained when the round is first picked (a library run in its own
thread and process, as the Train panel's), then kept. The last row is the trained model itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QSizePolicy,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from tokviz.core.bpe.tokenizer import Tokenizer
from tokviz.core.training.engine_run import UnigramRound
from tokviz.gui.panels.timeline.captions import html_escape
from tokviz.gui.text.display import DisplayOptions
from tokviz.gui.text.token_table import TokenTable
from tokviz.gui.widgets.token_view import TokenView
from tokviz.gui.workers.engine_training import EngineJob, EngineOutcome, EngineSettings, sized
from tokviz.gui.workers.jobs import Job, run_job

# The sample is the start of the editor's text: enough to see pieces change, quick to segment.
SAMPLE_CHARS = 2000
FALLBACK_SAMPLE = "The unigram model keeps the pieces that best explain the corpus."
HEADERS = ("Round", "Pieces", "Objective", "Tokens")


@dataclass(frozen=True)
class RoundsSource:
    """A finished Unigram run: how it was trained, its rounds, and the model it made."""

    settings: EngineSettings
    rounds: Sequence[UnigramRound]
    model: Tokenizer


class RoundsPane(QWidget):
    """The rounds table beside the sample text under the picked round's model.

    Signals: ``segmented(row)`` once the view shows the sample under row ``row``'s model;
    ``roundFailed(row, message)`` when that model could not be trained.
    """

    segmented = Signal(int)
    roundFailed = Signal(int, str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("unigramRounds")
        self.source: RoundsSource | None = None
        self.text = ""
        self.models: dict[int, Tokenizer] = {}  # vocabulary size -> its model
        self.failures: dict[int, str] = {}
        self.job: EngineJob | None = None
        self._job_size = 0
        self._jobs: set[EngineJob] = set()  # cancelled ones included, until their thread ends
        self._encode: Job | None = None
        self.caption = QLabel(self)
        self.caption.setObjectName("roundsCaption")
        self.caption.setWordWrap(True)
        self.caption.setTextFormat(Qt.TextFormat.RichText)
        self.table = QTableWidget(0, len(HEADERS), self)
        self.table.setObjectName("roundsTable")
        self.table.setAccessibleName("Unigram pruning rounds")
        self.table.setHorizontalHeaderLabels(list(HEADERS))
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.note = QLabel(self)
        self.note.setObjectName("roundNote")
        self.note.setWordWrap(True)
        self.note.setTextFormat(Qt.TextFormat.RichText)
        self.note.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Minimum)
        self.view = TokenView(self)
        self.view.setObjectName("roundsView")
        self.view.setAccessibleName("Sample text under the picked round")
        self.view.set_options(DisplayOptions(whitespace=True))
        right = QWidget(self)
        rl = QVBoxLayout(right)
        rl.setContentsMargins(0, 0, 0, 0)
        rl.addWidget(self.note)
        rl.addWidget(self.view, 1)
        splitter = QSplitter(Qt.Orientation.Horizontal, self)
        splitter.setChildrenCollapsible(False)
        splitter.addWidget(self.table)
        splitter.addWidget(right)
        splitter.setStretchFactor(1, 2)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 0, 6, 0)
        layout.addWidget(self.caption)
        layout.addWidget(splitter, 1)
        self.table.itemSelectionChanged.connect(self._on_pick)

    # ---------------------------------------------------------------- public
    def set_source(self, source: RoundsSource) -> None:
        """Show ``source``'s rounds (the last row, its model, picked)."""
        if source is self.source:
            return
        self.cancel()
        self.source = source
        self.models = {source.settings.vocab_size: source.model}
        self.failures = {}
        rows = [*source.rounds, None]
        self.table.blockSignals(True)
        self.table.setRowCount(len(rows))
        for row, r in enumerate(rows):
            cells = (
                (str(r.index), f"{r.size:,}", f"{r.objective:.4f}", f"{r.tokens:,}")
                if r is not None
                else ("model", f"{source.settings.vocab_size:,}", "", "")
            )
            for col, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.table.setItem(row, col, item)
        self.table.blockSignals(False)
        self._fit_table()
        first, last = source.rounds[0], source.rounds[-1]
        self.caption.setText(
            f"<b>Unigram pruning</b> · {len(source.rounds)} rounds from {first.size:,} to {last.size:,} pieces, "
            f"then the {source.settings.vocab_size:,} kept · pick a round to segment the editor's text"
        )
        self.table.selectRow(len(rows) - 1)

    def _fit_table(self) -> None:
        """The table as wide as its columns (the sample text takes the rest)."""
        header = self.table.horizontalHeader()
        widths = [
            max(self.table.sizeHintForColumn(c), header.sectionSizeHint(c))
            for c in range(self.table.columnCount())
        ]
        for column, width in enumerate(widths):
            self.table.setColumnWidth(column, width)
        columns = sum(widths)
        frame = 2 * self.table.frameWidth() + self.table.verticalScrollBar().sizeHint().width()
        self.table.setMinimumWidth(columns + frame)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange, QEvent.Type.Polish):
            self._fit_table()  # presentation mode, zoom, the window's style

    def set_text(self, text: str) -> None:
        """Segment the start of ``text`` (the editor's) under the picked round."""
        sample = text[:SAMPLE_CHARS] or FALLBACK_SAMPLE
        if sample != self.text:
            self.text = sample
            self._show_row(self.picked_row())

    def picked_row(self) -> int:
        """The row picked in the table (-1 for none)."""
        rows = self.table.selectionModel().selectedRows()
        return rows[0].row() if rows else -1

    def pick(self, row: int) -> None:
        """Pick row ``row`` (a round, or the last row: the model)."""
        self.table.selectRow(row)

    def size_of(self, row: int) -> int:
        """The vocabulary size of row ``row``'s model."""
        assert self.source is not None
        rounds = self.source.rounds
        return rounds[row].size if row < len(rounds) else self.source.settings.vocab_size

    def training(self) -> bool:
        """True while a round's model is being trained."""
        return self.job is not None

    def cancel(self) -> None:
        """Stop training a round's model (another round or run is shown): the core kills its process."""
        job, self.job = self.job, None
        if job is not None:
            job.cancel()

    def shutdown(self, msecs: int = 10000) -> None:
        """Cancel every round's training and wait for their threads (the window is closing)."""
        self.cancel()
        for job in list(self._jobs):
            job.cancel()
            job.wait(msecs)

    # ---------------------------------------------------------------- internals
    def _on_pick(self) -> None:
        self._show_row(self.picked_row())

    def _show_row(self, row: int) -> None:
        if self.source is None or row < 0:
            return
        size = self.size_of(row)
        model = self.models.get(size)
        if model is not None:
            self._segment(row, model)
        elif size in self.failures:
            self._encode = None  # a segmentation still on its way is not this round's
            self.view.set_content(TokenTable.empty(), self.source.model)
            self.note.setText(
                f"{self._round_name(row).capitalize()}: no model of {size:,} pieces could be trained on "
                f"this corpus ({html_escape(self.failures[size])})"
            )
        else:
            self._encode = None
            self.view.set_content(TokenTable.empty(), self.source.model)
            self._train(size)
            self.note.setText(
                f"Training a model of {size:,} pieces on the same corpus and options for "
                f"{self._round_name(row)}…"
            )

    def _round_name(self, row: int) -> str:
        assert self.source is not None
        return f"round {self.source.rounds[row].index}" if row < len(self.source.rounds) else "the model"

    def _train(self, size: int) -> None:
        if self.job is not None and self._job_size == size:
            return
        self.cancel()
        assert self.source is not None
        job = EngineJob(sized(self.source.settings, size), self)
        self.job, self._job_size = job, size
        self._jobs.add(job)
        job.finished.connect(lambda outcome, s=size: self._on_trained(s, outcome))
        job.failed.connect(lambda message, s=size: self._on_failed(s, message))
        job.stopped.connect(lambda j=job: self._on_stopped(j))
        job.start()

    def _on_trained(self, size: int, outcome: EngineOutcome) -> None:
        self.models[size] = outcome.tokenizer
        if self.source is not None and self.picked_row() >= 0 and self.size_of(self.picked_row()) == size:
            self._show_row(self.picked_row())

    def _on_failed(self, size: int, message: str) -> None:
        self.failures[size] = message
        row = self.picked_row()
        if row >= 0 and self.size_of(row) == size:
            self._show_row(row)
            self.roundFailed.emit(row, message)

    def _on_stopped(self, job: EngineJob) -> None:
        self._jobs.discard(job)
        if self.job is job:
            self.job = None
        job.deleteLater()

    def _segment(self, row: int, model: Tokenizer) -> None:
        """Encode the sample in a worker, and under the row above's model when it is at hand (its
        cuts are marked where they differ: how the segmentation changed from the round before)."""
        text = self.text or FALLBACK_SAMPLE
        before = self.models.get(self.size_of(row - 1)) if row > 0 else None

        def encode() -> tuple[TokenTable, TokenTable | None]:
            return TokenTable.encode(model, text), TokenTable.encode(before, text) if before else None

        job = run_job(encode, self)
        self._encode = job
        job.returned.connect(lambda tables, j=job: self._show_table(j, row, model, *tables))
        job.errored.connect(lambda exc: self.note.setText(html_escape(f"{type(exc).__name__}: {exc}")))

    def _show_table(
        self, job: Job, row: int, model: Tokenizer, table: TokenTable, before: TokenTable | None
    ) -> None:
        if job is not self._encode or self.source is None:
            return
        self.view.set_content(table, model)
        self.view.set_reference(before)
        size = self.size_of(row)
        if row < len(self.source.rounds):
            r = self.source.rounds[row]
            what = (
                f"<b>Round {r.index}</b> · {r.size:,} pieces · objective {r.objective:.4f} · "
                f"segmented by <i>a model trained to this size</i> on the same corpus and options"
            )
        else:
            what = f"<b>The trained model</b> · {size:,} pieces"
        changed = f" · marked: cut differently from {self._round_name(row - 1)}" if before is not None else ""
        self.note.setText(f"{what} · <b>{len(table):,}</b> tokens{changed}")
        self.segmented.emit(row)
