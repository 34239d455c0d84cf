"""Presentation mode's palette: a colour-blind-safe, high-contrast set of token colours.

Token colours come from six Okabe–Ito hues, each as a light and a mid tint. The theme's colour
indices give neighbours whose hue slots are adjacent opposite lightness, so slots 2k and 2k+1 may
share a hue family: two neighbours then always differ either in lightness (same or adjacent
family) or in hue family (slots two or more apart), a difference that survives the common forms
of colour blindness and a washed-out projector. Partial-UTF-8 tokens are told apart by their
hatching and dashed outline, special tokens by a heavy outline, never by colour alone.
"""

from __future__ import annotations

from PySide6.QtGui import QColor, QPalette

from tokviz.gui.style.theme import ColourValue, TokenColors, app_palette, palette_from

# Okabe & Ito (2008), "Color Universal Design": distinguishable under the common colour-vision deficiencies.
OKABE_ITO = {
    "orange": "#E69F00",
    "sky blue": "#56B4E9",
    "bluish green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "reddish purple": "#CC79A7",
    "black": "#000000",
}
# Token fills: six Okabe–Ito hues (vermillion is kept for marks), each at two luminances, for
# black text on a light background and white text on a dark one. The luminances were searched so
# that any two fills that can meet as neighbours stay apart (CIE76 ΔE ≥ 8.5 light, ≥ 7.5 dark) even
# under a full protan, deutan or tritan simulation (Machado et al. 2009). Black text on the light
# fills keeps a contrast of at least 7:1 (WCAG AAA); white text on the dark fills at least 4.5:1,
# AAA for large text (presentation type is 18 pt and more), which leaves the dark fills bright
# enough to stand apart from the black page; tests/gui/test_presentation.py checks all three.
FAMILIES = ("orange", "sky blue", "bluish green", "yellow", "blue", "reddish purple")
LIGHT_FILLS = (
    ("#F0C463", "#C98B00"),
    ("#C4E5F7", "#59B5E9"),
    ("#DDF2EC", "#73CAB2"),
    ("#F1E651", "#C4BA36"),
    ("#88BDDB", "#509ECB"),
    ("#E8C3D7", "#CF7DAA"),
)
DARK_FILLS = (
    ("#865B00", "#9E6C00"),
    ("#397CA2", "#1A4055"),
    ("#006E4F", "#00523A"),
    ("#575212", "#413D0B"),
    ("#006198", "#00507E"),
    ("#A05E83", "#7D4865"),
)


def _mix(colour: str, other: str, amount: float) -> QColor:
    """``colour`` moved ``amount`` (0..1) of the way towards ``other``."""
    a, b = QColor(colour), QColor(other)
    return QColor(
        round(a.red() + (b.red() - a.red()) * amount),
        round(a.green() + (b.green() - a.green()) * amount),
        round(a.blue() + (b.blue() - a.blue()) * amount),
    )


def _fills(dark: bool) -> tuple[QColor, ...]:
    """24 fills indexed ``hue_slot * 2 + lightness``: hue slots 2k and 2k+1 share family k."""
    table = DARK_FILLS if dark else LIGHT_FILLS
    return tuple(QColor(table[slot // 2][light]) for slot in range(12) for light in (0, 1))


def _ink_and_paper(dark: bool) -> tuple[str, str]:
    """Presentation mode's text colour and background: pure white on black, or pure black on white."""
    return ("#ffffff", "#000000") if dark else ("#000000", "#ffffff")


def _presentation_table(dark: bool) -> dict[str, ColourValue]:
    """Pure black or white text and strong marks, by TokenColors field."""
    ink, paper = _ink_and_paper(dark)
    plain: dict[str, ColourValue] = {
        "text": ink,
        "base": paper,
        "partial_border": ink,
        "special_fill": paper,
        "special_border": ink,
        "chunk_mark": ink,
        "hover": ink,
    }
    if dark:
        return plain | {
            "partial_fill": "#3a3a3a",
            "partial_hatch": (255, 255, 255, 70),
            "diff_mark": _mix(OKABE_ITO["vermillion"], "#ffffff", 0.2),
            "highlight": _mix(OKABE_ITO["sky blue"], "#ffffff", 0.2),
            "highlight_fill": (86, 180, 233, 90),
            "editor_highlight": _mix(OKABE_ITO["blue"], "#000000", 0.3),
            "muted": "#c8c8c8",
        }
    return plain | {
        "partial_fill": "#ececec",
        "partial_hatch": (0, 0, 0, 60),
        "diff_mark": OKABE_ITO["vermillion"],
        "highlight": OKABE_ITO["blue"],
        "highlight_fill": (0, 114, 178, 60),
        "editor_highlight": _mix(OKABE_ITO["sky blue"], "#ffffff", 0.5),
        "muted": "#404040",
    }


def presentation_colors(dark: bool) -> TokenColors:
    """The presentation palette for a light or a dark background: pure black or white text, strong marks."""
    return palette_from(dark, _fills(dark), _presentation_table(dark))


def presentation_palette(dark: bool) -> QPalette:
    """The theme's palette with pure black and white for text and the text areas' background."""
    palette = app_palette(dark)
    ink, paper = (QColor(c) for c in _ink_and_paper(dark))
    for role in (QPalette.ColorRole.Text, QPalette.ColorRole.WindowText, QPalette.ColorRole.ButtonText):
        palette.setColor(QPalette.ColorGroup.Active, role, ink)
        palette.setColor(QPalette.ColorGroup.Inactive, role, ink)
    palette.setColor(QPalette.ColorRole.Base, paper)
    return palette


def relative_luminance(colour: QColor) -> float:
    """WCAG relative luminance of an sRGB colour (0 black … 1 white)."""

    def channel(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    return (
        0.2126 * channel(colour.redF()) + 0.7152 * channel(colour.greenF()) + 0.0722 * channel(colour.blueF())
    )


def contrast_ratio(a: QColor, b: QColor) -> float:
    """WCAG contrast ratio between two colours (1 … 21); body text wants at least 4.5, slides 7."""
    la, lb = sorted((relative_luminance(a), relative_luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)
