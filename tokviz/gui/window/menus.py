"""The window's actions, menus and toolbar: every command has a shortcut and a place in a menu.

:class:`WindowMenus` builds them on the window it is given and connects none of the commands:
the window wires each action to the part that carries it out. Only the Samples and Theme entries,
which pass a value, report through signals of their own.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import QDialog, QMainWindow, QMenu, QToolBar

from tokviz.gui.text.samples import CATEGORY_SAMPLES, LECTURE_SAMPLES, SHOWCASE, Sample
from tokviz.gui.window.actions import make_action

# How the views spell each token (DisplayOptions.spelling): its text, its UTF-8 bytes, its code points.
SPELLING_ENTRIES = (
    ("text", "&Text", "Ctrl+Alt+T"),
    ("hex", "&Bytes in hex (48 69 F0 9F…)", "Ctrl+Alt+H"),
    ("code points", "&Code points (U+0048…)", "Ctrl+Alt+U"),
)
THEME_ENTRIES = (
    ("system", "Follow &system", "Ctrl+Alt+0"),
    ("light", "&Light", "Ctrl+Alt+L"),
    ("dark", "&Dark", "Ctrl+Alt+D"),
)


class WindowMenus(QObject):
    """File, Samples, View and Help menus and the display toolbar of one window.

    ``sampleChosen(Sample)`` when a sample is picked; ``themeChosen(str)`` when a theme is checked.
    """

    sampleChosen = Signal(Sample)
    themeChosen = Signal(str)

    def __init__(self, window: QMainWindow) -> None:
        super().__init__(window)
        self._window = window
        self.help_dialog: QDialog | None = None
        self._build_actions()
        self._build_menus()

    def _build_actions(self) -> None:
        w = self._window
        self.act_open = make_action(w, "&Open text…", "Ctrl+O", name="actionOpenText")
        self.act_open_tokenizer = make_action(
            w, "Open &tokenizer…", "Ctrl+Shift+O", name="actionOpenTokenizer"
        )
        self.act_quit = make_action(w, "&Quit", "Ctrl+Q", name="actionQuit")
        self.act_ids = make_action(w, "Show token &ids", "Ctrl+I", checkable=True, name="actionShowIds")
        self.act_ids_with_text = make_action(
            w, "Show ids &beside the text", "Ctrl+Alt+I", checkable=True, name="actionShowIdsWithText"
        )
        self.spelling_group = QActionGroup(self)
        self.spelling_actions: dict[str, QAction] = {}
        for spelling, label, shortcut in SPELLING_ENTRIES:
            act = make_action(
                w, label, shortcut, checkable=True, name=f"actionSpell_{spelling.replace(' ', '_')}"
            )
            self.spelling_group.addAction(act)
            self.spelling_actions[spelling] = act
        self.spelling_actions["text"].setChecked(True)
        self.act_ws = make_action(
            w, "Show &whitespace (· ↵ →)", "Ctrl+Shift+W", checkable=True, name="actionShowWhitespace"
        )
        self.act_chunks = make_action(
            w, "Show pre-tokenizer &chunks", "Ctrl+Shift+K", checkable=True, name="actionShowChunks"
        )
        self.act_specials_as_text = make_action(
            w,
            "Special tokens in text as &plain text",
            "Ctrl+Alt+P",
            checkable=True,
            name="actionSpecialsAsText",
        )
        self.act_specials_as_text.setToolTip(
            "Off (the default, as in every tokviz command): text equal to a special token, such as "
            "<|endoftext|>, is that token's one id. On: it is ordinary text, split by BPE."
        )
        self.act_add_view = make_action(w, "&Add view", "Ctrl+Shift+N", name="actionAddView")
        self.act_remove_view = make_action(w, "&Remove last view", "Ctrl+Shift+R", name="actionRemoveView")
        self.act_sync = make_action(
            w, "&Synchronised scrolling", "Ctrl+Shift+S", checkable=True, name="actionSyncScroll"
        )
        self.act_sync.setChecked(True)
        self.act_zoom_in = make_action(w, "Zoom &in", ["Ctrl+=", "Ctrl++"], name="actionZoomIn")
        self.act_zoom_out = make_action(w, "Zoom &out", "Ctrl+-", name="actionZoomOut")
        self.act_zoom_reset = make_action(w, "&Reset zoom", "Ctrl+0", name="actionZoomReset")
        self.act_focus_editor = make_action(w, "Focus &editor", "Ctrl+E", name="actionFocusEditor")
        self.theme_group = QActionGroup(self)
        self.theme_actions: dict[str, QAction] = {}
        for key, label, shortcut in THEME_ENTRIES:
            act = make_action(w, label, shortcut, checkable=True, name=f"actionTheme_{key}")
            act.toggled.connect(lambda on, k=key: self.themeChosen.emit(k) if on else None)
            self.theme_group.addAction(act)
            self.theme_actions[key] = act
        self.act_getting_started = make_action(w, "&Getting started", "F1", name="actionGettingStarted")
        self.act_shortcuts = make_action(w, "&Keyboard shortcuts", "Ctrl+/", name="actionShortcuts")
        self.act_about = make_action(w, "&About tokviz", "Ctrl+F1", name="actionAbout")

    def _build_menus(self) -> None:
        bar = self._window.menuBar()
        file_menu = self.file_menu = bar.addMenu("&File")
        file_menu.setObjectName("fileMenu")
        file_menu.addAction(self.act_open)
        self.recent_menu: QMenu = file_menu.addMenu("Open &recent")
        self.recent_menu.setObjectName("recentMenu")
        file_menu.addAction(self.act_open_tokenizer)
        file_menu.addSeparator()
        file_menu.addAction(self.act_quit)
        self._build_samples_menu(bar.addMenu("&Samples"))
        self._build_view_menu(bar.addMenu("&View"))

        self.help_menu: QMenu = bar.addMenu("&Help")
        self.help_menu.setObjectName("helpMenu")
        self.help_menu.addAction(self.act_getting_started)
        self.help_menu.addAction(self.act_shortcuts)
        self.help_menu.addSeparator()
        self.help_menu.addAction(self.act_about)

        tools = QToolBar("Display", self._window)
        tools.setObjectName("displayToolBar")
        tools.setMovable(False)
        for act in (self.act_ids, self.act_ws, self.act_chunks):
            tools.addAction(act)
        tools.addSeparator()
        tools.addAction(self.act_add_view)
        self._window.addToolBar(tools)

    def _build_samples_menu(self, samples: QMenu) -> None:
        samples.setObjectName("samplesMenu")
        self.sample_actions: list[QAction] = []
        number = 1
        for group in ((SHOWCASE,), LECTURE_SAMPLES, CATEGORY_SAMPLES):
            for sample in group:
                shortcut = f"Alt+{number % 10}" if number <= 10 else None
                act = make_action(self._window, sample.title, shortcut)
                act.triggered.connect(lambda *_, s=sample: self._choose_sample(s))
                samples.addAction(act)
                self.sample_actions.append(act)
                number += 1
            samples.addSeparator()

    def _choose_sample(self, sample: Sample) -> None:
        self.sampleChosen.emit(sample)

    def _build_view_menu(self, view: QMenu) -> None:
        self.view_menu = view
        view.setObjectName("viewMenu")
        for act in (self.act_ids, self.act_ids_with_text, self.act_ws, self.act_chunks):
            view.addAction(act)
        spelling = view.addMenu("Spell &tokens as")
        for act in self.spelling_actions.values():
            spelling.addAction(act)
        view.addAction(self.act_specials_as_text)
        view.addSeparator()
        for act in (self.act_add_view, self.act_remove_view, self.act_sync):
            view.addAction(act)
        view.addSeparator()
        for act in (self.act_zoom_in, self.act_zoom_out, self.act_zoom_reset):
            view.addAction(act)
        theme = view.addMenu("&Theme")
        for act in self.theme_actions.values():
            theme.addAction(act)
        view.addSeparator()
        view.addAction(self.act_focus_editor)

    def spelling(self) -> str:
        """The checked entry of View ▸ Spell tokens as."""
        return next((k for k, act in self.spelling_actions.items() if act.isChecked()), "text")

    def check_theme(self, theme: str) -> None:
        """Show ``theme`` as the checked entry of View ▸ Theme."""
        act = self.theme_actions[theme]
        if not act.isChecked():
            act.setChecked(True)

    def open_help(self, dialog: QDialog) -> None:
        """Show a help dialog without blocking the window (it deletes itself when closed)."""
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.show()
        self.help_dialog = dialog
