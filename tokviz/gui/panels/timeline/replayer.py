"""The timeline's background work: tracing a text under a tokenizer, and encoding it at a step.

A trace (a :class:`~tokviz.gui.panels.timeline.stepper.WholeTextTrace`) is built in a worker, one at a time: a
request while one runs (typing in a long text) is traced once that one ends, so the worker pool
never fills with stale work. A step of a short text is encoded at once in the GUI thread; a long
text's steps are encoded in a worker, and only the latest step asked for is encoded next.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from PySide6.QtCore import QObject, Signal

from tokviz.core.bpe.merges import MergeStep
from tokviz.core.bpe.tokenizer import Tokenizer
from tokviz.core.training.replay import ReplayTrace
from tokviz.gui.panels.timeline.stepper import MissingByteError, WholeTextTrace
from tokviz.gui.text.token_table import TokenTable
from tokviz.gui.workers.jobs import Job, run_job

# Texts up to this many code points are re-encoded in the GUI thread at each step (a few ms).
SYNC_CHARS = 4000


def prepare_trace(tokenizer: Tokenizer, text: str) -> ReplayTrace:
    """Worker-thread part: build the merge tables (GPT-2 recovers its merges here) and the trace,
    whose steps cost only the chunks a merge changes (:class:`WholeTextTrace`). A tokenizer with a
    normalizer gets the core's replay, which merges the normalized text and puts it back on the
    typed one (the whole-text trace walks the typed text's bytes)."""
    tokenizer.merge_rank_of_id  # noqa: B018 - forces the tables; ~0.5 s for cl100k the first time
    if tokenizer.normalizer:
        return ReplayTrace(tokenizer, text)
    try:
        return WholeTextTrace(tokenizer, text)
    except MissingByteError:  # a vocabulary without some single byte: the core's replay, whole text
        return ReplayTrace(tokenizer, text)


def table_at(trace: ReplayTrace, step: int, window: tuple[int, int] | None = None) -> TokenTable:
    """The traced text encoded with the first ``step`` merges: the code points ``window`` (widened
    to whole chunks), or all of it."""
    if isinstance(trace, WholeTextTrace):
        # A window moves to where the step's merge is, if it is elsewhere (see WholeTextTrace).
        return trace.table_at(step, *window, follow=True) if window is not None else trace.table_at(step)
    return TokenTable.from_spans(trace.text, trace.spans_at(step))


@dataclass
class ReplaySource:
    """What the timeline replays: a tokenizer, and for a model trained here its merge history."""

    tokenizer: Tokenizer
    key: str = ""
    history: Sequence[MergeStep] = ()
    corpus_initial: int | None = None


@dataclass(frozen=True)
class _TraceRequest:
    tokenizer: Tokenizer
    text: str


# A long text is shown this many code points at a time, around where the view looks.
VIEW_CHARS = 12_000


class Replayer(QObject):
    """Runs the traces and step encodings of one timeline, and drops results that came too late.

    Signals: ``traced(trace)`` for the latest request; ``traceFailed(message)``;
    ``rendered(trace, step, table)`` (at once for a short text); ``renderFailed(message)``.
    """

    traced = Signal(ReplayTrace)
    traceFailed = Signal(str)
    rendered = Signal(ReplayTrace, int, TokenTable)
    renderFailed = Signal(str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        # Bumped by every new request and by ``cancel``: results of older generations are dropped.
        self.generation = 0
        self._trace_job: Job | None = None
        self._wanted: _TraceRequest | None = None
        self._render_job: Job | None = None
        self._render_wanted: tuple[ReplayTrace, int] | None = None
        # The code points the view shows (a long text is shown a window at a time); None: all.
        self.window: tuple[int, int] | None = None

    def place_window(self, cp: int, length: int) -> None:
        """Show :data:`VIEW_CHARS` code points of a text of ``length`` around ``cp`` (a quarter of
        them before it); a text no longer than that is shown whole."""
        if length <= VIEW_CHARS:
            self.window = None
            return
        lo = max(0, min(cp - VIEW_CHARS // 4, length - VIEW_CHARS))
        self.window = (lo, min(length, lo + VIEW_CHARS))

    def window_lags(self, cp: int, length: int) -> bool:
        """Whether the view, scrolled to ``cp``, came near an end of the window shown with more of the
        text (``length`` code points) beyond it: the window should move along."""
        if self.window is None or self.rendering():
            return False
        lo, hi = self.window
        margin = VIEW_CHARS // 6
        return (cp < lo + margin and lo > 0) or (cp > hi - 2 * margin and hi < length)

    def tracing(self) -> bool:
        """True while a trace runs or waits to run."""
        return self._trace_job is not None or self._wanted is not None

    def rendering(self) -> bool:
        """True while a step of a long text is being encoded."""
        return self._render_job is not None

    def cancel(self) -> None:
        """Forget what was asked: results still on their way are dropped."""
        self.generation += 1
        self._wanted = None
        self._render_wanted = None

    # ---------------------------------------------------------------- tracing
    def trace(self, tokenizer: Tokenizer, text: str) -> None:
        """Trace ``text`` under ``tokenizer``; ``traced`` follows unless another request comes first."""
        self.generation += 1
        self._wanted = _TraceRequest(tokenizer, text)
        if self._trace_job is None:
            self._start_trace()

    def _start_trace(self) -> None:
        wanted, self._wanted = self._wanted, None
        if wanted is None:
            return
        generation = self.generation
        tok, text = wanted.tokenizer, wanted.text
        job = run_job(lambda: prepare_trace(tok, text), self)
        self._trace_job = job

        def done(trace: ReplayTrace) -> None:
            if generation == self.generation:
                self.traced.emit(trace)

        def failed(exc: BaseException) -> None:
            if generation == self.generation:
                self.traceFailed.emit(f"Cannot replay {tok.name}: {exc}")

        job.returned.connect(done)
        job.errored.connect(failed)
        job.finished.connect(self._on_trace_finished)
        job.finished.connect(job.deleteLater)

    def _on_trace_finished(self) -> None:
        self._trace_job = None
        self._start_trace()

    # ---------------------------------------------------------------- encoding a step
    def render(self, trace: ReplayTrace, step: int) -> None:
        """Encode the traced text at ``step``; ``rendered`` follows (at once for a short text)."""
        if len(trace.text) <= SYNC_CHARS:
            self._deliver(trace, step, table_at(trace, step, self.window))
            return
        self._render_wanted = (trace, step)
        if self._render_job is None:
            self._start_render()

    def _start_render(self) -> None:
        wanted, self._render_wanted = self._render_wanted, None
        if wanted is None:
            return
        trace, step = wanted
        generation = self.generation
        window = self.window
        job = run_job(lambda: table_at(trace, step, window), self)
        self._render_job = job

        def done(table: TokenTable) -> None:
            self._render_job = None
            # A step asked for meanwhile makes this one stale: show only the latest.
            if generation == self.generation and self._render_wanted is None:
                self._deliver(trace, step, table)
            self._start_render()

        def failed(exc: BaseException) -> None:
            self._render_job = None
            if generation == self.generation:
                self.renderFailed.emit(f"Cannot encode the text at step {step}: {exc}")

        job.returned.connect(done)
        job.errored.connect(failed)
        job.finished.connect(job.deleteLater)

    def _deliver(self, trace: ReplayTrace, step: int, table: TokenTable) -> None:
        if self.window is not None and len(table):
            # The window may have moved to where the step's merge is: later steps start from there.
            lo, hi = self.window
            if not int(table.start[0]) <= lo < int(table.end[-1]):
                self.window = (int(table.start[0]), int(table.start[0]) + hi - lo)
        self.rendered.emit(trace, step, table)
