"""Each slide's figures come from the core, and equal the lecture's own numbers."""

from __future__ import annotations

import re

import pytest

from tokviz.core.bpe.tokenizer import TokenSpan
from tokviz.core.lecture.deck import SLIDE_KINDS, default_deck, parse_deck
from tokviz.core.lecture.slides import ChipRow, Counters, Table, Words, slide_content, tied_pairs

DECK = default_deck()


def content(number: int, step: int = 0, **live):
    return slide_content(DECK.slides[number - 1], DECK, step, **live)


def test_the_merge_slide_steps_through_18_16_14_12_tokens():
    assert [content(6, step).figures["tokens"] for step in range(4)] == [
        "18",
        "18 → 16",
        "18 → 16 → 14",
        "18 → 16 → 14 → 12",
    ]
    last = content(6, 3)
    table = next(b for b in last.blocks if isinstance(b, Table))
    assert [row[1] for row in table.rows] == ["t + h", "th + e", "the + ·"]
    assert [row[2] for row in table.rows] == ["256", "257", "258"]


def test_each_merge_step_shows_the_tied_pairs_and_outlines_the_one_the_rule_picks():
    first = content(6, 0).blocks[-1]
    assert isinstance(first, ChipRow)
    assert [(c.label, c.kind) for c in first.chips] == [
        ("t + h", "picked"),
        ("h + e", "normal"),
        ("e + ·", "normal"),
        ("a + t", "normal"),
    ]
    assert "4 tied; the first-seen rule picks the outlined one" in first.caption


def test_the_learned_merges_give_16_tokens_on_the_quick_brown_fox():
    assert content(7).figures["tokens"] == "16"


def test_anatomy_shows_code_points_hex_bytes_and_visible_characters():
    figures = content(2).figures
    assert figures["code points"] == "U+0048 U+0069 U+0020 U+1F30D"
    assert figures["bytes"] == "48 69 20 F0 9F 8C 8D"
    assert figures["cluster"] == "2 code points, 1 visible"


def test_the_exchange_rate_slide_says_20_bytes_and_12_gpt2_tokens():
    figures = content(9).figures
    assert (figures["bytes"], figures["GPT-2 tokens"]) == ("20", "12")
    counters = content(9).blocks[0]
    assert isinstance(counters, Counters)
    assert ("bytes/token", "1.67") in counters.items


def test_the_exchange_rate_slide_shows_the_text_typed_on_it():
    (text, *_) = content(9, text="你好，世界").blocks
    assert isinstance(text, Words) and text.text == "“你好，世界”"


def test_specials_are_chunks_of_their_own_and_no_token_crosses_a_chunk():
    figures = content(8).figures
    chunks = content(8).blocks[1]
    assert isinstance(chunks, ChipRow)
    assert [c.label for c in chunks.chips if c.kind == "special"] == ["<|endoftext|>"]
    assert ("tokens crossing a chunk", "0") in content(8).blocks[0].items
    assert figures["chunks"] == str(len(chunks.chips))


def test_streaming_decode_fails_naively_and_is_exact_when_bytes_are_held_back():
    figures = content(11).figures
    assert figures["held back"] == "exact"
    assert int(figures["naive failures"]) > 0


def test_a_live_edit_changes_the_figures():
    assert content(9, text="the cat").figures["GPT-2 tokens"] == "2"
    assert content(4, tokenizers=["gpt2"]).figures["GPT-2 tokens"] == "12"


def test_the_round_trip_holds_for_a_text_typed_on_the_slide():
    assert content(1, text="naïve café — ½ 🧪").figures["GPT-2 round trip"] == "holds"


def test_the_words_slide_counts_unknown_words():
    words = content(5)
    assert any("<unk>" in getattr(b, "text", "") for b in words.blocks)


@pytest.mark.parametrize(
    ("spans", "expected"),
    [
        ([], (0, [])),
        ([TokenSpan(1, 0, 1, b"a", False, chunk=0), TokenSpan(2, 1, 2, b"b", False, chunk=1)], (0, [])),
    ],
)
def test_pairs_never_cross_a_chunk(spans, expected):
    assert tied_pairs(spans) == expected


def test_a_slide_that_cannot_be_computed_says_why_instead_of_failing():
    deck = parse_deck('[[slide]]\nkind = "views"\ntext = "x"\n')
    broken = slide_content(deck.slides[0], deck, tokenizers=["no-such-tokenizer"])
    assert "cannot be shown" in broken.blocks[0].text


def test_every_exercise_names_the_slide_it_starts_from_and_that_slide_is_live():
    deck = default_deck()
    exercises = next(slide for slide in deck.slides if slide.title == "Exercises")
    bullets = [line for line in str(exercises.get("body")).splitlines() if line.startswith("- ")]
    assert len(bullets) == 4
    for bullet in bullets:
        jumps = [int(n) for n in re.findall(r"[Ss]lide\u00a0(\d+)", bullet)]
        assert jumps, f"no slide to jump to in: {bullet}"
        for number in jumps:
            assert 1 <= number < len(deck.slides)
            assert "text" in SLIDE_KINDS[deck.slides[number - 1].kind]  # E types on it
