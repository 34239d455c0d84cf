"""Help ▸ Getting started and Help ▸ Keyboard shortcuts, read from the window's own menus."""

from __future__ import annotations

from collections import Counter

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from tokviz.gui.lecture.show import LECTURE_KEYS
from tokviz.gui.window.help import GettingStartedDialog, ShortcutsDialog, window_shortcuts


def test_the_shortcut_list_holds_every_panel_and_command(window):
    listed = {(s.menu, s.command): s.keys for s in window_shortcuts(window)}
    assert listed[("Train", "Start training")] == "Ctrl+T"
    assert listed[("Train", "Lecture demo: the cat in the hat")] == "Ctrl+Shift+L"
    assert listed[("View", "Merge timeline")] == "Ctrl+Shift+M"
    assert listed[("View", "Vocabulary browser")] == "Ctrl+Shift+V"
    assert listed[("View", "Presentation mode")] == "F11"
    assert listed[("Help", "Keyboard shortcuts")] == "Ctrl+/"
    assert listed[("File", "Export panel")] == "Ctrl+Shift+E"


def test_the_shortcut_table_lists_the_lecture_and_its_clicker_keys(window):
    rows = {(s.menu, s.command): s.keys for s in ShortcutsDialog(window).shortcuts}
    assert rows[("Lecture", "Start lecture")] == "F5"
    assert rows[("In a lecture", "next page, step or slide")].startswith("PageDown")
    assert rows[
        ("In a lecture", "the next (previous) tokenizer not already on the slide, in its first place")
    ] == ("T, Shift+T")
    assert rows[("In a lecture", "these keys over the slide, until the next key")] == "?"


def test_no_two_commands_share_a_key(window):
    from PySide6.QtGui import QAction

    actions = {a for a in window.findChildren(QAction) if a.shortcuts()}
    keys = Counter(k.toString() for a in actions for k in a.shortcuts())
    assert [k for k, n in keys.items() if n > 1] == []


def test_ctrl_slash_opens_the_shortcut_table_and_f1_the_guide(qtbot, window):
    qtbot.keyClick(window.editor, Qt.Key.Key_Slash, Qt.KeyboardModifier.ControlModifier)
    dialog = window.findChild(ShortcutsDialog)
    assert dialog is not None and dialog.isVisible()
    assert dialog.table.rowCount() == len(window_shortcuts(window)) + len(LECTURE_KEYS) > 30
    dialog.close()
    qtbot.keyClick(window.editor, Qt.Key.Key_F1)
    guide = window.findChild(GettingStartedDialog)
    assert guide is not None and guide.isVisible()
    assert "Ctrl+Shift+L" in guide.findChild(QLabel, "gettingStartedText").text()
