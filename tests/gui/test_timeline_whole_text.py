"""The timeline replays the whole text, however long; a step changes only what its merge touches.

Every table the incremental stepper gives (any step, forwards and backwards, any window) equals
the core's ``encode_spans(text, max_merges=k)``; its events and counts equal the core's
``ReplayTrace``; a tokenizer replay cannot reproduce is refused the same way. In the panel, a long
text is counted whole and shown a window at a time, and the window goes where the merge is.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tokviz.core.errors import ReplayUnavailable
from tokviz.core.formats.registry import load_tokenizer
from tokviz.core.training.replay import ReplayTrace
from tokviz.gui.models.tokenizers import TokenizerRegistryModel
from tokviz.gui.panels.timeline import replayer as timeline_replayer
from tokviz.gui.panels.timeline.panel import TimelineWidget
from tokviz.gui.panels.timeline.stepper import WholeTextTrace
from tokviz.gui.text.token_table import TokenTable

FIELDS = ("ids", "start", "end", "start16", "end16", "partial", "special", "chunk")
HARD = "the cat in the hat 🌍 héllo <|endoftext|>  def f(x):\n\treturn x + 1\n中文 ok "
WORDS = st.sampled_from(
    ["the", " cat", " hat", "é", "🌍", "中文", "<|endoftext|>", "  ", "\n", "\tx", "1", "!"]
)


def core_table(trace: ReplayTrace, step: int) -> TokenTable:
    return TokenTable.from_spans(trace.text, trace.spans_at(step))


def assert_same_table(got: TokenTable, want: TokenTable) -> None:
    assert got.text == want.text
    for name in FIELDS:
        np.testing.assert_array_equal(getattr(got, name), getattr(want, name), err_msg=name)


@pytest.mark.parametrize("name", ["gpt2", "tiny_bpe"])
def test_the_whole_text_trace_counts_as_the_core_does(name, request):
    tokenizer = request.getfixturevalue(name)
    text = HARD * 30
    ours, core = WholeTextTrace(tokenizer, text), ReplayTrace(tokenizer, text)
    assert ours.events == core.events
    assert (ours.initial_tokens, ours.text_bytes, ours.final_tokens) == (
        core.initial_tokens,
        core.text_bytes,
        core.final_tokens,
    )
    for step in [0, 1, 3, 40, 300, core.total_steps, 7, 0]:  # forwards, jumps, backwards
        assert_same_table(ours.table_at(step), core_table(core, step))


@given(
    st.lists(WORDS, max_size=50).map("".join),
    st.lists(st.integers(0, 60), min_size=1, max_size=6),
)
def test_any_walk_through_the_steps_gives_the_core_tables(tiny_bpe, text, steps):
    ours, core = WholeTextTrace(tiny_bpe, text), ReplayTrace(tiny_bpe, text)
    for step in steps:
        assert_same_table(ours.table_at(step), core_table(core, step))


def test_a_window_holds_exactly_the_whole_tables_tokens_there(gpt2):
    text = HARD * 50
    trace = WholeTextTrace(gpt2, text)
    whole = trace.table_at(200)
    window = trace.table_at(200, 1000, 2000)
    lo, hi = int(window.start[0]), int(window.end[-1])
    assert lo <= 1000 and hi >= 2000 and hi - lo < 1100, "widened to whole chunks, no more"
    inside = (whole.start >= lo) & (whole.end <= hi)
    for name in FIELDS:
        np.testing.assert_array_equal(getattr(window, name), getattr(whole, name)[inside], err_msg=name)


def test_a_tokenizer_replay_cannot_reproduce_is_refused_as_in_the_core():
    characters = load_tokenizer("characters")
    assert characters.replay_note
    with pytest.raises(ReplayUnavailable, match="no merges"):
        WholeTextTrace(characters, "abc")


def test_a_long_text_is_counted_whole_and_shown_where_the_merge_is(qtbot, monkeypatch, tiny_bpe):
    monkeypatch.setattr(timeline_replayer, "VIEW_CHARS", 1500)
    timeline = TimelineWidget(TokenizerRegistryModel())
    qtbot.addWidget(timeline)
    timeline.resize(1000, 400)
    timeline.show()
    text = "plain words here " * 400 + "def f(x):\n    return x + 1\n"  # the code only at the end
    timeline.set_text(text)
    with qtbot.waitSignal(timeline.traceReady, timeout=30000):
        timeline.set_tokenizer(tiny_bpe)
    qtbot.waitUntil(timeline.is_ready, timeout=30000)
    assert timeline.replay_text == text, "no cut: the whole text is replayed"
    shown = timeline.view.table
    assert int(shown.end[-1]) < len(text), "a window of the text is shown"
    assert f"<b>{len(text.encode()):,}</b> tokens" in timeline.caption.text(), "counted whole"
    # A merge that happens only in the code at the end: the view goes there.
    code_only = next(
        e.step for e in timeline.trace.events if b"return"[:2] in e.left + e.right and e.count <= 2
    )
    timeline.set_step(code_only)
    qtbot.waitUntil(lambda: timeline.is_ready() and timeline.view.marked.any(), timeout=30000)
    table = timeline.view.table
    assert int(table.end[-1]) == len(text), "the window moved to the end, where the merge is"
    whole = WholeTextTrace(tiny_bpe, text).table_at(code_only)
    assert f"<b>{len(whole):,}</b> tokens" in timeline.caption.text()
    assert "showing characters" in timeline.caption.text()


def test_a_pretoken_longer_than_the_bound_is_stepped_in_the_pieces_every_encoder_merges(tiny_bpe):
    from unittest import mock

    from tokviz.core.bpe import native_bpe
    from tokviz.core.pretok import pretokenize, stretches

    with (
        mock.patch.object(pretokenize, "LONGEST_PRETOKEN", 7),
        mock.patch.object(stretches, "LONGEST_PRETOKEN", 7),
        mock.patch.object(native_bpe, "LONGEST_PRETOKEN", 7),
    ):
        text = "the " + "abcabcabc" * 20 + " cat" + " " * 30 + "hat"
        ours, core = WholeTextTrace(tiny_bpe, text), ReplayTrace(tiny_bpe, text)
        assert ours.events == core.events and ours.final_tokens == core.final_tokens
        for step in [0, 2, core.total_steps, 1]:
            assert_same_table(ours.table_at(step), core_table(core, step))
        assert core.ids_at(core.total_steps) == tiny_bpe.encode(text)
