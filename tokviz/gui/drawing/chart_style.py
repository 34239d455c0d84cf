"""The exchange-rate chart's vocabulary: its views, inputs, series colours and text sizes.

Everything here is shared by the chart's dock panel and its drawing; nothing imports pyqtgraph.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QSize
from PySide6.QtGui import QColor, QFont

from tokviz.gui.style.theme import token_colors
from tokviz.gui.text.samples import CATEGORY_SAMPLES

VIEWS = {
    "bytes": "Bytes per token",
    "attention": "Attention cost",
    "vocab": "Vocabulary vs embedding size",
}
VIEW_TIPS = {
    "bytes": "UTF-8 bytes over tokens for every input and tokenizer: higher means more text per token",
    "attention": "Dense attention cost (n / n_best)² against the tokenizer with the fewest tokens",
    "vocab": "What a bigger vocabulary costs (V × d embedding parameters) and buys (bytes per token)",
}
EDITOR_LABEL = "Editor text"
# Short names for the category samples: they are the x-axis labels.
SAMPLE_LABELS = {
    "english.txt": "English prose",
    "python.py": "Python source",
    "data.json": "JSON",
    "chinese.txt": "Chinese",
    "digits.txt": "Digits (π)",
}
# Exports have the shape of a slide whatever the dock's shape on screen.
EXPORT_SIZE = QSize(1280, 720)
# A categorical palette, in the order tokenizers are added: GPT-2 blue, cl100k green, then red,
# purple, brown, pink, cyan, grey. Amber is left to the byte tokenizer. Every two of the eight and
# the amber are at least 25 CIELAB units apart (categories, not shades), on light and dark.
SERIES_LIGHT = ("#1f77b4", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#7f7f7f")
SERIES_DARK = ("#5fa2dd", "#5cc863", "#ff6b6b", "#b08be8", "#a0785a", "#f7a8d8", "#6fdbe8", "#b4b4b4")
BASE_POINT_SIZE = 10.0
LARGE_POINT_SIZE = 15.0
DEBOUNCE_MS = 150
CACHE_ENTRIES = 256


def series_color(slot: int, dark: bool) -> QColor:
    """Fill colour of the ``slot``-th tokenizer that is not byte-level, for a light or dark background."""
    palette = SERIES_DARK if dark else SERIES_LIGHT
    return QColor(palette[slot % len(palette)])


def byte_color(dark: bool) -> QColor:
    """The byte tokenizer's colour: the amber the token views give tokens that are single bytes of a character."""
    return token_colors(dark).partial_border


@dataclass(frozen=True)
class ChartInput:
    """One group of bars: the editor's text, a category sample, or a file the user added."""

    label: str
    text: str
    kind: str  # "editor", "sample" or "file"


def sample_inputs() -> list[ChartInput]:
    """The five category samples (English prose, Python source, JSON, Chinese, digits)."""
    return [
        ChartInput(SAMPLE_LABELS.get(s.filename or "", s.title), s.load(), "sample") for s in CATEGORY_SAMPLES
    ]


@dataclass(frozen=True)
class ChartStyle:
    """Colours and font sizes of one rendering: light or dark, normal or presentation size."""

    dark: bool = False
    large: bool = False
    # Line widths and marker sizes are in device pixels: a 2x image needs them doubled.
    pen_scale: float = 1.0
    # The presentation size on screen follows the screen's height (style.presentation_sizes);
    # exports, which have the shape of a slide, keep this one.
    large_point_size: float = LARGE_POINT_SIZE

    @property
    def point_size(self) -> float:
        """Size of tick labels, legend and caption; titles and bar labels are derived from it."""
        return self.large_point_size if self.large else BASE_POINT_SIZE

    @property
    def background(self) -> QColor:
        """The token views' background, so the chart sits in the window like they do."""
        return token_colors(self.dark).base

    @property
    def foreground(self) -> QColor:
        """Text and tick labels."""
        return token_colors(self.dark).text

    @property
    def muted(self) -> QColor:
        """Axis lines, reference lines and hints."""
        return token_colors(self.dark).muted

    def font(self, scale: float = 1.0, bold: bool = False) -> QFont:
        """The application's font at this style's size times ``scale``."""
        font = QFont()
        font.setPointSizeF(self.point_size * scale)
        font.setBold(bold)
        return font


def short_labels(labels: Sequence[str]) -> dict[str, str]:
    """File paths shortened to their names when that keeps them apart (x-axis labels must be short)."""
    names = {label: Path(label).name or label for label in labels}
    if len(set(names.values())) != len(names):
        return {label: label for label in labels}
    return names
