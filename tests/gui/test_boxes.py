"""A form is written as the list of its parts: ``row`` and ``column`` lay them out in that order,
nested boxes, stretches and stretch factors included, and ``scrolled`` wraps tall content."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QLayout, QLayoutItem, QPushButton, QScrollArea, QWidget
from pytestqt.qtbot import QtBot

from tokviz.gui.widgets.boxes import STRETCH, column, row, scrolled


def item(box: QLayout, index: int) -> QLayoutItem:
    found = box.itemAt(index)
    assert found is not None
    return found


def test_a_column_holds_its_items_in_order_with_their_stretch(qtbot: QtBot) -> None:
    panel = QWidget()
    qtbot.addWidget(panel)
    title, text, ok = QLabel("Title"), QLabel("a long text"), QPushButton("OK")
    buttons = row(STRETCH, ok, margins=(1, 2, 3, 4))

    layout = column(title, (text, 2), buttons, parent=panel, margins=0, spacing=5)

    assert panel.layout() is layout
    assert [item(layout, i).widget() for i in range(2)] == [title, text]
    assert item(layout, 2).layout() is buttons
    assert [layout.stretch(i) for i in range(3)] == [0, 2, 0]
    assert layout.contentsMargins().left() == 0 and layout.spacing() == 5
    assert item(buttons, 0).spacerItem() is not None and buttons.stretch(0) == STRETCH
    assert item(buttons, 1).widget() is ok
    margins = buttons.contentsMargins()
    assert (margins.left(), margins.top(), margins.right(), margins.bottom()) == (1, 2, 3, 4)


def test_scrolled_content_fills_a_frameless_area_of_the_kind_asked(qtbot: QtBot) -> None:
    class Area(QScrollArea):
        pass

    panel = QWidget()
    qtbot.addWidget(panel)
    content = QLabel("tall\n" * 100)

    area = scrolled(content, "contentScroll", panel, Area)

    assert isinstance(area, Area) and area.parent() is panel
    assert area.objectName() == "contentScroll" and area.widget() is content
    assert area.widgetResizable() and area.frameShape() == QScrollArea.Shape.NoFrame
