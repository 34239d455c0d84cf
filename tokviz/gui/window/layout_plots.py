"""Plot text cut off: pyqtgraph text items past the plot's visible area, axis labels drawn over
each other or left out for want of room.

Positions are taken in the view's viewport, through each item's device transform, so a rotated
axis title is measured as drawn; a text item's letters are measured without its document margin.
"""

from __future__ import annotations

from PySide6.QtCore import QRectF
from PySide6.QtGui import QFontMetrics, QImage, QPainter
from PySide6.QtWidgets import QGraphicsItem, QGraphicsTextItem, QGraphicsView

from tokviz.gui.window.layout_problem import SLACK, LayoutProblem, widget_path


def _clips_children(item: QGraphicsItem) -> bool:
    return bool(item.flags() & QGraphicsItem.GraphicsItemFlag.ItemClipsChildrenToShape)


def _text_ink(item: QGraphicsTextItem) -> QRectF:
    """Where a text item's letters are, in its own coordinates: inside the document's margin, without
    trailing spaces (a rotated axis title ends in one)."""
    text = item.toPlainText()
    margin = item.document().documentMargin()
    trailing = QFontMetrics(item.font()).horizontalAdvance(text[len(text.rstrip()) :])
    return item.boundingRect().adjusted(margin, margin, -margin - trailing, -margin)


def _visible_bounds(item: QGraphicsItem, view: QGraphicsView) -> QRectF:
    """The part of ``view``'s viewport an item's painting can reach: the viewport, cut by every
    ancestor that clips its children."""
    transform = view.viewportTransform()
    bounds = QRectF(view.viewport().rect())
    parent = item.parentItem()
    while parent is not None:
        if _clips_children(parent):
            bounds = bounds.intersected(parent.deviceTransform(transform).mapRect(parent.boundingRect()))
        parent = parent.parentItem()
    return bounds  # type: ignore[unreachable]  # the stubs say parentItem() is never None; a top item has none


def _outside(rect: QRectF, bounds: QRectF) -> bool:
    grown = bounds.adjusted(-SLACK, -SLACK, SLACK, SLACK)
    return not grown.contains(rect)


def plot_text_problems(view: QGraphicsView) -> list[LayoutProblem]:
    """Text items of a plot that reach past the plot's visible area or past a clipping parent, and
    axis tick labels that overlap, reach past the plot, or are left out for want of room."""
    scene = view.scene()
    if scene is None:
        return []  # type: ignore[unreachable]  # the stubs say never None; a view without a scene returns None
    problems: list[LayoutProblem] = []
    transform = view.viewportTransform()
    where = widget_path(view)
    for item in scene.items():
        if not item.isVisible() or item.effectiveOpacity() == 0:
            continue
        if isinstance(item, QGraphicsTextItem) and item.toPlainText().strip():
            rect = item.deviceTransform(transform).mapRect(_text_ink(item))
            bounds = _visible_bounds(item, view)
            if _outside(rect, bounds):
                text = item.toPlainText().strip()
                problems.append(LayoutProblem("outside plot", where, text, rect.width(), bounds.width()))
        elif callable(getattr(item, "generateDrawSpecs", None)):
            problems += axis_problems(item, view, where)
    return problems


def axis_problems(axis: QGraphicsItem, view: QGraphicsView, where: str) -> list[LayoutProblem]:
    """A pyqtgraph axis's tick labels as it would draw them now: each within the plot's visible
    area, none over another, and, for an axis given its own labels, none dropped."""
    image = QImage(1, 1, QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    try:
        specs = axis.generateDrawSpecs(painter)  # type: ignore[attr-defined]
    finally:
        painter.end()
    if specs is None:
        return []
    transform = axis.deviceTransform(view.viewportTransform())
    bounds = _visible_bounds(axis, view)
    drawn = [(transform.mapRect(QRectF(rect)), str(text)) for rect, _flags, text in specs[2]]
    problems = []
    for i, (rect, text) in enumerate(drawn):
        if _outside(rect, bounds):
            problems.append(
                LayoutProblem("outside plot", f"{where}/axis", text, rect.width(), bounds.width())
            )
        for other, other_text in drawn[i + 1 :]:
            overlap = rect.intersected(other)
            if overlap.width() > SLACK and overlap.height() > SLACK:
                problems.append(
                    LayoutProblem("overlapping text", f"{where}/axis", f"{text} / {other_text}", 0, 0)
                )
    problems += _dropped_ticks(axis, {text for _rect, text in drawn}, f"{where}/axis")
    return problems


def _dropped_ticks(axis: QGraphicsItem, drawn: set[str], where: str) -> list[LayoutProblem]:
    """Labels an axis was given (``setTicks``) for positions inside its range that it does not draw."""
    levels = getattr(axis, "_tickLevels", None)
    linked = getattr(axis, "range", None)
    if not levels or linked is None:
        return []
    low, high = min(linked), max(linked)
    problems = []
    for position, label in levels[0]:
        label = str(label)
        if low <= position <= high and label.strip() and label not in drawn:
            problems.append(LayoutProblem("label left out", where, label, 0, 0))
    return problems
