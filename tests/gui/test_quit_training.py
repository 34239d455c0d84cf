"""Quitting during a training run asks first; saying no keeps the window and the run."""

from __future__ import annotations

from tokviz.gui.panels.training import install
from tokviz.gui.panels.training.corpus import SOURCE_PYDOC
from tokviz.gui.panels.training.panel import TrainPanel

from .reach import docked


def start_a_long_run(qtbot, window):
    panel = docked(window, "trainDock", TrainPanel)
    panel.set_source_kind(SOURCE_PYDOC)
    panel.vocab_size.setValue(30_000)
    panel.start()
    qtbot.waitUntil(lambda: panel.running, timeout=10000)
    return panel


def test_quitting_during_training_asks_and_no_keeps_everything(qtbot, window, monkeypatch):
    asked: list[bool] = []
    monkeypatch.setattr(install, "confirm_quit", lambda parent, panel=None: asked.append(True) or False)
    panel = start_a_long_run(qtbot, window)
    assert window.close() is False, "the window stays open"
    assert asked == [True] and window.isVisible() and panel.running
    monkeypatch.setattr(install, "confirm_quit", lambda parent, panel=None: True)
    assert window.close() is True
    qtbot.waitUntil(lambda: not panel.running, timeout=10000)  # cancelled, its thread ended


def test_no_question_without_a_run(qtbot, window, monkeypatch):
    monkeypatch.setattr(
        install, "confirm_quit", lambda parent, panel=None: (_ for _ in ()).throw(AssertionError("asked"))
    )
    assert window.close() is True


def test_the_question_follows_a_run_that_finishes_while_it_is_open(qtbot):
    from tokviz.gui.panels.training.install import QuitQuestion

    box = QuitQuestion(None)
    qtbot.addWidget(box)
    assert "in progress" in box.text() and box.defaultButton() is box.button(box.StandardButton.No)
    box.on_finished(object(), "bpe-2000")
    assert box.text() == "The training run has finished; its model is not saved yet. Quit anyway?"
    assert box.windowTitle() == "Quit without saving?"
