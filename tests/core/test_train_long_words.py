"""Training on long pre-tokens (CJK sentences, whole documents under ``none``) through the occurrence index.

The index merges one site at a time for pairs with few sites and vectorized for pairs with many; both
must give exactly the slow reference's merges and counts, for both tie rules, overlapping runs included.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from unittest import mock

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tokviz.core import train_bpe
from tokviz.core.training import pairindex

from .reference import reference_train

TIE_RULES = ["lexicographic", "first-seen"]

# Few letters, so pairs repeat and runs (aaaa) overlap; CJK and an emoji for multi-byte characters.
long_text = st.lists(
    st.sampled_from(list("aab ") + ["你", "好", "你好", "🌍", "\n"]), min_size=1, max_size=200
).map("".join)


def _merges_and_counts(text: str, vocab_size: int, pretokenizer: str, tie_break: str) -> tuple[list, list]:
    result = train_bpe(text=text, vocab_size=vocab_size, pretokenizer=pretokenizer, tie_break=tie_break)
    return result.merges, [h.count for h in result.history]


PATHS = ["one by one", "vectorized", "without numpy"]


@contextmanager
def merging(path: str) -> Iterator[None]:
    """Send every merge of the index down one path.

    The vectorized one runs with the index built in tiny blocks and its sites merged in parts of
    two (so parts meet inside runs like ``aaaa`` and chains like ``abab``); the one without numpy
    is how a small corpus is trained when numpy is not loaded.
    """
    vector = path == "vectorized"
    changes: dict[str, object] = {"_VECTOR_SITES": 0 if vector else 1 << 30}
    if vector:
        changes |= {"_BLOCK": 3, "_PART_SITES": 2}
    if path == "without numpy":
        changes["_use_numpy"] = lambda size: False
    with mock.patch.multiple(pairindex, **changes):
        yield


@pytest.fixture(params=PATHS)
def merge_path(request: pytest.FixtureRequest) -> Iterator[str]:
    """Run a test through each merge path of the index."""
    with merging(request.param):
        yield request.param


@pytest.mark.slow
@pytest.mark.parametrize("path", PATHS)
@given(
    text=long_text,
    merges=st.integers(1, 40),
    pretokenizer=st.sampled_from(["none", "gpt2"]),
    tie_break=st.sampled_from(TIE_RULES),
)
def test_long_words_train_exactly_like_the_reference(
    path: str, text: str, merges: int, pretokenizer: str, tie_break: str
) -> None:
    vocab, ref_merges, ref_counts = reference_train([text], 256 + merges, [], pretokenizer, tie_break)

    with merging(path):
        assert _merges_and_counts(text, 256 + merges, pretokenizer, tie_break) == (ref_merges, ref_counts)


@pytest.mark.parametrize("tie_break", TIE_RULES)
def test_overlapping_runs_count_every_pair_and_merge_left_to_right(merge_path: str, tie_break: str) -> None:
    # "aaaaa" holds four (a, a); merging gives [aa][aa][a], which holds one (aa, aa) and one (aa, a).
    result = train_bpe(text="aaaaa", vocab_size=259, pretokenizer="none", tie_break=tie_break)

    assert [(h.left, h.right, h.count, h.tokens_after) for h in result.history] == [
        (b"a", b"a", 4, 3),
        (b"aa", b"aa", 1, 2),
        (b"aaaa", b"a", 1, 1),
    ]


def test_a_chinese_sentence_with_no_spaces_is_one_long_word_and_trains_exactly(merge_path: str) -> None:
    text = "我住的城市建在山上街道一层叠着一层下雨的时候雨水顺着石阶往下流像一条条细小的河" * 3
    for tie_break in TIE_RULES:
        _, ref_merges, ref_counts = reference_train([text], 300, [], "gpt2", tie_break)

        assert _merges_and_counts(text, 300, "gpt2", tie_break) == (ref_merges, ref_counts)


def test_repeated_long_words_weigh_by_their_count(merge_path: str) -> None:
    # Under gpt2 each " abababab..." line is one pre-token seen three times: its pairs count three times
    line = " " + "ab" * 40
    result = train_bpe(text=line * 3, vocab_size=258, pretokenizer="gpt2")

    assert [(h.left, h.right, h.count) for h in result.history] == [(b"a", b"b", 120), (b"ab", b"ab", 117)]


def test_the_first_seen_rule_looks_at_the_first_word_holding_a_tied_pair(merge_path: str) -> None:
    # (c, d) and (a, b) both occur twice; (c, d) occurs first in the corpus, inside the first word.
    result = train_bpe(text="xcdx ab ab cd", vocab_size=257, pretokenizer="gpt2", tie_break="first-seen")

    assert result.merges == [(b"c", b"d")]


def test_a_pretoken_longer_than_the_bound_is_cut_into_pieces_from_its_start() -> None:
    from tokviz.core.pretok.pretokenize import LONGEST_PRETOKEN, cut_long_pretokens

    long = "a" * (2 * LONGEST_PRETOKEN + 1)
    words, cut = cut_long_pretokens([" x", long, "!"])
    assert cut == 1
    assert words == [" x", "a" * LONGEST_PRETOKEN, "a" * LONGEST_PRETOKEN, "a", "!"]
    assert cut_long_pretokens([" x", "a" * LONGEST_PRETOKEN]) == ([" x", "a" * LONGEST_PRETOKEN], 0)


def test_training_cuts_a_huge_pretoken_says_so_once_and_a_count_table_trains_the_same(tmp_path) -> None:
    from tokviz.core.pretok.pretokenize import LONGEST_PRETOKEN
    from tokviz.core.training.counts import count_corpus, train_from_counts

    corpus = tmp_path / "runs.txt"
    corpus.write_text(
        "the cat sat " * 50 + "z" * (3 * LONGEST_PRETOKEN + 7) + " on the mat", encoding="utf-8"
    )
    trained = train_bpe(files=[corpus], vocab_size=280, workers=1)
    assert trained.long_pretokens == 1
    assert trained.long_pretokens_note == (
        "1 pre-token longer than 65,536 characters was cut into pieces of 65,536 for training"
    )
    # The pre-token " zzz…" is cut into 4 pieces, two of them alike: 3 rows, not 196,616 bytes.
    table = count_corpus(files=[corpus], workers=1)
    assert table.long_pretokens == 1
    z = "z" * LONGEST_PRETOKEN
    assert [table.counts[w] for w in (" " + z[1:], z, "z" * 8)] == [1, 2, 1]
    from_table = train_from_counts(table, 280)
    assert from_table.merges == trained.merges
    assert (
        train_bpe(text=corpus.read_text(encoding="utf-8"), vocab_size=280, workers=1).merges == trained.merges
    )


def test_merging_a_long_run_of_one_letter_needs_a_bounded_memory_per_byte() -> None:
    import tracemalloc

    from tokviz.core.pretok.pretokenize import resolve_pretokenizer
    from tokviz.core.training.train import merge_counts

    n = 1 << 20  # one word of a million a's: each merge's sites form one chain of neighbours
    tracemalloc.start()
    try:
        steps = merge_counts({"a" * n: 1}, n, 262, [], resolve_pretokenizer("none"), "lexicographic", None)
        for _ in steps:
            pass
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # The index holds about 17 bytes a byte and a merge's temporary arrays about 45 more (they
    # were 75: the run arithmetic in 64-bit arrays lived on through the whole merge).
    assert peak < 75 * n
