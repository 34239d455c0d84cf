"""The timeline on a tokenizer with a normalizer: every step is the core's replay of the normalized
text, laid on the text as typed, and the view's fast table places tokens as the core does."""

from __future__ import annotations

from tokviz.core.training.train import train_bpe
from tokviz.gui.panels.timeline.replayer import prepare_trace, table_at
from tokviz.gui.text.token_table import TokenTable
from tokviz.gui.workers.fast_table import encode_range

TEXT = "ﬁne ﬂow ofﬁce １２３ Ａｂｃ café cafe\u0301 " * 30
TYPED = "ﬁnal ofﬁce １２３４ ＡＢＣ cafe\u0301"


def test_each_step_is_the_cores_replay_on_the_typed_text() -> None:
    tok = train_bpe(text=TEXT, vocab_size=300, normalizer="nfkc").tokenizer("nfkc")
    trace = prepare_trace(tok, TYPED)
    for step in (0, tok.merge_count // 2, tok.merge_count):
        table = table_at(trace, step)
        assert table.ids.tolist() == tok.encode_with_merges(TYPED, step)
        assert table.end.tolist()[-1] == len(TYPED)


def test_the_fast_table_places_tokens_back_on_the_typed_text() -> None:
    tok = train_bpe(text=TEXT, vocab_size=300, normalizer="nfkc").tokenizer("nfkc")
    fast = encode_range(tok, TYPED, 0, len(TYPED))
    core = TokenTable.encode(tok, TYPED)
    assert fast.ids.tolist() == core.ids.tolist() == tok.encode(TYPED)
    assert fast.start.tolist() == core.start.tolist() and fast.end.tolist() == core.end.tolist()
