"""File ▸ Export tokenizer… to tokenizer.json or vocab.json + merges.txt asks for a folder even when
the last folder remembered lies outside the home folder (it once crashed on a ``Path``)."""

from __future__ import annotations

from pathlib import Path

from tokviz.gui.widgets import file_dialogs


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
