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

from collections import defaultdict

from PySide6 import QtGui
from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QIcon, QTextDocument
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractSpinBox,
    QCheckBox,
    QComboBox,
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
from tokviz.gui.window.layout_plots import plot_text_problems
from tokviz.gui.window.layout_problem import SLACK, LayoutProblem, cuts_a_number, fits_or_elides, widget_path
from tokviz.gui.window.layout_tables import header_problems, item_view_problems


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
        problems += fits_or_elides(f"{widget_path(bar)}[{text}]", text, metrics, needs, has, bar.elideMode())
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
