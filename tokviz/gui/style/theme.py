"""Light and dark themes: the application palette and the colours tokens are drawn with.

A token's colour comes from a hash of its id (:mod:`tokviz.core.show.token_colours`). Two different
neighbouring tokens whose hues are close get opposite lightness, so a boundary is always visible
even when the hashes collide; the same id twice in a row keeps one colour. Partial-UTF-8 tokens are hatched amber, special tokens violet.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette

from tokviz.core.show.token_colours import HUES, colour_indices, light_fill_hsl


@dataclass(frozen=True)
class TokenColors:
    """Everything a token view paints with, for one theme."""

    dark: bool
    fills: tuple[QColor, ...]
    text: QColor
    base: QColor
    partial_fill: QColor
    partial_hatch: QColor
    partial_border: QColor
    special_fill: QColor
    special_border: QColor
    chunk_mark: QColor
    diff_mark: QColor
    hover: QColor
    highlight: QColor
    highlight_fill: QColor
    editor_highlight: QColor
    muted: QColor = field(default_factory=lambda: QColor("#777777"))


# Dark-theme fills, two shades of each hue above at CIELAB lightness 22 and 42 (saturation 0.7):
# every box stands out from the near-black background, neighbours differ by a colour difference of
# at least 19 (CIE76), and the light text keeps a contrast of at least 5:1 on each.
DARK_FILLS = (
    "#691313", "#c02222", "#4f2c0e", "#94531a", "#3e340b", "#756215", "#2f390a", "#596a13",
    "#133d0b", "#247214", "#0b3d24", "#147243", "#0a3b37", "#146f67", "#0d3948", "#186b87",
    "#123464", "#2161bb", "#261b9a", "#584bdf", "#521472", "#9725d1", "#631148", "#b52083",
)  # fmt: skip


def _fills(dark: bool) -> tuple[QColor, ...]:
    if dark:
        return tuple(QColor(name) for name in DARK_FILLS)
    return tuple(QColor.fromHslF(*light_fill_hsl(index)) for index in range(2 * HUES))


ColourValue = str | tuple[int, int, int, int] | QColor
"""A colour in a palette table: ``"#rrggbb"``, ``(r, g, b, alpha)`` or a QColor."""

# The themes' token colours by TokenColors field (the fills come from _fills).
THEME_COLOURS: dict[bool, dict[str, ColourValue]] = {
    True: {
        "text": "#ececec",
        "base": "#1e1f22",
        "partial_fill": "#4a3a12",
        "partial_hatch": (201, 154, 46, 60),
        "partial_border": "#f0b640",
        "special_fill": "#4b2f73",
        "special_border": "#c39bff",
        "chunk_mark": "#f2f2f2",
        "diff_mark": "#ff5c8a",
        "hover": "#ffffff",
        "highlight": "#4fc3f7",
        "highlight_fill": (79, 195, 247, 70),
        "editor_highlight": "#2f5b7a",
        "muted": "#9a9a9a",
    },
    False: {
        "text": "#111111",
        "base": "#ffffff",
        "partial_fill": "#fff1c7",
        "partial_hatch": (217, 165, 32, 75),
        "partial_border": "#b7791f",
        "special_fill": "#e6dafc",
        "special_border": "#6b3fb8",
        "chunk_mark": "#1b1b1b",
        "diff_mark": "#d6246e",
        "hover": "#111111",
        "highlight": "#0a66c2",
        "highlight_fill": (10, 102, 194, 45),
        "editor_highlight": "#bfe0ff",
        "muted": "#6b6b6b",
    },
}


def _qcolor(value: ColourValue) -> QColor:
    if isinstance(value, QColor):
        return QColor(value)
    return QColor(*value) if isinstance(value, tuple) else QColor(value)


def palette_from(dark: bool, fills: tuple[QColor, ...], table: dict[str, ColourValue]) -> TokenColors:
    """The :class:`TokenColors` a palette table gives (one entry per field, see :data:`THEME_COLOURS`):
    the themes and presentation mode differ only in their tables."""
    c = {name: _qcolor(value) for name, value in table.items()}
    return TokenColors(
        dark=dark,
        fills=fills,
        text=c["text"],
        base=c["base"],
        partial_fill=c["partial_fill"],
        partial_hatch=c["partial_hatch"],
        partial_border=c["partial_border"],
        special_fill=c["special_fill"],
        special_border=c["special_border"],
        chunk_mark=c["chunk_mark"],
        diff_mark=c["diff_mark"],
        hover=c["hover"],
        highlight=c["highlight"],
        highlight_fill=c["highlight_fill"],
        editor_highlight=c["editor_highlight"],
        muted=c["muted"],
    )


def token_colors(dark: bool) -> TokenColors:
    """The token palette for a light or a dark background."""
    return palette_from(dark, _fills(dark), THEME_COLOURS[dark])


def colour_indices_range(ids: np.ndarray, first: int, stop: int, context: int = 256) -> np.ndarray:
    """:func:`colour_indices` for tokens ``[first, stop)`` only, looking back ``context`` tokens.

    Painting needs only the tokens on screen; the look-back lets a run of similar hues that starts
    before the screen keep its alternation (runs longer than ``context`` may restart it).
    """
    lo = max(0, first - context)
    return colour_indices(ids[lo:stop])[first - lo :]


def system_prefers_dark() -> bool:
    """True when the desktop asks for a dark colour scheme."""
    hints = QGuiApplication.styleHints()
    return hints.colorScheme() == Qt.ColorScheme.Dark


def app_palette(dark: bool) -> QPalette:
    """A complete Fusion palette for the light or dark theme (readable when projected)."""
    p = QPalette()
    if dark:
        window, base, alt, text = QColor("#2b2d30"), QColor("#1e1f22"), QColor("#26282b"), QColor("#e6e6e6")
        button, highlight, link = QColor("#3a3d41"), QColor("#2f6fb3"), QColor("#6cb6ff")
        disabled = QColor("#808080")
    else:
        window, base, alt, text = QColor("#f3f3f3"), QColor("#ffffff"), QColor("#f7f7f9"), QColor("#111111")
        button, highlight, link = QColor("#e9e9eb"), QColor("#2f6fb3"), QColor("#0a58ca")
        disabled = QColor("#9a9a9a")
    roles = {
        QPalette.ColorRole.Window: window,
        QPalette.ColorRole.WindowText: text,
        QPalette.ColorRole.Base: base,
        QPalette.ColorRole.AlternateBase: alt,
        QPalette.ColorRole.ToolTipBase: base,
        QPalette.ColorRole.ToolTipText: text,
        QPalette.ColorRole.PlaceholderText: disabled,
        QPalette.ColorRole.Text: text,
        QPalette.ColorRole.Button: button,
        QPalette.ColorRole.ButtonText: text,
        QPalette.ColorRole.BrightText: QColor("#ff4d4d"),
        QPalette.ColorRole.Highlight: highlight,
        QPalette.ColorRole.HighlightedText: QColor("#ffffff"),
        QPalette.ColorRole.Link: link,
    }
    for role, colour in roles.items():
        p.setColor(role, colour)
    for role in (QPalette.ColorRole.Text, QPalette.ColorRole.WindowText, QPalette.ColorRole.ButtonText):
        p.setColor(QPalette.ColorGroup.Disabled, role, disabled)
    return p
