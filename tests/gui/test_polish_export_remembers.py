"""A model trained in the app and exported with File ▸ Export tokenizer… as a tokviz model file is
saved: it is remembered as that file and comes back after a restart (as Save model… does)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tokviz.core.train import train_bpe

pytestmark = pytest.mark.qt_log_ignore("This plugin does not support raise")


def test_exporting_a_trained_model_as_a_model_file_remembers_it(qtbot, make_window, tmp_path: Path) -> None:
    window = make_window(size=(1024, 768))
    model = train_bpe(text="the cat in the hat sat on the mat " * 20, vocab_size=270).tokenizer("bpe-270")
    key = window.tokenizers.add_tokenizer("bpe-270", model)
    dialog = window.exporter.open_model_dialog()
    dialog.refresh(key)
    qtbot.waitUntil(
        lambda: not {"still loading", "still checking"} & set(dialog.problems.values()), timeout=30000
    )
    out = tmp_path / "bpe270.json"

    with qtbot.waitSignal(dialog.exported, timeout=60000) as done:
        assert dialog.export_to("model", out) is not None

    assert done.args[0] == "" and out.exists()
    assert window.tokenizers.entry(key).source == str(out)
    assert [Path(item.path) for item in window.remembered.items()] == [out]

    again = make_window(size=(1024, 768))  # a new session reads the same settings
    assert str(out.resolve()) in " ".join(again.tokenizers.keys())
