"""The window's actions, menus and toolbar: every command has a shortcut and a place in a menu."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import QDialog, QLabel, QToolBar

from tokviz.gui.text.samples import CATEGORY_SAMPLES, LECTURE_SAMPLES, SHOWCASE
from tokviz.gui.window.help import GettingStartedDialog, ShortcutsDialog


class MenusMixin:
    """Part of :class:`~tokviz.gui.window.main_window.MainWindow`; see the module's docstring."""

    def _build_actions(self) -> None:
        a = self.new_action
        self.act_open = a("&Open text…", "Ctrl+O", self.choose_text_file, name="actionOpenText")
        self.act_open_tokenizer = a(
            "Open &tokenizer…",
            "Ctrl+Shift+O",
            lambda: self.choose_tokenizer_file(None),
            name="actionOpenTokenizer",
        )
        self.act_quit = a("&Quit", "Ctrl+Q", self.close, name="actionQuit")
        self.act_ids = a(
            "Show token &ids", "Ctrl+I", self._on_display_options, checkable=True, name="actionShowIds"
        )
        self.act_ws = a(
            "Show &whitespace (· ↵ →)",
            "Ctrl+Shift+W",
            self._on_display_options,
            checkable=True,
            name="actionShowWhitespace",
        )
        self.act_chunks = a(
            "Show pre-tokenizer &chunks",
            "Ctrl+Shift+K",
            self._on_chunks,
            checkable=True,
            name="actionShowChunks",
        )
        self.act_add_view = a("&Add view", "Ctrl+Shift+N", lambda: self.add_view(), name="actionAddView")
        self.act_remove_view = a(
            "&Remove last view", "Ctrl+Shift+R", self.remove_last_view, name="actionRemoveView"
        )
        self.act_sync = a(
            "&Synchronised scrolling",
            "Ctrl+Shift+S",
            lambda _on: None,
            checkable=True,
            name="actionSyncScroll",
        )
        self.act_sync.setChecked(True)
        self.act_zoom_in = a("Zoom &in", ["Ctrl+=", "Ctrl++"], lambda: self.zoom(1), name="actionZoomIn")
        self.act_zoom_out = a("Zoom &out", "Ctrl+-", lambda: self.zoom(-1), name="actionZoomOut")
        self.act_zoom_reset = a("&Reset zoom", "Ctrl+0", lambda: self.zoom(0), name="actionZoomReset")
        self.act_focus_editor = a("Focus &editor", "Ctrl+E", self.editor.setFocus, name="actionFocusEditor")
        self.theme_group = QActionGroup(self)
        self.theme_actions: dict[str, QAction] = {}
        for key, label, shortcut in (
            ("system", "Follow &system", "Ctrl+Alt+0"),
            ("light", "&Light", "Ctrl+Alt+L"),
            ("dark", "&Dark", "Ctrl+Alt+D"),
        ):
            act = a(
                label,
                shortcut,
                lambda on, k=key: on and self.set_theme(k),
                checkable=True,
                name=f"actionTheme_{key}",
            )
            self.theme_group.addAction(act)
            self.theme_actions[key] = act
        self.act_getting_started = a(
            "&Getting started",
            "F1",
            lambda: self._open_help(GettingStartedDialog(self)),
            name="actionGettingStarted",
        )
        self.act_shortcuts = a(
            "&Keyboard shortcuts",
            "Ctrl+/",
            lambda: self._open_help(ShortcutsDialog(self)),
            name="actionShortcuts",
        )
        self.act_about = a("&About tokviz", "Ctrl+F1", self._about, name="actionAbout")

    def _build_menus(self) -> None:
        bar = self.menuBar()
        file_menu = bar.addMenu("&File")
        file_menu.addAction(self.act_open)
        self.recent_menu = file_menu.addMenu("Open &recent")
        self.recent_menu.setObjectName("recentMenu")
        file_menu.addAction(self.act_open_tokenizer)
        file_menu.addSeparator()
        file_menu.addAction(self.act_quit)

        samples = bar.addMenu("&Samples")
        samples.setObjectName("samplesMenu")
        self.sample_actions: list[QAction] = []
        number = 1
        for group in ((SHOWCASE,), LECTURE_SAMPLES, CATEGORY_SAMPLES):
            for sample in group:
                act = self.new_action(
                    sample.title,
                    f"Alt+{number % 10}" if number <= 10 else None,
                    lambda s=sample: self.load_sample(s),
                )
                samples.addAction(act)
                self.sample_actions.append(act)
                number += 1
            samples.addSeparator()

        view = bar.addMenu("&View")
        self.view_menu = view
        for act in (self.act_ids, self.act_ws, self.act_chunks):
            view.addAction(act)
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

        self.help_menu = bar.addMenu("&Help")
        self.help_menu.addAction(self.act_getting_started)
        self.help_menu.addAction(self.act_shortcuts)
        self.help_menu.addSeparator()
        self.help_menu.addAction(self.act_about)

        tools = QToolBar("Display", self)
        tools.setObjectName("displayToolBar")
        tools.setMovable(False)
        for act in (self.act_ids, self.act_ws, self.act_chunks):
            tools.addAction(act)
        tools.addSeparator()
        tools.addAction(self.act_add_view)
        tools.addSeparator()
        self.legend = QLabel(self)
        self.legend.setObjectName("legend")
        tools.addWidget(self.legend)
        self.addToolBar(tools)

    def _open_help(self, dialog: QDialog) -> None:
        """Show a help dialog without blocking the window (it deletes itself when closed)."""
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.show()
        self.help_dialog = dialog
