"""Token fills on the dark theme: neighbours stay apart and the text on them stays readable."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtGui import QColor

from tokviz.gui.style.theme import colour_indices, token_colors
from tokviz.gui.window.presentation import contrast_ratio


def lab(colour: QColor) -> np.ndarray:
    """CIELAB of an sRGB colour."""
    c = np.array([colour.redF(), colour.greenF(), colour.blueF()])
    linear = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    xyz = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]]) @ linear
    n = xyz / np.array([0.95047, 1.0, 1.08883])
    f = np.where(n > 0.008856, np.cbrt(n), 7.787 * n + 16 / 116)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def neighbour_pairs() -> set[tuple[int, int]]:
    rng = np.random.default_rng(11)
    pairs: set[tuple[int, int]] = set()
    for _ in range(40):
        idx = colour_indices(rng.integers(0, 100_000, size=5000))
        pairs.update(zip(idx[:-1].tolist(), idx[1:].tolist()))
    return {(a, b) for a, b in pairs if a != b}


@pytest.mark.parametrize("dark", [False, True])
def test_neighbouring_fills_are_clearly_different_colours(dark):
    fills = token_colors(dark).fills
    worst = min(float(np.linalg.norm(lab(fills[a]) - lab(fills[b]))) for a, b in neighbour_pairs())
    assert worst >= 12.5


def test_dark_fills_are_not_near_black_and_their_two_shades_differ_in_lightness():
    colors = token_colors(True)
    base = lab(colors.base)[0]
    lightness = [lab(f)[0] for f in colors.fills]
    assert min(lightness) >= base + 8, "a box stands out from the background"
    for hue in range(0, len(lightness), 2):
        assert abs(lightness[hue + 1] - lightness[hue]) >= 15, "a hue's two shades read as darker and lighter"
    pairs = neighbour_pairs()
    assert min(float(np.linalg.norm(lab(colors.fills[a]) - lab(colors.fills[b]))) for a, b in pairs) >= 18


@pytest.mark.parametrize("dark", [False, True])
def test_token_text_is_readable_on_every_fill(dark):
    colors = token_colors(dark)
    assert min(contrast_ratio(fill, colors.text) for fill in colors.fills) >= 4.5
