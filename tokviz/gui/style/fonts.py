"""The fonts of the editor, the token views and the pictures (with CJK and emoji fallbacks)."""

from __future__ import annotations

from PySide6.QtGui import QFont

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


def mono_font(point_size: float) -> QFont:
    """The monospace font of the editor and views, with CJK and emoji fallbacks."""
    font = QFont()
    font.setFamilies(MONO_FAMILIES)
    font.setStyleHint(QFont.StyleHint.Monospace)
    font.setPointSizeF(point_size)
    return font


def sans_font(point_size: float, bold: bool = False) -> QFont:
    """The font of captions and headers."""
    font = QFont()
    font.setFamilies(
        ["DejaVu Sans", "Noto Sans", "Segoe UI", "Helvetica", "Noto Sans CJK SC", "Noto Color Emoji"]
    )
    font.setPointSizeF(point_size)
    font.setBold(bold)
    return font
