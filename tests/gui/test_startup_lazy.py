"""Nothing a restored dock needs runs before the window is on screen; the first tables come from workers.

A user who closed tokviz with the merge timeline open gets it back at the next launch: its plot
(pyqtgraph: an import of 0.3-1 s and a first paint of 0.2 s) is built only after the window's
first paint. A view's first table is encoded in a worker, never in the GUI thread before a paint.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QDockWidget, QWidget

from tokviz.gui.models.progressive import ProgressiveTokenizationModel
from tokviz.gui.models.tokenizers import TokenizerRegistryModel
from tokviz.gui.panels.timeline.panel import TimelineWidget
from tokviz.gui.text.token_table import TokenTable
from tokviz.gui.window.main_window import MainWindow
from tokviz.gui.workers.settle import after_first_paint

from .reach import docked


class FirstPaintWatch(QObject):
    """Notes what ``probe()`` says at the watched widget's first paint."""

    def __init__(self, widget: QWidget, probe) -> None:
        super().__init__(widget)
        self.seen: list[object] = []
        self._probe = probe
        widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint and not self.seen:
            self.seen.append(self._probe())
        return False


def leave_the_timeline_open(qtbot) -> None:
    """A session that ends with the merge timeline open: the next window restores it."""
    first = MainWindow()
    qtbot.addWidget(first)
    first.show()
    first.findChild(QDockWidget, "timelineDock").show()
    qtbot.waitUntil(first.is_ready, timeout=20000)
    first.save_settings()
    first.close()


def test_a_restored_timeline_builds_its_plot_after_the_window_is_painted(qtbot):
    leave_the_timeline_open(qtbot)

    window = MainWindow()  # the same settings: the timeline dock comes back open
    qtbot.addWidget(window)
    plot = docked(window, "timelineDock", TimelineWidget).plot
    watch = FirstPaintWatch(window, lambda: plot.built)
    window.show()
    assert window.findChild(QDockWidget, "timelineDock").isVisible()
    qtbot.waitUntil(lambda: bool(watch.seen), timeout=20000)
    assert watch.seen == [False], "the plot was not built before the window's first paint"
    qtbot.waitUntil(lambda: plot.built, timeout=30000)
    qtbot.waitUntil(window.is_ready, timeout=20000)
    window.close()


def test_a_restored_timeline_starts_tracing_after_the_window_is_painted(qtbot):
    """Choosing the timeline's tokenizer loads GPT-2's merges and traces in a worker: both
    compete with the first paint and the views' first tokens, so they wait for them (the dock then
    follows the first view)."""
    leave_the_timeline_open(qtbot)

    window = MainWindow()
    qtbot.addWidget(window)
    timeline = docked(window, "timelineDock", TimelineWidget)
    watch = FirstPaintWatch(window, timeline.needs_tokenizer)
    at_first_tokens: list[bool] = []
    window.textTokenized.connect(lambda: at_first_tokens.append(timeline.needs_tokenizer()))
    window.show()
    qtbot.waitUntil(lambda: bool(watch.seen), timeout=20000)
    assert watch.seen == [True], "the timeline asked for a tokenizer before the window's first paint"
    qtbot.waitUntil(lambda: bool(at_first_tokens), timeout=20000)
    assert at_first_tokens[0], "the timeline asked for a tokenizer before the views showed their tokens"
    qtbot.waitUntil(lambda: timeline.source is not None, timeout=20000)
    assert timeline.replay_text == window.editor.toPlainText()
    window.close()


def test_after_first_paint_waits_for_the_paint_then_runs_once(qtbot):
    widget = QWidget()
    qtbot.addWidget(widget)
    calls: list[str] = []
    after_first_paint(widget, lambda: calls.append("first"))
    assert calls == []
    widget.show()
    qtbot.waitUntil(lambda: calls == ["first"], timeout=5000)
    widget.update()
    qtbot.wait(50)  # the repaint would call again; that nothing comes has no signal to wait for
    assert calls == ["first"], "once only"
    after_first_paint(widget, lambda: calls.append("later"))
    assert calls == ["first", "later"], "a painted window runs the call at once"


def test_a_views_first_table_is_encoded_in_a_worker(qtbot, gpt2):
    registry = TokenizerRegistryModel(builtins=["gpt2"])
    registry.load_builtin_now("gpt2")
    model = ProgressiveTokenizationModel(registry, "gpt2")
    text = "Tokens, the first time: naïve café 🌍."
    model.set_text(text)
    assert model.table is None and model.busy, "nothing encoded in the GUI thread"
    qtbot.waitUntil(lambda: model.current, timeout=20000)
    expected = TokenTable.encode(gpt2, text)
    assert model.table.ids.tolist() == expected.ids.tolist()
    assert model.table.start.tolist() == expected.start.tolist()
    model.set_text(text + " more")  # small edits of an existing table stay immediate
    assert model.current and model.table.text == text + " more"
