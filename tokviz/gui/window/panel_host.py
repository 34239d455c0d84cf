"""The window's side of :class:`tokviz.gui.context.PanelContext`: what panels get, and nothing more.

The host is a QObject owned by the window and handed the window's parts it relays, never the window
itself: the main window (to dock into, for its menu bar and status bar), the editor, the list of
token views, the registry, the settings, the appearance, presentation mode, the menus and the file
opener. The window wires its text, colour, display-option and presentation-mode changes to the
host's signals; the host turns a panel's requests (a dock, a menu, an action, a selection in the
editor, work that waits for start-up, a close guard) into operations on those parts.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Unpack

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QFont, QKeySequence, QTextCursor
from PySide6.QtWidgets import QDockWidget, QMainWindow, QMenu, QPlainTextEdit, QWidget

from tokviz.gui.context import ActionOptions, DockOptions, ViewTokens
from tokviz.gui.models.tokenizers import TokenizerRegistryModel
from tokviz.gui.settings import Settings
from tokviz.gui.style.theme import TokenColors
from tokviz.gui.text.display import DisplayOptions
from tokviz.gui.text.utf16 import Utf16Index, plain_text_from_raw
from tokviz.gui.widgets.token_panel import TokenPanel
from tokviz.gui.window.actions import make_action, on_trigger
from tokviz.gui.window.appearance import Appearance
from tokviz.gui.window.files import FileOpener
from tokviz.gui.window.menus import WindowMenus
from tokviz.gui.window.presentation import PresentationMode
from tokviz.gui.workers.settle import Settle, first_paint_of

_AREAS = {"bottom": Qt.DockWidgetArea.BottomDockWidgetArea, "right": Qt.DockWidgetArea.RightDockWidgetArea}


class PanelHost(QObject):
    """Implements :class:`~tokviz.gui.context.PanelContext` for one main window, from its parts.

    ``set_text(text)`` replaces the editor's text as the window does (undoable, retitled);
    ``views_ready()`` says whether every view shows the editor's current text.
    """

    textEdited = Signal()
    textTokenized = Signal()
    colorsChanged = Signal(TokenColors)
    fontChanged = Signal(QFont)
    displayOptionsChanged = Signal(DisplayOptions)
    referenceViewChanged = Signal(str)  # registry key of the first view's tokenizer
    presentationChanged = Signal(bool)

    def __init__(
        self,
        window: QMainWindow,
        editor: QPlainTextEdit,
        views: list[TokenPanel],
        tokenizers: TokenizerRegistryModel,
        settings: Settings,
        appearance: Appearance,
        presentation: PresentationMode,
        menus: WindowMenus,
        files: FileOpener,
        *,
        restored_layout: bool,
        set_text: Callable[[str], None],
        views_ready: Callable[[], bool],
    ) -> None:
        super().__init__(window)
        self._window = window
        self._editor = editor
        self._views = views
        self._tokenizers = tokenizers
        self._settings = settings
        self._appearance = appearance
        self._presentation = presentation
        self._menus = menus
        self._files = files
        # A saved dock layout keeps the user's dock sizes; without one, docks get sensible first sizes.
        self._restored_layout = restored_layout
        self._set_text = set_text
        self._views_ready = views_ready
        self._guards: list[Callable[[], bool]] = []
        self._first_sizes: dict[QDockWidget, Callable[[], int]] = {}
        self._bottom_docks: list[QDockWidget] = []
        self._settle = Settle(self)
        self._first_paint = first_paint_of(window)  # watching from before the window shows
        self.textTokenized.connect(self._settle.mark_settled)
        editor.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self._editor and event.type() == QEvent.Type.FontChange:
            self.fontChanged.emit(self._editor.font())
        return False

    # ---------------------------------------------------------------- state
    @property
    def tokenizers(self) -> TokenizerRegistryModel:
        return self._tokenizers

    @property
    def settings(self) -> Settings:
        return self._settings

    def parent_widget(self) -> QWidget:
        return self._window

    def editor_text(self) -> str:
        return plain_text_from_raw(self._editor.document().toRawText())

    def set_text(self, text: str) -> None:
        self._set_text(text)

    def colors(self) -> TokenColors:
        return self._appearance.colors

    def text_font(self) -> QFont:
        return self._editor.font()

    def display_options(self) -> DisplayOptions:
        return self._appearance.display_options()

    def views_ready(self) -> bool:
        return self._views_ready()

    def when_views_ready(self, callback: Callable[[], object]) -> None:
        self._first_paint.after(lambda: self._settle.after_settled(callback))

    def is_presentation(self) -> bool:
        return self._presentation.active

    def editor_selection(self) -> tuple[int, int]:
        cursor = self._editor.textCursor()
        index = Utf16Index(self.editor_text())
        return index.to_code_point(cursor.selectionStart()), index.to_code_point(cursor.selectionEnd())

    def show_in_editor(self, start: int, end: int) -> None:
        editor = self._editor
        index = Utf16Index(self.editor_text())
        cursor = QTextCursor(editor.document())
        cursor.setPosition(index.to_utf16(start))
        cursor.setPosition(index.to_utf16(end), QTextCursor.MoveMode.KeepAnchor)
        editor.setTextCursor(cursor)
        editor.ensureCursorVisible()
        editor.setFocus()

    def view_tokens(self) -> list[ViewTokens]:
        out = []
        for panel in self._views:
            tok, table = panel.model.tokenizer, panel.model.table
            if tok is not None and table is not None:
                out.append(ViewTokens(str(panel.number), panel.model.key, tok, table.ids.tolist()))
        return out

    def first_view_key(self) -> str:
        return self._views[0].model.key if self._views else "gpt2"

    # ---------------------------------------------------------------- window parts
    def add_dock(
        self, widget: QWidget, title: str, object_name: str, **options: Unpack[DockOptions]
    ) -> QDockWidget:
        area = options.get("area", "bottom")
        tabify_with = options.get("tabify_with")
        window = self._window
        dock = QDockWidget(title, window)
        dock.setObjectName(object_name)
        dock.setWidget(widget)
        window.addDockWidget(_AREAS[area], dock)
        other = window.findChild(QDockWidget, tabify_with) if tabify_with else None
        if other is None and area == "bottom" and self._bottom_docks:
            # Bottom docks share one row of tabs: side by side they would add up their minimum
            # widths and push the window past a projector's 1024 pixels.
            other = self._bottom_docks[0]
        if area == "bottom":
            self._bottom_docks.append(dock)
        if other is not None:
            window.tabifyDockWidget(other, dock)
        toggle = dock.toggleViewAction()
        toggle.setObjectName(f"action{object_name[0].upper()}{object_name[1:]}")
        if "action_text" in options:
            toggle.setText(options["action_text"])
        if "shortcut" in options:
            toggle.setShortcut(QKeySequence(options["shortcut"]))
            toggle.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        # Qt's toggle hides a dock that is merely behind another tab; the user asked to see it.
        toggle.triggered.disconnect()
        toggle.triggered.connect(lambda _checked: self.show_or_hide(dock))
        self._menus.view_menu.addAction(toggle)
        if "first_size" in options:
            self._first_sizes[dock] = options["first_size"]
            dock.visibilityChanged.connect(self._size_on_first_show)
        dock.setVisible(options.get("visible", False))
        if other is not None:
            other.raise_()
        return dock

    def show_or_hide(self, dock: QDockWidget) -> None:
        """Show and raise a dock that is hidden or behind another tab; hide one that is in front."""
        if dock.isHidden() or dock.visibleRegion().isEmpty():
            dock.show()
            dock.raise_()
        else:
            dock.hide()
        dock.toggleViewAction().setChecked(not dock.isHidden())

    def _size_on_first_show(self, visible: bool) -> None:
        dock = self.sender()
        if not visible or not isinstance(dock, QDockWidget) or dock not in self._first_sizes:
            return
        size = self._first_sizes.pop(dock)
        if self._restored_layout or dock.isFloating():
            return  # a saved layout keeps the user's sizes
        bottom = self._window.dockWidgetArea(dock) == Qt.DockWidgetArea.BottomDockWidgetArea
        orientation = Qt.Orientation.Vertical if bottom else Qt.Orientation.Horizontal
        # After the window's first layout: a dock shown with the window would be laid out again.
        QTimer.singleShot(0, self, lambda: self._window.resizeDocks([dock], [size()], orientation))

    def add_menu(self, title: str, object_name: str) -> QMenu:
        menu = QMenu(title, self._window)
        menu.setObjectName(object_name)
        self._window.menuBar().insertMenu(self._menus.help_menu.menuAction(), menu)
        return menu

    def add_action(self, text: str, slot: Callable[[], object], **options: Unpack[ActionOptions]) -> QAction:
        action = make_action(self._window, text, options.get("shortcut"), name=options.get("name", ""))
        on_trigger(action, slot)
        if "menu" in options:
            options["menu"].addAction(action)
        return action

    def open_tokenizer_dialog(self) -> None:
        self._files.choose_tokenizer_file(None)

    def show_status(self, message: str, msecs: int = 5000) -> None:
        self._window.statusBar().showMessage(message, msecs)

    def add_close_guard(self, guard: Callable[[], bool]) -> None:
        self._guards.append(guard)

    def may_close(self) -> bool:
        """Ask every close guard (the window calls this from its close event)."""
        return all(guard() for guard in self._guards)
