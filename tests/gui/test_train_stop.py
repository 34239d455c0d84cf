"""The Train panel says when the corpus ran out of pairs before the vocabulary size asked for."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from tokviz.core.training.train import train_bpe
from tokviz.gui.models.tokenizers import TokenizerRegistryModel
from tokviz.gui.panels.training.panel import SOURCE_EDITOR, TrainPanel
from tokviz.gui.panels.training.report import finished_result
from tokviz.gui.workers.training import TrainOutcome, TrainSettings


def test_the_result_text_gives_the_reason_of_an_early_stop() -> None:
    result = train_bpe(text="the cat in the hat", vocab_size=5_000, pretokenizer="none")
    settings = TrainSettings(source="the cat in the hat", vocab_size=5_000, name="tiny")
    text = finished_result(TrainOutcome(result, result.tokenizer("tiny"), settings, 0.1))
    assert result.stop_reason is not None
    assert f"Stopped early: {result.stop_reason}." in text


def test_a_full_vocabulary_has_no_early_stop_in_the_result_text() -> None:
    result = train_bpe(text="the cat in the hat", vocab_size=259, pretokenizer="none")
    settings = TrainSettings(source="the cat in the hat", vocab_size=259, name="tiny")
    assert "Stopped early" not in finished_result(
        TrainOutcome(result, result.tokenizer("tiny"), settings, 0.1)
    )


@pytest.fixture
def panel(qtbot: QtBot) -> Iterator[TrainPanel]:
    panel = TrainPanel(TokenizerRegistryModel(), lambda: "the cat in the hat " * 5, lambda _text: None)
    qtbot.addWidget(panel)
    panel.show()
    yield panel
    panel.shutdown()


def test_training_a_small_editor_text_to_a_large_size_shows_the_reason(
    qtbot: QtBot, panel: TrainPanel
) -> None:
    panel.set_source_kind(SOURCE_EDITOR)
    panel.vocab_size.setValue(4_000)
    with qtbot.waitSignal(panel.run.finished, timeout=60_000):
        qtbot.mouseClick(panel.train_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not panel.running, timeout=60_000)
    shown = panel.result.text()
    assert "Stopped early: the corpus has no pair left to merge after " in shown
    assert "of 4,000" in shown
