"""The Train panel on a 1024 × 768 projector: every choice readable, the Train button always reachable."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QStyle, QStyleOptionComboBox

from tokviz.gui.panels.training.panel import SOURCE_FILES


@pytest.fixture
def panel(qtbot, make_window):
    window = make_window(size=(1008, 680))  # a 1024 × 768 screen less its title bar and panel
    docks = window.training
    docks.train_dock.show()
    docks.train_dock.raise_()
    docks.timeline_dock.show()
    qtbot.wait(100)
    return docks.panel


def text_room(combo: QComboBox) -> int:
    """The width a combo box gives its text (its frame and arrow taken off)."""
    option = QStyleOptionComboBox()
    combo.initStyleOption(option)
    field = combo.style().subControlRect(
        QStyle.ComplexControl.CC_ComboBox, option, QStyle.SubControl.SC_ComboBoxEditField, combo
    )
    return field.width()


def test_the_tie_rule_reads_whole_in_a_narrow_dock(qtbot, panel):
    combo = panel.tie_rule
    for row in range(combo.count()):
        combo.setCurrentIndex(row)
        assert combo.fontMetrics().horizontalAdvance(combo.currentText()) <= text_room(combo), (
            combo.currentText()
        )


def test_the_pretokenizer_reads_whole_in_a_narrow_dock_and_explains_itself(qtbot, panel):
    combo = panel.pretokenizer
    for row in range(combo.count()):
        combo.setCurrentIndex(row)
        assert combo.fontMetrics().horizontalAdvance(combo.currentText()) <= text_room(combo), (
            combo.currentText()
        )
    none = combo.findData("none")
    assert "merges may cross words" in combo.itemData(none, Qt.ItemDataRole.ToolTipRole)


def test_the_train_button_is_on_screen_with_the_file_list_shown(qtbot, panel):
    panel.set_source_kind(SOURCE_FILES)
    qtbot.wait(100)
    button = panel.train_button
    assert button.isVisible()
    assert button.visibleRegion().boundingRect() == button.rect()
    assert panel.cancel_button.visibleRegion().boundingRect() == panel.cancel_button.rect()
