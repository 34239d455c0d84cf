"""Safe cuts: encoding the two sides of any safe cut apart gives exactly the whole encoding."""

from __future__ import annotations

import pytest
import regex
from hypothesis import given, settings

from tokviz.core import load_tokenizer
from tokviz.core.bpe.cuts import SAFE_CUT_PATTERN, cut_mode, first_cut_after, last_cut_before

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
