"""What the exchange-rate chart's layers (bars, vocabulary markers) read from the canvas they draw on.

:class:`~tokviz.gui.drawing.chart_canvas.ChartCanvas` owns its layers and hands each itself; the
layers know it only as a :class:`ChartSurface`, so they sit below the canvas rather than beside it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import pyqtgraph as pg
    from PySide6.QtGui import QColor

    from tokviz.core.analysis.exchange import ExchangeTable
    from tokviz.gui.drawing.chart_style import ChartStyle


class ChartSurface(Protocol):
    """The table, view and style a layer draws, the plot it draws in and the canvas's layout calls."""

    table: ExchangeTable | None
    view: str
    style_: ChartStyle
    embedding_dim: int
    plot: pg.PlotItem
    hint: pg.TextItem

    def color_of(self, j: int) -> QColor:
        """Colour of tokenizer ``j`` of the current table."""
        ...

    def bar_columns(self) -> list[int]:
        """The table's columns drawn as bars in the current view."""
        ...

    def empty_hint(self) -> str:
        """What an empty chart says."""
        ...

    def set_axis_labels(self, left: str, bottom: str) -> None:
        """Name the axes, in the canvas's style."""
        ...

    def set_bottom_title(self, text: str) -> None:
        """Change the x axis's title, keeping its style."""
        ...

    def graphics_room(self) -> float:
        """The height left for the plot once the title, legend and summary have theirs (pixels)."""
        ...

    def reserve_bottom_axis(self, lines: float, top_lines: float = 0.0) -> None:
        """Give the x axis room for ``lines`` lines of text (and the top axis ``top_lines``)."""
        ...
