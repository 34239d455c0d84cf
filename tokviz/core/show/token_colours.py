"""Which colour each token gets: a hue from its id, and different neighbours that never look alike.

The rule, the same in the token views, the pictures, the slides and the HTML pages: an id's hue
and shade come from a hash of the id; where two *different* tokens of the same or a neighbouring
hue sit side by side, their shades alternate so the boundary shows. The same id twice in a row
(GPT-2's space, 220, in "a  b") keeps one colour: the gap between the boxes marks the boundary.
Qt-free: the GUI turns the indices into its own colours.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

HUES = 12
HUE_DEGREES = (0, 28, 48, 72, 110, 150, 175, 195, 215, 245, 280, 320)
"""Hues (degrees) chosen so that each reads as a distinct colour name on a projector."""


def colour_indices(ids: np.ndarray | Sequence[int]) -> np.ndarray:
    """Palette index (``hue * 2 + lightness``) for each token of a sequence.

    The hue and default lightness come from a hash of the id; inside a run of neighbours whose hues
    are equal or adjacent, lightness alternates at each change of id, so that no two different
    neighbours look alike and repeats of one id keep one colour.
    """
    ids = np.asarray(ids, dtype=np.int64)
    n = int(ids.shape[0])
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    h = (ids.astype(np.uint64) * np.uint64(2654435761)) & np.uint64(0xFFFFFFFF)
    hue = ((h >> np.uint64(8)) % np.uint64(HUES)).astype(np.int64)
    light = ((h >> np.uint64(21)) & np.uint64(1)).astype(np.int64)
    close = np.zeros(n, dtype=bool)
    if n > 1:
        d = np.abs(hue[1:] - hue[:-1])
        close[1:] = np.minimum(d, HUES - d) <= 1
    starts = np.flatnonzero(~close)
    run = np.cumsum(~close) - 1
    # Changes of id since the run's first token: a repeated id is not a new neighbour.
    changed = np.zeros(n, dtype=np.int64)
    changed[1:] = ids[1:] != ids[:-1]
    changes = np.cumsum(changed)
    flips = changes - changes[starts[run]]
    lightness = light[starts[run]] ^ (flips & 1)
    return hue * 2 + lightness


def light_fill_hsl(index: int) -> tuple[float, float, float]:
    """The light theme's fill for a palette index, as HSL fractions (hue, saturation, lightness)."""
    deg = HUE_DEGREES[(index // 2) % HUES]
    # Yellow-greens look brighter at equal lightness; pull them down a little.
    bright = 0.03 if 40 <= deg <= 120 else 0.0
    if index % 2 == 0:
        return deg / 360.0, 0.80, 0.88 - bright
    return deg / 360.0, 0.72, 0.76 - bright


def fill_css(index: int) -> str:
    """The light theme's fill for a palette index as a CSS ``hsl()`` colour."""
    h, s, lum = light_fill_hsl(int(index))
    return f"hsl({round(h * 360)},{round(s * 100)}%,{round(lum * 100)}%)"
