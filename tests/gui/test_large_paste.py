"""A big paste shows its first piece at once and the rest as it comes; the end result is exact.

The tables built piece by piece (and straight from ids with numpy) must equal a fresh
``TokenTable.encode`` of the whole text, array for array: texts straddle the cuts with multi-byte
characters, emoji split across tokens, special tokens and runs of whitespace.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tokviz.gui.models import progressive
from tokviz.gui.text.display import build_run, plain_text
from tokviz.gui.text.token_table import TokenTable
from tokviz.gui.workers.fast_table import encode_range, next_chunk, piece_cuts

FIELDS = ("ids", "start", "end", "start16", "end16", "partial", "special", "chunk")
HARD = "Héllo wörld 🌍🤖 <|endoftext|> 中文没有空格的句子。\n\n  def f(x):\n\treturn x  \n👩‍💻 ok "
WORDS = st.sampled_from(
    ["the", " cat", "é", "🌍", "中文", "<|endoftext|>", "  ", "\n", "\t", "x1", "!?", "ß"]
)


def assert_same_table(got: TokenTable, want: TokenTable) -> None:
    assert got.text == want.text
    for name in FIELDS:
        a, b = getattr(got, name), getattr(want, name)
        assert a.dtype == b.dtype, name
        np.testing.assert_array_equal(a, b, err_msg=name)


def shown_text(panel) -> str:
    return plain_text(panel.view.toPlainText().replace("\u2029", "\n"))


def drawn(panel, table: TokenTable) -> str:
    """The document a view built from scratch holds for ``table``."""
    return plain_text(build_run(table, 0, len(table), panel.model.tokenizer.vocab, panel.view.options).text)


def pieced(tokenizer, text: str, first: int, step: int) -> TokenTable:
    """Encode ``text`` in the pieces a progressive view uses, numbering chunks on as it does."""
    cuts = piece_cuts(tokenizer, text, 0, len(text), first, step)
    tables, base = [], 0
    for lo, hi in zip(cuts, cuts[1:]):
        table = encode_range(tokenizer, text, lo, hi, base)
        base = next_chunk(table, tokenizer) if len(table) else base
        tables.append(table)
    return TokenTable(text, *(np.concatenate([getattr(t, f) for t in tables]) for f in FIELDS))


@pytest.mark.parametrize("name", ["gpt2", "cl100k", "byte_tokenizer", "tiny_bpe"])
def test_the_numpy_table_equals_the_core_placing_on_hard_text(name, request):
    tokenizer = request.getfixturevalue(name)
    text = HARD * 40
    assert_same_table(encode_range(tokenizer, text), TokenTable.encode(tokenizer, text))
    assert_same_table(pieced(tokenizer, text, 7, 50), TokenTable.encode(tokenizer, text))


@given(st.lists(WORDS, max_size=60).map("".join), st.integers(1, 40), st.integers(1, 40))
def test_pieces_cut_anywhere_give_the_whole_text_encoding(gpt2, tiny_bpe, text, first, step):
    for tokenizer in (gpt2, tiny_bpe):
        assert_same_table(pieced(tokenizer, text, first, step), TokenTable.encode(tokenizer, text))


def test_every_piece_ends_at_a_safe_cut(gpt2):
    text = HARD * 20
    cuts = piece_cuts(gpt2, text, 0, len(text), 10, 30)
    assert cuts[0] == 0 and cuts[-1] == len(text) and cuts == sorted(set(cuts))
    assert len(cuts) > 10, "a long text is cut into many pieces"
    assert all(text[c] == " " or text[c - 1] == "\n" for c in cuts[1:-1])


@pytest.fixture
def small_pieces(monkeypatch):
    """Pieces of a few hundred characters, so a test text of 20 KB arrives in many steps."""
    monkeypatch.setattr(progressive, "PROGRESSIVE_MIN", 2000)
    monkeypatch.setattr(progressive, "FIRST_PIECE", 600)
    monkeypatch.setattr(progressive, "PIECE", 2500)


def record_updates(panel) -> list[tuple[bool, int, str]]:
    """(model complete?, tokens in the view, view's text) at every table change of a view."""
    seen: list[tuple[bool, int, str]] = []

    def note(_update) -> None:
        view = panel.view
        seen.append((panel.model.current, len(view.table) if view.table is not None else -1, view.table.text))

    # Connected after the window's own slot, so the view already shows the update.
    panel.model.tableChanged.connect(note)
    return seen


def test_a_paste_shows_its_first_piece_before_the_rest_is_tokenized(make_window, qtbot, small_pieces):
    window = make_window(text="short text")
    big = HARD * 300  # ~21K characters: about ten pieces
    updates = [record_updates(p) for p in window.panels]
    window.set_text(big)
    qtbot.waitUntil(lambda: window.is_ready() and window.text == big, timeout=60000)
    for panel, seen in zip(window.panels, updates):
        whole = TokenTable.encode(panel.model.tokenizer, big)
        assert len(seen) > 3, "the text arrived in pieces"
        complete, shown, text = seen[0]
        assert text == big and not complete and 0 < shown < len(whole) // 4
        assert [n for _c, n, _t in seen] == sorted(n for _c, n, _t in seen), "tokens only get added"
        assert [c for c, _n, _t in seen] == [False] * (len(seen) - 1) + [True]
        assert_same_table(panel.model.table, whole)
        assert panel.view.table is panel.model.table
        assert shown_text(panel) == drawn(panel, whole), "the view shows what a fresh view would"
    assert window.token_counts() == [len(TokenTable.encode(p.model.tokenizer, big)) for p in window.panels]


@pytest.mark.slow
def test_a_big_insert_in_the_middle_keeps_the_text_around_it(make_window, qtbot, small_pieces):
    before, after = "Intro line with words.\n" * 30, "\nAnd the end, with 🌍 too.\n" * 30
    window = make_window(text=before + after)
    big = before + HARD * 200 + after
    window.set_text(big)
    qtbot.waitUntil(lambda: window.is_ready() and window.text == big, timeout=60000)
    for panel in window.panels:
        assert_same_table(panel.model.table, TokenTable.encode(panel.model.tokenizer, big))
        assert shown_text(panel) == drawn(panel, panel.model.table)


def test_typing_while_pieces_arrive_ends_with_the_newest_text(make_window, qtbot, small_pieces):
    window = make_window(text="start")
    big = HARD * 300
    window.set_text(big)
    panel = window.panels[0]
    qtbot.waitUntil(lambda: panel.view.table is not None and panel.view.table.text == big, timeout=60000)
    assert not window.is_ready(), "pieces are still missing"
    cursor = window.editor.textCursor()
    cursor.setPosition(5)
    cursor.insertText("TYPED ")
    newest = big[:5] + "TYPED " + big[5:]
    qtbot.waitUntil(lambda: window.is_ready() and window.text == newest, timeout=60000)
    for p in window.panels:
        assert_same_table(p.model.table, TokenTable.encode(p.model.tokenizer, newest))


def test_the_header_says_how_far_tokenizing_got(make_window, qtbot, small_pieces):
    window = make_window(text="start")
    panel = window.panels[0]
    labels: list[str] = []
    panel.model.progressed.connect(lambda *_: labels.append(panel.busy.text()))
    window.set_text(HARD * 300)
    qtbot.waitUntil(window.is_ready, timeout=60000)
    assert any(label.startswith("tokenizing… ") and label.endswith("%") for label in labels)
    assert panel.busy.text() == "" and panel.stats.text().endswith("bytes/token")
