"""The round-trip contract and exactness against tiktoken, on arbitrary text (hypothesis)."""

from __future__ import annotations

import pytest
import tiktoken
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tokviz.core import Tokenizer, load_tokenizer, train_bpe

ANY_TEXT = st.text(max_size=120)
HARD_TEXT = st.lists(
    st.sampled_from(
        [
            "a",
            "Zz",
            " ",
            "   ",
            "\n",
            "\r\n",
            "\t",
            "123",
            "4567",
            "'s",
            "'ll",
            "!?",
            "🌍",
            "👩‍👧",
            "你好",
            "é",
            "ſ",
        ]
    ),
    max_size=30,
).map("".join)
FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.fixture(scope="module")
def trained_models(english_text: str) -> list[Tokenizer]:
    return [
        train_bpe(english_text[:40_000], 600, ["<|endoftext|>"], pre, tie).tokenizer(f"{pre}-{tie}")
        for pre, tie in [("gpt2", "lexicographic"), ("cl100k", "first-seen"), ("none", "lexicographic")]
    ]


@pytest.fixture(scope="module")
def gpt2_by_merges() -> Tokenizer:
    """GPT-2 rebuilt from its recovered merge list alone: tokviz's own encoder, no tiktoken engine."""
    g = load_tokenizer("gpt2")
    return Tokenizer(g.vocab, g.merges, g.special_tokens, g.pretokenizer, name="gpt2-merges")


@FAST
@given(ANY_TEXT)
@pytest.mark.parametrize("name", ["bytes", "gpt2", "cl100k"])
def test_bundled_tokenizers_round_trip(name: str, text: str) -> None:
    tok = load_tokenizer(name)
    assert tok.decode(tok.encode(text)) == text


@FAST
@given(ANY_TEXT)
def test_trained_tokenizers_round_trip(trained_models: list[Tokenizer], text: str) -> None:
    for tok in trained_models:
        assert tok.decode(tok.encode(text)) == text


@FAST
@given(st.one_of(ANY_TEXT, HARD_TEXT))
def test_gpt2_merge_list_equals_tiktoken(
    gpt2_by_merges: Tokenizer, gpt2_tiktoken: tiktoken.Encoding, text: str
) -> None:
    assert gpt2_by_merges.encode(text) == gpt2_tiktoken.encode(text, allowed_special="all")


def test_gpt2_on_the_lecture_string(gpt2_by_merges: Tokenizer, gpt2_tiktoken: tiktoken.Encoding) -> None:
    text = "Hello, 🌍! 你好!"
    ids = gpt2_by_merges.encode(text)
    assert len(text.encode()) == 20
    assert len(ids) == 12
    assert ids == gpt2_tiktoken.encode(text)
