"""The round-trip contract and exactness against tiktoken, on arbitrary text (hypothesis)."""

from __future__ import annotations

import pytest
import tiktoken
from hypothesis import HealthCheck, given, settings

from tokviz.core import Tokenizer, load_tokenizer, train_bpe

from ..strategies import hard_text

TEXT = hard_text(specials=["<|endoftext|>", "<|fim_prefix|>"])
FAST = settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.fixture(scope="module")
def trained_models(english_text: str) -> list[Tokenizer]:
    return [
        train_bpe(
            text=english_text[:40_000],
            vocab_size=600,
            special_tokens=["<|endoftext|>"],
            pretokenizer=pre,
            tie_break=tie,
        ).tokenizer(f"{pre}-{tie}")
        for pre, tie in [("gpt2", "lexicographic"), ("cl100k", "first-seen"), ("none", "lexicographic")]
    ]


def _by_merges(name: str) -> Tokenizer:
    """A bundled encoding rebuilt from its recovered merge list alone: tokviz's own encoder, no tiktoken."""
    g = load_tokenizer(name)
    return Tokenizer(g.vocab, g.merges, g.special_tokens, g.pretokenizer, name=f"{name}-merges")


@pytest.fixture(scope="module")
def gpt2_by_merges() -> Tokenizer:
    return _by_merges("gpt2")


@pytest.fixture(scope="module")
def cl100k_by_merges() -> Tokenizer:
    return _by_merges("cl100k")


@pytest.mark.slow
@FAST
@given(TEXT)
@pytest.mark.parametrize("name", ["bytes", "gpt2", "cl100k"])
def test_bundled_tokenizers_round_trip(name: str, text: str) -> None:
    tok = load_tokenizer(name)
    assert tok.decode(tok.encode(text)) == text


@pytest.mark.slow
@FAST
@given(TEXT)
def test_trained_tokenizers_round_trip(trained_models: list[Tokenizer], text: str) -> None:
    for tok in trained_models:
        assert tok.decode(tok.encode(text)) == text


@pytest.mark.slow
@FAST
@given(TEXT)
def test_gpt2_merge_list_equals_tiktoken(
    gpt2_by_merges: Tokenizer, gpt2_tiktoken: tiktoken.Encoding, text: str
) -> None:
    assert gpt2_by_merges.encode(text) == gpt2_tiktoken.encode(text, allowed_special="all")


@pytest.mark.slow
@FAST
@given(TEXT)
def test_cl100k_merge_list_equals_tiktoken(
    cl100k_by_merges: Tokenizer, cl100k_tiktoken: tiktoken.Encoding, text: str
) -> None:
    assert cl100k_by_merges.encode(text) == cl100k_tiktoken.encode(text, allowed_special="all")


def test_gpt2_on_the_lecture_string(gpt2_by_merges: Tokenizer, gpt2_tiktoken: tiktoken.Encoding) -> None:
    text = "Hello, 🌍! 你好!"
    ids = gpt2_by_merges.encode(text)
    assert len(text.encode()) == 20
    assert len(ids) == 12
    assert ids == gpt2_tiktoken.encode(text)
