"""Pre-tokenizers: tiktoken's exact chunking, the ASCII fast path, custom patterns, specials."""

from __future__ import annotations

import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from tokviz.core import PretokenizerError, resolve_pretokenizer, validate_pattern
from tokviz.core.pretokenize import CL100K_PATTERN, GPT2_PATTERN, SpecialSplitter

TRICKY = st.lists(
    st.sampled_from(
        [
            "a",
            "Z",
            " ",
            "  ",
            "\n",
            "\r\n",
            "\t",
            "7",
            "123",
            "'s",
            "'LL",
            "!",
            "é",
            "🌍",
            "你",
            "\u00a0",
            "\x85",
            "ſ",
            "\x1c",
        ]
    ),
    max_size=40,
).map("".join)


def test_gpt2_chunks_keep_the_leading_space():
    assert resolve_pretokenizer("gpt2").split("Hello, world's 123   x\n") == [
        "Hello", ",", " world", "'s", " 123", "  ", " x", "\n"
    ]  # fmt: skip


def test_cl100k_groups_digits_in_threes():
    assert resolve_pretokenizer("cl100k").split("12345 abc") == ["123", "45", " abc"]


def test_none_keeps_the_document_whole():
    assert resolve_pretokenizer("none").split("the cat in the hat") == ["the cat in the hat"]


@settings(max_examples=400, deadline=None)
@given(TRICKY)
def test_fast_ascii_path_equals_the_reference_patterns(text):
    assert resolve_pretokenizer("gpt2").split(text) == regex.findall(GPT2_PATTERN, text)
    assert resolve_pretokenizer("cl100k").split(text) == regex.findall(CL100K_PATTERN, text)


@settings(max_examples=200, deadline=None)
@given(TRICKY, st.sampled_from(["gpt2", "cl100k", "none", r"\w+", r"[a-z]+|\d"]))
def test_chunks_tile_the_text(text, name):
    pre = resolve_pretokenizer(name)
    assert "".join(pre.split(text)) == text
    spans = pre.spans(text)
    assert [text[s:e] for s, e in spans] == pre.split(text)


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
