"""Figures print as the lecturer says them: exact when the decimals end soon, else to two places."""

from __future__ import annotations

from fractions import Fraction

import pytest

from tokviz.core.lecture.numbers import decimal, ratio


@pytest.mark.parametrize(
    ("numerator", "denominator", "said"),
    [
        (18, 16, "1.125"),  # not 1.12: the merges slide's 18 tokens over 16
        (18, 12, "1.5"),
        (20, 12, "1.67"),
        (25, 16, "1.5625"),  # (5/4)² exactly
        (2, 3, "0.67"),
        (1, 32, "0.03"),  # five places: rounded
        (16, 1, "16"),
        (2_000_000, 1, "2,000,000"),
        (3, 0, "-"),
    ],
)
def test_a_ratio_prints_exactly_when_it_ends_within_four_places(
    numerator: int, denominator: int, said: str
) -> None:
    assert ratio(numerator, denominator) == said


def test_a_float_is_read_as_the_fraction_it_stands_for() -> None:
    assert decimal(18 / 16) == decimal(Fraction(18, 16)) == "1.125"
    assert decimal(20 / 12) == "1.67"
    assert decimal(0.1) == "0.1"
