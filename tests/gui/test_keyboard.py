"""A keyboard-only user reaches every control of every panel from the editor, and comes back."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QDockWidget

from tokviz.gui.panels.timeline.panel import TimelineWidget

from .reach import dock, docked


def tab_cycle(qtbot, window) -> list[str]:
    """Object names of the widgets Tab visits, from the editor (left with Ctrl+Tab) back to it."""
    seen: list[str] = []
    qtbot.keyClick(window.editor, Qt.Key.Key_Tab, Qt.KeyboardModifier.ControlModifier)
    for _ in range(200):
        widget = QApplication.focusWidget()
        assert widget is not None
        if widget is window.editor:
            return seen
        seen.append(widget.objectName())
        qtbot.keyClick(widget, Qt.Key.Key_Tab)
    raise AssertionError(f"Tab never came back to the editor; stuck after {seen[-5:]}")


def test_tab_types_a_tab_in_the_editor_but_ctrl_tab_moves_on(qtbot, window):
    window.editor.setFocus()
    window.editor.clear()
    qtbot.keyClick(window.editor, Qt.Key.Key_Tab)
    assert window.editor.toPlainText() == "\t" and QApplication.focusWidget() is window.editor
    qtbot.keyClick(window.editor, Qt.Key.Key_Tab, Qt.KeyboardModifier.ControlModifier)
    assert QApplication.focusWidget() is not window.editor


def test_every_panel_is_reachable_with_tab_from_the_editor(qtbot, window):
    for each in window.findChildren(QDockWidget):
        each.show()
    timeline = docked(window, "timelineDock", TimelineWidget)
    dock(window, "timelineDock").raise_()
    dock(window, "vocabDock").raise_()  # the Train panel is the tab behind it
    qtbot.waitUntil(lambda: timeline.slider.isEnabled(), timeout=30000)
    window.activateWindow()
    window.editor.setFocus()
    visited = set(tab_cycle(qtbot, window))
    for name in (
        "tokenizerPicker",  # the views
        "tokenView",
        "vocabFilter",  # the vocabulary browser
        "vocabTable",
        "timelineTokenizerPicker",  # the merge timeline
        "timelineSlider",
        "timelineStep",
        "mergeTable",
    ):
        assert name in visited, f"{name} cannot be reached with Tab"
    hidden = {"corpusSource", "vocabSize", "trainButton"}
    assert not visited & hidden, "Tab stopped on the controls of a tab that is behind another, unseen"

    qtbot.keyClick(
        window.editor, Qt.Key.Key_T, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    )
    window.editor.setFocus()
    visited = set(tab_cycle(qtbot, window))
    assert hidden <= visited, "the Train panel in front is reached with Tab"
    assert "vocabFilter" not in visited


def test_ctrl_shift_tab_leaves_the_editor_backwards(qtbot, window):
    window.activateWindow()
    window.editor.setFocus()
    qtbot.keyClick(window.editor, Qt.Key.Key_Backtab, Qt.KeyboardModifier.ControlModifier)
    assert QApplication.focusWidget() not in (None, window.editor)
