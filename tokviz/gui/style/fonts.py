"""The fonts of the editor, the token views and the pictures (with CJK and emoji fallbacks).

On screen emoji come from the system's colour emoji font. Pages written as PDF are set with
:func:`printed_fonts`: emoji then come from the bundled monochrome outline font (Noto Emoji), whose
glyphs a PDF keeps as text, where a colour font's glyphs become pictures with no text.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache

from PySide6.QtCore import QByteArray
from PySide6.QtGui import QFont, QFontDatabase, QTextLayout

from tokviz.core.io.pdf_text import restore_text
from tokviz.core.io.resources import resource_path
from tokviz.core.io.sfnt import (
    glyph_texts,
    postscript_name,
    with_private_codes,
    without_absorbing_ligatures,
    without_variations,
)

MONO_FAMILIES = [
    "DejaVu Sans Mono",
    "Menlo",
    "Consolas",
    "Noto Sans Mono",
    "Noto Sans Mono CJK SC",
    "Noto Color Emoji",
    "Apple Color Emoji",
    "Segoe UI Emoji",
]
SANS_FAMILIES = ["DejaVu Sans", "Noto Sans", "Segoe UI", "Helvetica", "Noto Sans CJK SC", "Noto Color Emoji"]
COLOR_EMOJI = ("Noto Color Emoji", "Apple Color Emoji", "Segoe UI Emoji")
PRINT_EMOJI_FILE = ("fonts", "NotoEmoji[wght].ttf")

SEGMENTER_OFF = "QT_DISABLE_EMOJI_SEGMENTER"

_printing = False  # within printed_fonts()


def family_fallback_for_emoji() -> None:
    """Let the font families choose the font of emoji too, as they choose it for every other character:
    for a process that writes PDFs, called before its application starts.

    Since Qt 6.9 a run of emoji is set in a colour emoji font whatever the font's families say, and
    a colour glyph reaches a PDF as a picture, without its text. With Qt's emoji segmenter off (read
    once, at the first text Qt lays out), emoji fall back through the families, and in print
    (:func:`printed_fonts`) the bundled outline font comes first among them. The window keeps the
    segmenter: without it an emoji asked for by U+FE0F after a character the text font has (❤️)
    would be drawn in the text font, not in colour. A value already set is kept.
    """
    os.environ.setdefault(SEGMENTER_OFF, "1")


def emoji_fall_back_by_family() -> bool:
    """Whether Qt sets emoji in this process in the font its families name (its emoji segmenter is
    off: :func:`family_fallback_for_emoji`), asked of Qt itself: 🌍 laid out in the bundled outline
    font stays in it. False also when that font cannot be loaded."""
    emoji = print_emoji()
    if emoji is None:
        return False
    font = QFont()
    font.setFamilies([emoji.family])
    layout = QTextLayout("\U0001f30d", font)
    layout.beginLayout()
    layout.createLine()
    layout.endLayout()
    return all(run.rawFont().familyName() == emoji.family for run in layout.glyphRuns())


@dataclass(frozen=True)
class PrintEmoji:
    """The bundled emoji font as registered with Qt for print, and what a PDF needs to know of it."""

    family: str
    postscript_name: str
    texts: dict[int, str]  # glyph -> the text it writes


@cache
def print_emoji() -> PrintEmoji | None:
    """The bundled emoji font, registered with Qt once; None if Qt cannot load it.

    The font is registered as :func:`tokviz.core.io.sfnt.with_private_codes` copies it, so that
    each of its glyphs reaches a PDF's text layer as a code :func:`tokviz.core.io.pdf_text.restore_text`
    turns back into the glyph's text, with no ligature that swallows a character (an emoji's skin
    tone: :func:`tokviz.core.io.sfnt.without_absorbing_ligatures`), and as its default instance only
    (:func:`tokviz.core.io.sfnt.without_variations`), so that a bold emoji is the same font, by name.
    """
    font = resource_path(*PRINT_EMOJI_FILE).read_bytes()
    printed = with_private_codes(without_absorbing_ligatures(without_variations(font)))
    loaded = QFontDatabase.addApplicationFontFromData(QByteArray(printed))
    families = QFontDatabase.applicationFontFamilies(loaded) if loaded >= 0 else []
    if not families:
        return None
    return PrintEmoji(families[0], postscript_name(font), glyph_texts(font))


@contextmanager
def printed_fonts() -> Iterator[None]:
    """Within it, the fonts made here set emoji in the bundled outline font (before any colour one):
    for painting a PDF, whose text layer :func:`printed_text` then completes."""
    global _printing
    before, _printing = _printing, print_emoji() is not None
    try:
        yield
    finally:
        _printing = before


def printed_text(pdf: bytes) -> bytes:
    """A PDF painted within :func:`printed_fonts`, with the texts of its emoji glyphs in its text layer."""
    emoji = print_emoji()
    return pdf if emoji is None else restore_text(pdf, emoji.postscript_name, emoji.texts)


def _families(families: list[str]) -> list[str]:
    """``families``, with the bundled emoji font ahead of the colour ones while printing."""
    emoji = print_emoji() if _printing else None
    if emoji is None:
        return families
    first = next((i for i, name in enumerate(families) if name in COLOR_EMOJI), len(families))
    return [*families[:first], emoji.family, *families[first:]]


def mono_font(point_size: float) -> QFont:
    """The monospace font of the editor and views, with CJK and emoji fallbacks."""
    font = QFont()
    font.setFamilies(_families(MONO_FAMILIES))
    font.setStyleHint(QFont.StyleHint.Monospace)
    font.setPointSizeF(point_size)
    return font


def sans_font(point_size: float, bold: bool = False) -> QFont:
    """The font of captions and headers."""
    font = QFont()
    font.setFamilies(_families(SANS_FAMILIES))
    font.setPointSizeF(point_size)
    font.setBold(bold)
    return font
