"""Plug training into the window: the Train dock, the Merge timeline dock and the Train menu.

The timeline follows the editor's text (debounced) while it is visible, takes the views' display
options and the window's colours and font, and starts on the first view's tokenizer.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtGui import QAction, QGuiApplication
from PySide6.QtWidgets import QDockWidget, QMenu, QMessageBox, QWidget

from tokviz.gui.context import PanelContext
from tokviz.gui.models.tokenizers import TokenizerRegistryModel
from tokviz.gui.panels.timeline.panel import TimelineWidget
from tokviz.gui.panels.training.memory import follow_train_settings
from tokviz.gui.panels.training.panel import EXPORTS, SOURCE_EDITOR, TrainPanel
from tokviz.gui.text.display import DisplayOptions
from tokviz.gui.workers.debounce import Debouncer

TEXT_DEBOUNCE_MS = 150


@dataclass
class TrainingDocks:
    """What :func:`install` added to the window."""

    panel: TrainPanel
    timeline: TimelineWidget
    train_dock: QDockWidget
    timeline_dock: QDockWidget
    menu: QMenu


def install(context: PanelContext) -> TrainingDocks:
    """Add the Train dock (tabbed with the vocabulary), the Merge timeline dock and a Train menu."""
    registry = context.tokenizers
    parent = context.parent_widget()
    timeline = TimelineWidget(registry, parent)
    panel = TrainPanel(registry, context.editor_text, context.set_text, parent)
    panel.connect_timeline(timeline, context.editor_text)
    timeline.set_start_gate(context.when_views_ready)
    follow_train_settings(panel, context.settings)  # restored now, remembered on every change
    train_dock = _dock_train_panel(context, panel)
    timeline_dock = context.add_dock(
        timeline,
        "Merge timeline",
        "timelineDock",
        shortcut="Ctrl+Shift+M",
        # A first opening gets enough height for the replay, its plot and the table.
        first_size=lambda: max(380, parent.height() // 2),
    )
    _follow_window_style(context, timeline)
    _follow_editor(context, panel, timeline, timeline_dock)
    _show_runs_in_window(context, panel, timeline_dock)
    context.add_close_guard(lambda: _shut_down_training(parent, panel))
    menu = _train_menu(context, panel, timeline, train_dock, timeline_dock)
    return TrainingDocks(panel, timeline, train_dock, timeline_dock, menu)


def _dock_train_panel(context: PanelContext, panel: TrainPanel) -> QDockWidget:
    """The Train dock; the restored corpus's size line and preview are measured (a worker reading
    the files) when the panel is first seen, once the views show their tokens: not at every launch."""
    train_dock = context.add_dock(
        panel,
        "Train",
        "trainDock",
        shortcut="Ctrl+Shift+T",
        area="right",
        visible=True,
        tabify_with="vocabDock",
    )

    def measure_restored_corpus(visible: bool) -> None:
        if visible and not panel.running:
            train_dock.visibilityChanged.disconnect(measure_restored_corpus)
            context.when_views_ready(panel.refresh_corpus_info)

    train_dock.visibilityChanged.connect(measure_restored_corpus)
    return train_dock


def _follow_window_style(context: PanelContext, timeline: TimelineWidget) -> None:
    """The timeline's replay (and a Unigram run's sample) takes the window's colours, the editor's
    font and the ids option."""
    timeline.follow_colors(context.colorsChanged)
    for view in (timeline.view, timeline.rounds.view):
        view.set_colors(context.colors())
        view.setFont(context.text_font())
        context.fontChanged.connect(view.setFont)

    def follow_options(options: DisplayOptions) -> None:
        timeline.set_display_options(DisplayOptions(show_ids=options.show_ids))

    follow_options(context.display_options())
    context.displayOptionsChanged.connect(follow_options)


def _follow_editor(
    context: PanelContext, panel: TrainPanel, timeline: TimelineWidget, timeline_dock: QDockWidget
) -> None:
    """The timeline replays the editor's text (debounced) while it shows, and starts on the first
    view's tokenizer; the Train panel's "editor text" corpus is measured again after edits."""

    def push_text() -> None:
        if timeline_dock.isVisible() or timeline.source is not None:
            timeline.set_text(context.editor_text())
        if panel.source_kind() == SOURCE_EDITOR and not panel.running:
            panel.refresh_corpus_info()

    debouncer = Debouncer(TEXT_DEBOUNCE_MS, timeline_dock)
    debouncer.triggered.connect(push_text)
    context.textEdited.connect(debouncer.trigger)

    def follow_first_view() -> None:
        if not timeline_dock.isVisible():
            return
        timeline.set_text(context.editor_text())
        if timeline.needs_tokenizer():
            timeline.set_tokenizer_key(_replayable_key(context.tokenizers, context.first_view_key()))

    def on_timeline_visible(visible: bool) -> None:
        if visible:
            # A dock restored from the last session starts tracing (GPT-2's merges, a worker) once
            # the views show their first tokens: it would otherwise delay the window and the views.
            context.when_views_ready(follow_first_view)

    timeline_dock.visibilityChanged.connect(on_timeline_visible)
    timeline.openTokenizerRequested.connect(context.open_tokenizer_dialog)


def _replayable_key(registry: TokenizerRegistryModel, key: str) -> str:
    """``key`` when its tokenizer has merges to replay, else GPT-2's."""
    tok = registry.tokenizer(key)
    return "gpt2" if key == "bytes" or (tok is not None and not tok.is_bpe) else key


def _show_runs_in_window(context: PanelContext, panel: TrainPanel, timeline_dock: QDockWidget) -> None:
    """A run brings the timeline dock forward; a finished one says where its model went."""

    def on_started(_settings: object) -> None:
        timeline_dock.show()
        timeline_dock.raise_()

    def on_finished(_outcome: object, key: str) -> None:
        label = context.tokenizers.label(key)
        context.show_status(f"Trained {label}: now in every tokenizer picker", 6000)

    panel.run.started.connect(on_started)
    panel.run.finished.connect(on_finished)
    panel.run.engineFinished.connect(on_finished)


def _shut_down_training(parent: QWidget, panel: TrainPanel) -> bool:
    """The window's close guard: ask before losing a run, then stop it."""
    if panel.running and not confirm_quit(parent, panel):
        return False
    panel.shutdown()
    return True


class QuitQuestion(QMessageBox):
    """The question before quitting on a run, which follows the run: finished while asked, it says so."""

    def __init__(self, parent: QWidget | None) -> None:
        super().__init__(
            QMessageBox.Icon.Question,
            "Quit while training?",
            "A training run is in progress. Quit and lose it?",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            parent,
        )
        self.setDefaultButton(QMessageBox.StandardButton.No)

    def on_finished(self, *_args: object) -> None:
        """The run ended while the question was open: what quitting loses now is the unsaved model."""
        self.setWindowTitle("Quit without saving?")
        self.setText("The training run has finished; its model is not saved yet. Quit anyway?")


def confirm_quit(parent: QWidget, panel: TrainPanel | None = None) -> bool:
    """Ask before a window closes on a training run (an offscreen app has nobody to ask: it quits)."""
    if QGuiApplication.platformName() in ("offscreen", "minimal"):
        return True
    box = QuitQuestion(parent)
    if panel is not None:
        panel.run.finished.connect(box.on_finished)
        panel.run.engineFinished.connect(box.on_finished)
    answer = box.exec()
    box.deleteLater()
    return answer == QMessageBox.StandardButton.Yes


def _train_menu(
    context: PanelContext,
    panel: TrainPanel,
    timeline: TimelineWidget,
    train_dock: QDockWidget,
    timeline_dock: QDockWidget,
) -> QMenu:
    """The Train menu: the two docks, start/cancel, the lecture demos, replay keys, save and export."""
    menu = context.add_menu("T&rain", "trainMenu")
    menu.addAction(train_dock.toggleViewAction())
    menu.addAction(timeline_dock.toggleViewAction())
    menu.addSeparator()

    def show_train_dock() -> None:
        train_dock.show()
        train_dock.raise_()

    def start() -> None:
        show_train_dock()
        panel.start()

    def run_demo(pretokenizer: str) -> None:
        # A demo in presentation mode gives the timeline and the views the room, not the Train form.
        if not context.is_presentation():
            show_train_dock()
        panel.run_demo(pretokenizer)

    def play_or_pause() -> None:
        timeline_dock.show()
        timeline.playback.toggle_play()

    def add(text: str, slot: Callable[[], object], shortcut: str, name: str) -> QAction:
        return context.add_action(text, slot, shortcut=shortcut, name=name, menu=menu)

    start_action = add("&Start training", start, "Ctrl+T", "actionStartTraining")
    cancel_action = add("&Cancel training", panel.cancel, "Ctrl+Shift+X", "actionCancelTraining")
    add("&Lecture demo: the cat in the hat", lambda: run_demo("none"), "Ctrl+Shift+L", "actionLectureDemo")
    add("Lecture demo with &GPT-2 chunks", lambda: run_demo("gpt2"), "Ctrl+Shift+G", "actionLectureDemoGpt2")
    menu.addSeparator()
    add("&Play / pause replay", play_or_pause, "Ctrl+Shift+P", "actionReplayPlay")
    add("&Next merge", timeline.playback.step_forward, "Ctrl+]", "actionReplayNext")
    add("P&revious merge", timeline.playback.step_back, "Ctrl+[", "actionReplayPrevious")
    add(
        "Ne&xt merge that changes the text",
        timeline.playback.next_change,
        "Alt+]",
        "actionReplayNextChange",
    )
    add(
        "Previo&us merge that changes the text",
        timeline.playback.previous_change,
        "Alt+[",
        "actionReplayPreviousChange",
    )
    menu.addSeparator()
    save_action = add("Sa&ve trained model…", panel.choose_save_path, "Ctrl+Alt+S", "actionSaveModel")
    export_menu = menu.addMenu("&Export trained model")
    export_menu.setToolTipsVisible(True)  # a greyed format says why
    export_actions = {}
    for kind, label in EXPORTS:
        act = export_menu.addAction(label)
        act.triggered.connect(lambda *_, k=kind: panel.choose_export(k))
        export_actions[kind] = act

    def update_menu(*_args: object) -> None:
        start_action.setEnabled(not panel.running)
        cancel_action.setEnabled(panel.running)
        has = panel.run.has_model and not panel.running
        save_action.setEnabled(has)
        export_menu.setEnabled(has)
        for kind, problem in panel.model_files.export_problems().items():
            export_actions[kind].setEnabled(problem is None)
            export_actions[kind].setToolTip(problem or "")

    panel.run.started.connect(update_menu)
    panel.run.ended.connect(update_menu)
    update_menu()
    return menu


__all__ = ["TrainingDocks", "install"]
