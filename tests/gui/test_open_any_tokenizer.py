"""Opening any tokenizer a user has: the Open tokenizer dialog, what a loader assumed, replay notes,
and text a vocabulary has no token for, as the window shows them."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox

from tokviz.core.formats import export_tiktoken
from tokviz.core.training.train import train_bpe
from tokviz.gui.models.tokenizers import TokenizerRegistryModel
from tokviz.gui.panels.timeline.panel import TimelineWidget
from tokviz.gui.text.display import DisplayOptions, build_run, plain_text
from tokviz.gui.text.token_notes import token_notes_html
from tokviz.gui.text.token_table import TokenTable
from tokviz.gui.widgets import file_dialogs
from tokviz.gui.widgets.file_dialogs import (
    FROM_FILE,
    OpenTokenizerDialog,
    TokenizerRequest,
    parse_special_tokens,
)
from tokviz.gui.widgets.picker import TokenizerPicker


@pytest.fixture(scope="module")
def rank_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A .tiktoken rank file with no sidecar: it says nothing about its pattern or special tokens."""
    folder = tmp_path_factory.mktemp("rank")
    tok = train_bpe(text="the cat in the hat sat on the mat " * 20, vocab_size=270).tokenizer("tiny")
    path = export_tiktoken(tok, folder / "tiny.tiktoken")
    for other in folder.iterdir():
        if other != path:
            other.unlink()
    return path


def test_the_dialog_takes_a_path_a_pattern_and_special_tokens(qtbot, rank_file: Path) -> None:
    dialog = OpenTokenizerDialog()
    qtbot.addWidget(dialog)
    open_button = dialog.buttons.button(QDialogButtonBox.StandardButton.Open)
    assert not open_button.isEnabled()  # nothing chosen yet
    dialog.path.setText(str(rank_file))
    assert open_button.isEnabled() and dialog.chosen_pattern() is None
    assert dialog.pattern.currentText() == FROM_FILE
    dialog.pattern.setEditText("(")
    assert not open_button.isEnabled()
    qtbot.waitUntil(lambda: dialog.problem.text() != "")  # the regex is checked in a worker
    assert "regex" in dialog.problem.text() and not open_button.isEnabled()
    dialog.pattern.setCurrentText("cl100k")
    dialog.specials.setText('<|endoftext|> "<|a b|>" <|endoftext|>')
    assert open_button.isEnabled()
    assert dialog.request() == TokenizerRequest(str(rank_file), "cl100k", ("<|endoftext|>", "<|a b|>"))
    dialog.path.setText(str(rank_file.with_name("missing.tiktoken")))
    assert not open_button.isEnabled() and "does not exist" in dialog.problem.text()


def test_special_tokens_field() -> None:
    assert parse_special_tokens("") == ()
    assert parse_special_tokens("<s> </s>  <s>") == ("<s>", "</s>")
    assert parse_special_tokens('"<|im start|>" x') == ("<|im start|>", "x")
    assert parse_special_tokens('"unbalanced <s>') == ('"unbalanced', "<s>")


def test_a_guess_is_said_in_the_picker_and_the_hover_card(qtbot, rank_file: Path) -> None:
    registry = TokenizerRegistryModel()
    job = registry.open_file(rank_file)
    qtbot.waitUntil(lambda: job.property("key") is not None, timeout=20000)
    key = str(job.property("key"))
    tok = registry.tokenizer(key)
    assert tok is not None and "pre-tokenizer assumed: GPT-2" in tok.assumptions
    picker = TokenizerPicker(registry)
    qtbot.addWidget(picker)
    picker.show_key(key)
    assert "pre-tokenizer assumed: GPT-2" in picker.toolTip()
    assert "pre-tokenizer assumed: GPT-2" in registry.index(registry.row_of(key)).data(
        Qt.ItemDataRole.ToolTipRole
    )
    table = TokenTable.encode(tok, "the cat")
    assert "pre-tokenizer assumed: GPT-2" in token_notes_html(tok, table, 0)


def test_the_pattern_and_special_tokens_given_are_used(qtbot, rank_file: Path) -> None:
    registry = TokenizerRegistryModel()
    job = registry.open_file(rank_file, pattern="cl100k", special_tokens=["<|endoftext|>"])
    qtbot.waitUntil(lambda: job.property("key") is not None, timeout=20000)
    tok = registry.tokenizer(str(job.property("key")))
    assert tok is not None
    assert tok.pretokenizer.name == "cl100k" and "<|endoftext|>" in tok.special_tokens
    assert tok.assumptions == ()


def test_file_open_tokenizer_uses_the_dialog(qtbot, make_window, monkeypatch, rank_file: Path) -> None:
    window = make_window(text="the cat<|endoftext|>")
    request = TokenizerRequest(str(rank_file), "cl100k", ("<|endoftext|>",))
    monkeypatch.setattr(file_dialogs, "ask_tokenizer", lambda _parent: request)
    before = len(window.panels)
    window.files.choose_tokenizer_file(None)
    qtbot.waitUntil(lambda: len(window.panels) == before + 1, timeout=20000)
    panel = window.panels[-1]
    qtbot.waitUntil(lambda: panel.model.current and panel.view.table is panel.model.table, timeout=20000)
    tok = panel.model.tokenizer
    assert tok.special_tokens["<|endoftext|>"] in [int(i) for i in panel.view.table.ids]
    assert not panel.lesson.isVisible()  # pattern and special tokens given: nothing was guessed


def test_a_view_of_a_guessed_tokenizer_says_so_in_its_header(qtbot, make_window, rank_file: Path) -> None:
    window = make_window(text="the cat")
    job = window.files.open_tokenizer_file(str(rank_file))
    qtbot.waitUntil(lambda: len(window.panels) == 3, timeout=20000)
    panel = window.panels[-1]
    qtbot.waitUntil(lambda: panel.model.current and panel.view.table is panel.model.table, timeout=20000)
    assert job.property("key") == panel.model.key
    assert panel.lesson.isVisible() and "⚠ pre-tokenizer assumed: GPT-2" in panel.lesson.text()


def test_replay_note_replaces_the_replay(qtbot, rank_file: Path) -> None:
    registry = TokenizerRegistryModel()
    job = registry.open_file(rank_file)
    qtbot.waitUntil(lambda: job.property("key") is not None, timeout=20000)
    tok = registry.tokenizer(str(job.property("key")))
    tok.replay_note = "replay is not exact: the NFC normalizer changes the text before BPE"
    timeline = TimelineWidget(registry)
    qtbot.addWidget(timeline)
    timeline.set_text("the cat")
    timeline.set_tokenizer(tok)
    assert "NFC normalizer" in timeline.pane.message.text()
    assert timeline.trace is None  # no ids are drawn


def _missing_byte_file(tmp_path: Path) -> Path:
    """A byte-level tokenizer.json whose vocabulary lacks the byte C3 (as MPT's and Falcon's lack some)."""
    tokenizers = pytest.importorskip("tokenizers")
    import json

    from tokviz.core.pretok.bytes_ import bytes_to_unicode

    hf = tokenizers.Tokenizer(tokenizers.models.BPE())
    hf.pre_tokenizer = tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False)
    hf.decoder = tokenizers.decoders.ByteLevel()
    trainer = tokenizers.trainers.BpeTrainer(
        vocab_size=300, initial_alphabet=tokenizers.pre_tokenizers.ByteLevel.alphabet(), show_progress=False
    )
    hf.train_from_iterator(["The cat sat on the mat. café naïve"] * 20, trainer)
    doc = json.loads(hf.to_str())
    c3 = bytes_to_unicode()[0xC3]
    vocab = doc["model"]["vocab"]
    for token in [t for t in vocab if c3 in t]:
        del vocab[token]
    merges = doc["model"]["merges"]
    doc["model"]["merges"] = [m for m in merges if c3 not in (m if isinstance(m, str) else "".join(m))]
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def test_a_byte_with_no_token_is_shown_as_such(tmp_path: Path) -> None:
    from tokviz.core.formats.registry import load_tokenizer

    tok = load_tokenizer(_missing_byte_file(tmp_path))
    table = TokenTable.encode(tok, "café")
    last = len(table) - 1
    assert bool(table.partial[last])  # é lost its first byte: only A9 is left, shown as <A9>
    assert "no token for the byte C3" in token_notes_html(tok, table, last)
    run = build_run(table, 0, len(table), tok.vocab, DisplayOptions())
    assert plain_text(run.text).endswith("<A9>")


def test_text_no_token_covers_is_left_out_not_shifted() -> None:
    """A WordPiece model drops spaces: each box still holds its own token's text."""
    from tokviz.core.bpe.tokenizer import TokenSpan

    text = "ab  cd"
    spans = [TokenSpan(1, 0, 2, b"ab", False), TokenSpan(2, 4, 6, b"cd", False)]
    table = TokenTable.from_spans(text, spans)
    run = build_run(table, 0, 2, {1: b"ab", 2: b"cd"}, DisplayOptions())
    assert [run.text[a:b] for a, b in zip(run.box_start.tolist(), run.box_end.tolist())] == ["ab", "cd"]
