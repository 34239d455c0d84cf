"""Lifecycles: a stateful property test over what a user does to the window in an hour.

A hypothesis state machine drives a real :class:`MainWindow` (offscreen) through sequences of
window actions -- add and close views, open and close every dock, the lecture demo, start and
cancel a training run, open a tokenizer file, theme, zoom, presentation mode, typing -- and checks
after every step, once the events have settled, what a user would notice:

- no error dialog is open and the window recorded no error;
- no Python exception escaped into Qt's event loop (a slot of a deleted widget, say);
- Qt printed no warning (the same level ``qt_log_level_fail`` fails a test on);
- every tokenizer picker in the window lists exactly the registry's tokenizers, in its order;
- the window's minimum width fits a 1024-pixel projector.

Exceptions and Qt warnings are checked per step (not only at the end of the test, as pytest-qt
does) so that hypothesis can shrink a failure to the few steps that cause it.
"""

from __future__ import annotations

import itertools
import os

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)
from PySide6.QtCore import QSettings
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QDockWidget, QMessageBox

from tokviz.core.formats import save_model
from tokviz.gui.models.tokenizers import KeyRole
from tokviz.gui.panels.training.panel import SOURCE_EDITOR, TrainPanel
from tokviz.gui.widgets.picker import TokenizerPicker

from .reach import dock, docked, error_text

PROJECTOR_WIDTH = 1024
# Up to four views: with presentation mode and the Train dock they still fit a projector.
MAX_VIEWS = 4
WAIT_MS = 20_000  # a safety net for a loaded 2-core machine, never reached when things work
TEXTS = (
    "the cat in the hat",
    "def f(x):\n    return x + 1\n",
    "Hello, 🌍! 你好!",
    "",
    "naïve café — ﬁne\u200d text\r\nwith a CRLF",
)


def test_a_view_added_while_the_editor_is_empty_is_tokenized(qtbot, window):
    """Found by the machine: a view added after the text was cleared never got the (empty) text,
    so it stayed "…" in the status bar and ``is_ready()`` was False for good."""
    window.set_text("")
    qtbot.waitUntil(window.is_ready, timeout=WAIT_MS)
    panel = window.add_view("bytes")
    qtbot.waitUntil(window.is_ready, timeout=WAIT_MS)
    assert panel.model.current and panel.view.table is not None and len(panel.view.table) == 0


def test_a_view_stops_saying_tokenizing_when_an_edit_made_during_a_worker_run_is_applied(qtbot, window):
    """Found by the machine: a large change goes to a worker ("tokenizing…"); a small edit made
    meanwhile is encoded in the GUI thread when the worker returns, and the note stayed for good."""
    big = "hello world, this is a sentence. " * 2000
    window.set_text(big)
    window.retokenize_now()
    assert any(p.busy.text() for p in window.panels), "the large change went to a worker"
    window.set_text(big + "x")
    window.retokenize_now()
    qtbot.waitUntil(window.is_ready, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: [p.busy.text() for p in window.panels] == [""] * len(window.panels))


def test_four_views_in_presentation_mode_fit_a_projector(qtbot, window):
    """Found by the machine (train, open a tokenizer twice, presentation mode): four views beside
    the Train dock needed 1,099 px; a view's busy note and picker no longer set its width."""
    while len(window.panels) < 4:
        window.add_view()
    dock(window, "trainDock").show()
    window.presentation.set_active(True)
    qtbot.waitUntil(window.is_ready, timeout=WAIT_MS)
    assert window.minimumSizeHint().width() <= PROJECTOR_WIDTH


def test_four_views_added_in_presentation_mode_fit_a_projector(qtbot, window):
    """Found by the machine (presentation mode, then three more views): views added in the mode's
    larger type and the Train dock needed 1,043 px; the Train form's checkbox and demo buttons no
    longer set its width."""
    window.remove_last_view()
    dock(window, "trainDock").show()
    window.presentation.set_active(True)
    while len(window.panels) < 4:
        window.add_view()
    qtbot.waitUntil(window.is_ready, timeout=WAIT_MS)
    assert window.minimumSizeHint().width() <= PROJECTOR_WIDTH


def room_for_a_view(machine) -> bool:
    """Whether the machine may add a view (four fit a projector, in presentation mode too)."""
    return len(machine.window.panels) < MAX_VIEWS


def settle(qtbot, window) -> None:
    """Let queued events run: every view shows the editor's text and no tokenizer is loading."""
    qtbot.wait(5)  # a rule's work is posted, not started: is_ready() may still say the state before it
    qtbot.waitUntil(lambda: window.is_ready() and not window.tokenizers.busy(), timeout=WAIT_MS)
    qtbot.wait(5)  # what filling the views posted (merge ranks, relayouts) runs; no signal ends it


def picker_keys(picker: TokenizerPicker) -> list[str]:
    return [picker.itemData(row, KeyRole) for row in range(picker.count())]


def registry_keys(window) -> list[str]:
    model = window.tokenizers
    return [model.data(model.index(row, 0), KeyRole) for row in range(model.rowCount())]


@pytest.mark.slow
@pytest.mark.long_pole
def test_window_lifecycles_keep_the_window_sound(qtbot, qtlog, window, make_window, tmp_path, tiny_bpe):
    model_path = tmp_path / "tiny.tokviz.json"
    save_model(model_path, tiny_bpe)
    # The docks a user can open and close, found on a real window (the same set in every window).
    dock_names = sorted(d.objectName() for d in window.findChildren(QDockWidget) if d.objectName())
    assert len(dock_names) >= 6, dock_names
    window.close()
    serial = itertools.count()

    with qtbot.captureExceptions() as exceptions:

        class WindowLifecycle(RuleBasedStateMachine):
            def __init__(self) -> None:
                super().__init__()
                exceptions.clear()
                self.first_log = len(qtlog.records)
                # A fresh profile per example: what one example saves must not shape the next.
                profile = QSettings(str(tmp_path / f"profile-{next(serial)}.ini"), QSettings.Format.IniFormat)
                self.window = make_window(settings=profile)

            def teardown(self) -> None:
                w = self.window
                if w.findChild(QDockWidget, "trainDock") is not None:
                    docked(w, "trainDock", TrainPanel).shutdown()
                w.close()
                qtbot.wait(5)  # the closed window's parts are deleted later, in the loop; no signal says when

            # ------------------------------------------------------------ views
            @precondition(room_for_a_view)
            @rule(key=st.sampled_from([None, "gpt2", "cl100k", "bytes"]) | st.integers(0, 8))
            def add_view(self, key) -> None:
                if isinstance(key, int):  # any tokenizer on offer, trained and opened ones too
                    keys = self.window.tokenizers.keys()
                    key = keys[key % len(keys)]
                self.window.add_view(key)

            @rule(index=st.integers(0, 8))
            def close_view(self, index) -> None:
                panels = self.window.panels
                self.window.remove_view(panels[index % len(panels)])

            @rule()
            def close_last_view(self) -> None:
                self.window.remove_last_view()

            # ------------------------------------------------------------ docks
            @rule(name=st.sampled_from(dock_names))
            def toggle_dock(self, name) -> None:
                dock = self.window.findChild(QDockWidget, name)
                assert dock is not None, name
                dock.toggleViewAction().trigger()

            # ------------------------------------------------------------ training
            @precondition(lambda self: self.window.findChild(QDockWidget, "trainDock") is not None)
            @rule()
            def lecture_demo(self) -> None:
                panel = docked(self.window, "trainDock", TrainPanel)
                qtbot.waitUntil(lambda: not panel.running, timeout=WAIT_MS)
                self.window.findChild(QAction, "actionLectureDemo").trigger()
                qtbot.waitUntil(lambda: not panel.running, timeout=WAIT_MS)

            @precondition(lambda self: self.window.findChild(QDockWidget, "trainDock") is not None)
            @rule(wait_ms=st.sampled_from([0, 20]))
            def train_and_cancel(self, wait_ms) -> None:
                panel = docked(self.window, "trainDock", TrainPanel)
                qtbot.waitUntil(lambda: not panel.running, timeout=WAIT_MS)
                panel.set_source_kind(SOURCE_EDITOR)
                panel.start()
                qtbot.wait(wait_ms)  # the example's input: cancel at once or some way into the run
                qtbot.waitUntil(lambda: not panel.running, timeout=WAIT_MS)

            # ------------------------------------------------------------ files
            @precondition(room_for_a_view)
            @rule()
            def open_tokenizer(self) -> None:
                job = self.window.files.open_tokenizer_file(str(model_path))
                qtbot.waitUntil(lambda: job.done, timeout=WAIT_MS)

            # ------------------------------------------------------------ appearance
            @rule(theme=st.sampled_from(["dark", "light"]))
            def set_theme(self, theme) -> None:
                self.window.appearance.set_theme(theme)

            @rule(step=st.sampled_from([-1, 1]))
            def zoom(self, step) -> None:
                self.window.appearance.zoom(step)

            @rule(on=st.booleans())
            def presentation(self, on) -> None:
                self.window.presentation.set_active(on)

            @rule(text=st.sampled_from(TEXTS) | st.text(max_size=30))
            def type_text(self, text) -> None:
                self.window.set_text(text)

            # ------------------------------------------------------------ invariants
            @invariant()
            def window_is_sound(self) -> None:
                w = self.window
                settle(qtbot, w)
                assert not exceptions, "an exception in Qt's event loop:\n" + "\n".join(
                    repr(exc[1]) for exc in exceptions
                )
                warnings = [
                    r.message
                    for r in qtlog.records[self.first_log :]
                    if r.matches_level("WARNING") and not r.ignored
                ]
                assert not warnings, warnings
                box = w.findChild(QMessageBox, "errorDialog")
                assert box is None or not box.isVisible(), box.text()
                assert error_text(w) is None
                expected = registry_keys(w)
                for picker in w.findChildren(TokenizerPicker):
                    assert picker.count() == w.tokenizers.rowCount()
                    assert picker_keys(picker) == expected
                # A view that shows its tokens says nothing of loading or tokenizing.
                assert [p.busy.text() for p in w.panels] == [""] * len(w.panels)
                assert w.minimumSizeHint().width() <= PROJECTOR_WIDTH

        run_state_machine_as_test(
            WindowLifecycle,
            settings=settings(
                # A longer hunt: TOKVIZ_LIFECYCLE_EXAMPLES=200 python -m pytest tests/gui/test_lifecycles.py
                max_examples=int(os.environ.get("TOKVIZ_LIFECYCLE_EXAMPLES", "15")),
                stateful_step_count=12,
                deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
            ),
        )
    assert not exceptions
