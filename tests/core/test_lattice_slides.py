"""The lattice slides: a word's lattice under a unigram model, and "is greedy merging optimal?"."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import sentencepiece

from tokviz.core.analysis.lattice_paths import score_on
from tokviz.core.io.resources import resource_path
from tokviz.core.lecture.blocks import ChipRow, LatticeBlock, Table, Words
from tokviz.core.lecture.deck import Deck, DeckError, Slide, deck_files, deck_toml, default_deck, parse_deck
from tokviz.core.lecture.slides import slide_content
from tokviz.core.lecture.slides_lattice import BUNDLED

UNIGRAM = resource_path(*BUNDLED["unigram"])
BPE = resource_path(*BUNDLED["bpe"])
DECK = default_deck()


def library(path: Path) -> sentencepiece.SentencePieceProcessor:
    return sentencepiece.SentencePieceProcessor(model_file=str(path))


def test_a_lattice_slide_lists_the_n_best_segmentations_the_library_gives() -> None:
    slide = Slide("lattice", "The lattice", "", {"text": "reassignment", "nbest": 4})

    content = slide_content(slide, Deck("d", ()))

    lattice_block, table = content.blocks
    assert isinstance(lattice_block, LatticeBlock) and isinstance(table, Table)
    expected = [" | ".join(p) for p in library(UNIGRAM).nbest_encode_as_pieces("reassignment", 4)]
    assert [content.figures[f"best {rank}"] for rank in range(1, 5)] == expected
    assert [row[1] for row in table.rows] == expected and table.marked == (0,)
    assert content.figures["best"] == "▁re | assignment" == expected[0]
    best = lattice_block.lattice.best
    assert content.figures["best log p"] == f"{best.score:.4f}"
    assert best.score == pytest.approx(score_on(lattice_block.lattice, best.pieces), abs=1e-4)


def test_a_long_text_typed_on_a_lattice_slide_is_cut_to_a_short_phrase() -> None:
    slide = Slide("lattice", "The lattice", "", {"text": "reassignment"})

    content = slide_content(slide, Deck("d", ()), text="reassignment " * 20)

    lattice_block = content.blocks[0]
    assert isinstance(lattice_block, LatticeBlock) and len(lattice_block.lattice.text) == 41  # ▁ + 40
    assert content.blocks[-1] == Words("the lattice of the first 40 characters", tone="muted")


def test_a_model_without_a_lattice_is_one_line_on_the_slide(tmp_path: Path) -> None:
    shutil.copy(BPE, tmp_path / "bpe.model")
    deck = parse_deck('[[slide]]\nkind = "lattice"\ntext = "word"\nmodel = "bpe.model"\n', "d.toml", tmp_path)

    content = slide_content(deck.slides[0], deck)

    (line,) = content.blocks
    assert isinstance(line, Words) and line.tone == "bad"
    assert line.text == "bpe: a BPE model has no lattice: it merges greedily; try dropout"


def test_the_greedy_slide_puts_the_text_under_both_models_and_scores_bpe_s_cut_on_the_lattice() -> None:
    slide = Slide("greedy", "Is greedy merging optimal?", "", {"text": "unpacking the reassignment"})

    content = slide_content(slide, Deck("d", ()))

    bpe_row, unigram_row, lattice_block, verdict = content.blocks
    assert isinstance(bpe_row, ChipRow) and isinstance(unigram_row, ChipRow)
    assert isinstance(lattice_block, LatticeBlock) and isinstance(verdict, Words)
    text = "unpacking the reassignment"
    assert len(bpe_row.chips) == len(library(BPE).encode(text)) == int(content.figures["BPE tokens"]) == 9
    assert (
        len(unigram_row.chips) == len(library(UNIGRAM).encode(text)) == int(content.figures["Unigram tokens"])
    )
    # The lattice is of the first word the two models cut differently.
    assert content.figures["word"] == "unpacking" and lattice_block.lattice.text == "▁unpacking"
    assert content.figures["BPE cut"] == " | ".join(library(BPE).encode("unpacking", out_type=str))
    assert content.figures["Unigram cut"] == "▁unpacking"
    on_lattice = float(content.figures["BPE cut log p"])
    assert on_lattice < float(content.figures["Unigram log p"])
    assert f"scores {on_lattice:.2f}" in verdict.text


def test_a_bpe_cut_with_pieces_unigram_lacks_is_not_a_path_of_its_lattice() -> None:
    slide = Slide("greedy", "Greedy?", "", {"text": "the reassignment", "word": "reassignment"})

    content = slide_content(slide, Deck("d", ()))

    assert content.figures["BPE cut"] == "▁re | a | ssign | ment" and "BPE cut log p" not in content.figures
    assert "is not even a path here" in str(content.blocks[-1])


def test_the_bundled_deck_asks_the_question_then_shows_the_lattice() -> None:
    kinds = [slide.kind for slide in DECK.slides]
    greedy, lattice = kinds.index("greedy"), kinds.index("lattice")

    assert lattice == greedy + 1 and DECK.slides[greedy].title == "Is greedy merging optimal?"
    assert slide_content(DECK.slides[lattice], DECK).figures["best log p"] == "-16.4262"


def test_model_keys_name_files_beside_the_deck(tmp_path: Path) -> None:
    shutil.copy(UNIGRAM, tmp_path / "u.model")
    source = '[[slide]]\nkind = "greedy"\ntext = "a b"\nunigram = "u.model"\n'

    deck = parse_deck(source, "d.toml", tmp_path)

    assert tmp_path / "u.model" in deck_files(deck)
    assert parse_deck(deck_toml(deck), "d.toml", tmp_path) == deck
    with pytest.raises(DeckError, match="unigram names 'gone.model', which is not a file beside the deck"):
        parse_deck(source.replace("u.model", "gone.model"), "d.toml", tmp_path)
    with pytest.raises(DeckError, match="is not in the deck's folder"):
        parse_deck(source.replace("u.model", "../u.model"), "d.toml", tmp_path)


def test_nbest_is_one_to_ten() -> None:
    with pytest.raises(DeckError, match="nbest is 11; a slide lists 1 to 10 best segmentations"):
        parse_deck('[[slide]]\nkind = "lattice"\ntext = "a"\nnbest = 11\n')
