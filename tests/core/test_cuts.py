"""Safe cuts: encoding the two sides of any safe cut apart gives exactly the whole encoding."""

from __future__ import annotations

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from tokviz.core import load_tokenizer
from tokviz.core.bpe.cuts import SAFE_CUT_PATTERN, cut_mode, first_cut_after, last_cut_before
from tokviz.core.pretok.pretokenize import first_safe_cut, last_safe_cut

from ..strategies import hard_text


@pytest.mark.slow
@settings(max_examples=200)
@given(hard_text())
def test_every_safe_cut_splits_the_encoding_exactly(text: str) -> None:
    for name in ("gpt2", "cl100k"):
        tok = load_tokenizer(name)
        whole = tok.encode(text)
        for m in regex.finditer(SAFE_CUT_PATTERN, text):
            cut = m.start()
            assert tok.encode(text[:cut]) + tok.encode(text[cut:]) == whole, (name, cut)


def test_cut_search_in_both_directions() -> None:
    text = "one two\nthree"
    assert last_cut_before(text, 6) == 3
    assert first_cut_after(text, 4) == 8  # after the lone newline between two non-spaces
    assert first_cut_after(text, 9) == len(text)
    assert last_cut_before("nospace", 5) == 0


def test_cut_modes() -> None:
    assert cut_mode(load_tokenizer("gpt2")) == "space"
    assert cut_mode(load_tokenizer("bytes")) == "any"
    assert cut_mode(load_tokenizer("gpt2").with_special_tokens(["<a b>"])) == "none"


# Texts made of whitespace runs, letters, a separator and a non-ASCII space: where cuts are hard.
CUT_TEXTS = st.lists(
    st.sampled_from([" ", "  ", "\n", "\n\n", "\t", "a", "bc", "\x1c", "\u3000", "é"]), max_size=40
).map("".join)


@settings(max_examples=500)
@given(CUT_TEXTS, st.integers(0, 90), st.integers(0, 90), st.booleans())
def test_the_cut_search_finds_what_the_cut_pattern_finds(
    text: str, lo: int, hi: int, newline_cuts: bool
) -> None:
    pattern = regex.compile(SAFE_CUT_PATTERN if newline_cuts else r"(?<=\S) ")
    lo, hi = sorted((min(lo, len(text)), min(hi, len(text))))
    before = [m.start() for m in pattern.finditer(text, 0, hi) if lo < m.start() < hi]
    after = [m.start() for m in pattern.finditer(text) if m.start() >= lo]

    assert last_safe_cut(text, lo, hi, newline_cuts) == (before[-1] if before else lo)
    assert first_safe_cut(text, lo, newline_cuts) == (after[0] if after else len(text))
    if newline_cuts:
        assert last_cut_before(text, hi) == max((m.start() for m in pattern.finditer(text, 0, hi)), default=0)
        assert first_cut_after(text, lo) == (after[0] if after else len(text))
