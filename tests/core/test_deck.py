"""Lecture decks are TOML files; every mistake in one is a single line naming the file and line."""

from __future__ import annotations

from pathlib import Path

import pytest

from tokviz.core.lecture.deck import (
    SLIDE_KINDS,
    DeckError,
    deck_toml,
    default_deck,
    load_deck,
    parse_deck,
)

GOOD = """\
title = "A short deck"

[[slide]]
kind = "merges"
title = "BPE"
text = "the cat in the hat"
merges = 3

[[slide]]
kind = "views"
tokenizers = ["gpt2", "bytes"]
"""

EVERY_NEW_KIND = """\
[[slide]]
kind = "regex"
text = "it's 42"

[[slide]]
kind = "digits"
text = "1234567"
tokenizers = ["gpt2", "cl100k"]

[[slide]]
kind = "chain"
text = "aaab"
merges = 2

[[slide]]
kind = "samples"
samples = ["english", "digits"]

[[slide]]
kind = "broken"
text = "🌍"

[[slide]]
kind = "cost"
long = 1000
short = 250
"""


def write(tmp_path: Path, text: str) -> Path:
    deck = tmp_path / "deck.toml"
    deck.write_text(text, encoding="utf-8")
    return deck


def test_a_deck_lists_its_slides_with_defaults_filled_in(tmp_path):
    deck = load_deck(write(tmp_path, GOOD))
    merges, views = deck.slides
    assert (deck.title, merges.kind, merges.get("merges"), merges.get("tie_break")) == (
        "A short deck",
        "merges",
        3,
        "first-seen",
    )
    assert merges.steps == 4  # the slide itself, then one click per merge
    assert views.get("tokenizers") == ("gpt2", "bytes") and views.steps == 1


def test_the_default_deck_walks_the_lecture_in_twenty_slides_with_notes():
    deck = default_deck()
    assert [s.kind for s in deck.slides] == [
        "roundtrip", "anatomy", "views", "views", "views", "merges",
        "merges", "chunks", "exchange", "cost", "stream", "regex",
        "digits", "chain", "greedy", "lattice", "text", "samples", "broken", "text",
    ]  # fmt: skip
    assert all(s.title and s.notes for s in deck.slides)
    bpe = deck.slides[5]
    assert (bpe.get("text"), bpe.get("merges"), bpe.get("pretokenizer")) == ("the cat in the hat", 3, "none")
    assert deck.slides[6].get("text") == "the quick brown fox"


def test_the_slide_kinds_of_the_regex_numbers_chain_and_exercises_load_and_save():
    deck = parse_deck(EVERY_NEW_KIND)
    assert [s.kind for s in deck.slides] == ["regex", "digits", "chain", "samples", "broken", "cost"]
    assert deck.slides[2].steps == 1 and deck.slides[5].get("long") == 1000
    assert parse_deck(deck_toml(deck)) == deck


def test_a_worked_token_count_out_of_range_is_one_line():
    with pytest.raises(DeckError, match="long is -1; a token count is 0 to 16,777,216"):
        parse_deck('[[slide]]\nkind = "cost"\nlong = -1\n')


def test_saving_and_loading_a_deck_gives_the_same_deck():
    deck = default_deck()
    again = parse_deck(deck_toml(deck), "saved.toml", deck.folder)
    assert again == deck


def test_text_with_quotes_backslashes_tabs_and_control_characters_survives_a_round_trip():
    odd = 'say "hi"\\n\tand \x7f\x01 then\nline two """ end'
    deck = parse_deck(GOOD)
    changed = type(deck)(deck.title, (type(deck.slides[0])("text", odd, odd, {"body": odd}),))
    assert parse_deck(deck_toml(changed)) == changed


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            GOOD.replace("merges = 3", "merge = 3"),
            "deck.toml:7: slide 1 (merges) has no key 'merge'; it takes ",
        ),
        (
            GOOD.replace('kind = "views"', 'kind = "video"'),
            "deck.toml:10: slide 2 has 'video'; kind is one of ",
        ),
        (
            GOOD.replace('"bytes"]', '"gpt5"]'),
            "deck.toml:11: unknown tokenizer 'gpt5'; use bytes, characters",
        ),
        (GOOD.replace("merges = 3", "merges = three"), "deck.toml:7: not TOML: "),
        (GOOD.replace("merges = 3", 'merges = "3"'), "deck.toml:7: merges must be a whole number, not str"),
        (
            GOOD.replace("merges = 3", "merges = 500"),
            "slide 1 (merges): merges is 500; a slide shows 0 to 64",
        ),
        (
            "colour = 1\n" + GOOD,
            "deck.toml:1: unknown key 'colour'; a deck has title, text, tokenizers, slide",
        ),
        ('title = "x"\n', "deck.toml: a deck needs at least one [[slide]] table"),
        ('[[slide]]\nkind = "image"\npath = "missing.png"\n', "no picture 'missing.png' beside the deck"),
        ('[[slide]]\nkind = "exchange"\nsamples = ["klingon"]\n', "no bundled sample 'klingon'; samples are"),
    ],
)
def test_a_mistake_is_one_line_naming_file_line_and_what_is_allowed(tmp_path, text, message):
    with pytest.raises(DeckError) as caught:
        load_deck(write(tmp_path, text))
    line = str(caught.value)
    assert "\n" not in line
    assert line.startswith(str(tmp_path / "deck.toml"))
    assert message in line.replace(str(tmp_path) + "/", "")


def test_every_kind_is_named_when_the_kind_is_missing(tmp_path):
    with pytest.raises(DeckError, match="slide 1 has no kind; kind is one of " + ", ".join(SLIDE_KINDS)):
        load_deck(write(tmp_path, '[[slide]]\ntitle = "x"\n'))


def test_tokenizer_files_beside_the_deck_are_allowed_and_resolved(tmp_path):
    (tmp_path / "mine.json").write_text("{}", encoding="utf-8")
    deck = load_deck(write(tmp_path, '[[slide]]\nkind = "views"\ntokenizers = ["mine.json", "o200k"]\n'))
    assert [deck.resolve(n) for n in deck.slides[0].get("tokenizers")] == [
        str(tmp_path / "mine.json"),
        "o200k",
    ]


def test_files_that_are_not_decks_are_refused_in_one_line(tmp_path):
    with pytest.raises(DeckError, match="not a deck file"):
        load_deck(tmp_path)
    binary = tmp_path / "deck.toml"
    binary.write_bytes(b'title = "\xff"\n')
    with pytest.raises(DeckError, match="not UTF-8 text"):
        load_deck(binary)
    binary.write_bytes(b"#" * (1 << 20) + b"\n")
    with pytest.raises(DeckError, match="too big for a deck"):
        load_deck(binary)
