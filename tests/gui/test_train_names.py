"""Each training run makes a new model: the lecture's model survives the next run, whose name says what it is."""

from __future__ import annotations

import pytest
from PySide6.QtTest import QTest

from tokviz.gui.models.tokenizers import TokenizerRegistryModel
from tokviz.gui.panels.timeline.panel import TimelineWidget
from tokviz.gui.panels.training.panel import SOURCE_PYDOC, TrainPanel


class Editor:
    def __init__(self) -> None:
        self.text = ""

    def get(self) -> str:
        return self.text

    def set(self, text: str) -> None:
        self.text = text


@pytest.fixture
def panel(qtbot):
    registry = TokenizerRegistryModel()
    editor = Editor()
    panel = TrainPanel(registry, editor.get, editor.set)
    panel.connect_timeline(TimelineWidget(registry))
    qtbot.addWidget(panel)
    panel.show()
    yield panel
    panel.shutdown()


def run(qtbot, panel: TrainPanel, start) -> str:
    with qtbot.waitSignal(panel.run.finished, timeout=60000) as finished:
        start()
    qtbot.waitUntil(lambda: not panel.running, timeout=60000)
    return finished.args[1]


def trained_models(panel: TrainPanel) -> list[str]:
    return [panel.registry.label(k) for k in panel.registry.keys() if k.startswith("model:")]


def test_training_after_the_lecture_demo_keeps_the_lecture_model_and_names_the_new_one_by_its_settings(
    qtbot, panel
):
    lecture = run(qtbot, panel, panel.demo_none_button.click)
    lecture_tokenizer = panel.registry.entry(lecture).tokenizer
    panel.set_source_kind(SOURCE_PYDOC)
    panel.vocab_size.setValue(300)
    panel.set_pretokenizer("gpt2")
    new = run(qtbot, panel, panel.train_button.click)
    assert new != lecture
    assert panel.registry.entry(lecture).tokenizer is lecture_tokenizer
    assert panel.registry.entry(lecture).tokenizer.merge_count == 3
    assert panel.registry.label(lecture) == "lecture (no pre-tokenizer)"
    label = panel.registry.label(new)
    assert "lecture" not in label
    assert "300" in label and "gpt2" in label and "python-docs" in label
    assert len(trained_models(panel)) == 2


def test_a_typed_name_is_kept_and_training_again_makes_a_second_model_unless_replace_is_chosen(qtbot, panel):
    panel.set_source_kind(SOURCE_PYDOC)
    panel.vocab_size.setValue(270)
    panel.name.clear()
    QTest.keyClicks(panel.name, "my model")
    first = run(qtbot, panel, panel.train_button.click)
    assert panel.registry.label(first) == "my model"
    assert panel.replace_model.isVisible()
    assert not panel.replace_model.isChecked()
    assert "my model" in panel.replace_model.text()
    second = run(qtbot, panel, panel.train_button.click)
    assert second != first
    assert panel.registry.label(second).startswith("my model")
    assert trained_models(panel) == ["my model", panel.registry.label(second)]
    assert panel.name.text() == "my model"  # the typed name stays in the field
    panel.replace_model.setChecked(True)
    panel.vocab_size.setValue(280)
    third = run(qtbot, panel, panel.train_button.click)
    assert third == first
    assert panel.registry.entry(first).tokenizer.merge_count == 280 - 256 - 1
    assert len(trained_models(panel)) == 2
    assert not panel.replace_model.isChecked()  # replacing is asked for again each time


def test_the_corpus_file_pickers_first_filter_shows_count_tables_too(qtbot, panel, monkeypatch):
    from tokviz.gui.widgets import file_dialogs

    asked = []
    monkeypatch.setattr(
        file_dialogs, "get_open_file_names", lambda *args, **kw: (asked.append(args[3]), ([], ""))[1]
    )
    panel.choose_files()
    first = asked[0].split(";;")[0]
    for pattern in ("*.txt", "*.tsv", "*.parquet", "*.gz"):
        assert pattern in first
