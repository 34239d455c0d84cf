"""The pre-tokenizer view: chunks drawn on the text, the pattern shown, custom regexes checked as typed."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QAction

from tokviz.core.pretok.pretokenize import CL100K_PATTERN, GPT2_PUBLISHED_PATTERN, resolve_pretokenizer
from tokviz.gui import MainWindow
from tokviz.gui.models.tokenizers import TokenizerRegistryModel
from tokviz.gui.panels.pretokenizer import ChunkView, PretokView
from tokviz.gui.widgets.token_view import TokenView

from .reach import dock

TEXT = "the cat in the hat   sat\nI'm 12345 🌍🌍!"


@pytest.fixture
def view(qtbot, gpt2, cl100k):
    registry = TokenizerRegistryModel()
    registry.load_builtin_now("gpt2")
    registry.load_builtin_now("cl100k")
    v = PretokView(registry)
    qtbot.addWidget(v)
    v.resize(800, 500)
    v.show()
    v.set_text(TEXT)
    settle(qtbot, v)
    return v


def settle(qtbot, v: PretokView) -> None:
    """Wait for the chunks and tokens computed in the background."""
    qtbot.waitUntil(lambda: not v.computing, timeout=10000)


def chunks_shown(v: PretokView) -> list[str]:
    table = v.view.table
    return [TEXT[s:e] for s, e in zip(table.start.tolist(), table.end.tolist())]


def test_gpt2_chunks_are_drawn_as_boxes_with_the_pattern_shown(view):
    assert isinstance(view.view, ChunkView) and isinstance(view.view, TokenView)  # the token view's painter
    assert view.pattern.text() == GPT2_PUBLISHED_PATTERN and view.pattern.isReadOnly()
    assert view.pattern.cursorPosition() == 0  # read from its start
    assert view.pattern_note.isVisibleTo(view) and "same chunks" in view.pattern_note.text()
    assert chunks_shown(view) == resolve_pretokenizer("gpt2").split(TEXT)
    assert chunks_shown(view)[:4] == ["the", " cat", " in", " the"]
    assert len(view.view.visible_boxes()) >= len(chunks_shown(view))
    assert view.stats.text().startswith(f"{len(chunks_shown(view))} chunks")


def test_cl100k_cuts_numbers_into_threes(qtbot, view):
    view.set_pattern("cl100k")
    settle(qtbot, view)

    assert view.pattern.text() == CL100K_PATTERN and not view.pattern_note.isVisibleTo(view)
    assert "123" in chunks_shown(view) and "45" in chunks_shown(view)


def test_no_pre_tokenizer_leaves_one_chunk(qtbot, view):
    view.set_pattern("none")
    settle(qtbot, view)

    assert chunks_shown(view) == [TEXT]
    assert view.pattern.text().startswith("(no pattern") and view.pattern.isReadOnly()


def test_a_custom_regex_is_validated_as_it_is_typed(qtbot, view):
    assert view.set_pattern(r"\S+|\s+")
    settle(qtbot, view)
    assert not view.pattern.isReadOnly() and view.error_message is None
    assert chunks_shown(view)[:3] == ["the", " ", "cat"]

    before = chunks_shown(view)
    view.pattern.setText("(unclosed")
    view.pattern.textEdited.emit("(unclosed")
    qtbot.waitUntil(lambda: view.error_message is not None, timeout=3000)
    settle(qtbot, view)

    assert "invalid pre-tokenizer regex" in view.error_message
    assert view.pattern.property("invalid") is True
    assert chunks_shown(view) == before  # the last valid pattern stays in use


def test_text_a_custom_pattern_does_not_match_still_gets_chunks(qtbot, view):
    view.set_pattern("[a-z]+")
    settle(qtbot, view)

    assert "".join(chunks_shown(view)) == TEXT  # nothing is dropped


@pytest.mark.parametrize("kind", ["gpt2", "cl100k"])
def test_tokens_of_the_matching_tokenizer_never_cross_a_chunk_boundary(qtbot, view, varied_text, kind):
    view.set_pattern(kind)
    view.set_text(varied_text)
    settle(qtbot, view)

    assert view.tokens_view.show_chunks and view.tokens_view.table is not None
    assert "0 cross a boundary" in view.tokens_label.text()


def test_tokens_of_another_tokenizer_that_cross_a_chunk_boundary_are_counted(
    qtbot, view, monkeypatch, cl100k
):
    # cl100k's tokens drawn on GPT-2's chunks: cl100k keeps "):\n" and ".x" whole, GPT-2's pattern
    # cuts them ("):" | "\n   ", "." | "x"), so exactly these two tokens cross a boundary.
    text = "if (x):\n    return self.x\n\n"
    registry = view.registry
    real = registry.tokenizer
    monkeypatch.setattr(registry, "tokenizer", lambda key: cl100k if key == "gpt2" else real(key))
    view.set_pattern("gpt2")
    view.set_text(text)
    settle(qtbot, view)

    table = view.tokens_view.table
    assert [text[s:e] for s, e in zip(table.start.tolist(), table.end.tolist())] == [
        "if",
        " (",
        "x",
        "):\n",
        "   ",
        " return",
        " self",
        ".x",
        "\n\n",
    ]
    assert resolve_pretokenizer("gpt2").split(text) == [
        "if",
        " (",
        "x",
        "):",
        "\n   ",
        " return",
        " self",
        ".",
        "x",
        "\n\n",
    ]
    assert "2 cross a boundary" in view.tokens_label.text()
    assert "0 cross a boundary" not in view.tokens_label.text()


def test_tokens_are_explained_not_shown_for_a_custom_pattern(qtbot, view):
    view.set_pattern(r"\w+|\W+")
    settle(qtbot, view)

    assert view.tokens_view.table is None
    assert "GPT-2 and cl100k" in view.tokens_label.text()


def test_the_window_dock_follows_the_editor(qtbot):
    window = MainWindow()
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(window.is_ready, timeout=20000)
    action = window.findChild(QAction, "actionPretokDock")
    assert action is not None and action.shortcut().toString() == "Ctrl+Shift+H"

    action.trigger()
    window.set_text(TEXT)
    view = dock(window, "pretokDock").widget()
    qtbot.waitUntil(lambda: view.text == TEXT, timeout=5000)
    settle(qtbot, view)

    assert chunks_shown(view) == resolve_pretokenizer("gpt2").split(TEXT)
    assert view.view.colors is window.appearance.colors
    window.close()


def test_a_special_token_is_its_own_chunk_cut_out_before_the_pattern_as_the_tokenizer_does(qtbot, view):
    text = "The end.<|endoftext|>A new document"
    view.set_text(text)
    settle(qtbot, view)
    table = view.view.table
    chunks = [text[s:e] for s, e in zip(table.start.tolist(), table.end.tolist())]
    assert chunks == ["The", " end", ".", "<|endoftext|>", "A", " new", " document"]
    assert "0 cross a boundary" in view.tokens_label.text()
