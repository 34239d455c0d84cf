"""A tokenizer file that fails to load is named once in the error dialog, not ``ver_0.json: ver_0.json: ...``."""

from __future__ import annotations

import json
from pathlib import Path

from pytestqt.qtbot import QtBot

from tokviz.gui.window.files import naming_the_file_once
from tokviz.gui.window.main_window import MainWindow

from .reach import error_text


def test_a_message_that_names_the_file_is_shown_as_it_is() -> None:
    assert (
        naming_the_file_once("/data/ver_0.json", "ver_0.json: unknown version 0")
        == "ver_0.json: unknown version 0"
    )
    assert (
        naming_the_file_once("/data/ver_0.json", "/data/ver_0.json: not JSON") == "/data/ver_0.json: not JSON"
    )


def test_a_message_that_does_not_name_the_file_gets_its_name_in_front() -> None:
    assert naming_the_file_once("/data/model.json", "unknown version 0") == "model.json: unknown version 0"


def test_the_error_dialog_names_a_bad_model_file_once(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    bad = tmp_path / "ver_0.json"
    bad.write_text(json.dumps({"format": "tokviz-model", "version": 0}), encoding="utf-8")
    with qtbot.waitSignal(window.tokenizers.loadFailed, timeout=20_000):
        window.files.open_tokenizer_file(str(bad))
    qtbot.waitUntil(lambda: error_text(window) is not None)
    message = error_text(window)
    assert message is not None and message.count("ver_0.json") == 1, message
