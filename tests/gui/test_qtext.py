"""Code point <-> UTF-16 conversion: emoji count twice in Qt, once in Python."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tokviz.gui.text.utf16 import (
    Utf16Index,
    normalize_newlines,
    plain_text_from_raw,
    utf16_len,
    utf16_offsets,
)

from ..strategies import hard_text


def test_an_emoji_takes_two_utf16_units():
    text = "Hi 🌍!"
    assert utf16_len(text) == 6
    assert utf16_offsets(text).tolist() == [0, 1, 2, 3, 5, 6]
    index = Utf16Index(text)
    assert index.to_utf16(4) == 5
    assert index.to_code_point(5) == 4
    # A position between the two halves of a surrogate pair belongs to the emoji.
    assert index.to_code_point(4) == 3


def test_ascii_and_bmp_texts_convert_as_identity():
    index = Utf16Index("你好, world")
    assert index.to_utf16(3) == 3 and index.to_code_point(7) == 7
    assert index.utf16_length == len("你好, world")


@given(st.one_of(st.text(), hard_text(max_run=300)))
def test_conversion_round_trips_at_every_code_point(text):
    index = Utf16Index(text)
    for cp in range(len(text) + 1):
        assert index.to_code_point(index.to_utf16(cp)) == cp
    assert index.utf16_length == utf16_len(text)
    assert index.to_utf16_array(list(range(len(text) + 1))).tolist() == utf16_offsets(text).tolist()


def test_document_text_keeps_no_break_spaces_and_turns_separators_into_newlines():
    assert plain_text_from_raw("a\u00a0b\u2029c") == "a\u00a0b\nc"
    assert normalize_newlines("a\r\nb\rc\n") == "a\nb\nc\n"
