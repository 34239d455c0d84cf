"""The type sizes of presentation mode, as shares of the screen's height.

A projector at 1024 × 768 and a 1080p screen should show the lecture in the same proportions: the
sizes below are those of a 768-pixel-high screen at 96 dpi, and every other screen gets them scaled
by its height (and by its dots per inch, so that a point still covers the same share of pixels).
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtGui import QGuiApplication, QScreen
from PySide6.QtWidgets import QWidget

REFERENCE_HEIGHT = 768
REFERENCE_DPI = 96.0
# Point sizes on the reference screen.
TEXT_POINT_SIZE = 22.0
UI_POINT_SIZE = 12.6
CHART_POINT_SIZE = 15.0
COUNTER_POINT_SIZE = 17.0


@dataclass(frozen=True)
class PresentationSizes:
    """Point sizes of presentation mode on one screen: the editor and token views (``text``), labels,
    tables, menus, hover cards and floating panels (``ui``), the chart's labels (``chart``) and the big
    counters (``counter``)."""

    text: float
    ui: float
    chart: float
    counter: float

    @property
    def scale(self) -> float:
        """How much larger than on the reference screen (1.0 at 1024 × 768, 96 dpi)."""
        return self.text / TEXT_POINT_SIZE


def presentation_sizes(screen_height: int, dpi: float = REFERENCE_DPI) -> PresentationSizes:
    """The sizes for a screen ``screen_height`` logical pixels high with ``dpi`` logical dots per inch."""
    scale = max(1, screen_height) / REFERENCE_HEIGHT * REFERENCE_DPI / max(1.0, dpi)
    return PresentationSizes(
        text=TEXT_POINT_SIZE * scale,
        ui=UI_POINT_SIZE * scale,
        chart=CHART_POINT_SIZE * scale,
        counter=COUNTER_POINT_SIZE * scale,
    )


def sizes_for(widget: QWidget | None) -> PresentationSizes:
    """The sizes for the screen ``widget`` is on (the primary screen when it has none)."""
    screen: QScreen | None = widget.screen() if widget is not None else None
    if screen is None:
        screen = QGuiApplication.primaryScreen()
    if screen is None:
        return presentation_sizes(REFERENCE_HEIGHT)  # type: ignore[unreachable]  # the stubs say never None; with no screen Qt returns None
    return presentation_sizes(screen.geometry().height(), screen.logicalDotsPerInchY())
