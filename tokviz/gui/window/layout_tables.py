"""Table cells and header sections cut off: every cell on screen against its rectangle.

A cell's text needs its font's advance plus the item delegate's margins (and room for an icon or a
check box); a header section's, the header's margins and sort arrow. Elided text is fine while no
number is cut, and a number must not be drawn across the edge of a table scrolled sideways.
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QRect, Qt
from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QStyle

from tokviz.gui.widgets.fitted_columns import FittingDelegate
from tokviz.gui.window.layout_problem import DIGIT, SLACK, LayoutProblem, fits_or_elides, widget_path

MAX_ROWS = 500
"""Rows of one item view looked at: more than any screen shows."""


def _cell_text(index: QModelIndex) -> str:
    value = index.data(Qt.ItemDataRole.DisplayRole)
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def item_view_problems(view: QAbstractItemView) -> list[LayoutProblem]:
    """Every cell on screen against its rectangle; for a table, its header sections too."""
    model = view.model()
    if model is None:
        return []  # type: ignore[unreachable]  # the stubs say never None; a view without a model returns None
    problems: list[LayoutProblem] = []
    style = view.style()
    margin = style.pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, view) + 1
    screen = view.viewport().rect()
    where = widget_path(view)
    for row in range(min(model.rowCount(), MAX_ROWS)):
        first = model.index(row, 0)
        if not view.visualRect(first).isValid() and model.columnCount() == 1:
            continue
        for column in range(model.columnCount()):
            index = model.index(row, column)
            rect = view.visualRect(index)
            if not rect.isValid() or not rect.intersects(screen):
                continue
            problems += _cell_problems(view, index, rect, margin, f"{where}[{row},{column}]")
            if not screen.contains(rect):
                problems += _number_at_edge(
                    view, index, rect.adjusted(margin, 0, -margin, 0), f"{where}[{row},{column}]"
                )
    return problems


def _number_at_edge(
    view: QAbstractItemView, index: QModelIndex, inner: QRect, where: str
) -> list[LayoutProblem]:
    """A number drawn across the left or right edge of a view scrolled sideways: part of its
    digits show ("25" read as "2")."""
    text = _cell_text(index)
    if not DIGIT.search(text):
        return []
    if isinstance(view.itemDelegateForIndex(index), FittingDelegate):
        return []  # it draws the number in the part of the cell on screen, whole or in a short form
    width = view.fontMetrics().horizontalAdvance(text)
    align = Qt.AlignmentFlag(int(index.data(Qt.ItemDataRole.TextAlignmentRole) or Qt.AlignmentFlag.AlignLeft))
    if align & Qt.AlignmentFlag.AlignRight:
        left = inner.x() + inner.width() - width
    elif align & Qt.AlignmentFlag.AlignHCenter:
        left = inner.x() + (inner.width() - width) // 2
    else:
        left = inner.x()
    screen = view.viewport().rect()
    edges = (screen.left(), screen.left() + screen.width())
    if any(left < edge < left + width for edge in edges):
        shown = min(left + width, edges[1]) - max(left, edges[0])
        return [LayoutProblem("number cut by the edge", where, text, width, shown)]
    return []


def _cell_problems(
    view: QAbstractItemView, index: QModelIndex, rect: QRect, margin: int, where: str
) -> list[LayoutProblem]:
    text = _cell_text(index)
    if not text.strip():
        return []
    font = index.data(Qt.ItemDataRole.FontRole)
    metrics = QFontMetrics(font) if isinstance(font, QFont) else view.fontMetrics()
    bound = metrics.boundingRect(QRect(0, 0, 1_000_000, 1_000_000), 0, text)
    needs = bound.width() + 2 * margin
    if index.data(Qt.ItemDataRole.DecorationRole) is not None:
        needs += view.iconSize().width() if view.iconSize().isValid() else 16
        needs += margin
    if index.data(Qt.ItemDataRole.CheckStateRole) is not None:
        needs += view.style().pixelMetric(QStyle.PixelMetric.PM_IndicatorWidth, None, view) + margin
    problems = fits_or_elides(where, text, metrics, needs, rect.width(), view.textElideMode())
    if bound.height() > rect.height() + SLACK:
        problems.append(LayoutProblem("clipped height", where, text, bound.height(), rect.height()))
    return problems


def header_problems(header: QHeaderView) -> list[LayoutProblem]:
    """Each header section's title against the section's width."""
    model = header.model()
    if model is None:
        return []  # type: ignore[unreachable]  # the stubs say never None; a header without a model returns None
    problems: list[LayoutProblem] = []
    margin = header.style().pixelMetric(QStyle.PixelMetric.PM_HeaderMargin, None, header)
    metrics = header.fontMetrics()
    for logical in range(header.count()):
        if header.isSectionHidden(logical):
            continue
        value = model.headerData(logical, header.orientation(), Qt.ItemDataRole.DisplayRole)
        text = "" if value is None else str(value)
        if not text.strip():
            continue
        position = header.sectionViewportPosition(logical)
        size = header.sectionSize(logical)
        length = (
            header.viewport().width()
            if header.orientation() == Qt.Orientation.Horizontal
            else header.height()
        )
        if position + size <= 0 or position >= length:
            continue
        bound = metrics.boundingRect(QRect(0, 0, 1_000_000, 1_000_000), 0, text)
        needs = bound.width() + 2 * margin
        if header.isSortIndicatorShown() and header.sortIndicatorSection() == logical:
            needs += header.style().pixelMetric(QStyle.PixelMetric.PM_HeaderMarkSize, None, header) + margin
        has = size if header.orientation() == Qt.Orientation.Horizontal else header.width()
        where = f"{widget_path(header)}[{text}]"
        problems += fits_or_elides(where, text, metrics, needs, has, header.textElideMode())
    return problems
