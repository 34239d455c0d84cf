"""Pre-tokenizers: tiktoken's exact chunking, the ASCII fast path, custom patterns, specials."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tokviz.core import PretokenizerError, resolve_pretokenizer, validate_pattern
from tokviz.core.pretok.pretokenize import SpecialSplitter

from ..strategies import hard_text
from .reference import reference_pretokenize, reference_split_specials

# Pure-ASCII text takes the fast ``re`` path as a whole; other text mixes both engines.
TEXT = st.one_of(hard_text(ascii_only=True), hard_text())
SPECIALS = ["<|endoftext|>", "<|endoftext|><|endoftext|>", "<|end", "x"]


def test_gpt2_chunks_keep_the_leading_space():
    assert resolve_pretokenizer("gpt2").split("Hello, world's 123   x\n") == [
        "Hello", ",", " world", "'s", " 123", "  ", " x", "\n"
    ]  # fmt: skip


def test_cl100k_groups_digits_in_threes():
    assert resolve_pretokenizer("cl100k").split("12345 abc") == ["123", "45", " abc"]


def test_none_keeps_the_document_whole():
    assert resolve_pretokenizer("none").split("the cat in the hat") == ["the cat in the hat"]


@pytest.mark.slow
@settings(max_examples=400)
@given(TEXT)
def test_fast_ascii_path_equals_the_reference_patterns(text):
    """tokviz's two engines cut exactly the chunks of the published patterns run through regex."""
    assert resolve_pretokenizer("gpt2").split(text) == reference_pretokenize(text, "gpt2")
    assert resolve_pretokenizer("cl100k").split(text) == reference_pretokenize(text, "cl100k")


@pytest.mark.slow
@settings(max_examples=200)
@given(TEXT, st.sampled_from(["gpt2", "cl100k", "none", r"\w+", r"[a-z]+|\d"]))
def test_chunks_tile_the_text(text, name):
    pre = resolve_pretokenizer(name)
    assert "".join(pre.split(text)) == text
    spans = pre.spans(text)
    assert [text[s:e] for s, e in spans] == pre.split(text)
    assert pre.split(text) == reference_pretokenize(text, name)


def test_custom_pattern_gaps_become_chunks_so_nothing_is_lost():
    assert resolve_pretokenizer(r"[a-z]+").split("ab, cd!") == ["ab", ", ", "cd", "!"]


def test_invalid_regex_is_a_clear_error():
    message = validate_pattern("(ab")
    assert message is not None and "position" in message and "missing )" in message
    assert validate_pattern(r"\w+") is None
    try:
        resolve_pretokenizer("[z-a]")
    except PretokenizerError as exc:
        assert "invalid pre-tokenizer regex" in str(exc)
    else:  # pragma: no cover
        raise AssertionError("expected an error")


def test_special_splitter_prefers_the_longest_match():
    splitter = SpecialSplitter(["<|endoftext|>", "<|endoftext|><|endoftext|>"])
    text = "a<|endoftext|><|endoftext|>b<|endoftext|>"
    assert [text[s:e] for s, e, _ in splitter.segments(text)] == [
        "a", "<|endoftext|><|endoftext|>", "b", "<|endoftext|>"
    ]  # fmt: skip
    assert splitter.documents(text) == ["a", "b"]


@pytest.mark.slow
@settings(max_examples=300)
@given(hard_text(specials=SPECIALS), st.lists(st.sampled_from(SPECIALS), min_size=1, max_size=4, unique=True))
def test_special_splitter_equals_the_reference_split(text, specials):
    splitter = SpecialSplitter(specials)
    expected = reference_split_specials(text, specials)
    assert [(text[s:e], special) for s, e, special in splitter.segments(text)] == expected
    assert splitter.documents(text) == [piece for piece, special in expected if not special]
