"""What a window shows cut off: text wider than its widget, cells narrower than their numbers, split tokens.

Every check compares what a piece of text needs (its font's advance, plus the margins the style
draws around it) with the rectangle it is given, on the widgets as they are on the screen:

* labels, buttons, check boxes, combo boxes, spin boxes, tab titles;
* every visible cell and header section of every item view;
* every token view: a token whose box is broken across two lines although it would fit on one;
* the text of every plot: a caption or bar label reaching past the plot's edge, axis tick labels
  drawn over each other, labels given to an axis but left out for want of room.

Text drawn elided ("…") is fine as long as no number is cut: "Merge tim…" says it is cut, "12…"
hides digits. A number drawn across the edge of a table scrolled sideways is cut too ("25" read
as "2"). Line edits scroll their text by design and are not checked (a spin box's number is). A
hidden widget, or one behind another tab, shows nothing and is skipped.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import asdict, dataclass

from PySide6 import QtGui
from PySide6.QtCore import QModelIndex, QRect, QRectF, Qt
from PySide6.QtGui import QFont, QFontMetrics, QIcon, QImage, QPainter, QTextDocument
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractSpinBox,
    QCheckBox,
    QComboBox,
    QGraphicsItem,
    QGraphicsTextItem,
    QGraphicsView,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QRadioButton,
    QStyle,
    QStyleOptionButton,
    QStyleOptionComboBox,
    QTabBar,
    QToolButton,
    QWidget,
)

from tokviz.gui.widgets.token_view import TokenView

SLACK = 1.0
"""Pixels a text may overhang its rectangle (rounding between font metrics and the painter)."""
MAX_ROWS = 500
"""Rows of one item view looked at: more than any screen shows."""
ELLIPSIS = "…"
NUMBER_BEFORE_CUT = re.compile(r"\d[\d.,:]*$")
NUMBER_AFTER_CUT = re.compile(r"[\d.,:]*\d")
DIGIT = re.compile(r"\d")
DIGIT_AT_ELLIPSIS = re.compile(r"\d[.,:]?…|…[.,:]?\d")


@dataclass(frozen=True)
class LayoutProblem:
    """One thing shown cut off: its kind, where (the widget's named ancestors), the text, and the
    width (or height) it needs against the one it has, in pixels."""

    kind: str
    where: str
    text: str
    needs: float
    has: float

    def to_json(self) -> dict[str, object]:
        """The problem as a JSON object."""
        return {**asdict(self), "needs": round(self.needs, 1), "has": round(self.has, 1)}


def widget_path(widget: QWidget, depth: int = 3) -> str:
    """The widget's object name after up to ``depth`` named ancestors ("trainDock/trainForm/QComboBox")."""
    names: list[str] = []
    current: QWidget | None = widget
    while current is not None and len(names) <= depth:
        name = current.objectName()
        if name and not name.startswith("qt_"):
            names.append(name)
        elif current is widget:
            names.append(type(widget).__name__)
        current = current.parentWidget()
    return "/".join(reversed(names))


def cuts_a_number(text: str, shown: str) -> bool:
    """Whether ``shown``, ``text`` elided with "…", shows part of a number ("3.…" of "3.60"): a
    number may be hidden by the "…" whole, never in part."""
    if shown == text or ELLIPSIS not in shown:
        return False
    kept = len(shown) - 1
    if shown.endswith(ELLIPSIS) and text.startswith(shown[:kept]):
        before, after = text[:kept], text[kept:]
        return bool(NUMBER_BEFORE_CUT.search(before) and NUMBER_AFTER_CUT.match(after))
    return bool(DIGIT_AT_ELLIPSIS.search(shown))


def _fits_or_elides(
    where: str, text: str, metrics: QFontMetrics, needs: float, has: float, mode: Qt.TextElideMode
) -> list[LayoutProblem]:
    """No problem when the text fits, or when it is elided with "…" and keeps its numbers."""
    if needs <= has + SLACK:
        return []
    if mode != Qt.TextElideMode.ElideNone:
        room = int(has - (needs - metrics.horizontalAdvance(text)))
        if not cuts_a_number(text, metrics.elidedText(text, mode, max(room, 0))):
            return []
        return [LayoutProblem("number elided", where, text, needs, has)]
    return [LayoutProblem("clipped", where, text, needs, has)]


def _plain(text: str) -> str:
    """A button's or tab's text as drawn: "&&" is an ampersand, a single "&" marks the shortcut."""
    return text.replace("&&", "\0").replace("&", "").replace("\0", "&")


def _icon_room(icon: QIcon, size: int, spacing: int) -> int:
    return size + spacing if not icon.isNull() else 0


# ---------------------------------------------------------------- labels
def label_problems(label: QLabel) -> list[LayoutProblem]:
    """A label's text against its contents rectangle: wider (unwrapped) or taller (wrapped) than it."""
    text = label.text()
    if not text.strip() or not label.pixmap().isNull():
        return []
    where = widget_path(label)
    rect = label.contentsRect()
    margin = label.margin()
    width, height = rect.width() - 2 * margin, rect.height() - 2 * margin
    displayed = getattr(label, "displayed_text", None)
    if callable(displayed):  # a label that elides itself: what it paints must fit and keep its numbers
        shown = str(displayed())
        needs = label.fontMetrics().horizontalAdvance(shown)
        if needs > width + SLACK:
            return [LayoutProblem("clipped", where, shown, needs, width)]
        if not cuts_a_number(text, shown):
            return []
        return [
            LayoutProblem("number elided", where, text, label.fontMetrics().horizontalAdvance(text), width)
        ]
    needs_w, needs_h = text_size(label, text, width)
    problems = []
    if needs_w > width + SLACK:
        problems.append(LayoutProblem("clipped", where, text, needs_w, width))
    if needs_h > height + SLACK:
        problems.append(LayoutProblem("clipped height", where, text, needs_h, height))
    return problems


def _is_rich(label: QLabel, text: str) -> bool:
    fmt = label.textFormat()
    return fmt == Qt.TextFormat.RichText or (fmt == Qt.TextFormat.AutoText and QtGui.Qt.mightBeRichText(text))


def text_size(label: QLabel, text: str, width: int) -> tuple[float, float]:
    """Width and height ``label`` needs for ``text``, wrapped to ``width`` when the label wraps."""
    wrap = label.wordWrap()
    if _is_rich(label, text):
        doc = QTextDocument()
        doc.setDefaultFont(label.font())
        doc.setDocumentMargin(0)
        doc.setHtml(text)
        if wrap:
            doc.setTextWidth(max(width, 1))
        return doc.idealWidth(), doc.size().height()
    flags = int(label.alignment()) | (int(Qt.TextFlag.TextWordWrap) if wrap else 0)
    bound = label.fontMetrics().boundingRect(
        QRect(0, 0, max(width, 1) if wrap else 1_000_000, 1_000_000), flags, text
    )
    return float(bound.width()), float(bound.height())


# ---------------------------------------------------------------- buttons and inputs
def button_problems(button: QAbstractButton) -> list[LayoutProblem]:
    """A push button's text against its contents rectangle; a check box, radio button or tool
    button against the width its style asks for."""
    text = _plain(button.text())
    if not text.strip():
        return []
    where = widget_path(button)
    style = button.style()
    if isinstance(button, QPushButton):
        option = QStyleOptionButton()
        option.initFrom(button)
        option.text = button.text()
        has = style.subElementRect(QStyle.SubElement.SE_PushButtonContents, option, button).width()
        needs = button.fontMetrics().horizontalAdvance(text)
        needs += _icon_room(button.icon(), button.iconSize().width(), 4)
        if button.menu() is not None:
            needs += style.pixelMetric(QStyle.PixelMetric.PM_MenuButtonIndicator, option, button)
    elif isinstance(button, (QCheckBox, QRadioButton, QToolButton)):
        needs, has = button.sizeHint().width(), button.width()
    else:
        return []
    if needs <= has + SLACK:
        return []
    return [LayoutProblem("clipped", where, text, needs, has)]


def combo_problems(combo: QComboBox) -> list[LayoutProblem]:
    """The shown choice against the combo box's text field (a combo box cuts, it does not elide)."""
    text = combo.currentText()
    if not text.strip() or combo.isEditable():
        return []
    option = QStyleOptionComboBox()
    option.initFrom(combo)
    option.editable = False
    option.frame = combo.hasFrame()
    option.currentText = text
    option.subControls = QStyle.SubControl.SC_All
    field = combo.style().subControlRect(
        QStyle.ComplexControl.CC_ComboBox, option, QStyle.SubControl.SC_ComboBoxEditField, combo
    )
    needs = combo.fontMetrics().horizontalAdvance(text)
    needs += _icon_room(combo.itemIcon(combo.currentIndex()), combo.iconSize().width(), 4)
    if needs <= field.width() + SLACK:
        return []
    return [LayoutProblem("clipped", widget_path(combo), text, needs, field.width())]


def line_edit_problems(edit: QLineEdit) -> list[LayoutProblem]:
    """The number in a spin box against its text area (other line edits scroll their text, by design)."""
    parent = edit.parentWidget()
    if not isinstance(parent, QAbstractSpinBox):
        return []
    text = edit.text()
    if not text.strip():
        return []
    margins = edit.textMargins()
    has = edit.contentsRect().width() - margins.left() - margins.right() - 4  # QLineEdit's own 2 px a side
    needs = edit.fontMetrics().horizontalAdvance(text)
    if needs <= has + SLACK:
        return []
    return [LayoutProblem("clipped", widget_path(parent), text, needs, has)]


def tab_problems(bar: QTabBar) -> list[LayoutProblem]:
    """Each tab's title against its tab (elided titles are fine while their numbers are whole)."""
    problems: list[LayoutProblem] = []
    metrics = bar.fontMetrics()
    padding = bar.style().pixelMetric(QStyle.PixelMetric.PM_TabBarTabHSpace, None, bar)
    for i in range(bar.count()):
        text = _plain(bar.tabText(i))
        if not text.strip() or not bar.isTabVisible(i):
            continue
        needs = metrics.horizontalAdvance(text) + padding
        needs += _icon_room(bar.tabIcon(i), bar.iconSize().width(), 4)
        for side in (QTabBar.ButtonPosition.LeftSide, QTabBar.ButtonPosition.RightSide):
            extra = bar.tabButton(i, side)
            if extra is not None and extra.isVisible():
                needs += extra.width()
        has = bar.tabRect(i).width()
        problems += _fits_or_elides(f"{widget_path(bar)}[{text}]", text, metrics, needs, has, bar.elideMode())
    return problems


# ---------------------------------------------------------------- item views
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
        return []
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
    problems = _fits_or_elides(where, text, metrics, needs, rect.width(), view.textElideMode())
    if bound.height() > rect.height() + SLACK:
        problems.append(LayoutProblem("clipped height", where, text, bound.height(), rect.height()))
    return problems


def header_problems(header: QHeaderView) -> list[LayoutProblem]:
    """Each header section's title against the section's width."""
    model = header.model()
    if model is None:
        return []
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
        problems += _fits_or_elides(where, text, metrics, needs, has, header.textElideMode())
    return problems


# ---------------------------------------------------------------- token views
def split_tokens(view: TokenView) -> list[LayoutProblem]:
    """Tokens on screen whose box is broken across lines of one paragraph although the token is no
    wider than a line (a token crossing a newline has a box on each line, rightly)."""
    boxes = view.visible_boxes()
    lines: dict[int, set[float]] = defaultdict(set)
    widths: dict[int, float] = defaultdict(float)
    for box in boxes:
        lines[box.token].add(round(box.y, 1))
        widths[box.token] += box.w
    document = view.document()
    line_width = view.viewport().width() - 2 * document.documentMargin()
    problems = []
    where = widget_path(view)
    for token, ys in lines.items():
        if len(ys) < 2:
            continue
        start, end = int(view.box_start[token]), int(view.box_end[token])
        first_block = document.findBlock(start).blockNumber()
        last_block = document.findBlock(max(end - 1, start)).blockNumber()
        paragraphs = last_block - first_block + 1
        if len(ys) > paragraphs and widths[token] <= line_width:
            text = document.toPlainText()[start:end] if document.characterCount() < 100_000 else ""
            problems.append(LayoutProblem("split token", f"{where}#{token}", text, widths[token], line_width))
    return problems


# ---------------------------------------------------------------- plots
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
    return bounds


def _outside(rect: QRectF, bounds: QRectF) -> bool:
    grown = bounds.adjusted(-SLACK, -SLACK, SLACK, SLACK)
    return not grown.contains(rect)


def plot_text_problems(view: QGraphicsView) -> list[LayoutProblem]:
    """Text items of a plot that reach past the plot's visible area or past a clipping parent, and
    axis tick labels that overlap, reach past the plot, or are left out for want of room."""
    scene = view.scene()
    if scene is None:
        return []
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


# ---------------------------------------------------------------- the whole window
def shown(widget: QWidget) -> bool:
    """Whether any part of ``widget`` is on the screen now: visible, and not scrolled or cut away
    entirely by the widgets it sits in."""
    if not widget.isVisible():
        return False
    area = widget.rect()
    child: QWidget = widget
    parent = widget.parentWidget()
    while parent is not None and not child.isWindow():
        area = parent.rect().intersected(area.translated(child.pos()))
        if area.isEmpty():
            return False
        child, parent = parent, parent.parentWidget()
    return True


def widget_problems(widget: QWidget) -> list[LayoutProblem]:
    """The checks that apply to one widget (none when it is not on the screen)."""
    if not shown(widget):
        return []
    if isinstance(widget, TokenView):
        return split_tokens(widget)
    if isinstance(widget, QHeaderView):
        return header_problems(widget)
    if isinstance(widget, QAbstractItemView):
        return item_view_problems(widget)
    if isinstance(widget, QGraphicsView):
        return plot_text_problems(widget)
    if isinstance(widget, QLabel):
        return label_problems(widget)
    if isinstance(widget, QAbstractButton):
        return button_problems(widget)
    if isinstance(widget, QComboBox):
        return combo_problems(widget)
    if isinstance(widget, QLineEdit):
        return line_edit_problems(widget)
    if isinstance(widget, QTabBar):
        return tab_problems(widget)
    return []


def layout_problems(root: QWidget) -> list[LayoutProblem]:
    """Everything shown cut off in ``root`` and the widgets inside it."""
    problems = widget_problems(root)
    for child in root.findChildren(QWidget):
        problems += widget_problems(child)
    return problems
