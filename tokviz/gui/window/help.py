"""Help ▸ Getting started and Help ▸ Keyboard shortcuts.

The shortcut list is read from the window's menus when it opens, so it can never disagree with
what the keys do: every action with a shortcut, under the menu it lives in; then the keys of a
lecture (F5), which belong to the slides rather than to a menu.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QMainWindow,
    QMenu,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from tokviz.gui.lecture.show import LECTURE_KEYS

GETTING_STARTED = """
<h2>Getting started with tokviz</h2>
<ol>
<li><b>See text as tokens.</b> Type or paste into the editor at the top: every view below shows
the text as its tokenizer cuts it, live. Hover a token for its id, bytes and the merge that made it.</li>
<li><b>Compare tokenizers.</b> Pick another tokenizer in a view's list, add a view
(Ctrl+Shift+N), or open your own file (Ctrl+Shift+O): a tokenizer.json, a vocab.json + merges.txt
folder, a .tiktoken file or a tokviz model.</li>
<li><b>Train a vocabulary.</b> Open the Train panel (Ctrl+Shift+T), choose a corpus and a size,
press Train. The lecture demo (Ctrl+Shift+L) trains "the cat in the hat": 18 → 16 → 14 → 12 tokens.</li>
<li><b>Replay the merges.</b> The merge timeline (Ctrl+Shift+M) steps through BPE on the editor's
text, for your model or for GPT-2 itself (Ctrl+] and Ctrl+[ one merge, Alt+] and Alt+[
the next merge that changes the text, Ctrl+Shift+P plays).</li>
<li><b>Measure the exchange rate.</b> The chart (Ctrl+Shift+B) shows bytes per token per
tokenizer and what it means for attention cost.</li>
<li><b>Make a slide.</b> Presentation mode (F11) enlarges everything with colour-blind-safe colours;
File ▸ Export panel (Ctrl+Shift+E) writes any part of the window as PNG or SVG, and File ▸ Export
tokenizer (Ctrl+Alt+E) writes any tokenizer for Hugging Face, tiktoken or tokviz.</li>
</ol>
<p>Keys move between parts of the window: Ctrl+Tab and Ctrl+Shift+Tab leave the editor (Tab
types a tab, which is text like any other), Ctrl+E comes back to it. Help ▸ Keyboard shortcuts
lists every key.</p>
"""


@dataclass(frozen=True)
class Shortcut:
    """One line of the shortcut list: where the command lives, what it is called, its keys."""

    menu: str
    command: str
    keys: str


def _plain(text: str) -> str:
    return text.replace("&&", "\0").replace("&", "").replace("\0", "&").replace("…", "").strip()


def _menu_shortcuts(menu: QMenu, path: str) -> list[Shortcut]:
    out: list[Shortcut] = []
    for action in menu.actions():
        sub = action.menu()
        if isinstance(sub, QMenu):
            out.extend(_menu_shortcuts(sub, f"{path} ▸ {_plain(sub.title())}"))
        elif not action.isSeparator() and action.shortcuts():
            keys = ", ".join(k.toString(QKeySequence.SequenceFormat.NativeText) for k in action.shortcuts())
            out.append(Shortcut(path, _plain(action.text()), keys))
    return out


def window_shortcuts(window: QMainWindow) -> list[Shortcut]:
    """Every menu command with a shortcut, menu by menu, in the order the menus show them."""
    out: list[Shortcut] = []
    for action in window.menuBar().actions():
        menu = action.menu()
        if isinstance(menu, QMenu):
            out.extend(_menu_shortcuts(menu, _plain(menu.title())))
    return out


def lecture_shortcuts() -> list[Shortcut]:
    """The keys that drive a lecture's slides (Lecture ▸ Start lecture)."""
    return [Shortcut("In a lecture", what, keys) for keys, what in LECTURE_KEYS]


class ShortcutsDialog(QDialog):
    """A table of every keyboard shortcut of the window."""

    def __init__(self, window: QMainWindow, parent: QWidget | None = None) -> None:
        super().__init__(parent or window)
        self.setObjectName("shortcutsDialog")
        self.setWindowTitle("Keyboard shortcuts")
        self.shortcuts = window_shortcuts(window) + lecture_shortcuts()
        self.table = QTableWidget(len(self.shortcuts), 3, self)
        self.table.setTabKeyNavigation(False)  # Tab moves on to the next control, as everywhere else
        self.table.setObjectName("shortcutsTable")
        self.table.setHorizontalHeaderLabels(["Menu", "Command", "Keys"])
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        for row, s in enumerate(self.shortcuts):
            for col, value in enumerate((s.menu, s.command, s.keys)):
                self.table.setItem(row, col, QTableWidgetItem(value))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table, 1)
        layout.addWidget(buttons)
        self.resize(620, 560)


class GettingStartedDialog(QDialog):
    """Six steps through what tokviz does, with the keys for each."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("gettingStartedDialog")
        self.setWindowTitle("Getting started")
        text = QLabel(GETTING_STARTED, self)
        text.setObjectName("gettingStartedText")
        text.setWordWrap(True)
        text.setTextFormat(Qt.TextFormat.RichText)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(text, 1)
        layout.addWidget(buttons)
        self.resize(560, 520)
