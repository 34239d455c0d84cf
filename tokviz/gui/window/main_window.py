"""The main window: an editor, any number of token views side by side, and the vocabulary dock.

Layout and wiring only. Tokens come from the core through :class:`TokenizationModel` (one per
view); the window moves the editor's text to the models after a short debounce, and moves hover,
selection and scroll positions between the editor and the views by source position.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import QPoint, QSettings, QSize, Qt, QTimer, Signal
from PySide6.QtGui import (
    QAction,
    QCloseEvent,
    QGuiApplication,
    QKeySequence,
    QResizeEvent,
    QTextCursor,
)
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
    QMainWindow,
    QSplitter,
    QTabBar,
    QWidget,
)

from tokviz.gui.context import Installer
from tokviz.gui.models.tokenizers import TokenizerRegistryModel
from tokviz.gui.panels import chart, pretokenizer, roundtrip, streaming, vocabulary
from tokviz.gui.panels.training import install as training
from tokviz.gui.settings import (
    GEOMETRY,
    POINT_SIZE,
    SHOW_CHUNKS,
    SHOW_IDS,
    SHOW_WHITESPACE,
    SYNC_SCROLL,
    TEXT,
    THEME,
    VIEWS,
    WINDOW_STATE,
    Settings,
)
from tokviz.gui.style.fonts import mono_font
from tokviz.gui.style.theme import token_colors
from tokviz.gui.text.samples import DEFAULT_TEXT, Sample
from tokviz.gui.text.token_table import TableUpdate
from tokviz.gui.text.utf16 import Utf16Index, normalize_newlines, plain_text_from_raw
from tokviz.gui.widgets.elided import ElidedLabel
from tokviz.gui.widgets.source_editor import SourceEditor
from tokviz.gui.widgets.token_panel import TokenPanel
from tokviz.gui.window.appearance import AppearanceMixin
from tokviz.gui.window.export import install_export_actions
from tokviz.gui.window.files import FilesMixin
from tokviz.gui.window.menus import MenusMixin
from tokviz.gui.window.panel_host import PanelHost
from tokviz.gui.window.presentation import PresentationMode, install_presentation_mode
from tokviz.gui.window.view_sync import ViewSyncMixin
from tokviz.gui.workers.debounce import Debouncer
from tokviz.gui.workers.gc_guard import collect_garbage_in_gui_thread
from tokviz.gui.workers.settle import mark_views_settled

# Texts longer than this are not written to the settings file (reopen the file instead).
DEFAULT_SIZE = QSize(1360, 860)
MAX_SAVED_TEXT = 200_000
# Edits are coalesced by a 0 ms timer: it fires once the pending input events are handled, so a
# burst of keys (or a key held down) costs one update. Huge texts also wait for a pause in typing.
BIG_TEXT = 2_000_000
BIG_TEXT_DEBOUNCE_MS = 30
# The dockable features the window installs, in order: (name, install(context)). A new panel is
# a module under tokviz/gui/panels with an ``install`` function, listed here.
DEFAULT_PANELS: tuple[tuple[str, Installer], ...] = (
    ("vocabulary", vocabulary.install),
    ("training", training.install),
    ("chart", chart.install),
    ("pretokenizer", pretokenizer.install),
    ("streaming", streaming.install),
    ("roundtrip", roundtrip.install),
)


class MainWindow(MenusMixin, FilesMixin, ViewSyncMixin, AppearanceMixin, QMainWindow):
    """The tokviz window. ``MainWindow()`` works whenever a QApplication exists."""

    textTokenized = Signal()
    colorsChanged = Signal(object)  # TokenColors, after a theme or presentation-mode change

    def __init__(
        self,
        settings: QSettings | Settings | None = None,
        parent: QWidget | None = None,
        panels: Sequence[tuple[str, Installer]] = DEFAULT_PANELS,
    ) -> None:
        collect_garbage_in_gui_thread()
        super().__init__(parent)
        self.setObjectName("mainWindow")
        self.setWindowTitle("tokviz")
        self.setAcceptDrops(True)
        self.settings = settings if isinstance(settings, Settings) else Settings(settings)
        # A saved dock layout keeps the user's dock sizes; without one, docks get sensible first sizes.
        self.restored_layout = self.settings.contains(WINDOW_STATE)
        self.tokenizers = TokenizerRegistryModel(self)
        self.tokenizers.loadFailed.connect(self._on_load_failed)
        self.tokenizers.mergesReady.connect(self._on_merges_ready)
        self.panels: list[TokenPanel] = []
        self.text = ""
        self._index = Utf16Index("")
        self._n_bytes = 0
        self._hover: tuple[TokenPanel, int] | None = None
        self._syncing = False
        # Set once the editor's text has gone to the views: a view added later gets it too, even "".
        self._text_handed_out = False
        self._theme = "system"
        self._point_size = POINT_SIZE.default
        self.last_error: str | None = None
        self.presentation: PresentationMode | None = None

        self.editor = SourceEditor(self)
        self.editor.fileDropped.connect(self.open_text_file)
        self.host = PanelHost(self)
        self.views_splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.views_splitter.setObjectName("viewsSplitter")
        self.views_splitter.setChildrenCollapsible(False)
        self.splitter = QSplitter(Qt.Orientation.Vertical, self)
        self.splitter.setObjectName("mainSplitter")
        self.splitter.addWidget(self.editor)
        self.splitter.addWidget(self.views_splitter)
        self.splitter.setStretchFactor(0, 1)
        self.splitter.setStretchFactor(1, 2)
        self.splitter.setChildrenCollapsible(False)
        self.setCentralWidget(self.splitter)

        self.status_label = ElidedLabel("", self)  # ends in "…" when narrow, the whole text in its tooltip
        self.status_label.setObjectName("statusStats")
        self.statusBar().addPermanentWidget(self.status_label, 1)

        self._edits = Debouncer(0, self)
        self._edits.triggered.connect(self.retokenize_now)
        self.editor.document().contentsChanged.connect(self._on_text_edited)
        self.editor.selectionChanged.connect(self._on_editor_selection)
        self.editor.verticalScrollBar().valueChanged.connect(self._on_editor_scrolled)

        self._build_actions()
        self._build_menus()
        self._restore()
        self._apply_theme()
        self._apply_zoom()
        # The right-hand docks run the full height; bottom docks sit under the editor and views.
        self.setCorner(Qt.Corner.BottomRightCorner, Qt.DockWidgetArea.RightDockWidgetArea)
        self.installed: dict[str, object] = {name: install(self.host) for name, install in panels}
        self.vocab_dock = self.installed.get("vocabulary")
        self.training = self.installed.get("training")
        self.chart_dock = self.installed.get("chart")
        self.pretok_dock = self.installed.get("pretokenizer")
        self.stream_dock = self.installed.get("streaming")
        self.roundtrip_dock = self.installed.get("roundtrip")
        self.exporter = install_export_actions(self)
        self._restore_dock_layout()
        install_presentation_mode(self)  # last: it may hide docks added above
        hints = QGuiApplication.styleHints()
        hints.colorSchemeChanged.connect(lambda *_: self._apply_theme())

    # ================================================================ actions and menus
    def new_action(
        self,
        text: str,
        shortcut: str | list[str] | None,
        slot: Callable[..., object],
        checkable: bool = False,
        name: str = "",
    ) -> QAction:
        """A window-wide action: its shortcuts work wherever the focus is in the window."""
        action = QAction(text, self)
        if shortcut:
            keys = [shortcut] if isinstance(shortcut, str) else shortcut
            action.setShortcuts([QKeySequence(k) for k in keys])
            action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        action.setCheckable(checkable)
        if name:
            action.setObjectName(name)
        if checkable:
            action.toggled.connect(slot)
        else:
            action.triggered.connect(lambda *_: slot())
        self.addAction(action)
        return action

    # ================================================================ views
    def add_view(self, key: str | None = None) -> TokenPanel:
        """Add a token view at the right; without a key, the first built-in not shown yet."""
        if key is None:
            used = {p.model.key for p in self.panels}
            key = next((k for k in ("gpt2", "cl100k", "bytes") if k not in used), "gpt2")
        panel = TokenPanel(self.tokenizers, key, len(self.panels) + 1, self)
        panel.view.setFont(mono_font(self._point_size))
        panel.view.set_colors(self._colors)
        panel.view.set_options(self.display_options())
        panel.view.set_show_chunks(self.act_chunks.isChecked())
        panel.model.tableChanged.connect(lambda update, p=panel: self._on_table_changed(p, update))
        panel.model.busyChanged.connect(lambda _busy: self._update_status())
        panel.model.failed.connect(lambda message: self._show_error("Tokenizing failed", message))
        panel.model.tokenizerChanged.connect(lambda p=panel: self._on_panel_tokenizer(p))
        panel.view.tokenHovered.connect(lambda index, p=panel: self._on_hover(p, index))
        panel.view.scrolledToSource.connect(lambda cp, p=panel: self._sync_scroll(cp, p))
        panel.closeRequested.connect(self.remove_view)
        panel.openTokenizerRequested.connect(self.choose_tokenizer_file)
        self.panels.append(panel)
        self.views_splitter.addWidget(panel)
        self._update_close_buttons()
        if self._text_handed_out:
            panel.model.set_text(self.text)
        return panel

    def remove_view(self, panel: TokenPanel) -> None:
        """Close one view (the last remaining view stays)."""
        if len(self.panels) <= 1 or panel not in self.panels:
            return
        was_reference = panel is self.panels[0]
        self.panels.remove(panel)
        panel.hide()
        panel.setParent(None)
        panel.deleteLater()
        for number, p in enumerate(self.panels, start=1):
            p.set_number(number)
        self._update_close_buttons()
        self._refresh_references()
        self._update_status()
        if was_reference:
            self.host.referenceViewChanged.emit(self.panels[0].model.key)

    def remove_last_view(self) -> None:
        """Close the rightmost view."""
        if len(self.panels) > 1:
            self.remove_view(self.panels[-1])

    def _update_close_buttons(self) -> None:
        for p in self.panels:
            p.close_button.setVisible(len(self.panels) > 1)
        self.act_remove_view.setEnabled(len(self.panels) > 1)

    def _on_panel_tokenizer(self, panel: TokenPanel) -> None:
        panel.view.merges_ready = self.tokenizers.merges_ready(panel.model.key)
        if self.panels and panel is self.panels[0]:
            self.host.referenceViewChanged.emit(panel.model.key)
        self._update_status()

    def _on_merges_ready(self, key: str) -> None:
        for p in self.panels:
            if p.model.key == key:
                p.view.merges_ready = True

    # ================================================================ text flow
    def _on_text_edited(self) -> None:
        size = self.editor.document().characterCount()
        self._edits.set_interval(BIG_TEXT_DEBOUNCE_MS if size > BIG_TEXT else 0)
        self._edits.trigger()

    def retokenize_now(self) -> None:
        """Hand the editor's current text to every view's model (normally called by the debounce timer)."""
        self._edits.cancel()
        text = plain_text_from_raw(self.editor.document().toRawText())
        if text == self.text and all(p.model.current for p in self.panels):
            return
        self.text = text
        self._index = Utf16Index(text)
        self._n_bytes = len(text.encode("utf-8", errors="surrogatepass"))
        self._text_handed_out = True
        for p in self.panels:
            p.model.set_text(text)
        self._update_status()

    def _on_table_changed(self, panel: TokenPanel, update: TableUpdate) -> None:
        tok = panel.model.tokenizer
        if tok is None:
            return
        panel.view.merges_ready = self.tokenizers.merges_ready(panel.model.key)
        panel.view.set_content(update.table, tok, update)
        self._refresh_references()
        self._update_status()
        self._on_editor_selection()
        if self.is_ready():
            mark_views_settled(self)
            self.textTokenized.emit()
            # Merge ranks for hover cards are recovered once the views are filled, in the background.
            for p in self.panels:
                self.tokenizers.prepare_merges(p.model.key)

    def _refresh_references(self) -> None:
        ref = self.panels[0].view.table if self.panels else None
        for i, p in enumerate(self.panels):
            p.view.set_reference(None if i == 0 else ref)

    def is_ready(self) -> bool:
        """True when every view shows the tokens of the editor's current text."""
        return (
            all(p.model.current and p.view.table is p.model.table for p in self.panels)
            and not self._edits.is_pending()
        )

    def set_text(self, text: str) -> None:
        """Replace the editor's text (undoable) and tokenize it."""
        cursor = QTextCursor(self.editor.document())
        cursor.select(QTextCursor.SelectionType.Document)
        cursor.insertText(normalize_newlines(text))
        self.editor.moveCursor(QTextCursor.MoveOperation.Start)
        self.setWindowTitle("tokviz")  # the text is no longer the file the title named

    def load_sample(self, sample: Sample) -> None:
        """Put a sample from the Samples menu in the editor."""
        self.set_text(sample.load())
        self.setWindowTitle(f"{sample.title} — tokviz")
        self.statusBar().showMessage(f"Sample: {sample.title}", 3000)

    # ================================================================ status
    def _update_status(self) -> None:
        parts = [f"{len(self.text):,} characters", f"{self._n_bytes:,} bytes"]
        for p in self.panels:
            p.update_stats(self._n_bytes)
            name = self.tokenizers.label(p.model.key)
            table = p.model.table
            if p.model.current and table is not None:
                n = len(table)
                ratio = f"{self._n_bytes / n:.2f}" if n else "–"
                parts.append(f"{name}: {n:,} tokens ({ratio} bytes/token)")
            else:
                parts.append(f"{name}: …")
        self.status_label.setText("   ·   ".join(parts))

    def token_counts(self) -> list[int]:
        """Token count of each view, left to right (for tests and scripts)."""
        return [len(p.model.table) if p.model.table is not None else -1 for p in self.panels]

    # ================================================================ settings
    def _restore_dock_layout(self) -> None:
        """Put every dock back where the user left it (docks are added after ``_restore``)."""
        state = self.settings.get(WINDOW_STATE)
        if state is not None:
            self.restoreState(state)

    def _restore(self) -> None:
        s = self.settings
        self._theme = s.get(THEME)
        if self._theme not in self.theme_actions:
            self._theme = "system"
        self.theme_actions[self._theme].setChecked(True)
        self._point_size = s.get(POINT_SIZE)
        self._colors = token_colors(self.is_dark())
        for act, key in (
            (self.act_ids, SHOW_IDS),
            (self.act_ws, SHOW_WHITESPACE),
            (self.act_chunks, SHOW_CHUNKS),
        ):
            act.setChecked(s.get(key))
        self.act_sync.setChecked(s.get(SYNC_SCROLL))
        self.restore_remembered_tokenizers()  # before the views: a view may show a remembered file
        keys = [k for k in s.get(VIEWS) if self.tokenizers.row_of(k) >= 0] or list(VIEWS.default)
        for key in keys:
            self.add_view(key)
        self._fill_recent_menu()
        geometry = s.get(GEOMETRY)
        if geometry is not None:
            self.restoreGeometry(geometry)
        else:
            self.resize(self._first_size())
        self._restore_dock_layout()
        self.editor.setPlainText(s.get(TEXT) or DEFAULT_TEXT)
        self.retokenize_now()

    def _first_size(self) -> QSize:
        """The size of a first launch: 1360 × 860, or the screen's free area on a smaller screen."""
        screen = self.screen() or QGuiApplication.primaryScreen()
        if screen is None:
            return DEFAULT_SIZE
        free = screen.availableGeometry()
        # Leave room for the window manager's frame, title bar and where it places a new window
        # (openbox: 45 px down; 40 px left a 1024 x 768 screen's bottom 10 px cut off).
        return DEFAULT_SIZE.boundedTo(QSize(free.width() - 16, free.height() - 64))

    def focusNextPrevChild(self, next: bool) -> bool:  # noqa: A002 - Qt's name
        """Tab and Ctrl+Tab skip the controls of a dock whose tab is behind another: Qt keeps such a
        dock "visible" off the screen, so its controls would take the focus unseen."""
        for _ in range(500):  # every stop of the chain at most, never forever
            if not super().focusNextPrevChild(next):
                return False
            widget = QApplication.focusWidget()
            if widget is None or not in_hidden_dock_tab(widget):
                return True
        return True

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        # Opening a dock can make the window taller than the room below it: move it back on screen.
        QTimer.singleShot(0, self._keep_on_screen)

    def _keep_on_screen(self) -> None:
        """Move a window that grew past the screen's free area back inside it (never off its top-left)."""
        screen = self.screen()
        if screen is None or self.isMaximized() or self.isFullScreen() or not self.isVisible():
            return
        free = screen.availableGeometry()
        frame = self.frameGeometry()
        dx = max(0, frame.right() - free.right())
        dy = max(0, frame.bottom() - free.bottom())
        if dx or dy:
            self.move(QPoint(max(free.left(), frame.left() - dx), max(free.top(), frame.top() - dy)))

    def save_settings(self) -> None:
        """Remember text (unless huge), views, options, theme, zoom and window layout."""
        s = self.settings
        text = self.text
        if len(text) <= MAX_SAVED_TEXT:
            s.set(TEXT, text)
        else:
            s.remove(TEXT)
        s.set(VIEWS, [p.model.key for p in self.panels if not p.model.key.startswith("model:")])
        s.set(THEME, self._theme)
        s.set(POINT_SIZE, self._point_size)
        s.set(SHOW_IDS, self.act_ids.isChecked())
        s.set(SHOW_WHITESPACE, self.act_ws.isChecked())
        s.set(SHOW_CHUNKS, self.act_chunks.isChecked())
        s.set(SYNC_SCROLL, self.act_sync.isChecked())
        s.set(GEOMETRY, self.saveGeometry())
        s.set(WINDOW_STATE, self.saveState())
        s.sync()

    def closeEvent(self, event: QCloseEvent) -> None:
        if not self.host.may_close():
            event.ignore()
            return
        self.retokenize_now()
        self.save_settings()
        super().closeEvent(event)


def in_hidden_dock_tab(widget: QWidget) -> bool:
    """Whether ``widget`` is kept off the screen by the main window: in a dock whose tab is behind
    another, or a dock area's spare tab bar (Qt parks both outside the window, still "visible")."""
    if isinstance(widget, QTabBar):
        return widget.visibleRegion().isEmpty()
    parent: QWidget | None = widget
    while parent is not None and not isinstance(parent, QDockWidget):
        parent = parent.parentWidget()
    return parent is not None and parent.visibleRegion().isEmpty()
