"""Each merge records which pairs were tied for the highest count, and the tie rule's pick among them."""

from __future__ import annotations

from tokviz.core.training.train import train_bpe

from ..texts import CAT, CAT_TRAINING

# "the cat in the hat", no pre-tokenizer, first-seen ties: the pairs tied at each step, in the order
# the rule ranks them (the first is the one merged).
CAT_TIED = [
    [(b"t", b"h"), (b"h", b"e"), (b"e", b" "), (b"a", b"t")],
    [(b"th", b"e"), (b"e", b" "), (b"a", b"t")],
    [(b"the", b" "), (b"a", b"t")],
]


def test_the_lecture_example_records_the_tied_pairs_of_each_step_with_the_winner_first():
    history = train_bpe(text=CAT, **CAT_TRAINING).history
    assert [list(step.tied) for step in history] == CAT_TIED
    assert [step.ties for step in history] == [4, 3, 2]
    assert [(step.left, step.right) for step in history] == [tied[0] for tied in CAT_TIED]


def test_the_lexicographic_rule_ranks_the_tied_pairs_greatest_first():
    history = train_bpe(text=CAT, vocab_size=257, pretokenizer="none", tie_break="lexicographic").history
    tied = list(history[0].tied)
    assert sorted(tied, reverse=True) == tied
    assert (history[0].left, history[0].right) == tied[0] == (b"t", b"h")


def test_a_step_without_a_tie_records_only_its_own_pair():
    history = train_bpe(text="aaab", vocab_size=257, pretokenizer="none").history
    assert history[0].ties == 1
    assert list(history[0].tied) == [(b"a", b"a")]
