"""Every file dialog starts in the folder of the last file opened or saved, across dialogs."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QFileDialog

from tokviz.gui.widgets import file_dialogs


def test_a_dialog_starts_where_the_last_one_ended(monkeypatch, tmp_path):
    asked: list[str] = []
    saved = tmp_path / "slides" / "model.tokviz.json"
    saved.parent.mkdir()
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a: (asked.append(a[2]) or str(saved), ""))
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a: (asked.append(a[2]) or "", ""))

    file_dialogs.get_save_file_name(None, "Save model", str(Path.home() / "model.tokviz.json"))
    file_dialogs.get_open_file_name(None, "Open tokenizer", str(Path.home()))

    assert asked[0] == str(Path.home() / "model.tokviz.json"), "the first dialog starts at home"
    assert asked[1] == str(saved.parent), "the next one starts where the model was saved"
    assert file_dialogs.last_folder() == saved.parent


def test_a_default_name_keeps_its_name_in_the_last_folder(tmp_path):
    file_dialogs.remember_folder(tmp_path)
    assert file_dialogs.start_path(str(Path.home() / "tokenizer.json")) == str(tmp_path / "tokenizer.json")
    assert file_dialogs.start_path(str(tmp_path / "elsewhere" / "x.png")) == str(
        tmp_path / "elsewhere" / "x.png"
    )


def test_a_folder_that_is_gone_falls_back_to_home(tmp_path):
    file_dialogs.remember_folder(tmp_path / "deleted")
    assert file_dialogs.last_folder() == Path.home()


def test_a_save_dialog_starts_where_the_last_file_was_saved_not_in_a_read_only_corpus_folder(
    monkeypatch, tmp_path
):
    corpus = tmp_path / "usr-lib-json"  # as /usr/lib/python3.11/json, which a user cannot write to
    slides = tmp_path / "slides"
    corpus.mkdir()
    slides.mkdir()
    monkeypatch.setattr(file_dialogs.os, "access", lambda path, mode: Path(path) != corpus)
    default = str(Path.home() / "bpe-2000.tokviz.json")

    file_dialogs.remember_folder(corpus)  # Add folder… in the Train panel
    assert file_dialogs.start_path(default, saving=True) == default, "not into the corpus folder"
    assert file_dialogs.start_path(str(Path.home())) == str(corpus), "opening still starts there"

    file_dialogs.remember_folder(slides, saved=True)  # a model saved with the slides
    file_dialogs.remember_folder(corpus)  # then another corpus opened
    assert file_dialogs.start_path(default, saving=True) == str(slides / "bpe-2000.tokviz.json")


# ----------------------------------------------------------------
# File ▸ Export tokenizer… to tokenizer.json or vocab.json + merges.txt asks for a folder even when
# the last folder remembered lies outside the home folder (it once crashed on a ``Path``).


def test_a_remembered_folder_outside_home_starts_a_folder_dialog(qtbot, monkeypatch, tmp_path: Path) -> None:
    outside = tmp_path / "corpus"
    outside.mkdir()
    file_dialogs.remember_folder(str(outside))
    asked: list[object] = []

    def fake_dialog(_parent, _caption, directory):
        asked.append(directory)
        return ""

    monkeypatch.setattr(file_dialogs.QFileDialog, "getExistingDirectory", fake_dialog)
    for start in (file_dialogs.last_folder(), str(outside), outside / "x.json"):
        file_dialogs.get_existing_directory(None, "Export tokenizer.json into", start)

    assert all(isinstance(a, str) for a in asked)
    assert asked[:2] == [str(outside), str(outside)]
    assert file_dialogs.start_path(Path.home()) == str(file_dialogs.last_folder())
