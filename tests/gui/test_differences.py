"""Difference marks: a token is marked unless the reference view has a token with exactly its span."""

from __future__ import annotations

import numpy as np
import pytest

from tokviz.gui.text.token_table import TokenTable, differs_from


def test_a_token_the_reference_cuts_in_two_is_marked(gpt2, byte_tokenizer):
    """GPT-2's " brown" is one token; a byte-level reference has " ", "b", "r"…: both of
    " brown"'s ends are reference boundaries, yet the reference has no " brown"."""
    text = "The quick brown fox"
    words = TokenTable.encode(gpt2, text)
    reference = TokenTable.encode(byte_tokenizer, text)
    marked = differs_from(words, reference, 0, len(words))
    assert marked.tolist() == [True, True, True, True]


def test_tokens_both_tokenizers_share_are_not_marked(gpt2, cl100k):
    text = "The quick brown fox 🌍"
    a, b = TokenTable.encode(gpt2, text), TokenTable.encode(cl100k, text)
    marked = differs_from(a, b, 0, len(a))
    shown = [text[s:e] for s, e in zip(a.start.tolist(), a.end.tolist())]
    assert dict(zip(shown, marked.tolist()))["The"] is False
    assert not np.any(differs_from(a, a, 0, len(a)))


def test_byte_pieces_of_one_character_differ_when_cut_differently(gpt2, byte_tokenizer):
    text = "🌍"
    pieces = TokenTable.encode(gpt2, text)  # <F0 9F><8C><8D>
    single_bytes = TokenTable.encode(byte_tokenizer, text)  # <F0><9F><8C><8D>
    assert differs_from(pieces, single_bytes, 0, len(pieces)).all()
    assert not differs_from(pieces, pieces, 0, len(pieces)).any()


@pytest.mark.parametrize("presenting", [False, True])
def test_the_marks_are_explained_beside_the_views_even_when_presenting(make_window, qtbot, presenting):
    window = make_window(text="Hello, 🌍! 你好! The quick brown fox", size=(1024, 768))
    if presenting:
        window.presentation.action.trigger()
    legend = window.views_legend
    qtbot.waitUntil(lambda: legend.isVisible() and legend.all_shown())
    words = [w for _, w in legend.entries()]
    assert words[0] == "cut differently from view 1 (GPT-2)"
    assert "part of a UTF-8 character, as bytes" in words

    def above_the_views() -> bool:
        top_of_views = window.views_splitter.mapTo(window, window.views_splitter.rect().topLeft()).y()
        return legend.mapTo(window, legend.rect().bottomLeft()).y() <= top_of_views

    qtbot.waitUntil(above_the_views)
    assert legend.width() >= window.views_splitter.width() - 2
