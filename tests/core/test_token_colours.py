"""The colour rule of every token drawing: an id keeps its colour, different neighbours never look alike."""

from __future__ import annotations

import numpy as np

from tokviz.core.show.token_colours import HUES, colour_indices


def hue(index: int) -> int:
    return index // 2


def test_the_same_id_twice_in_a_row_keeps_one_colour() -> None:
    # GPT-2 cuts two spaces before a word into " " (220) and " word": runs of 220 are common.
    ids = [72, 220, 220, 220, 995, 220, 220, 13]
    colours = colour_indices(ids).tolist()
    assert colours[1] == colours[2] == colours[3]
    assert colours[5] == colours[6]


def test_an_id_has_the_same_colour_wherever_its_neighbours_leave_it_alone() -> None:
    rng = np.random.default_rng(3)
    ids = rng.integers(0, 50_000, size=4000)
    colours = colour_indices(ids)
    for i in range(1, len(ids) - 1):
        close = {hue(int(colours[j])) for j in (i - 1, i + 1)}
        own = hue(int(colours[i]))
        if all(min(abs(own - h), HUES - abs(own - h)) > 1 for h in close):
            assert colours[i] == colour_indices([int(ids[i])])[0]


def test_different_neighbours_of_close_hues_never_share_a_colour() -> None:
    rng = np.random.default_rng(5)
    for _ in range(20):
        ids = rng.integers(0, 2_000, size=3000)  # a small range: many repeats and collisions
        colours = colour_indices(ids)
        for a, b, ca, cb in zip(ids[:-1], ids[1:], colours[:-1], colours[1:]):
            if a != b:
                assert ca != cb


def test_a_text_with_repeated_spaces_colours_each_space_token_alike() -> None:
    ids = list(b"a    b")  # byte-level tokens: each space is id 32
    colours = colour_indices(ids).tolist()
    spaces = [c for i, c in zip(ids, colours) if i == ord(" ")]
    assert len(spaces) == 4 and len(set(spaces)) == 1
