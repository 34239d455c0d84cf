"""The Train panel with folder corpora, stale messages, and what it and the chart remember.

Add folder shows how many files are used and how many were skipped as binary; the preview shows
only text; a message about a corpus the user no longer has is cleared; the panel's settings and
the chart's added files come back in the next window.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from tokviz.gui.models.tokenizers import TokenizerRegistryModel
from tokviz.gui.panels.training.panel import SOURCE_EDITOR, SOURCE_FILES, SOURCE_PYDOC, TrainPanel

from ..core.test_corpus_folders import PLAIN, make_folder
from .reach import dock, docked


@pytest.fixture
def panel(qtbot):
    text = ["some editor text"]
    panel = TrainPanel(TokenizerRegistryModel(), lambda: text[0], lambda t: text.__setitem__(0, t))
    qtbot.addWidget(panel)
    panel.show()
    yield panel
    panel.shutdown()


def test_add_folder_shows_files_used_and_binaries_skipped_and_a_text_preview(qtbot, panel, tmp_path):
    folder = make_folder(tmp_path / "corpus")
    (folder / "0-first.bin").write_bytes(b"\x00\x01binary first\xff" * 50)  # sorts first
    panel.add_paths([str(folder)])
    qtbot.waitUntil(lambda: "5 files" in panel.corpus_info.text(), timeout=10000)
    info = panel.corpus_info.text()
    assert "(3 compressed)" in info
    assert "skipped 4 binary files" in info and ".pyc" in info
    preview = panel.preview.toPlainText()
    assert preview.startswith(PLAIN[:40])
    assert "\x00" not in preview and "\ufffd" not in preview and "binary first" not in preview


def test_the_preview_stops_before_invalid_utf8(qtbot, panel, tmp_path):
    path = tmp_path / "mixed.txt"
    path.write_bytes(b"clean start of the text\n" + "caf\xe9".encode("latin-1") + b" more")
    panel.add_paths([str(path)])
    qtbot.waitUntil(lambda: "1 file" in panel.corpus_info.text(), timeout=10000)
    assert panel.preview.toPlainText().rstrip("\n") == "clean start of the text\ncaf"


def test_replace_invalid_counts_the_folder_again(qtbot, panel, tmp_path):
    (tmp_path / "a.txt").write_text(PLAIN, encoding="utf-8")
    (tmp_path / "old.txt").write_bytes("café crème\n".encode("latin-1") * 20)
    panel.add_paths([str(tmp_path)])
    qtbot.waitUntil(lambda: "1 file ·" in panel.corpus_info.text(), timeout=10000)
    assert "1 file not in UTF-8" in panel.corpus_info.text()
    panel.replace_invalid.setChecked(True)
    qtbot.waitUntil(lambda: "2 files" in panel.corpus_info.text(), timeout=10000)
    assert "skipped" not in panel.corpus_info.text()


def test_the_add_files_hint_goes_away_when_the_source_changes(qtbot, panel):
    panel.set_source_kind(SOURCE_FILES)
    qtbot.mouseClick(panel.train_button, Qt.MouseButton.LeftButton)
    assert panel.error.isVisible() and "Add files" in panel.error.text()
    panel.set_source_kind(SOURCE_PYDOC)
    assert not panel.error.isVisible() and panel.error.text() == ""


def test_a_utf8_error_goes_away_when_the_corpus_is_cleared(qtbot, panel, tmp_path):
    bad = tmp_path / "latin1.txt"
    bad.write_bytes("café au lait\n".encode("latin-1"))
    panel.add_paths([str(bad)])
    with qtbot.waitSignal(panel.run.failed, timeout=30000):
        qtbot.mouseClick(panel.train_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not panel.running)
    assert panel.error.isVisible() and "UTF-8" in panel.error.text()
    assert panel.status.text()
    qtbot.mouseClick(panel.clear_files_button, Qt.MouseButton.LeftButton)
    assert not panel.error.isVisible()
    assert panel.status.text() == ""


def test_train_settings_and_chart_files_survive_a_new_window(qtbot, make_window, tmp_path):
    from tokviz.gui import MainWindow

    keep = tmp_path / "keep"
    keep.mkdir()
    (keep / "a.txt").write_text(PLAIN, encoding="utf-8")
    gone = tmp_path / "gone.txt"
    gone.write_text(PLAIN, encoding="utf-8")
    chart_keep = tmp_path / "chart_keep.txt"
    chart_keep.write_text("a text for the chart\n", encoding="utf-8")
    chart_gone = tmp_path / "chart_gone.txt"
    chart_gone.write_text("soon deleted\n", encoding="utf-8")

    first = make_window()
    panel = docked(first, "trainDock", TrainPanel)
    panel.add_paths([str(keep), str(gone)])
    panel.vocab_size.setValue(4321)
    panel.specials.setText("<|a|>, <|b|>")
    panel.set_pretokenizer(r"\s?\w+|\s+")
    panel.set_tie_rule("first-seen")
    panel.replace_invalid.setChecked(True)
    panel.set_source_kind(SOURCE_EDITOR)
    chart = dock(first, "exchangeChartDock").widget()
    chart.add_file(chart_keep)
    chart.add_file(chart_gone)
    first.close()
    gone.unlink()
    chart_gone.unlink()

    second = make_window()
    assert isinstance(second, MainWindow) and second is not first
    again = docked(second, "trainDock", TrainPanel)
    assert again.corpus_paths() == [str(keep)]
    assert again.vocab_size.value() == 4321
    assert again.specials.text() == "<|a|>, <|b|>"
    assert again.pretokenizer.currentData() == "custom"
    assert again.pretokenizer_spec() == r"\s?\w+|\s+"
    assert again.tie_rule.currentData() == "first-seen"
    assert again.replace_invalid.isChecked()
    assert again.source_kind() == SOURCE_EDITOR
    again_chart = dock(second, "exchangeChartDock").widget()
    assert again_chart.added_paths() == [str(chart_keep.absolute())]
    assert [i.label for i in again_chart.inputs() if i.kind == "file"] == ["chart_keep.txt"]


def test_a_fresh_profile_keeps_the_panels_defaults(make_window):
    window = make_window()
    panel = docked(window, "trainDock", TrainPanel)
    assert panel.corpus_paths() == []
    assert panel.vocab_size.value() == 1000
    assert panel.specials.text() == "<|endoftext|>"
    assert panel.pretokenizer.currentData() == "gpt2"
    assert panel.tie_rule.currentData() == "lexicographic"
    assert not panel.replace_invalid.isChecked()
    assert dock(window, "exchangeChartDock").widget().added_paths() == []


def test_a_damaged_settings_value_falls_back_to_the_default(make_window):
    from tokviz.gui.settings import TRAIN_PRETOKENIZER, TRAIN_VOCAB_SIZE, Settings

    store = Settings()
    store.store.setValue(TRAIN_VOCAB_SIZE.name, "not a number")
    store.set(TRAIN_PRETOKENIZER, "no-such-pretokenizer")
    store.sync()
    panel = docked(make_window(), "trainDock", TrainPanel)
    assert panel.vocab_size.value() == 1000
    assert panel.pretokenizer.currentData() == "gpt2"


def test_the_lecture_demo_does_not_replace_the_remembered_settings(qtbot, make_window):
    first = make_window()
    panel = docked(first, "trainDock", TrainPanel)
    panel.vocab_size.setValue(5000)
    panel.set_source_kind(SOURCE_PYDOC)
    with qtbot.waitSignal(panel.run.finished, timeout=30000):
        panel.run_demo("none")
    qtbot.waitUntil(lambda: not panel.running, timeout=10000)
    assert panel.vocab_size.value() == 259
    first.close()
    again = docked(make_window(), "trainDock", TrainPanel)
    assert again.vocab_size.value() == 5000
    assert again.source_kind() == SOURCE_PYDOC
    assert again.tie_rule.currentData() == "lexicographic"


def test_a_restored_corpus_shows_its_size_and_preview_when_the_panel_is_seen(qtbot, tmp_path) -> None:
    from PySide6.QtWidgets import QDockWidget

    from tokviz.gui.window.main_window import MainWindow

    corpus = tmp_path / "notes.txt"
    corpus.write_text("the cat in the hat sat on the mat\\n" * 50, encoding="utf-8")
    first = MainWindow()
    qtbot.addWidget(first)
    docked(first, "trainDock", TrainPanel).add_paths([str(corpus)])
    first.save_settings()
    first.close()

    window = MainWindow()
    qtbot.addWidget(window)
    window.show()
    panel = docked(window, "trainDock", TrainPanel)
    assert panel.corpus_paths() == [str(corpus)]
    window.findChild(QDockWidget, "trainDock").show()
    window.findChild(QDockWidget, "trainDock").raise_()
    qtbot.waitUntil(lambda: "1 file" in panel.corpus_info.text(), timeout=20000)
    assert panel.preview.toPlainText().startswith("the cat in the hat")
    window.close()
