"""What a token view's document holds: one display string per token, with exact box offsets."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tokviz.core.pretok.bytes_ import printable_token
from tokviz.gui.text.display import DisplayOptions, build_run, plain_text, with_glyphs
from tokviz.gui.text.token_table import TokenTable

from ..strategies import hard_text

TEXTS = st.one_of(
    st.lists(st.sampled_from(list(" \n\tab🌍你.'1") + ["<|endoftext|>", " the", "\n\n"]), max_size=30).map(
        "".join
    ),
    hard_text(max_pieces=10, max_run=60, specials=["<|endoftext|>"]),
)


def expected_piece(table: TokenTable, tok, i: int, options: DisplayOptions) -> str:
    if options.show_ids:
        return str(int(table.ids[i]))
    if table.partial[i]:
        return printable_token(tok.vocab[int(table.ids[i])], whitespace=options.whitespace)
    piece = table.text[table.start[i] : table.end[i]]
    return with_glyphs(piece) if options.whitespace else piece


@pytest.mark.slow
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=TEXTS, show_ids=st.booleans(), whitespace=st.booleans())
@pytest.mark.parametrize("name", ["gpt2", "byte_tokenizer"])
def test_every_box_holds_exactly_its_tokens_display_text(name, request, text, show_ids, whitespace):
    tok = request.getfixturevalue(name)
    table = TokenTable.encode(tok, text)
    options = DisplayOptions(show_ids=show_ids, whitespace=whitespace)
    run = build_run(table, 0, len(table), tok.vocab, options)
    units = run.text.encode("utf-16-le")
    for i in range(len(table)):
        box = units[2 * run.box_start[i] : 2 * run.box_end[i]].decode("utf-16-le")
        assert plain_text(box) == plain_text(expected_piece(table, tok, i, options))
        after = units[2 * run.box_end[i] : 2 * (run.box_start[i + 1] if i + 1 < len(table) else run.length16)]
        assert plain_text(after.decode("utf-16-le")).strip(" ") in ("", "\n")  # separators belong to no box
    assert run.length16 == len(units) // 2


def test_partial_tokens_show_hex_bytes_never_replacement_characters(gpt2):
    table = TokenTable.encode(gpt2, "Hi 🌍")
    run = build_run(table, 0, len(table), gpt2.vocab, DisplayOptions())
    assert plain_text(run.text) == "Hi <F0 9F><8C><8D>"
    assert "\ufffd" not in run.text


def test_lines_break_only_between_tokens(gpt2):
    """A zero-width space follows each token; inside one, spaces do not break and joiners hold
    ideographs, emoji and punctuation together, so a token is never drawn on two lines."""
    table = TokenTable.encode(gpt2, "Hi 🌍! 你好")
    run = build_run(table, 0, len(table), gpt2.vocab, DisplayOptions())
    assert run.text.count("\u200b") == len(table)
    boxes = [run.text[a:b] for a, b in zip(run.box_start.tolist(), run.box_end.tolist())]
    assert " " not in "".join(boxes) and "\u200b" not in "".join(boxes)
    assert "\u00a0\u2060<\u2060F0\u00a09F\u2060>\u2060\u2007" in boxes  # " <F0 9F>", padded


def test_whitespace_glyphs_keep_line_breaks(gpt2):
    table = TokenTable.encode(gpt2, "a b\tc\nd")
    run = build_run(table, 0, len(table), gpt2.vocab, DisplayOptions(whitespace=True))
    assert plain_text(run.text) == "a·b→c↵\nd"


def test_id_mode_puts_a_line_break_after_tokens_with_a_newline(gpt2):
    text = "hello\nworld"
    table = TokenTable.encode(gpt2, text)
    run = build_run(table, 0, len(table), gpt2.vocab, DisplayOptions(show_ids=True))
    ids = gpt2.encode(text)
    assert run.text == f"{ids[0]} {ids[1]}\n{ids[2]} "
