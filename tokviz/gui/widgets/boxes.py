"""Rows and columns of widgets, written as the list of what they hold, and scroll areas around them.

``column(top_row, self.editor, (self.view, 1), STRETCH, parent=self)`` says in one call what a
``QVBoxLayout`` and one ``addWidget``/``addLayout``/``addStretch`` call per item say in many, so a
form reads as the order of its parts.
"""

from __future__ import annotations

from typing import TypeVar

from PySide6.QtWidgets import QBoxLayout, QHBoxLayout, QLayout, QScrollArea, QVBoxLayout, QWidget

STRETCH = 1
"""An item that is a whole number is empty room of that stretch factor (``addStretch``)."""

Box = TypeVar("Box", bound=QBoxLayout)
Margins = int | tuple[int, int, int, int]
"""The same margin on every side, or (left, top, right, bottom), in pixels."""

Item = QWidget | QLayout | int | tuple[QWidget, int]
"""A widget, a nested layout, empty room (a stretch factor), or a widget and its stretch factor."""


def column(
    *items: Item, parent: QWidget | None = None, margins: Margins | None = None, spacing: int | None = None
) -> QVBoxLayout:
    """A vertical box of ``items`` in order, set on ``parent`` if given; ``margins`` and ``spacing``
    (pixels) replace the style's when given."""
    return _fill(QVBoxLayout(parent) if parent is not None else QVBoxLayout(), items, margins, spacing)


def row(
    *items: Item, parent: QWidget | None = None, margins: Margins | None = None, spacing: int | None = None
) -> QHBoxLayout:
    """A horizontal box of ``items``, as :func:`column` is a vertical one."""
    return _fill(QHBoxLayout(parent) if parent is not None else QHBoxLayout(), items, margins, spacing)


def scrolled(
    widget: QWidget, object_name: str, parent: QWidget, kind: type[QScrollArea] = QScrollArea
) -> QScrollArea:
    """``widget`` in a frameless scroll area (a ``kind``) that gives it its whole width and scrolls
    what does not fit: the way a panel keeps tall content from setting its dock's height."""
    area = kind(parent)
    area.setObjectName(object_name)
    area.setWidgetResizable(True)
    area.setFrameShape(QScrollArea.Shape.NoFrame)
    area.setWidget(widget)
    return area


def _fill(box: Box, items: tuple[Item, ...], margins: Margins | None, spacing: int | None) -> Box:
    if margins is not None:
        box.setContentsMargins(*((margins,) * 4 if isinstance(margins, int) else margins))
    if spacing is not None:
        box.setSpacing(spacing)
    for item in items:
        if isinstance(item, QWidget):
            box.addWidget(item)
        elif isinstance(item, QLayout):
            box.addLayout(item)
        elif isinstance(item, int):
            box.addStretch(item)
        else:
            widget, stretch = item
            box.addWidget(widget, stretch)
    return box
