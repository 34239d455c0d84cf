"""Tokenizer files opened and trained models saved come back in every picker after a restart."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings

from tokviz.core.bpe.tokenizer import Tokenizer
from tokviz.core.formats.model_file import save_model
from tokviz.core.training.train import train_bpe
from tokviz.gui.models.tokenizers import KeyRole, TokenizerRegistryModel
from tokviz.gui.settings import REMEMBERED_TOKENIZERS, Settings
from tokviz.gui.window.remembered import (
    MAX_REMEMBERED,
    RememberedTokenizer,
    RememberedTokenizers,
    read_remembered,
    write_remembered,
)

from .reach import exporter, menu


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """A settings store of its own, in a temporary INI file."""
    return Settings(QSettings(str(tmp_path / "tokviz.ini"), QSettings.Format.IniFormat))


@pytest.fixture
def model_file(tmp_path: Path, tiny_bpe: Tokenizer) -> Path:
    path = tmp_path / "py8k.json"
    save_model(path, tiny_bpe)
    return path


def test_an_opened_file_is_in_every_picker_of_the_next_session(qtbot, make_window, settings, model_file):
    first = make_window(settings=settings)
    job = first.files.open_tokenizer_file(str(model_file))
    qtbot.waitUntil(lambda: job.property("key") is not None, timeout=20000)
    key = str(job.property("key"))
    assert [r.path for r in read_remembered(settings)] == [str(model_file)]
    first.close()

    second = make_window(settings=settings)
    registry = second.tokenizers
    assert registry.row_of(key) >= 0  # listed at once, before anything loads it
    assert registry.label(key) == first.tokenizers.label(key)
    registry.ensure_loaded(key)
    qtbot.waitUntil(lambda: registry.tokenizer(key) is not None, timeout=20000)
    assert registry.tokenizer(key).vocab == first.tokenizers.tokenizer(key).vocab
    picker = second.panels[0].picker
    assert key in [picker.itemData(i, KeyRole) for i in range(picker.count())]


def test_a_view_of_a_remembered_file_comes_back_too(qtbot, make_window, settings, model_file):
    first = make_window(settings=settings)
    job = first.files.open_tokenizer_file(str(model_file))
    qtbot.waitUntil(lambda: len(first.panels) == 3, timeout=20000)
    key = str(job.property("key"))
    first.close()

    second = make_window(settings=settings)
    assert [p.model.key for p in second.panels] == ["gpt2", "cl100k", key]
    qtbot.waitUntil(lambda: second.panels[2].model.tokenizer is not None, timeout=20000)


def test_missing_files_are_forgotten_with_a_status_message(
    qtbot, make_window, settings, model_file, tmp_path
):
    gone = RememberedTokenizer(str(tmp_path / "deleted.tiktoken"), "deleted.tiktoken", {"pattern": "gpt2"})
    kept = RememberedTokenizer(str(model_file), "py8k")
    write_remembered(settings, [gone, kept])

    window = make_window(settings=settings)
    assert (
        window.statusBar().currentMessage()
        == "Forgot 1 tokenizer file that no longer exists: deleted.tiktoken"
    )
    assert read_remembered(settings) == [kept]
    assert window.tokenizers.label(f"file:{model_file.resolve()}") == "py8k"


def test_open_recent_lists_texts_and_tokenizers(qtbot, make_window, settings, model_file, tmp_path):
    text = tmp_path / "notes.txt"
    text.write_text("hello there", encoding="utf-8")
    write_remembered(settings, [RememberedTokenizer(str(model_file), "py8k")])
    window = make_window(settings=settings)
    window.files.open_text_file(str(text))

    actions = menu(window, "recentMenu").actions()
    sections = [a.text() for a in actions if a.isSeparator()]
    names = [a.text() for a in actions if not a.isSeparator()]
    assert sections == ["Texts", "Tokenizers"]
    assert names == ["&1 notes.txt", "py8k"]
    tokenizer_action = next(a for a in actions if a.objectName() == "recentTokenizer")
    assert tokenizer_action.toolTip() == str(model_file)
    tokenizer_action.trigger()
    assert window.panels[-1].model.key == f"file:{model_file.resolve()}"


def test_a_saved_trained_model_is_remembered_by_its_path(qtbot, settings, tiny_bpe, tmp_path):
    registry = TokenizerRegistryModel()
    remembered = RememberedTokenizers(registry, settings)
    key = registry.add_tokenizer("my model", tiny_bpe)
    assert read_remembered(settings) == []  # trained, not saved: nothing to come back from

    with qtbot.waitSignal(remembered.changed):
        registry.mark_saved(key, str(tmp_path / "my-model.tokviz.json"))
    assert read_remembered(settings) == [
        RememberedTokenizer(str(tmp_path / "my-model.tokviz.json"), "my model")
    ]


def test_the_list_is_short_unique_and_survives_damage(settings, tmp_path):
    items = [RememberedTokenizer(str(tmp_path / f"m{i}.json"), f"m{i}") for i in range(MAX_REMEMBERED + 3)]
    write_remembered(settings, [items[0], *items])
    assert read_remembered(settings) == items[:MAX_REMEMBERED]

    settings.set(
        REMEMBERED_TOKENIZERS, ["{not json", '{"path": 3}', '{"path": "a.json", "options": {"x": 1}}']
    )
    assert read_remembered(settings) == [RememberedTokenizer("a.json", "a.json", {})]


def test_the_train_panels_save_remembers_the_model_file(qtbot, settings, tmp_path):
    from tokviz.gui.panels.training.panel import TrainPanel

    text = ["the cat in the hat"]
    registry = TokenizerRegistryModel()
    remembered = RememberedTokenizers(registry, settings, registry)
    panel = TrainPanel(registry, lambda: text[0], lambda t: text.__setitem__(0, t))
    qtbot.addWidget(panel)
    with qtbot.waitSignal(panel.run.finished, timeout=30000) as finished:
        panel.run_demo()
    qtbot.waitUntil(lambda: not panel.running, timeout=30000)
    key = finished.args[1]

    job = panel.save_model_to(tmp_path / "lecture.tokviz.json")
    qtbot.waitUntil(lambda: job.done, timeout=20000)
    assert remembered.items() == [
        RememberedTokenizer(str(tmp_path / "lecture.tokviz.json"), registry.label(key))
    ]
    panel.shutdown()


# ----------------------------------------------------------------
# A model trained in the app and exported with File ▸ Export tokenizer… as a tokviz model file is
# saved: it is remembered as that file and comes back after a restart (as Save model… does).


@pytest.mark.qt_log_ignore("This plugin does not support raise")
def test_exporting_a_trained_model_as_a_model_file_remembers_it(qtbot, make_window, tmp_path: Path) -> None:
    window = make_window(size=(1024, 768))
    model = train_bpe(text="the cat in the hat sat on the mat " * 20, vocab_size=270).tokenizer("bpe-270")
    key = window.tokenizers.add_tokenizer("bpe-270", model)
    dialog = exporter(window).open_model_dialog()
    dialog.refresh(key)
    qtbot.waitUntil(
        lambda: not {"still loading", "still checking"} & set(dialog.problems.values()), timeout=30000
    )
    out = tmp_path / "bpe270.json"

    with qtbot.waitSignal(dialog.exported, timeout=60000) as done:
        assert dialog.export_to("model", out) is not None

    assert done.args[0] == "" and out.exists()
    assert window.tokenizers.entry(key).source == str(out)
    assert [Path(item.path) for item in window.files.remembered.items()] == [out]

    again = make_window(size=(1024, 768))  # a new session reads the same settings
    assert str(out.resolve()) in " ".join(again.tokenizers.keys())
