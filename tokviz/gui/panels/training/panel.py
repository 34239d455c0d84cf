"""The training panel: pick a corpus, set the vocabulary, train in a worker thread, save and export.

The panel only gathers settings and shows progress. A run's life (the worker, the finished
model installed in the registry, the merges streamed into the timeline) is its
:class:`~tokviz.gui.panels.training.lifecycle.TrainingRun`; saving and exporting are its
:class:`~tokviz.gui.panels.training.saving.ModelFiles` (see
:func:`tokviz.gui.panels.training.install.install`, which docks the panel and the timeline).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QTimer, Signal
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QWidget

from tokviz.core.errors import TokvizError
from tokviz.core.io.resources import resource_path
from tokviz.gui.models.tokenizers import TokenizerRegistryModel
from tokviz.gui.panels.timeline.panel import TimelineWidget
from tokviz.gui.panels.training.corpus import (
    SOURCE_EDITOR,
    SOURCE_FILES,
    SOURCE_PYDOC,
    SOURCE_SAMPLES,
    CorpusInfo,
    ask_corpus_files,
    describe_text,
    pydoc_topics_text,
)
from tokviz.gui.panels.training.counts import SaveCounts, describe_corpus
from tokviz.gui.panels.training.engine_report import show_engine_finished, show_engine_progress, train_tooltip
from tokviz.gui.panels.training.form import EXPORTS, TrainForm
from tokviz.gui.panels.training.lifecycle import TrainingRun
from tokviz.gui.panels.training.report import (
    finished_result,
    finished_status,
    html_text,
    progress_text,
)
from tokviz.gui.panels.training.saving import ModelFiles
from tokviz.gui.widgets import file_dialogs
from tokviz.gui.workers.engine_training import EngineJob
from tokviz.gui.workers.jobs import Job, run_job
from tokviz.gui.workers.pattern_check import CHECKING
from tokviz.gui.workers.training import TrainJob, TrainOutcome, TrainSettings, TrainStatus

LECTURE_TEXT = "the cat in the hat"
FAILED_STATUS = "Training failed; nothing changed."


class TrainPanel(TrainForm):
    """Dock contents for training. A run's signals are those of :attr:`run` (a
    :class:`~tokviz.gui.panels.training.lifecycle.TrainingRun`: started, progress, merges, then
    finished, cancelled or failed, then ended), which the form follows first.
    ``fileJobDone(error)`` after a save or export ("" when it worked). ``corpusPathsChanged()``
    follows every change of the file list.
    """

    fileJobDone = Signal(str)
    corpusPathsChanged = Signal()

    def __init__(
        self,
        registry: TokenizerRegistryModel,
        editor_text: Callable[[], str] | None = None,
        set_editor_text: Callable[[str], None] | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("trainPanel")
        self.setAcceptDrops(True)
        self.registry = registry
        self._editor_text = editor_text
        self._set_editor_text = set_editor_text
        self.run = TrainingRun(registry, self)
        self.model_files = ModelFiles(self.run, self)
        self.timeline: TimelineWidget | None = None
        self._info_job: Job | None = None
        self.last_export_notes: list[str] = []
        self._info_generation = 0
        self.applying_demo = False  # True while the lecture demo sets its widgets (not remembered)
        self._build_ui()
        self._wire()
        self._follow_run()
        self.save_counts = SaveCounts(self.run, self.model_files, self.save_counts_button, self)
        self._on_source_changed()
        self._on_pretokenizer_changed()
        self.update_vocab_hint()
        self.update_model_name()
        self._set_running(False)

    def _wire(self) -> None:
        self.source.currentIndexChanged.connect(self._on_source_changed)
        self.add_files_button.clicked.connect(self.choose_files)
        self.add_folder_button.clicked.connect(self.choose_folder)
        self.clear_files_button.clicked.connect(self.clear_files)
        self.filters.changed.connect(self._on_filters_changed)
        self.record_field.changed.connect(self._on_filters_changed)
        self.replace_invalid.toggled.connect(self._on_replace_invalid_toggled)
        self.vocab_size.valueChanged.connect(self.update_vocab_hint)
        self.algorithm_rows.changed.connect(self._on_algorithm_changed)
        self.specials.textChanged.connect(self.update_vocab_hint)
        self.pretokenizer.currentIndexChanged.connect(self._on_pretokenizer_changed)
        self.pattern.textChanged.connect(self._validate_pattern)
        self.pattern_check.checked.connect(self._validate_pattern)
        for changed in (
            self.source.currentIndexChanged,
            self.vocab_size.valueChanged,
            self.pretokenizer.currentIndexChanged,
            self.pattern.textChanged,
            self.name.textChanged,
            self.corpusPathsChanged,
            self.registry.tokenizersChanged,
            self.algorithm_rows.changed,
            self.algorithm_rows.normalizer.currentIndexChanged,
        ):
            changed.connect(self.update_model_name)
        self.train_button.clicked.connect(lambda: self.start())
        self.cancel_button.clicked.connect(self.cancel)
        self.save_button.clicked.connect(self.model_files.choose_save_path)
        self.demo_none_button.clicked.connect(lambda: self.run_demo("none"))
        self.demo_gpt2_button.clicked.connect(lambda: self.run_demo("gpt2"))
        for kind, act in self.export_actions.items():
            act.triggered.connect(lambda *_, k=kind: self.model_files.choose_export(k))
        self._cancel_action.triggered.connect(self.cancel)

    def _follow_run(self) -> None:
        """Show each stage of a run in the form, and each outcome of a save or export."""
        run, files = self.run, self.model_files
        run.started.connect(self._show_started)
        run.progressChanged.connect(self._show_progress)
        run.finished.connect(self._show_finished)
        run.engineProgress.connect(lambda p: show_engine_progress(self.progress, self.status, p))
        run.engineFinished.connect(
            lambda o, _key: show_engine_finished(self.progress, self.status, self.result, o)
        )
        run.failed.connect(self._show_failed)
        run.cancelled.connect(self._show_cancelled)
        run.ended.connect(lambda: self._set_running(False))
        files.began.connect(lambda: self._show_error(None))
        files.succeeded.connect(self._show_saved)
        files.failed.connect(self._show_save_failed)

    def connect_timeline(
        self, timeline: TimelineWidget, editor_text: Callable[[], str] | None = None
    ) -> None:
        """Stream merges into ``timeline`` while training, and show the model there when done."""
        self.timeline = timeline
        self.run.attach_timeline(timeline, editor_text)

    # ================================================================ the trained model
    @property
    def outcome(self) -> TrainOutcome | None:
        """The last finished run (None before one finished)."""
        return self.run.outcome

    @property
    def key(self) -> str | None:
        """The registry key of the last trained model."""
        return self.run.key

    @property
    def last_status(self) -> TrainStatus | None:
        """The running trainer's last progress report."""
        return self.run.last_status

    def choose_save_path(self) -> None:
        """Ask where to save the trained model."""
        self.model_files.choose_save_path()

    def save_model_to(self, path: str | os.PathLike[str]) -> Job | None:
        """Save the trained model (in a worker); ``fileJobDone`` reports."""
        return self.model_files.save_model_to(path)

    def choose_export(self, kind: str) -> None:
        """Ask where to export the trained model as ``kind`` (``gpt2``, ``hf``, ``tiktoken``)."""
        self.model_files.choose_export(kind)

    def export_to(self, kind: str, path: str | os.PathLike[str]) -> Job | None:
        """Export the trained model as ``kind`` into ``path`` (in a worker); ``fileJobDone`` reports."""
        return self.model_files.export_to(kind, path)

    def _show_saved(self, message: str, notes: list[str]) -> None:
        self.last_export_notes = notes
        self.status.setText(message)
        if notes:
            self.result.setText("<br>".join(html_text(n).replace("\n", "<br>") for n in notes))
        self.fileJobDone.emit("")

    def _show_save_failed(self, message: str) -> None:
        self._show_error(message)
        self.fileJobDone.emit(message)

    # ================================================================ corpus
    def add_paths(self, paths: list[str]) -> None:
        """Add files or folders to the corpus (and choose the files corpus)."""
        known = set(self.corpus_paths())
        for p in paths:
            if p and p not in known:
                self.files.addItem(p)
                known.add(p)
        self.set_source_kind(SOURCE_FILES)
        self._forget_stale_messages()
        self.refresh_corpus_info()
        self.corpusPathsChanged.emit()

    def clear_files(self) -> None:
        """Empty the file list (and forget messages about the files that were in it)."""
        self.files.clear()
        self._forget_stale_messages()
        self.refresh_corpus_info()
        self.corpusPathsChanged.emit()

    def _forget_stale_messages(self) -> None:
        """Clear an error and a failure status that were about the corpus before this change.

        "Add files…" after switching to the Python docs, or a UTF-8 error about files no longer
        listed, would tell the user about a corpus they no longer have.
        """
        if self.running:
            return
        self._show_error(None)
        if self.status.text() == FAILED_STATUS:
            self.status.setText("")

    def choose_files(self) -> None:
        """Ask for corpus files."""
        paths = ask_corpus_files(self)
        if paths:
            self.add_paths(paths)

    def choose_folder(self) -> None:
        """Ask for a corpus folder (its text files, recursively; hidden and binary ones skipped)."""
        path = file_dialogs.get_existing_directory(self, "Corpus folder", str(Path.home()))
        if path:
            self.add_paths([path])

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasUrls() and not self.running:
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        paths = [u.toLocalFile() for u in event.mimeData().urls() if u.isLocalFile()]
        if paths:
            self.add_paths(paths)
            event.acceptProposedAction()

    def _on_source_changed(self, *_args: object) -> None:
        files = self.source_kind() == SOURCE_FILES
        self.files.setVisible(files)
        self.file_buttons.setVisible(files)
        self.filters.setVisible(files)
        self._forget_stale_messages()
        self.refresh_corpus_info()

    def _on_filters_changed(self) -> None:
        """New include/exclude patterns, size cap or text field of records: read the files again."""
        if self.source_kind() == SOURCE_FILES:
            self._forget_stale_messages()
            self.refresh_corpus_info()

    def _on_replace_invalid_toggled(self, *_args: object) -> None:
        """Folders skip non-UTF-8 files unless invalid UTF-8 is replaced: count them again."""
        if self.source_kind() in (SOURCE_FILES, SOURCE_SAMPLES):
            self._forget_stale_messages()
            self.refresh_corpus_info()

    def refresh_corpus_info(self) -> None:
        """Update the size line and the preview for the chosen corpus."""
        self._info_generation += 1
        generation = self._info_generation
        kind = self.source_kind()
        if kind == SOURCE_EDITOR:
            self._show_info(describe_text(self.editor_text(), "Editor text"))
            return
        if kind == SOURCE_PYDOC:
            from pydoc_data.topics import topics

            self._show_info(describe_text(pydoc_topics_text(), f"{len(topics)} topics of the Python docs"))
            return
        paths = [str(resource_path("samples"))] if kind == SOURCE_SAMPLES else self.corpus_paths()
        if not paths:
            self._show_info(CorpusInfo("Add files or a folder (or drop them here).", "", 0))
            return
        self.corpus_info.setText("Measuring…")
        self.preview.setPlainText("")
        errors = "replace" if self.replace_invalid.isChecked() else "strict"
        filters: dict[str, Any] = {"field": self.record_field.field()}
        if kind == SOURCE_FILES and self.filters.active():
            include, exclude = self.filters.globs()
            filters.update(include=include, exclude=exclude, max_size=self.filters.max_bytes())
        job = run_job(lambda: describe_corpus(paths, errors, **filters), self)
        self._info_job = job

        def done(info: CorpusInfo) -> None:
            if generation == self._info_generation:
                self._info_job = None
                self._show_info(info)

        job.returned.connect(done)

    def _show_info(self, info: CorpusInfo) -> None:
        self.table_lock.show(info.table)
        self.record_field.offer(info.fields)
        self._set_running(self.running)
        if info.error:
            self.corpus_info.setText(f"<span style='color:#d6336c'>{html_text(info.error)}</span>")
        else:
            self.corpus_info.setText(info.summary)
        used = "\n".join(info.files_used)
        self.corpus_info.setToolTip(f"Files used:\n{used}" if used else "")
        self.preview.setPlainText(info.preview)

    # ================================================================ settings
    def _on_pretokenizer_changed(self, *_args: object) -> None:
        custom = self.pretokenizer.currentData() == "custom"
        self.pattern.setEnabled(custom)
        self.form.setRowVisible(self.pattern, custom)
        if custom:
            self.pattern.setFocus()
        self._validate_pattern()

    def _validate_pattern(self, *_args: object) -> None:
        """Show why the custom regex cannot be used (nothing while a worker is still checking it)."""
        problem = self.pattern_problem()
        shown = problem if problem != CHECKING else None
        self.pattern_error.setText(shown or "")
        self.form.setRowVisible(self.pattern_error, bool(shown))
        self._update_train_enabled()

    def _update_train_enabled(self) -> None:
        # While the regex is checked Train stays on: a run resolves the pattern first and fails with its error.
        self.train_button.setEnabled(not self.running and self.pattern_problem() in (None, CHECKING))

    # ================================================================ training
    @property
    def running(self) -> bool:
        """True while a training run is in progress."""
        return self.run.running

    def start(self, settings: TrainSettings | None = None) -> TrainJob | EngineJob | None:
        """Train with ``settings`` (default: the panel's, with the chosen algorithm) in a worker
        thread; returns the job, or None on a settings error."""
        if self.running:
            return None
        problem = self.pattern_problem()
        if problem == CHECKING:
            problem = None  # the run resolves the pattern first and fails with its message
        engine = settings is None and self.algorithm_rows.algorithm() != "bpe"
        problem = problem or (self._corpus_problem(engine) if settings is None else None)
        if problem:
            self._show_error(problem)
            return None
        if engine:
            try:
                engine_settings = self.engine_settings()  # the core refuses options it cannot pass
            except TokvizError as exc:
                self._show_error(str(exc))
                return None
            self.replace_model.setChecked(False)
            return self.run.start_engine(engine_settings)
        job = self.run.start(settings or self.settings())
        self.replace_model.setChecked(False)  # replacing is asked for again for each run
        return job

    def _corpus_problem(self, engine: bool = False) -> str | None:
        if engine and self.table_lock.locked:
            return "A count table trains byte-level BPE only: the libraries read the text itself."
        if self.source_kind() != SOURCE_FILES:
            return None
        if not self.corpus_paths():
            return "Add files or a folder to train on (or drop them on this panel)."
        return self.filters.problem()

    def cancel(self) -> None:
        """Stop the running training; the app stays as it was before it started."""
        if self.run.cancel():
            self.status.setText("Cancelling…")
            self.cancel_button.setEnabled(False)

    def shutdown(self, msecs: int = 5000) -> None:
        """Cancel and wait for the training threads, a Unigram round's included (the window is closing)."""
        self.run.shutdown(msecs)
        if self.timeline is not None:
            self.timeline.rounds.shutdown(msecs)

    def _set_running(self, running: bool) -> None:
        self.cancel_button.setEnabled(running)
        for w in (
            self.source,
            self.files,
            self.file_buttons,
            self.filters,
            self.record_field,
            self.vocab_size,
            self.tie_rule,
            self.replace_invalid,
            self.name,
            self.demo_none_button,
            self.demo_gpt2_button,
        ):
            w.setEnabled(not running)
        self.table_lock.apply_enabled(not running)  # a count table's settings stay locked
        self.algorithm_rows.set_enabled(not running)  # greys what does not apply to the algorithm
        has_model = self.run.has_model and not running
        self.save_button.setEnabled(has_model)
        self.export_button.setEnabled(has_model)
        for kind, problem in self.model_files.export_problems().items():
            self.export_actions[kind].setEnabled(problem is None)  # greyed, its tooltip says why
            self.export_actions[kind].setToolTip(problem or "")
        self._update_train_enabled()

    def _show_started(self, _settings: object) -> None:
        self._show_error(None)
        self.result.setText("")
        self.progress.setValue(0)
        self.progress.setFormat("starting…")
        self.status.setText("Reading the corpus…")
        self._set_running(True)

    def _show_progress(self, status: TrainStatus) -> None:
        self.progress.setValue(int(status.fraction * 1000))
        pct = int(status.fraction * 100)
        self.progress.setFormat(f"{status.phase} · {pct}%")
        self.status.setText(progress_text(status))

    def _show_finished(self, outcome: TrainOutcome, _key: str) -> None:
        self.progress.setValue(1000)
        self.progress.setFormat("done")
        self.status.setText(finished_status(outcome))
        self.result.setText(finished_result(outcome))

    def _on_algorithm_changed(self, algorithm: str) -> None:
        self._set_running(self.running)
        self._validate_pattern()
        self.update_vocab_hint()
        self.train_button.setToolTip(train_tooltip(algorithm))

    def _show_failed(self, message: str) -> None:
        self._show_error(message)
        # Below the settings: brought into view once the layout has made room for it.
        QTimer.singleShot(0, lambda: self.form_scroll.ensureWidgetVisible(self.error))
        self.status.setText(FAILED_STATUS)
        self.progress.setValue(0)
        self.progress.setFormat("")

    def _show_cancelled(self) -> None:
        self.status.setText("Cancelled; nothing changed.")
        self.progress.setValue(0)
        # The bar stays in view when a short screen scrolls the status line below it out of sight.
        self.progress.setFormat("cancelled · nothing changed")

    def _show_error(self, message: str | None) -> None:
        self.error.setText(message or "")
        self.error.setVisible(bool(message))

    # ================================================================ demo
    def run_demo(self, pretokenizer: str = "none") -> TrainJob | EngineJob | None:
        """The lecture's worked example: 3 merges of “the cat in the hat” with first-seen ties.

        With no pre-tokenizer the merges are ``th``, ``the``, ``the·`` (18 → 16 → 14 → 12 tokens);
        with GPT-2's chunks ``the·`` cannot form, because a space starts the next chunk.
        """
        if self.running:
            return None
        if self._set_editor_text is not None:
            self._set_editor_text(LECTURE_TEXT)
        # The demo's settings are a one-off: the remembered settings stay the user's own.
        self.applying_demo = True
        try:
            self.vocab_size.setValue(259)
            self.specials.setText("")
            self.set_pretokenizer(pretokenizer)
            self.set_tie_rule("first-seen")
            if self._editor_text is not None:
                self.set_source_kind(SOURCE_EDITOR)
        finally:
            self.applying_demo = False
        # The demo's model is named after the demo, not after the name field (which stays the user's).
        label = "no pre-tokenizer" if pretokenizer == "none" else f"{pretokenizer} chunks"
        name = f"lecture ({label})"
        if self._editor_text is not None:
            return self.start(dataclasses.replace(self.settings(), name=name, replace=False, normalizer=None))
        return self.start(TrainSettings(LECTURE_TEXT, 259, (), pretokenizer, "first-seen", name=name))


__all__ = ["EXPORTS", "SOURCE_EDITOR", "SOURCE_FILES", "SOURCE_PYDOC", "SOURCE_SAMPLES", "TrainPanel"]
