"""The Train panel on a 1024 × 768 projector: every choice readable, the Train button always reachable."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QStyle, QStyleOptionComboBox

from tokviz.gui.panels.training.panel import SOURCE_FILES, TrainPanel

from .reach import dock, docked
from .waiting import settled


@pytest.fixture
def panel(qtbot, make_window):
    window = make_window(size=(1008, 680))  # a 1024 × 768 screen less its title bar and panel
    dock(window, "trainDock").show()
    dock(window, "trainDock").raise_()
    dock(window, "timelineDock").show()
    panel = docked(window, "trainDock", TrainPanel)
    settled(qtbot, panel.geometry)
    return panel


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
    button = panel.train_button

    def both_buttons_whole() -> None:
        assert button.isVisible()
        assert button.visibleRegion().boundingRect() == button.rect()
        assert panel.cancel_button.visibleRegion().boundingRect() == panel.cancel_button.rect()

    qtbot.waitUntil(both_buttons_whole)
