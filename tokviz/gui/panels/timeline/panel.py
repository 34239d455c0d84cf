"""The merge-history timeline: replay BPE on the editor's text, merge by merge.

A slider runs over merge steps 0..M of one tokenizer (trained here, loaded, GPT-2, cl100k). At step
k the replay view shows the text encoded with only the first k merges, and the tokens the current
merge made are outlined. The core's :class:`~tokviz.core.training.replay.ReplayTrace` records once which
merges change the text (at most one per byte), so token counts at any step are lookups, play and
step buttons skip straight to the merges that matter, and a jump costs one encoding of the text.
While a model trains, its merges stream into the table and the corpus curve instead.

:class:`TimelineWidget` composes the parts: the transport (:mod:`.playback`), the replay view
(:mod:`.view`), the token-count plot (:mod:`.plot`), the merge table (:mod:`.merge_table`), the
background work (:mod:`.replayer`) and the live training feed (:mod:`.live`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import QEvent, Signal, SignalInstance
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QLabel,
    QVBoxLayout,
    QWidget,
)

from tokviz.core.bpe.merges import MergeStep
from tokviz.core.bpe.tokenizer import Tokenizer
from tokviz.core.formats.registry import merge_history
from tokviz.core.training.replay import ReplayTrace
from tokviz.gui.models.merge_model import MergeTableModel
from tokviz.gui.models.tokenizers import TokenizerRegistryModel
from tokviz.gui.panels.timeline.captions import replay_note_message, step_caption
from tokviz.gui.panels.timeline.heldout import HeldOutCurves
from tokviz.gui.panels.timeline.live import LiveFeed
from tokviz.gui.panels.timeline.merge_table import MergeTablePane
from tokviz.gui.panels.timeline.playback import PlaybackBar
from tokviz.gui.panels.timeline.plot import TokenCountPlot
from tokviz.gui.panels.timeline.replayer import Replayer, ReplaySource
from tokviz.gui.panels.timeline.rounds import RoundsPane, RoundsSource
from tokviz.gui.panels.timeline.stepper import WholeTextTrace
from tokviz.gui.panels.timeline.view import ReplayPane, build_splitters
from tokviz.gui.style.theme import token_colors
from tokviz.gui.text.display import DisplayOptions
from tokviz.gui.text.token_table import TokenTable
from tokviz.gui.widgets.picker import TokenizerPicker

# The editor's text is replayed whole up to this many characters (a step costs only the chunks
# its merge changes, see stepper.py); the view shows a part of it around where it looks (replayer.py).
REPLAY_LIMIT = 2_000_000
PICK_MESSAGE = "Pick a BPE tokenizer to replay its merges on the editor's text."


class TimelineWidget(QWidget):
    """The timeline dock's contents: tokenizer picker, transport controls, replay view, merge table, plot.

    The transport (play, pause, step to the next merge that changes the text) is :attr:`playback`.

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
        self.histories: dict[str, tuple[Sequence[MergeStep], int | None]] = {}
        self.rounds_of: dict[str, RoundsSource] = {}  # a Unigram run's rounds, shown instead of a replay
        self._shown_step = -1
        self._waiting_for: str | None = None
        self.replayer = Replayer(self)
        self._build_ui()
        self.feed = LiveFeed(self.model, self.table, self.plot, self.caption)
        self._wire()
        self._set_enabled(False)
        self._set_message(PICK_MESSAGE)

    # ================================================================ layout
    def _build_ui(self) -> None:
        controls = self._build_controls()
        self.pane = ReplayPane(self)
        self.caption, self.view, self.message = self.pane.caption, self.pane.view, self.pane.message
        self.model = MergeTableModel(self)
        self.merges = MergeTablePane(self.model, self)
        self.table, self.changes_only = self.merges.table, self.merges.changes_only
        self.plot = TokenCountPlot(self)
        self.heldout = HeldOutCurves(self.plot, self.registry, self)
        self.heldout.setContentsMargins(6, 0, 6, 0)
        self.left_splitter, self.splitter = build_splitters(self, self.pane, self.plot, self.merges)
        self.rounds = RoundsPane(self)  # shown instead of the replay for a Unigram run
        self.rounds.hide()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 4)
        layout.setSpacing(4)
        layout.addLayout(controls)
        layout.addWidget(self.heldout)
        layout.addWidget(self.splitter, 1)
        layout.addWidget(self.rounds, 1)
        self.view.set_colors(token_colors(self._dark()))

    def _build_controls(self) -> QVBoxLayout:
        """The row above the replay: tokenizer picker, transport, chunk marks."""
        self.picker = TokenizerPicker(self.registry, self)
        self.picker.setObjectName("timelineTokenizerPicker")
        self.picker.setAccessibleName("Tokenizer to replay")
        self.picker.setToolTip("Whose merges to replay on the editor's text")
        self.playback = PlaybackBar(self, self)
        # The transport's widgets under the names tests and scripts know.
        self.first_button = self.playback.first_button
        self.back_button = self.playback.back_button
        self.play_button = self.playback.play_button
        self.forward_button = self.playback.forward_button
        self.last_button = self.playback.last_button
        self.slider = self.playback.slider
        self.step_box = self.playback.step_box
        self.speed = self.playback.speed
        self.chunks = QCheckBox("Chunks", self)
        self.chunks.setObjectName("timelineChunks")
        self.chunks.setToolTip("Mark where the pre-tokenizer cuts the text: merges never cross these marks")
        self.chunks.setChecked(True)
        # Two rows: in one, the picker and the transport set a minimum width that no longer fits
        # beside the Train dock on a 1024-pixel projector in presentation mode.
        source = QHBoxLayout()
        source.addWidget(QLabel("Replay", self))
        source.addWidget(self.picker, 1)
        source.addWidget(self.chunks)
        controls = QVBoxLayout()
        controls.setContentsMargins(6, 4, 6, 0)
        controls.setSpacing(2)
        controls.addLayout(source)
        controls.addWidget(self.playback)
        return controls

    def _wire(self) -> None:
        self.merges.stepPicked.connect(self.set_step)
        self.changes_only.toggled.connect(self._on_changes_only)
        self.chunks.toggled.connect(self.view.set_show_chunks)
        self.plot.cursorMoved.connect(self.set_step)
        self.picker.picked.connect(self.set_tokenizer_key)
        self.picker.openRequested.connect(self.openTokenizerRequested)
        self.replayer.traced.connect(self._on_trace)
        self.replayer.traceFailed.connect(self._detach)
        self.replayer.rendered.connect(self._on_rendered)
        self.view.scrolledToSource.connect(self._follow_scroll)
        self.replayer.renderFailed.connect(self._set_message)
        if self.registry is not None:
            # Bound methods: Qt disconnects them when this widget goes away.
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

    @property
    def live(self) -> bool:
        """True while a training run streams its merges here."""
        return self.feed.active

    def needs_tokenizer(self) -> bool:
        """True when there is nothing to replay and nothing on its way (no source, no training run,
        no tokenizer being loaded): the owner may pick one to start with."""
        return self.source is None and not self.live and self._waiting_for is None

    def is_ready(self) -> bool:
        """True when the view shows the current step of the current text (nothing pending)."""
        return (
            not self.live
            and self.trace is not None
            and not self.replayer.tracing()
            and not self.replayer.rendering()
            and self.trace.text == self.replay_text
            and self._shown_step == self.step
        )

    def rendering(self) -> bool:
        """True while a step of a long text is being encoded in a worker."""
        return self.replayer.rendering()

    @property
    def replay_text(self) -> str:
        """The part of the text that is replayed: all of it, up to ``REPLAY_LIMIT`` characters."""
        return self.text[:REPLAY_LIMIT]

    def set_text(self, text: str) -> None:
        """Replay on a new text (the editor's); the trace is rebuilt in a worker."""
        if text == self.text and (self.trace is None or self.trace.text == self.replay_text):
            return
        self.text = text
        if self.rounds.isVisibleTo(self):
            self.rounds.set_text(text)
        elif self.source is not None and not self.live:
            self._prepare()

    def export_sheet(self) -> QWidget:
        """The timeline as exported: caption, tokens at the step shown, plot and legend, table rows."""
        from tokviz.gui.panels.timeline.export_sheet import timeline_sheet

        return timeline_sheet(self.plot, self.table, self.view, self.caption.text())

    def remember_history(self, key: str, history: Sequence[MergeStep], corpus_initial: int | None) -> None:
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
        if tok.is_bpe and not tok.replay_note and not self.registry.merges_ready(key):
            # The registry builds merge tables one tokenizer at a time (shared with hover cards).
            self._waiting_for = key
            self._detach(f"Recovering the merges of {self.registry.label(key)}…")
            self.registry.prepare_merges(key)
            return
        history, initial = self.histories.get(key) or (merge_history(tok), None)
        self.set_tokenizer(tok, history, initial, key)

    def set_tokenizer(
        self,
        tokenizer: Tokenizer,
        history: Sequence[MergeStep] = (),
        corpus_initial: int | None = None,
        key: str = "",
    ) -> None:
        """Replay ``tokenizer``'s merges; ``history`` (a training run's records) adds counts and ties."""
        self.playback.pause()
        self._waiting_for = None
        self.source = ReplaySource(tokenizer, key, history, corpus_initial)
        if key:
            self.picker.show_key(key)
        if key in self.rounds_of:
            self._show_rounds(self.rounds_of[key])
            return
        if tokenizer.replay_note:
            # Replay cannot reproduce this tokenizer's ids: say why rather than draw wrong ids.
            self._detach(replay_note_message(tokenizer))
            return
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
        if self.trace is not None and (step != self._shown_step or self.replayer.rendering()):
            self.replayer.render(self.trace, step)
        if changed:
            self.stepChanged.emit(step)

    def set_display_options(self, options: DisplayOptions) -> None:
        """Ids instead of text (whitespace stays visible: boundaries at spaces are the point here)."""
        self.view.set_options(DisplayOptions(show_ids=options.show_ids, whitespace=True))

    def follow_colors(self, colors_changed: SignalInstance) -> None:
        """Take token colours from the window (theme and presentation mode) from now on."""
        self._window_colors = True
        colors_changed.connect(self.view.set_colors)  # a bound method: dropped with the view
        colors_changed.connect(self.rounds.view.set_colors)

    def set_start_gate(self, gate: Callable[[Callable[[], object]], None]) -> None:
        """Build a plot shown with a window that is not up yet through ``gate`` (the context's
        ``when_views_ready``), so a restored dock never delays the window's first paint."""
        self.plot.start_gate = gate

    # ---------------------------------------------------------------- live training
    def begin_live(self, planned_merges: int = 0) -> None:
        """A training run started: its merges stream into the table and the corpus plot."""
        if self.live:
            return
        self.playback.pause()
        self.replayer.cancel()
        self.feed.begin(planned_merges, (self.source, self.step))
        self.picker.show_key(None)
        self.picker.setCurrentIndex(-1)  # nothing to pick from until the model exists
        self._show_rounds(None)
        self._set_enabled(False)
        self._set_message("Training… the merges appear in the table as they are made.")

    def append_merges(self, records: Sequence[MergeStep]) -> None:
        """A batch of merges from the running trainer (the table follows the end while at the bottom)."""
        self.feed.append(records)

    def end_live(self, key: str | None = None) -> None:
        """Training ended: show the new model (``key``), or put back what was shown before (cancel, error)."""
        if not self.live:
            return
        saved = self.feed.end()
        tok = self.registry.tokenizer(key) if key is not None and self.registry is not None else None
        if key is not None and tok is not None:
            # The trainer built the merge tables already; the live rows stay until the trace is ready.
            history, initial = self.histories.get(key, ((), None))
            self.set_tokenizer(tok, history, initial, key)
            return
        prev_source, prev_step = saved if saved is not None else (None, 0)
        if prev_source is None:
            self.source = None
            self._detach(PICK_MESSAGE)
            return
        self.source = prev_source
        self.step = prev_step
        self.picker.show_key(prev_source.key)
        self._prepare(keep_step=True)

    # ================================================================ internals
    def _dark(self) -> bool:
        return self.palette().color(QPalette.ColorRole.Window).lightness() < 128

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            dark = self._dark()
            if not self._window_colors:
                self.view.set_colors(token_colors(dark))
            self.model.muted = QColor("#8a8a8a") if not dark else QColor("#7d7d7d")

    def _set_enabled(self, on: bool) -> None:
        self.playback.set_controls_enabled(on)
        self.picker.setEnabled(not self.live)
        self.changes_only.setEnabled(on)

    def _set_message(self, text: str) -> None:
        self.pane.show_message(text)

    def _show_rounds(self, rounds: RoundsSource | None) -> None:
        """Show a Unigram run's rounds in place of the replay (None: the replay again)."""
        for part in (self.splitter, self.heldout, self.playback, self.chunks):
            part.setVisible(rounds is None)
        self.rounds.setVisible(rounds is not None)
        if rounds is None:
            self.rounds.cancel()
            return
        self._set_enabled(False)  # no replay to drive; the picker is free again
        self.rounds.set_source(rounds)
        self.rounds.set_text(self.text)

    def _detach(self, message: str) -> None:
        """Nothing to replay right now (loading, no merges): say why."""
        self._show_rounds(None)
        self.playback.pause()
        self.replayer.cancel()
        self.trace = None
        self.model.set_source(None)
        self.plot.set_trace(None, 0)
        self.plot.set_corpus((), None)
        self.heldout.set_tokenizer(None)
        self._set_enabled(False)
        self.playback.reset()
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
        """Trace the text under the tokenizer in a worker; the view follows when it is ready."""
        if self.source is None:
            return
        if not keep_step:
            self.step = 0
        tok = self.source.tokenizer
        if self.trace is None or self.trace.tokenizer is not tok:
            self._set_message(f"Tracing the merges of {tok.name} on the text…")
            self.replayer.window = None
        # A long text is shown a window at a time (where the view was, if it was).
        self.replayer.place_window(
            self.replayer.window[0] if self.replayer.window else 0, len(self.replay_text)
        )
        self.replayer.trace(tok, self.replay_text)

    def _on_trace(self, trace: ReplayTrace) -> None:
        source = self.source
        if source is None or self.live:
            return
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
        self.heldout.set_tokenizer(source.tokenizer)
        self.playback.set_total(self.total_steps)
        self._set_enabled(True)
        self.step = min(self.step, self.total_steps)
        self._shown_step = -1
        self.traceReady.emit()
        self.set_step(self.step)

    def _sync_controls(self) -> None:
        self.playback.show_step(self.step)
        self.plot.set_step(self.step)
        self.heldout.set_step(self.step)
        self.merges.follow_step(self.step)

    def _on_changes_only(self, on: bool) -> None:
        self.model.set_changes_only(on)
        self._sync_controls()

    def _on_rendered(self, trace: ReplayTrace, step: int, table: TokenTable) -> None:
        if trace is self.trace:
            self._show(step, table)

    def _show(self, step: int, table: TokenTable) -> None:
        trace = self.trace
        assert trace is not None
        self.pane.show_step(trace, step, table)
        self._shown_step = step
        parts = self.model.merge_parts(step) if step else None
        first_chars = REPLAY_LIMIT if len(self.text) > REPLAY_LIMIT else None
        n_tokens = trace.token_count(step)  # of the whole text; the view may show a window of it
        self.caption.setText(step_caption(trace, step, n_tokens, self.total_steps, parts, first_chars))
        if len(table) and (int(table.start[0]) > 0 or int(table.end[-1]) < len(trace.text)):
            self.caption.setText(
                self.caption.text()
                + f" · showing characters {int(table.start[0]):,}–{int(table.end[-1]):,} of {len(trace.text):,}"
            )
        self.stepShown.emit(step)
        new_id = trace.new_id_at(step) if trace.changes_text(step) else None
        if new_id is not None and isinstance(trace, WholeTextTrace) and not (table.ids == new_id).any():
            where = trace.stepper.first_start(new_id)  # the merge happens outside the window: go there
            if where is not None:
                self._move_window(where)

    def _move_window(self, cp: int) -> None:
        """Show the part of a long text around code point ``cp`` (at the current step)."""
        if self.trace is None:
            return
        self.replayer.place_window(cp, len(self.replay_text))
        self.replayer.render(self.trace, self.step)

    def _follow_scroll(self, cp: int) -> None:
        """Scrolling near either end of the shown part of a long text moves the window along."""
        if self.trace is not None and self.replayer.window_lags(cp, len(self.trace.text)):
            self._move_window(cp)


__all__ = ["REPLAY_LIMIT", "TimelineWidget"]
