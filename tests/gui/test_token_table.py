"""The incremental token table: after any edit it equals a fresh encode of the whole text."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tokviz.gui.text.token_table import (
    TokenTable,
    common_prefix_length,
    common_suffix_length,
    plan_edit,
    update_table,
)
from tokviz.gui.text.utf16 import utf16_len

from ..strategies import hard_text
from ..texts import CAT

BASE = "Hello, 🌍! 你好! The cat  in the hat.\n\n    def f(x):\n\treturn x + 12345 <|endoftext|> end"
ALPHABET = st.sampled_from(list(" \n\taAbé🌍你'.,0123<|>e") + ["<|endoftext|>", "  ", "ll", " the"])


def assert_same(a: TokenTable, b: TokenTable) -> None:
    for name in ("ids", "start", "end", "start16", "end16", "partial", "special", "chunk"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)


@pytest.mark.parametrize("name", ["gpt2", "cl100k", "byte_tokenizer", "tiny_bpe"])
def test_typing_a_character_re_encodes_only_a_small_window(name, request):
    tok = request.getfixturevalue(name)
    text = BASE * 50
    table = TokenTable.encode(tok, text)
    new_text = text[:1000] + "x" + text[1000:]
    plan = plan_edit(tok, table, new_text)
    assert not plan.full
    assert plan.size < 40
    update = update_table(tok, table, new_text)
    assert_same(update.table, TokenTable.encode(tok, new_text))


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
@pytest.mark.parametrize("name", ["gpt2", "cl100k", "byte_tokenizer", "tiny_bpe"])
def test_any_edit_gives_the_same_tokens_as_a_fresh_encode(name, request, data):
    tok = request.getfixturevalue(name)
    text = (
        data.draw(
            st.one_of(st.lists(ALPHABET, max_size=40).map("".join), hard_text(max_pieces=8, max_run=80))
        )
        or BASE
    )
    table = TokenTable.encode(tok, text)
    for _ in range(3):
        lo = data.draw(st.integers(0, len(text)))
        hi = data.draw(st.integers(lo, len(text)))
        insert = data.draw(st.lists(ALPHABET, max_size=6).map("".join))
        text = text[:lo] + insert + text[hi:]
        update = update_table(tok, table, text)
        fresh = TokenTable.encode(tok, text)
        assert_same(update.table, fresh)
        # The update says exactly which tokens changed.
        assert update.new_stop - update.first == len(fresh) - len(table) + (update.old_stop - update.first)
        table = update.table


CJK = st.sampled_from(list("我住的城市。，！\n a1🌍") + ["\n\n", "。\n"])


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
@pytest.mark.parametrize("name", ["gpt2", "cl100k"])
def test_edits_in_text_without_spaces_cut_at_line_breaks_exactly(name, request, data):
    tok = request.getfixturevalue(name)
    text = data.draw(st.lists(CJK, min_size=1, max_size=60).map("".join))
    table = TokenTable.encode(tok, text)
    lo = data.draw(st.integers(0, len(text)))
    hi = data.draw(st.integers(lo, min(len(text), lo + 3)))
    new_text = text[:lo] + data.draw(st.lists(CJK, max_size=3).map("".join)) + text[hi:]
    assert_same(update_table(tok, table, new_text).table, TokenTable.encode(tok, new_text))


def test_a_chinese_paragraph_is_re_encoded_alone(cl100k):
    text = "\n".join(["我住的城市建在山上，街道一层叠着一层。"] * 50)
    table = TokenTable.encode(cl100k, text)
    new_text = text[:500] + "雨" + text[500:]
    plan = plan_edit(cl100k, table, new_text)
    assert not plan.full and plan.size < 60


def test_utf16_offsets_count_emoji_twice(gpt2):
    table = TokenTable.encode(gpt2, "🌍 cat")
    last = len(table) - 1
    assert table.start[last] == 1 and table.start16[last] == 2
    assert table.end16[-1] == utf16_len("🌍 cat")


def test_tokens_overlapping_a_selection(gpt2):
    table = TokenTable.encode(gpt2, CAT)
    first, stop = table.tokens_overlapping(5, 9)  # "at i"
    assert [gpt2.decode([int(i)]) for i in table.ids[first:stop]] == [" cat", " in"]
    assert table.tokens_overlapping(0, 0) == (0, 1)


def test_common_prefix_and_suffix():
    assert common_prefix_length("abcdef", "abXdef") == 2
    assert common_suffix_length("abcdef", "abXdef", 4) == 3
    assert common_prefix_length("abc", "abc") == 3
