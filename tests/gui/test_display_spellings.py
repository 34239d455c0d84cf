"""Tokens spelled as hex bytes, as U+ code points, or as text with each token's id beside it."""

from __future__ import annotations

from tokviz.core.bpe.lecture_tokenizers import CharacterTokenizer
from tokviz.gui.text.display import DisplayOptions, build_run, plain_text, visible_characters
from tokviz.gui.text.token_table import TokenTable
from tokviz.gui.widgets.token_panel import lesson_stats

from .reach import action


def boxes(tok, text: str, options: DisplayOptions) -> list[str]:
    table = TokenTable.encode(tok, text)
    run = build_run(table, 0, len(table), tok.vocab, options)
    units = run.text.encode("utf-16-le", "surrogatepass")
    return [
        plain_text(units[2 * a : 2 * b].decode("utf-16-le", "surrogatepass"))
        for a, b in zip(run.box_start.tolist(), run.box_end.tolist())
    ]


def test_the_bytes_view_spells_the_utf8_bytes_in_hex(byte_tokenizer):
    shown = boxes(byte_tokenizer, "Hi 🌍", DisplayOptions(spelling="hex"))
    assert " ".join(shown) == "48 69 20 F0 9F 8C 8D"


def test_any_view_can_spell_its_tokens_bytes_in_hex(gpt2):
    assert boxes(gpt2, "Hi 🌍", DisplayOptions(spelling="hex")) == ["48 69", "20 F0 9F", "8C", "8D"]


def test_the_characters_view_spells_code_points_as_u_plus():
    shown = boxes(CharacterTokenizer(), "Hi 🌍👍🏽", DisplayOptions(spelling="code points"))
    assert shown == ["U+0048", "U+0069", "U+0020", "U+1F30D", "U+1F44D", "U+1F3FD"]


def test_a_token_of_several_code_points_lists_each(cl100k, gpt2):
    assert boxes(cl100k, "Hi", DisplayOptions(spelling="code points")) == ["U+0048 U+0069"]
    # Part of a character has no code point of its own: it keeps its bytes.
    assert boxes(gpt2, " 🌍", DisplayOptions(spelling="code points"))[1:] == ["<8C>", "<8D>"]


def test_a_thumb_with_a_skin_tone_is_two_code_points_and_one_visible_character():
    assert visible_characters("👍🏽") == 1 and len("👍🏽") == 2
    assert visible_characters("Hi 🌍👍🏽 e\u0301") == 7
    assert visible_characters("👨‍👩‍👧 🇫🇷") == 3


def test_text_and_ids_together(gpt2):
    hello, world = gpt2.encode("Hello world")
    assert (hello, world) == (15496, 995)
    assert boxes(gpt2, "Hello world", DisplayOptions(with_ids=True)) == ["Hello₁₅₄₉₆", " world₉₉₅"]


def test_the_window_spells_tokens_as_asked_remembers_it_and_keeps_it_when_presenting(make_window):
    window = make_window(text="Hi 🌍")
    action(window, "actionShowIdsWithText").trigger()
    action(window, "actionSpell_hex").trigger()
    wanted = DisplayOptions(with_ids=True, spelling="hex")
    view = window.panels[0].view
    assert view.options == wanted
    assert plain_text(view.document().toPlainText()).startswith("48 69₁₇₂₅₀")
    window.presentation.action.trigger()
    assert all(p.view.options == wanted for p in window.panels)
    window.presentation.action.trigger()
    window.save_settings()
    again = make_window()
    assert again.panels[0].view.options == wanted
    assert action(again, "actionSpell_hex").isChecked()


def test_the_characters_views_header_counts_visible_characters():
    tok = CharacterTokenizer()
    table = TokenTable.encode(tok, "👍🏽")
    assert len(table) == 2
    assert lesson_stats(tok, table).startswith("1 visible character · ids of 1,114,112")
