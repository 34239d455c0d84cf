"""A training run from start to end, in one place: start, progress, finish, cancel, shut-down.

:class:`TrainingRun` owns the worker (:class:`~tokviz.gui.workers.training.TrainJob`) of the one
run at a time, installs a finished model in the tokenizer registry (so it is in every picker at
once), streams the merges into the merge timeline it is attached to, and tells everyone else
through its signals: the Train panel's form, the Train menu, "Save counts…" and the window's docks
only listen.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from PySide6.QtCore import QObject, Signal

from tokviz.core.training.engine_run import EngineProgress
from tokviz.gui.models.tokenizers import TokenizerRegistryModel
from tokviz.gui.panels.timeline.panel import TimelineWidget
from tokviz.gui.panels.timeline.rounds import RoundsSource
from tokviz.gui.workers.engine_training import EngineJob, EngineOutcome, EngineSettings
from tokviz.gui.workers.training import TrainJob, TrainOutcome, TrainSettings, TrainStatus


class TrainingRun(QObject):
    """The runs of one Train panel. Signals (GUI thread, in order for one run):

    ``started(settings)`` (a :class:`TrainSettings` for byte-level BPE, an :class:`EngineSettings`
    for a library run), then ``progressChanged(TrainStatus)`` and
    ``mergesArrived(tuple[MergeStep, ...])`` while byte-level BPE runs, ``engineProgress(EngineProgress)``
    while a library runs, then one of ``finished(TrainOutcome, key)`` or
    ``engineFinished(EngineOutcome, key)`` (the model is in the registry under ``key``),
    ``cancelled()`` or ``failed(message)``, then ``ended()``.
    """

    started = Signal(object)  # TrainSettings | EngineSettings
    progressChanged = Signal(TrainStatus)
    mergesArrived = Signal(tuple)  # tuple[MergeStep, ...]
    finished = Signal(TrainOutcome, str)
    engineProgress = Signal(EngineProgress)
    engineFinished = Signal(EngineOutcome, str)
    cancelled = Signal()
    failed = Signal(str)
    ended = Signal()

    def __init__(self, registry: TokenizerRegistryModel, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.registry = registry
        self.job: TrainJob | EngineJob | None = None
        self.outcome: TrainOutcome | None = None
        self.engine_outcome: EngineOutcome | None = None
        self.key: str | None = None
        self.last_status: TrainStatus | None = None

    @property
    def running(self) -> bool:
        """True while a run is in progress."""
        return self.job is not None

    def start(self, settings: TrainSettings) -> TrainJob | None:
        """Train with ``settings`` in a worker thread; None while another run is in progress."""
        if self.job is not None:
            return None
        job = TrainJob(settings, self)
        job.progress.connect(self._on_progress)
        job.mergesBatch.connect(self.mergesArrived)
        job.finished.connect(self._on_finished)
        self._begin(job, settings)
        return job

    def start_engine(self, settings: EngineSettings) -> EngineJob | None:
        """Train with a library (Unigram, SentencePiece BPE, WordPiece) from a worker thread; None
        while another run is in progress."""
        if self.job is not None:
            return None
        job = EngineJob(settings, self)
        job.progress.connect(self.engineProgress)
        job.finished.connect(self._on_engine_finished)
        self._begin(job, settings)
        return job

    def _begin(self, job: TrainJob | EngineJob, settings: TrainSettings | EngineSettings) -> None:
        """Make ``job`` the run, follow its end, announce it and start it."""
        self.job = job
        self.last_status = None
        job.failed.connect(self.failed)
        job.cancelled.connect(self.cancelled)
        job.stopped.connect(lambda j=job: self._on_stopped(j))
        self.started.emit(settings)
        job.start()

    @property
    def has_model(self) -> bool:
        """True once a run has finished (its model can be saved and exported)."""
        return self.outcome is not None or self.engine_outcome is not None

    def cancel(self) -> bool:
        """Stop the running training (the app stays as it was before it started); False if none runs."""
        if self.job is None:
            return False
        self.job.cancel()
        return True

    def shutdown(self, msecs: int = 5000) -> None:
        """Cancel and wait for the training thread (the window is closing).

        Cancel stops the counting processes at once; a thread still inside one bounded regex
        call after ``msecs`` is detached from the run, so closing never destroys it running.
        """
        if self.job is not None:
            self.job.cancel()
            if not self.job.wait(msecs):
                job, self.job = self.job, None  # its stop no longer updates this closing panel
                job.outlive_parent()

    def attach_timeline(self, timeline: TimelineWidget, editor_text: Callable[[], str] | None = None) -> None:
        """Stream the merges into ``timeline`` while byte-level BPE trains and show the model there
        when done (replaying ``editor_text()`` then, when given). A library run has no merges to
        stream: the timeline keeps what it shows until the model is there (a Unigram run's rounds)."""

        def started(s: TrainSettings | EngineSettings) -> None:
            if isinstance(s, TrainSettings):
                timeline.begin_live(max(0, s.vocab_size - 256 - len(s.special_tokens)))

        self.started.connect(started)
        self.mergesArrived.connect(timeline.append_merges)
        self.cancelled.connect(lambda: timeline.end_live(None))
        self.failed.connect(lambda _message: timeline.end_live(None))

        def finished(outcome: TrainOutcome, key: str) -> None:
            res = outcome.result
            timeline.remember_history(key, res.history, res.initial_tokens)
            timeline.end_live(key)
            if editor_text is not None:
                timeline.set_text(editor_text())

        self.finished.connect(finished)

        def engine_finished(outcome: EngineOutcome, key: str) -> None:
            if outcome.model.rounds:
                rounds = RoundsSource(outcome.settings, outcome.model.rounds, outcome.tokenizer)
                timeline.rounds_of[key] = rounds
            if editor_text is not None:
                timeline.set_text(editor_text())
            timeline.set_tokenizer_key(key)

        self.engineFinished.connect(engine_finished)

    def _on_progress(self, status: TrainStatus) -> None:
        self.last_status = status
        self.progressChanged.emit(status)

    def _on_finished(self, outcome: TrainOutcome) -> None:
        counts = {r.new_id: r.count for r in outcome.result.history}
        if not outcome.settings.replace:
            # A run never silently takes an earlier model's place: only an explicit replace does.
            name = self.registry.free_model_name(outcome.settings.name)
            outcome.settings = dataclasses.replace(outcome.settings, name=name)
        self.key = self.registry.add_tokenizer(outcome.settings.name, outcome.tokenizer, counts)
        self.outcome, self.engine_outcome = outcome, None
        self.finished.emit(outcome, self.key)

    def _on_engine_finished(self, outcome: EngineOutcome) -> None:
        if not outcome.settings.replace:
            name = self.registry.free_model_name(outcome.settings.name)
            outcome.settings = dataclasses.replace(outcome.settings, name=name)
            outcome.tokenizer.name = name
        self.key = self.registry.add_tokenizer(outcome.settings.name, outcome.tokenizer)
        self.outcome, self.engine_outcome = None, outcome
        self.engineFinished.emit(outcome, self.key)

    def _on_stopped(self, job: TrainJob | EngineJob) -> None:
        if self.job is job:
            self.job = None
            self.ended.emit()
        job.deleteLater()
