"""Numbers as a lecturer says them: 18 / 16 is 1.125, 18 / 12 is 1.5, 20 / 12 is about 1.67.

A ratio whose decimal expansion ends within :data:`EXACT_PLACES` places prints exactly, with no
trailing zeros (a slide that says "1.12" for 18 / 16 contradicts the arithmetic on the board); any
other prints rounded to two places. Every figure a slide states goes through these, so the slides,
the handout and the tests read the same digits.
"""

from __future__ import annotations

from fractions import Fraction

EXACT_PLACES = 4
"""The most decimal places a ratio prints exactly (25 / 16 = 1.5625); longer ones are rounded."""
ROUNDED_PLACES = 2


def decimal(value: float | Fraction) -> str:
    """``value`` with thousands separators: exact when it ends within four places, else to two.

    >>> decimal(Fraction(18, 16)), decimal(1.5), decimal(Fraction(20, 12)), decimal(16.0)
    ('1.125', '1.5', '1.67', '16')
    """
    exact = value if isinstance(value, Fraction) else Fraction(value).limit_denominator(10**9)
    for places in range(EXACT_PLACES + 1):
        scaled = exact * 10**places
        if scaled.denominator == 1:
            return _trimmed(f"{float(exact):,.{places}f}")
    return _trimmed(f"{float(exact):,.{ROUNDED_PLACES}f}")


def ratio(numerator: int, denominator: int) -> str:
    """``numerator / denominator`` as :func:`decimal` prints it, computed exactly ("-" when dividing by 0).

    >>> ratio(18, 16), ratio(20, 12), ratio(3, 0)
    ('1.125', '1.67', '-')
    """
    return decimal(Fraction(numerator, denominator)) if denominator else "-"


def _trimmed(text: str) -> str:
    return text.rstrip("0").rstrip(".") if "." in text else text
