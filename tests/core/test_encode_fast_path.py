"""Trained vocabularies encode through tiktoken's engine when its rank rule provably gives the merge list's ids.

Whatever is decided, the ids must be the slow reference encoder's: the decision is tested on trained
vocabularies (where tiktoken is used) and on random hand-made merge lists (where it often must not be).
"""

from __future__ import annotations

import pytest
import tiktoken
from hypothesis import given
from hypothesis import strategies as st

from tokviz.core import Tokenizer, train_bpe
from tokviz.core.bpe.rankrule import consistent_merges

from .reference import reference_encode

BYTES = {i: bytes([i]) for i in range(256)}
texts = st.text(alphabet=st.sampled_from(list("abc ab\n") + ["é", "你", "🌍"]), max_size=60)


def tokenizer_from_merges(merges: list[tuple[bytes, bytes]], pretokenizer: str = "gpt2") -> Tokenizer:
    """A tokenizer whose merge ``k`` makes id 256 + k, as a trained model's do."""
    vocab = dict(BYTES)
    for k, (a, b) in enumerate(merges):
        vocab[256 + k] = a + b
    return Tokenizer(vocab, merges, pretokenizer=pretokenizer)


@st.composite
def merge_lists(draw: st.DrawFn) -> list[tuple[bytes, bytes]]:
    """Random merge lists over a few letters: each merge joins two tokens made before, new bytes only."""
    tokens = [b"a", b"b", b"c", b" "]
    merges: list[tuple[bytes, bytes]] = []
    for _ in range(draw(st.integers(1, 12))):
        left = draw(st.sampled_from(tokens))
        right = draw(st.sampled_from(tokens))
        if left + right in tokens:
            continue
        merges.append((left, right))
        tokens.append(left + right)
    return merges


def test_a_trained_vocabulary_encodes_with_tiktoken_and_gives_the_merge_lists_ids(english_text: str) -> None:
    result = train_bpe(text=english_text[:40_000], vocab_size=600)
    tok = result.tokenizer()
    text = english_text[50_000:56_000]

    ids = tok.encode(text)

    assert tok._rank_engine is not None
    assert [tok.id_bytes(i) for i in ids] == reference_encode(text, result.merges, "gpt2")


def test_a_merge_list_where_the_rank_rule_differs_keeps_the_python_encoder() -> None:
    # "abc" comes from ab + c, but merge 0 makes "bc" first, so the merge list leaves [a][bc]
    # while tiktoken's rule would join a + bc into "abc" (the existing test in test_tokenizer.py).
    merges = [(b"b", b"c"), (b"a", b"b"), (b"ab", b"c")]
    tok = tokenizer_from_merges(merges)

    assert not consistent_merges(merges)
    assert tok.encode("abc") == [97, 256]
    assert tok._rank_engine is None
    ranks = {data: i for i, data in tok.vocab.items()}
    rank_rule = tiktoken.Encoding("rank-rule", pat_str=r"[\s\S]+", mergeable_ranks=ranks, special_tokens={})
    assert rank_rule.encode("abc") == [258]


def test_bytes_made_twice_keep_the_python_encoder() -> None:
    # ab + c and a + bc both make "abc": tiktoken cannot hold two ids for the same bytes.
    merges = [(b"a", b"b"), (b"b", b"c"), (b"ab", b"c"), (b"a", b"bc")]
    vocab = {**BYTES, 256: b"ab", 257: b"bc", 258: b"abc", 259: b"abc"}
    tok = Tokenizer(vocab, merges, pretokenizer="gpt2")

    assert tok.encode("abc abc") == [258, 32, 258]
    assert tok._rank_engine is None


@st.composite
def merge_lists_and_texts(draw: st.DrawFn) -> tuple[list[tuple[bytes, bytes]], str]:
    """A random merge list and a text made of its tokens (where the two rules can part ways)."""
    merges = draw(merge_lists())
    pieces = [b"a", b"b", b"c", b" "] + [a + b for a, b in merges]
    text = b"".join(draw(st.lists(st.sampled_from(pieces), max_size=12))).decode()
    return merges, text


@pytest.mark.slow
@given(case=merge_lists_and_texts(), pretokenizer=st.sampled_from(["gpt2", "cl100k"]))
def test_any_merge_list_encodes_like_the_reference(
    case: tuple[list[tuple[bytes, bytes]], str], pretokenizer: str
) -> None:
    merges, text = case
    tok = tokenizer_from_merges(merges, pretokenizer)

    assert [tok.id_bytes(i) for i in tok.encode(text)] == reference_encode(text, merges, pretokenizer)


@pytest.mark.slow
@given(corpus=texts.filter(lambda t: len(t) > 5), text=texts, merges=st.integers(1, 30))
def test_every_trained_vocabulary_takes_the_fast_path_and_stays_exact(
    corpus: str, text: str, merges: int
) -> None:
    result = train_bpe(text=corpus, vocab_size=256 + merges, pretokenizer="gpt2")
    tok = result.tokenizer()
    made = [a + b for a, b in result.merges]

    ids = tok.encode(text)

    assert [tok.id_bytes(i) for i in ids] == reference_encode(text, result.merges, "gpt2")
    # Training makes every merge consistent; only bytes made twice rule tiktoken out (and a corpus
    # with no pair seen twice trains no merge at all, which leaves nothing for tiktoken to do).
    assert (tok._rank_engine is not None) == (bool(made) and len(set(made)) == len(made))


@pytest.mark.parametrize("pretokenizer", [r"[^\n]+|\n", "none"])
def test_long_chunks_of_a_custom_pattern_or_none_encode_through_tiktoken_exactly(
    english_text: str, pretokenizer: str
) -> None:
    corpus = english_text[:20_000]
    result = train_bpe(text=corpus, vocab_size=400, pretokenizer=pretokenizer)
    tok = result.tokenizer()
    text = english_text[30_000:34_000]

    ids = tok.encode(text)

    assert tok._rank_engine is not None
    assert [tok.id_bytes(i) for i in ids] == reference_encode(text, result.merges, pretokenizer)


@pytest.mark.parametrize("text", ["a\ud800b", "\udfff 你好"])
def test_a_lone_surrogate_reads_as_the_replacement_character_on_the_fast_path(text: str) -> None:
    tok = train_bpe(text="ab ab abc " * 20, vocab_size=260).tokenizer()

    assert tok.decode(tok.encode(text)) == text.replace("\ud800", "\ufffd").replace("\udfff", "\ufffd")
    assert tok._rank_engine is not None
