"""The main window: an editor, any number of token views side by side, and the vocabulary dock.

Layout and wiring only. Tokens come from the core through :class:`TokenizationModel` (one per
view); the window moves the editor's text to the models after a short debounce. Its parts (menus,
appearance, hover and scroll sync, files, presentation mode, the panels' host) are objects it
owns, each given what it needs, and connected to each other in one place.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QSettings, Qt, QTimer, Signal
from PySide6.QtGui import (
    QCloseEvent,
    QDragEnterEvent,
    QDropEvent,
    QGuiApplication,
    QResizeEvent,
    QShowEvent,
    QTextCursor,
)
from PySide6.QtWidgets import (
    QApplication,
    QMainWindow,
    QMenu,
    QMessageBox,
    QSplitter,
    QWidget,
)

from tokviz.core.bpe.tokenizer import Tokenizer
from tokviz.gui.context import Installer
from tokviz.gui.drawing.views_legend import ViewsLegend, views_with_legend
from tokviz.gui.models.tokenizers import TokenizerRegistryModel
from tokviz.gui.panels import chart, chat, lattice, pretokenizer, roundtrip, streaming, vocabulary
from tokviz.gui.panels.training import install as training
from tokviz.gui.settings import WINDOW_STATE, Settings
from tokviz.gui.style.theme import TokenColors
from tokviz.gui.text.display import DisplayOptions
from tokviz.gui.text.samples import Sample
from tokviz.gui.text.token_table import TableUpdate
from tokviz.gui.text.utf16 import Utf16Index, normalize_newlines, plain_text_from_raw
from tokviz.gui.widgets.elided import ElidedLabel
from tokviz.gui.widgets.source_editor import SourceEditor
from tokviz.gui.widgets.token_panel import TokenPanel
from tokviz.gui.window.actions import make_action, on_trigger
from tokviz.gui.window.appearance import Appearance
from tokviz.gui.window.counters import BigCounters, Counts, ViewCount, stacked
from tokviz.gui.window.export import Exporter, ExportSources, add_export_actions
from tokviz.gui.window.export_page import PageExporter
from tokviz.gui.window.files import FileOpener
from tokviz.gui.window.geometry import in_hidden_dock_tab, keep_on_screen
from tokviz.gui.window.help import GettingStartedDialog, ShortcutsDialog
from tokviz.gui.window.lecture_menu import LectureMenu
from tokviz.gui.window.menus import WindowMenus
from tokviz.gui.window.panel_host import PanelHost
from tokviz.gui.window.presentation import PresentationMode
from tokviz.gui.window.session import SessionParts, restore_dock_layout, restore_session, save_session
from tokviz.gui.window.view_sync import ViewSync
from tokviz.gui.workers.debounce import Debouncer
from tokviz.gui.workers.gc_guard import collect_garbage_in_gui_thread

# Edits are coalesced by a 0 ms timer: it fires once the pending input events are handled, so a
# burst of keys (or a key held down) costs one update. Huge texts also wait for a pause in typing.
BIG_TEXT = 2_000_000
BIG_TEXT_DEBOUNCE_MS = 30
# The dockable features the window installs, in order: (name, install(context)) of each panel module.
DEFAULT_PANELS: tuple[tuple[str, Installer], ...] = (
    ("vocabulary", vocabulary.install),
    ("training", training.install),
    ("chart", chart.install),
    ("pretokenizer", pretokenizer.install),
    ("streaming", streaming.install),
    ("roundtrip", roundtrip.install),
    ("chat", chat.install),
    ("lattice", lattice.install),
)


class MainWindow(QMainWindow):
    """The tokviz window. ``MainWindow()`` works whenever a QApplication exists.

    The window lays out the editor and the views and owns its parts, each built with what it needs
    and wired in :meth:`_connect_signals`: :class:`WindowMenus` (actions, menus, toolbar),
    :class:`Appearance` (theme, colours, zoom, display options), :class:`ViewSync` (hover, selection,
    scrolling), :class:`FileOpener` (texts, tokenizer files, recent files),
    :class:`PresentationMode`, the :class:`PanelHost` the panels receive, and the parts only their
    actions reach (the :class:`Exporter`, the web page export, the Lecture menu), which Qt keeps
    as the window's children. No part is handed the window itself: the session gets its
    :class:`SessionParts`, export its :class:`ExportSources`. Panels are reached as the user
    reaches them: by their docks and actions (``findChild`` by object name).
    """

    textTokenized = Signal()

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
        self.tokenizers = TokenizerRegistryModel(self)
        self.panels: list[TokenPanel] = []
        self.text = ""
        self._index = Utf16Index("")
        self._n_bytes = 0
        # Set once the editor's text has gone to the views: a view added later gets it too, even "".
        self._text_handed_out = False

        self.editor = SourceEditor(self)
        self.views_splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.views_splitter.setObjectName("viewsSplitter")
        self.views_splitter.setChildrenCollapsible(False)
        self.splitter = QSplitter(Qt.Orientation.Vertical, self)
        self.splitter.setObjectName("mainSplitter")
        self.counters = BigCounters(self)  # presentation mode's status bar, in large type, over the views
        self.counters.hide()
        self.views_legend = ViewsLegend(self)
        self.splitter.addWidget(self.editor)
        views_area = views_with_legend(self.views_legend, self.views_splitter)
        self.splitter.addWidget(stacked(self.counters, views_area))
        self.splitter.setStretchFactor(0, 1)
        self.splitter.setStretchFactor(1, 2)
        self.splitter.setSizes([1000, 2000])  # a third for the editor, two for the views, whatever the hints
        self.splitter.setChildrenCollapsible(False)
        self.setCentralWidget(self.splitter)
        self.status_label = ElidedLabel("", self)  # ends in "…" when narrow, the whole text in its tooltip
        self.status_label.setObjectName("statusStats")
        # A normal (not permanent) widget: a message (a hover, "Sample: …", a token not in the text)
        # takes its place for a moment instead of being squeezed out by it.
        self.statusBar().addWidget(self.status_label, 1)
        self._edits = Debouncer(0, self)

        self.menus = WindowMenus(self)
        self.appearance = Appearance(self, self.editor, self.panels)
        self.view_sync = ViewSync(self.editor, self.panels, self.statusBar(), self.appearance.colors, self)
        self.files = FileOpener(self, self.settings, self.tokenizers, self.menus.recent_menu)
        self.presentation = PresentationMode(self, self.settings, self.appearance)
        self.host = PanelHost(
            self,
            self.editor,
            self.panels,
            self.tokenizers,
            self.settings,
            self.appearance,
            self.presentation,
            self.menus,
            self.files,
            restored_layout=self.settings.contains(WINDOW_STATE),
            set_text=self.set_text,
            views_ready=self.is_ready,
        )
        self._session = SessionParts(
            self.settings,
            self,
            self.editor,
            self.panels,
            add_view=self.add_view,
            text=lambda: self.text,
            retokenize=self.retokenize_now,
            tokenizers=self.tokenizers,
            appearance=self.appearance,
            menus=self.menus,
            files=self.files,
        )
        self._connect_signals()

        restore_session(self._session)
        # The right-hand docks run the full height; bottom docks sit under the editor and views.
        self.setCorner(Qt.Corner.BottomRightCorner, Qt.DockWidgetArea.RightDockWidgetArea)
        for _name, install in panels:
            install(self.host)
        self._add_export_actions()
        self._add_lecture_menu()
        restore_dock_layout(self._session)
        self.menus.view_menu.addSeparator()
        self.menus.view_menu.addAction(self.presentation.action)
        self.presentation.restore()  # last: it may hide docks added above
        # A settings file that could not be used is said in the status bar once the window shows
        # (also on standard error): a message shown earlier would share the bar with the counts.
        self._settings_problem = self.settings.file_problem()

    def _add_export_actions(self) -> None:
        """File ▸ Export tokenizer…, Export web page…, Export panel… and Copy image, above Quit."""
        sources = ExportSources(
            self, self.views_splitter, self.panels, self.tokenizers, self.appearance, lambda: self.text
        )
        exporter = Exporter(sources, self.settings)
        page = PageExporter(
            make_action(self, "Export &web page…", "Ctrl+Alt+W", name="actionExportPage"),
            text=self.editor.toPlainText,
            views=self.named_views,
            show_ids=lambda: self.appearance.display_options().show_ids,
            report=lambda text: self.statusBar().showMessage(text, 8000),
        )
        add_export_actions(exporter, self.menus.file_menu, self.menus.act_quit, [page.action])

    def _add_lecture_menu(self) -> None:
        """The Lecture menu, before Help (its actions belong to a :class:`LectureMenu` child)."""
        lecture_menu = QMenu("&Lecture", self)
        lecture_menu.setObjectName("lectureMenu")
        self.menuBar().insertMenu(self.menus.help_menu.menuAction(), lecture_menu)
        LectureMenu(
            self,
            lecture_menu,
            dark=self.appearance.is_dark,
            report=lambda text: self.statusBar().showMessage(text, 10000),
        )

    def _connect_signals(self) -> None:
        """Wire the parts together: every connection between them is made here."""
        m, look, sync, files, host = self.menus, self.appearance, self.view_sync, self.files, self.host
        on_trigger(m.act_open, files.choose_text_file)
        on_trigger(m.act_open_tokenizer, files.choose_tokenizer_file)
        on_trigger(m.act_quit, self.close)
        m.act_ids.toggled.connect(self._on_display_options)
        m.act_ws.toggled.connect(self._on_display_options)
        m.act_ids_with_text.toggled.connect(self._on_display_options)
        for act in m.spelling_actions.values():
            act.toggled.connect(self._on_display_options)
        m.act_chunks.toggled.connect(look.set_show_chunks)
        m.act_chunks.toggled.connect(self.views_legend.set_chunks)
        m.act_specials_as_text.toggled.connect(
            lambda on: self.tokenizers.set_specials_in_text("text" if on else "special")
        )
        on_trigger(m.act_add_view, self.add_view)
        on_trigger(m.act_remove_view, self.remove_last_view)
        m.act_sync.toggled.connect(sync.set_scroll_together)
        on_trigger(m.act_zoom_in, lambda: look.zoom(1))
        on_trigger(m.act_zoom_out, lambda: look.zoom(-1))
        on_trigger(m.act_zoom_reset, lambda: look.zoom(0))
        on_trigger(m.act_focus_editor, self.editor.setFocus)
        on_trigger(m.act_getting_started, lambda: m.open_help(GettingStartedDialog(self)))
        on_trigger(m.act_shortcuts, lambda: m.open_help(ShortcutsDialog(self)))
        on_trigger(m.act_about, self._about)
        m.sampleChosen.connect(self.load_sample)
        m.themeChosen.connect(look.set_theme)
        look.themeChanged.connect(m.check_theme)
        look.colorsChanged.connect(self._on_colors)
        look.displayOptionsChanged.connect(host.displayOptionsChanged)
        self.presentation.toggled.connect(host.presentationChanged)
        self.presentation.toggled.connect(self._show_counters)
        files.textOpened.connect(self._show_opened_text)
        files.tokenizerOpened.connect(self._show_opened_tokenizer)
        files.message.connect(lambda text, msecs: self.statusBar().showMessage(text, msecs))
        files.failed.connect(self._show_error)
        self.editor.fileDropped.connect(files.open_text_file)
        self.tokenizers.mergesReady.connect(self._on_merges_ready)
        self._edits.triggered.connect(self.retokenize_now)
        self.editor.document().contentsChanged.connect(self._on_text_edited)
        self.editor.document().contentsChanged.connect(host.textEdited)
        self.textTokenized.connect(host.textTokenized)
        QGuiApplication.styleHints().colorSchemeChanged.connect(lambda *_: look.apply_theme())

    # ================================================================ actions
    def _about(self) -> None:
        from tokviz.gui.window.about import show_about

        show_about(self)

    def named_views(self) -> list[tuple[str, Tokenizer | None]]:
        """Each token view's tokenizer with the name its header shows (None while it loads)."""
        return [
            (self.tokenizers.label(p.model.key), self.tokenizers.tokenizer(p.model.key)) for p in self.panels
        ]

    # ================================================================ appearance
    def _on_display_options(self, *_args: object) -> None:
        self.appearance.set_display_options(
            DisplayOptions(
                show_ids=self.menus.act_ids.isChecked(),
                whitespace=self.menus.act_ws.isChecked(),
                with_ids=self.menus.act_ids_with_text.isChecked(),
                spelling=self.menus.spelling(),
            )
        )

    def _on_colors(self, colors: TokenColors) -> None:
        self.views_legend.set_colors(colors)
        self.view_sync.set_colors(colors)
        self.host.colorsChanged.emit(colors)

    def is_dark(self) -> bool:
        """Whether the dark theme is in use."""
        return self.appearance.is_dark()

    # ================================================================ files
    def _show_opened_text(self, text: str, name: str) -> None:
        self.editor.setPlainText(text)
        self.setWindowTitle(f"{name} — tokviz")

    def _show_opened_tokenizer(self, key: str, panel: TokenPanel | None) -> None:
        if panel is None:
            self.add_view(key)
        elif panel in self.panels:
            panel.select_tokenizer(key)

    def _show_error(self, title: str, message: str) -> None:
        box = QMessageBox(QMessageBox.Icon.Warning, title, message, QMessageBox.StandardButton.Ok, self)
        box.setObjectName("errorDialog")
        box.setWindowModality(Qt.WindowModality.WindowModal)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        urls = [u for u in event.mimeData().urls() if u.isLocalFile()]
        if urls:
            self.files.open_text_file(urls[0].toLocalFile())
            event.acceptProposedAction()

    # ================================================================ views
    def add_view(self, key: str | None = None) -> TokenPanel:
        """Add a token view at the right; without a key, the first built-in not shown yet."""
        if key is None:
            used = {p.model.key for p in self.panels}
            key = next((k for k in ("gpt2", "cl100k", "bytes") if k not in used), "gpt2")
        panel = TokenPanel(self.tokenizers, key, len(self.panels) + 1, self)
        self.appearance.style_view(panel)
        panel.model.tableChanged.connect(lambda update, p=panel: self._on_table_changed(p, update))
        panel.model.busyChanged.connect(lambda _busy: self._update_status())
        panel.model.failed.connect(lambda message: self._show_error("Tokenizing failed", message))
        panel.model.tokenizerChanged.connect(lambda p=panel: self._on_panel_tokenizer(p))
        self.view_sync.watch(panel)
        panel.closeRequested.connect(self.remove_view)
        panel.openTokenizerRequested.connect(self.files.choose_tokenizer_file)
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
        self.menus.act_remove_view.setEnabled(len(self.panels) > 1)

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
        self.view_sync.set_text(text, self._index)
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
        self.view_sync.follow_editor_selection()
        if self.is_ready():
            self.textTokenized.emit()
            # Merge ranks for hover cards are recovered once the views are filled, in the background.
            for p in self.panels:
                self.tokenizers.prepare_merges(p.model.key)

    def _refresh_references(self) -> None:
        first = self.panels[0].model.key if self.panels else ""
        self.views_legend.set_reference(self.tokenizers.label(first) if first else "", len(self.panels) > 1)
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
        views = []
        for p in self.panels:
            p.update_stats(self._n_bytes)
            table = p.model.table
            tokens = len(table) if p.model.current and table is not None else None
            views.append(ViewCount(self.tokenizers.label(p.model.key), tokens))
        counts = Counts(len(self.text), self._n_bytes, tuple(views))
        self.status_label.setText(counts.status_line())
        self.counters.show_counts(counts)

    def _show_counters(self, presenting: bool) -> None:
        self.counters.set_point_size(self.presentation.sizes().counter)
        self.counters.setVisible(presenting)

    def token_counts(self) -> list[int]:
        """Token count of each view, left to right (for tests and scripts)."""
        return [len(p.model.table) if p.model.table is not None else -1 for p in self.panels]

    # ================================================================ settings
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
        QTimer.singleShot(0, self, lambda: keep_on_screen(self))

    def save_settings(self) -> None:
        """Remember text (unless huge), views, options, theme, zoom and window layout."""
        save_session(self._session)

    def showEvent(self, event: QShowEvent) -> None:
        """Say, the first time the window shows, why the settings file was not used."""
        super().showEvent(event)
        problem, self._settings_problem = self._settings_problem, None
        if problem is not None:
            self.statusBar().showMessage(problem)

    def closeEvent(self, event: QCloseEvent) -> None:
        if not self.host.may_close():
            event.ignore()
            return
        self.retokenize_now()
        self.save_settings()
        super().closeEvent(event)
