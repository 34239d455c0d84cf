"""A segmentation placed on a unigram lattice: the pieces it runs through and its score there."""

from __future__ import annotations

import pytest

from tokviz.core.analysis.lattice import segment_lattice
from tokviz.core.analysis.lattice_paths import path_on, score_on
from tokviz.core.formats.registry import load_tokenizer
from tokviz.core.io.resources import resource_path

UNIGRAM = load_tokenizer(str(resource_path("models", "pydocs-unigram-2000.model")))


def test_the_best_segmentation_runs_through_the_best_path_and_scores_its_score() -> None:
    lattice = segment_lattice(UNIGRAM, "reassignment", 5)

    assert path_on(lattice, lattice.best.pieces) == lattice.best_path
    for seg in lattice.nbest:
        assert score_on(lattice, seg.pieces) == pytest.approx(seg.score, abs=1e-3)


def test_pieces_the_lattice_lacks_or_that_leave_text_over_are_no_path() -> None:
    lattice = segment_lattice(UNIGRAM, "reassignment")

    assert path_on(lattice, ("▁re", "a", "ssign", "ment")) is None  # BPE's cut: no piece "ssign"
    assert path_on(lattice, ("▁re", "assign")) is None  # "ment" left over
    assert score_on(lattice, ("▁re", "a", "ssign", "ment")) is None
