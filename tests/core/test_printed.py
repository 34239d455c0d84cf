"""A printed handout leaves out the presenter's key reminders and keeps the rest of the notes."""

from __future__ import annotations

from tokviz.core.lecture.deck import default_deck
from tokviz.core.lecture.printed import printed_notes


def test_a_keys_paragraph_is_left_out_and_the_next_paragraph_kept() -> None:
    notes = "Said aloud.\n\nKeys: E types,\nT tries another.\n\nAlso said."
    assert printed_notes(notes) == "Said aloud.\n\nAlso said."


def test_notes_without_keys_print_as_written() -> None:
    notes = "One line\n    tokviz replay --merges 3"
    assert printed_notes(notes) == notes


def test_no_printed_note_of_the_bundled_deck_names_a_key() -> None:
    for slide in default_deck().slides:
        printed = printed_notes(slide.notes)
        assert "Keys:" not in printed and "Enter" not in printed and "Ctrl+" not in printed, slide.title
