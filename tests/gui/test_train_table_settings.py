"""A count table as the Train panel's corpus shows the settings it was counted with, locked.

Training from a table uses the table's special tokens and pre-tokenizer whatever the form says, so
the form shows those, disabled, with a tooltip saying so; the vocabulary hint counts the table's
special tokens (the run makes exactly the merges it promises) and the default name follows the
table's pre-tokenizer. The user's own settings come back when the corpus is text or files again.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from tokviz.core.training.counts import count_corpus, save_table
from tokviz.gui.models.tokenizers import TokenizerRegistryModel
from tokviz.gui.panels.training.corpus import SOURCE_EDITOR
from tokviz.gui.panels.training.panel import TrainPanel

TABLE_SPECIALS = ["<|endoftext|>", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>"]
USER_SPECIALS = "<|user|>"


@pytest.fixture
def panel(qtbot):
    panel = TrainPanel(TokenizerRegistryModel(), lambda: "editor text", lambda _t: None)
    qtbot.addWidget(panel)
    panel.show()
    yield panel
    panel.shutdown()


@pytest.fixture
def table(tmp_path: Path, english_text: str) -> Path:
    """A table counted with four special tokens and cl100k's pre-tokenizer, through the core API."""
    corpus = tmp_path / "corpus.txt"
    prose = english_text[:60_000]
    docs = [prose[i : i + 3000] for i in range(0, len(prose), 3000)]
    corpus.write_text("".join(d + TABLE_SPECIALS[i % 4] for i, d in enumerate(docs)), encoding="utf-8")
    path = tmp_path / "counts.parquet"
    save_table(count_corpus(files=[corpus], special_tokens=TABLE_SPECIALS, pretokenizer="cl100k"), path)
    return path


def show_table(qtbot, panel: TrainPanel, table: Path) -> None:
    panel.specials.setText(USER_SPECIALS)
    panel.set_pretokenizer("gpt2")
    panel.vocab_size.setValue(1000)
    panel.add_paths([str(table)])
    qtbot.waitUntil(lambda: "Count table" in panel.corpus_info.text(), timeout=10000)


def hint_numbers(panel: TrainPanel) -> tuple[int, int]:
    """(special tokens, merges) as the hint under the vocabulary size says them."""
    m = re.fullmatch(r"= 256 bytes \+ (\d+) special \+ at most ([\d,]+) merges", panel.vocab_hint.text())
    assert m is not None, panel.vocab_hint.text()
    return int(m.group(1)), int(m.group(2).replace(",", ""))


def test_a_tables_settings_are_shown_locked_and_trained_with(qtbot, panel, table):
    show_table(qtbot, panel, table)
    assert panel.specials.text() == ", ".join(TABLE_SPECIALS)
    assert panel.pretokenizer.currentData() == "cl100k"
    for field in (panel.specials, panel.pretokenizer):
        assert not field.isEnabled()
        assert "count table" in field.toolTip()
    assert hint_numbers(panel) == (4, 1000 - 256 - 4)
    assert panel.settings().name == f"bpe-1000 {table.name} (cl100k)"

    with qtbot.waitSignal(panel.run.finished, timeout=60000) as finished:
        qtbot.mouseClick(panel.train_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not panel.running, timeout=60000)
    outcome = finished.args[0]
    assert len(outcome.result.merges) == hint_numbers(panel)[1]
    assert list(outcome.tokenizer.special_tokens) == TABLE_SPECIALS
    assert outcome.settings.name == f"bpe-1000 {table.name} (cl100k)"
    assert not panel.specials.isEnabled() and not panel.pretokenizer.isEnabled()  # still the table's


def test_the_users_settings_come_back_when_the_corpus_is_files_or_text_again(qtbot, panel, table, tmp_path):
    tip = panel.specials.toolTip()
    show_table(qtbot, panel, table)
    panel.clear_files()
    text = tmp_path / "plain.txt"
    text.write_text("plain text to train on\n" * 20, encoding="utf-8")
    panel.add_paths([str(text)])
    qtbot.waitUntil(lambda: "1 file" in panel.corpus_info.text(), timeout=10000)
    assert panel.specials.text() == USER_SPECIALS and panel.specials.isEnabled()
    assert panel.pretokenizer.currentData() == "gpt2" and panel.pretokenizer.isEnabled()
    assert panel.specials.toolTip() == tip
    assert hint_numbers(panel) == (1, 1000 - 256 - 1)
    assert panel.settings().name == "bpe-1000 plain.txt (gpt2)"

    panel.clear_files()
    show_table(qtbot, panel, table)
    panel.set_source_kind(SOURCE_EDITOR)
    qtbot.waitUntil(lambda: panel.specials.isEnabled(), timeout=10000)
    assert panel.specials.text() == USER_SPECIALS and panel.pretokenizer.currentData() == "gpt2"


def test_the_tables_settings_are_never_remembered_as_the_users(qtbot, panel, table):
    from tokviz.gui.panels.training.memory import follow_train_settings
    from tokviz.gui.settings import TRAIN_PRETOKENIZER, TRAIN_SPECIAL_TOKENS, Settings

    settings = Settings()
    follow_train_settings(panel, settings)
    show_table(qtbot, panel, table)
    panel.vocab_size.setValue(900)  # any change while the table is shown saves the settings
    assert settings.get(TRAIN_SPECIAL_TOKENS) == USER_SPECIALS
    assert settings.get(TRAIN_PRETOKENIZER) == "gpt2"
