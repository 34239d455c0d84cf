"""The text styles of a slide, in one place: every text a slide paints takes one of these.

Sizes are logical pixels of the slide's canvas, 900 high (:mod:`tokviz.gui.lecture.paint`). The
smallest is chosen so that a slide on a 1024×768 projector shows no text under :data:`LEGIBLE_PX`
pixels, even when a slide full of content shrinks to :data:`LEGIBLE_SCALE`. A new kind of block
paints with these styles and the layout's colours (text, muted, highlight on the slide's base, all
at least 4.5:1), and the legibility check of the tests holds for it with nothing else to do.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QRectF
from PySide6.QtGui import QFont, QFontMetricsF, QPainter

from tokviz.gui.style.fonts import mono_font, sans_font

CANVAS_HEIGHT = 900.0
PROJECTOR_RATIO = 768 / CANVAS_HEIGHT
"""How a canvas is scaled on a 1024×768 projector, the smallest screen a lecture is given on."""
LEGIBLE_PX = 20.0
"""The smallest text a back row reads on that projector, in its pixels."""


@dataclass(frozen=True)
class TextStyle:
    """One kind of text on a slide: its size in logical pixels of the canvas, weight and family."""

    size: float
    bold: bool = False
    mono: bool = False


TEXT_STYLES: dict[str, TextStyle] = {
    "title": TextStyle(54.0, bold=True),
    "words": TextStyle(34.0),
    "chip": TextStyle(40.0, mono=True),
    "sub": TextStyle(27.0, mono=True),
    "value": TextStyle(76.0, bold=True),
    "label": TextStyle(27.0),
    "caption": TextStyle(28.0),
    "table": TextStyle(30.0),
    "head": TextStyle(28.0, bold=True),
    "footer": TextStyle(27.0),
}
"""Every text style a slide paints with, in one place: a new block uses these and stays legible.
The smallest, 27, is 23 pixels on a 1024×768 projector, so a slide may shrink to
:data:`LEGIBLE_SCALE` before any text is under :data:`LEGIBLE_PX`."""
LEGIBLE_SCALE = LEGIBLE_PX / (PROJECTOR_RATIO * min(style.size for style in TEXT_STYLES.values()))
"""The smallest layout scale at which every text is still legible on the projector."""


def text_font(kind: str, scale: float) -> QFont:
    style = TEXT_STYLES[kind]
    size = style.size
    # Sizes are logical pixels of the canvas; point sizes equal pixels at 72 dpi painting.
    font = mono_font(size * scale) if style.mono else sans_font(size * scale, bold=style.bold)
    font.setPixelSize(max(1, round(size * scale)))
    return font


_WIDTHS: dict[tuple[str, str], float] = {}
_WIDTHS_KEPT = 200_000


def text_width(fm: QFontMetricsF, font_key: str, text: str) -> float:
    """``fm.horizontalAdvance(text)``, measured once per font and text: the fitting loop tries the
    same sizes on every slide, and a handout per step lays out the same labels on every page."""
    key = (font_key, text)
    width = _WIDTHS.get(key)
    if width is None:
        if len(_WIDTHS) >= _WIDTHS_KEPT:
            _WIDTHS.clear()
        width = _WIDTHS[key] = fm.horizontalAdvance(text)
    return width


@dataclass(frozen=True)
class TextItem:
    """A text as laid out: its rectangle and the width its font needs (checks compare the two)."""

    text: str
    rect: QRectF
    needed: float


@dataclass
class Placed:
    """One block's painting, deferred until the whole slide fits."""

    height: float
    paint: Callable[[QPainter, float], None]
