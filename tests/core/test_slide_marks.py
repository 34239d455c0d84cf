"""What a slide marks so the room reads it right: lossy tokenizers, held-back output, one tokenizer once."""

from __future__ import annotations

from typing import Any

import pytest

from tokviz.core.formats.registry import load_tokenizer
from tokviz.core.lecture.deck import default_deck
from tokviz.core.lecture.slides import (
    NOTHING_YET,
    SPACE_MARK,
    Bars,
    ChipRow,
    Counters,
    SlideContent,
    Table,
    Words,
    lost,
    slide_content,
)

DECK = default_deck()
CHINESE = "你好世界，今天天气很好"


def content(number: int, step: int = 0, **live: Any) -> SlideContent:
    return slide_content(DECK.slides[number - 1], DECK, step, **live)


def test_a_tokenizer_that_loses_text_says_how_much() -> None:
    words = load_tokenizer("words")
    assert lost(words, "The zyzzyva and a word.") == "lossy: 1 <unk>"
    assert lost(load_tokenizer("gpt2"), "The zyzzyva 🌍") == ""


def test_the_exchange_slide_never_takes_its_big_number_or_scale_from_a_lossy_tokenizer() -> None:
    slide = content(9, text=CHINESE, tokenizers=["words", "cl100k", "o200k"])
    counters = next(b for b in slide.blocks if isinstance(b, Counters))
    labels = dict((label, value) for label, value in counters.items)
    assert labels["cl100k tokens"] == slide.figures["cl100k tokens"]  # the first that keeps the text
    assert not any(label.startswith("words") for label in labels)
    table = next(b for b in slide.blocks if isinstance(b, Table))
    assert table.headers[-1] == "what is lost" and table.rows[0][-1] == slide.figures["words lossy"]
    assert slide.figures["words lossy"].startswith("lossy: ") and "<unk>" in slide.figures["words lossy"]
    bars = next(b for b in slide.blocks if isinstance(b, Bars))
    assert bars.series[0][0] == "words"
    assert all(
        bars.loss(0, g).startswith("lossy") for g, name in enumerate(bars.categories) if name != "digits"
    )
    assert not any(bars.loss(s, g) for s in (1, 2) for g in range(len(bars.categories)))


def test_the_cost_slide_never_calls_a_lossy_tokenizer_fewest() -> None:
    slide = content(10, tokenizers=["words", "gpt2", "cl100k", "o200k"])
    table = next(b for b in slide.blocks if isinstance(b, Table))
    versus = {row[0]: row[3] for row in table.rows}
    assert versus["words"].startswith("lossy: ")  # fewer tokens than o200k, yet not 1×
    assert versus["o200k"] == "1×" and versus["cl100k"] == "1.5625×" and versus["GPT-2"] == "2.25×"


@pytest.mark.parametrize("number", [1, 3, 8, 11])
def test_every_slide_showing_the_words_tokenizer_marks_it_lossy(number: int) -> None:
    slide = content(number, text="The zyzzyva met a word.", tokenizers=["words"])
    said = [getattr(b, "caption", "") or getattr(b, "text", "") for b in slide.blocks]
    assert any("lossy: 2 <unk>" in line for line in said), said  # zyzzyva and met


def test_the_stream_slide_marks_nothing_printed_yet_apart_from_a_space_and_explains_both() -> None:
    slide = content(11)
    table = next(b for b in slide.blocks if isinstance(b, Table))
    by_id = {row[0]: row for row in table.rows}
    assert [by_id[i][3] for i in ("234", "19526", "25001")] == [NOTHING_YET] * 3  # nothing printed yet
    assert by_id["220"][2] == by_id["220"][3] == SPACE_MARK == "·"  # a space, the same in both columns
    assert by_id["12520"][3] == SPACE_MARK  # " " + half a globe: the space prints, the bytes wait
    assert all(row[2] not in ("", " ") and row[3] not in ("", " ") for row in table.rows)
    legend = next(b for b in slide.blocks if isinstance(b, Words))
    assert f"{SPACE_MARK} a space" in legend.text and f"{NOTHING_YET} prints nothing yet" in legend.text


def test_a_tokenizer_named_twice_is_shown_once() -> None:
    slide = content(9, tokenizers=["cl100k", "cl100k", "o200k"])
    table = next(b for b in slide.blocks if isinstance(b, Table))
    assert [row[0] for row in table.rows] == ["cl100k", "o200k"]


def test_the_merges_slide_says_one_and_a_half_bytes_per_token() -> None:
    counters = content(6, 3).blocks[0]
    assert isinstance(counters, Counters) and ("bytes per token", "1.5") in counters.items
    assert isinstance(content(6, 3).blocks[1], ChipRow)
