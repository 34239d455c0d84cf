"""The main window: an editor, any number of token views side by side, and the vocabulary dock.

Layout and wiring only. Tokens come from the core through :class:`TokenizationModel` (one per
view); the window moves the editor's text to the models after a short debounce, and moves hover,
selection and scroll positions between the editor and the views by source position.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QByteArray, QSettings, QSize, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import (
    QAction,
    QActionGroup,
    QCloseEvent,
    QColor,
    QDragEnterEvent,
    QDropEvent,
    QFont,
    QGuiApplication,
    QKeySequence,
    QTextCharFormat,
    QTextCursor,
    QTextFormat,
)
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QDockWidget,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QMessageBox,
    QPlainTextEdit,
    QSplitter,
    QTextEdit,
    QToolBar,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from .compat import protect_none_refcount
from .display import DisplayOptions
from .models import TokenizationModel, TokenizerRegistryModel
from .picker import TokenizerPicker
from .qtext import Utf16Index, normalize_newlines, plain_text_from_raw
from .samples import CATEGORY_SAMPLES, DEFAULT_TEXT, LECTURE_SAMPLES, SHOWCASE, Sample
from .theme import TokenColors, app_palette, system_prefers_dark, token_colors
from .token_table import TableUpdate
from .token_view import TokenView
from .vocab_table import VocabBrowser

if TYPE_CHECKING:
    from .presentation import PresentationMode

# Texts longer than this are not written to the settings file (reopen the file instead).
MAX_SAVED_TEXT = 200_000
# Edits are coalesced by a 0 ms timer: it fires once the pending input events are handled, so a
# burst of keys (or a key held down) costs one update. Huge texts also wait for a pause in typing.
BIG_TEXT = 2_000_000
BIG_TEXT_DEBOUNCE_MS = 30
MAX_RECENT = 8
DEFAULT_POINT_SIZE = 13
MONO_FAMILIES = [
    "DejaVu Sans Mono",
    "Menlo",
    "Consolas",
    "Noto Sans Mono",
    "Noto Sans Mono CJK SC",
    "Noto Color Emoji",
    "Apple Color Emoji",
    "Segoe UI Emoji",
]


def mono_font(point_size: float) -> QFont:
    """The monospace font of the editor and views, with CJK and emoji fallbacks."""
    font = QFont()
    font.setFamilies(MONO_FAMILIES)
    font.setStyleHint(QFont.StyleHint.Monospace)
    font.setPointSizeF(point_size)
    return font


def app_settings() -> QSettings:
    """tokviz's settings: an INI file in the user's config folder (tests point QSettings elsewhere)."""
    return QSettings(QSettings.Format.IniFormat, QSettings.Scope.UserScope, "tokviz", "tokviz")


def _top_position(edit: QPlainTextEdit) -> int:
    return edit.cursorForPosition(edit.viewport().rect().topLeft()).position()


def _scroll_edit_to(edit: QPlainTextEdit, pos16: int) -> None:
    block = edit.document().findBlock(pos16)
    line = 0
    layout = block.layout()
    if layout is not None and layout.lineCount():
        tl = layout.lineForTextPosition(pos16 - block.position())
        if tl.isValid():
            line = tl.lineNumber()
    edit.verticalScrollBar().setValue(block.firstLineNumber() + line)


class SourceEditor(QPlainTextEdit):
    """The text being tokenized; dropping a file on it opens that file."""

    fileDropped = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("editor")
        self.setAccessibleName("Text editor")
        self.setAccessibleDescription("Type or paste text here; the token views follow as you type")
        self.setPlaceholderText("Type or paste text, open a file (Ctrl+O), or pick a sample")
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasUrls():
            event.acceptProposedAction()
            return
        super().dragEnterEvent(event)

    def dragMoveEvent(self, event) -> None:  # noqa: ANN001 - QDragMoveEvent
        if event.mimeData().hasUrls():
            event.acceptProposedAction()
            return
        super().dragMoveEvent(event)

    def dropEvent(self, event: QDropEvent) -> None:
        urls = [u for u in event.mimeData().urls() if u.isLocalFile()]
        if urls:
            event.acceptProposedAction()
            self.fileDropped.emit(urls[0].toLocalFile())
            return
        super().dropEvent(event)


class TokenPanel(QWidget):
    """One compared view: a tokenizer picker, its counts, and the token view."""

    closeRequested = Signal(object)
    openTokenizerRequested = Signal(object)

    def __init__(
        self, registry: TokenizerRegistryModel, key: str, number: int, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("tokenPanel")
        self.registry = registry
        self.model = TokenizationModel(registry, key, self)
        self.picker = TokenizerPicker(registry, self)
        self.picker.setObjectName("tokenizerPicker")
        self.picker.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.picker.setMinimumContentsLength(8)
        self.stats = QLabel(self)
        self.stats.setObjectName("tokenStats")
        self.stats.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.busy = QLabel("", self)
        self.busy.setObjectName("busyLabel")
        self.close_button = QToolButton(self)
        self.close_button.setObjectName("closeView")
        self.close_button.setText("✕")
        self.close_button.setAutoRaise(True)
        self.close_button.setToolTip("Close this view")
        self.view = TokenView(self)
        self.set_number(number)

        header = QHBoxLayout()
        header.setContentsMargins(4, 2, 4, 2)
        header.addWidget(self.picker)
        header.addWidget(self.stats, 1)
        header.addWidget(self.busy)
        header.addWidget(self.close_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addLayout(header)
        layout.addWidget(self.view, 1)

        self.picker.show_key(key)
        self.picker.picked.connect(self.select_tokenizer)
        self.picker.openRequested.connect(lambda: self.openTokenizerRequested.emit(self))
        self.close_button.clicked.connect(lambda: self.closeRequested.emit(self))
        self.model.busyChanged.connect(self._on_busy)
        self.model.tokenizerChanged.connect(self._on_busy)
        self._on_busy()

    def set_number(self, number: int) -> None:
        """Accessible names say which view this is ("view 1" is the reference for difference marks)."""
        self.number = number
        self.picker.setAccessibleName(f"Tokenizer of view {number}")
        self.view.setAccessibleName(f"Token view {number}")
        self.close_button.setAccessibleName(f"Close view {number}")

    def select_tokenizer(self, key: str) -> None:
        """Show the text under another tokenizer (loaded in the background if needed)."""
        self.picker.show_key(key)
        self.model.set_tokenizer(key)

    def _on_busy(self, *_args: object) -> None:
        if self.model.tokenizer is None:
            self.busy.setText(f"loading {self.registry.label(self.model.key)}…")
        elif self.model.busy:
            self.busy.setText("tokenizing…")
        else:
            self.busy.setText("")

    def update_stats(self, n_bytes: int) -> None:
        """Header text: token count and bytes per token of the current table."""
        table = self.view.table
        if table is None or not self.model.current:
            self.stats.setText("")
            return
        n = len(table)
        ratio = f"{n_bytes / n:.2f}" if n else "–"
        self.stats.setText(f"{n:,} tokens · {ratio} bytes/token")


class MainWindow(QMainWindow):
    """The tokviz window. ``MainWindow()`` works whenever a QApplication exists."""

    textTokenized = Signal()
    colorsChanged = Signal(object)  # TokenColors, after a theme or presentation-mode change

    def __init__(self, settings: QSettings | None = None, parent: QWidget | None = None) -> None:
        protect_none_refcount()
        super().__init__(parent)
        self.setObjectName("mainWindow")
        self.setWindowTitle("tokviz")
        self.setAcceptDrops(True)
        self.settings = settings if settings is not None else app_settings()
        self.tokenizers = TokenizerRegistryModel(self)
        self.tokenizers.loadFailed.connect(self._on_load_failed)
        self.tokenizers.mergesReady.connect(self._on_merges_ready)
        self.panels: list[TokenPanel] = []
        self.text = ""
        self._index = Utf16Index("")
        self._n_bytes = 0
        self._hover: tuple[TokenPanel, int] | None = None
        self._syncing = False
        self._theme = "system"
        self._point_size = float(DEFAULT_POINT_SIZE)
        self.last_error: str | None = None
        self.presentation: PresentationMode | None = None

        self.editor = SourceEditor(self)
        self.editor.fileDropped.connect(self.open_text_file)
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

        self.vocab = VocabBrowser(self.tokenizers, self)
        self.vocab.openTokenizerRequested.connect(lambda: self.choose_tokenizer_file(None))
        self.vocab_dock = QDockWidget("Vocabulary", self)
        self.vocab_dock.setObjectName("vocabDock")
        self.vocab_dock.setWidget(self.vocab)
        self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.vocab_dock)
        self.resizeDocks([self.vocab_dock], [470], Qt.Orientation.Horizontal)

        self.status_label = QLabel(self)
        self.status_label.setObjectName("statusStats")
        self.statusBar().addPermanentWidget(self.status_label, 1)

        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self.retokenize_now)
        self.editor.document().contentsChanged.connect(self._on_text_edited)
        self.editor.selectionChanged.connect(self._on_editor_selection)
        self.editor.verticalScrollBar().valueChanged.connect(self._on_editor_scrolled)

        self._build_actions()
        self._build_menus()
        self._restore()
        self._apply_theme()
        self._apply_zoom()
        from .train_panel import install_training_docks

        self.training = install_training_docks(self)
        from .chart import install_exchange_chart

        self.chart_dock = install_exchange_chart(self)
        from .export import install_export_actions
        from .presentation import install_presentation_mode
        from .pretok_view import install_pretok_view
        from .roundtrip_panel import install_roundtrip_panel
        from .stream_view import install_stream_view

        self.pretok_dock = install_pretok_view(self)
        self.stream_dock = install_stream_view(self)
        self.roundtrip_dock = install_roundtrip_panel(self)
        self.exporter = install_export_actions(self)
        self._restore_dock_layout()
        install_presentation_mode(self)  # last: it may hide docks added above
        hints = QGuiApplication.styleHints()
        hints.colorSchemeChanged.connect(lambda *_: self._apply_theme())

    # ================================================================ actions and menus
    def _action(
        self, text: str, shortcut: str | list[str] | None, slot, checkable: bool = False, name: str = ""
    ) -> QAction:  # noqa: ANN001
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

    def _build_actions(self) -> None:
        a = self._action
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
        self.act_vocab = self.vocab_dock.toggleViewAction()
        self.act_vocab.setText("&Vocabulary browser")
        self.act_vocab.setShortcut(QKeySequence("Ctrl+Shift+V"))
        self.act_vocab.setObjectName("actionVocabulary")
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
        self.act_about = a("&About tokviz", "F1", self._about, name="actionAbout")

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
                act = self._action(
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
        view.addAction(self.act_vocab)
        view.addAction(self.act_focus_editor)

        help_menu = bar.addMenu("&Help")
        help_menu.addAction(self.act_about)

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

    # ================================================================ extension points
    def add_dock(
        self, widget: QWidget, title: str, object_name: str, shortcut: str | None = None
    ) -> QDockWidget:
        """Add a panel (a training dock, a merge timeline, a chart) with a View-menu toggle.

        Panels get tokenizers from ``self.tokenizers``; a trained model offered with
        ``self.tokenizers.add_tokenizer(name, tokenizer, counts)`` appears in every picker at once.
        """
        dock = QDockWidget(title, self)
        dock.setObjectName(object_name)
        dock.setWidget(widget)
        self.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, dock)
        action = dock.toggleViewAction()
        if shortcut:
            action.setShortcut(QKeySequence(shortcut))
        self.view_menu.addAction(action)
        return dock

    # ================================================================ views
    def add_view(self, key: str | None = None) -> TokenPanel:
        """Add a token view at the right; without a key, the first built-in not shown yet."""
        if key is None:
            used = {p.model.key for p in self.panels}
            key = next((k for k in ("gpt2", "cl100k", "bytes") if k not in used), "gpt2")
        panel = TokenPanel(self.tokenizers, key, len(self.panels) + 1, self)
        panel.view.setFont(mono_font(self._point_size))
        panel.view.set_colors(self._colors)
        panel.view.set_options(self._display_options())
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
        if self.text or self.editor.document().characterCount() > 1:
            panel.model.set_text(self.text)
        return panel

    def remove_view(self, panel: TokenPanel) -> None:
        """Close one view (the last remaining view stays)."""
        if len(self.panels) <= 1 or panel not in self.panels:
            return
        self.panels.remove(panel)
        panel.hide()
        panel.setParent(None)
        panel.deleteLater()
        for number, p in enumerate(self.panels, start=1):
            p.set_number(number)
        self._update_close_buttons()
        self._refresh_references()
        self._update_status()

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
            self.vocab.show_tokenizer(panel.model.key, self.vocab.compare_key())
        self._update_status()

    def _on_merges_ready(self, key: str) -> None:
        for p in self.panels:
            if p.model.key == key:
                p.view.merges_ready = True

    # ================================================================ text flow
    def _on_text_edited(self) -> None:
        size = self.editor.document().characterCount()
        self._timer.start(BIG_TEXT_DEBOUNCE_MS if size > BIG_TEXT else 0)

    def retokenize_now(self) -> None:
        """Hand the editor's current text to every view's model (normally called by the debounce timer)."""
        self._timer.stop()
        text = plain_text_from_raw(self.editor.document().toRawText())
        if text == self.text and all(p.model.current for p in self.panels):
            return
        self.text = text
        self._index = Utf16Index(text)
        self._n_bytes = len(text.encode("utf-8", errors="surrogatepass"))
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
            and not self._timer.isActive()
        )

    def set_text(self, text: str) -> None:
        """Replace the editor's text (undoable) and tokenize it."""
        cursor = QTextCursor(self.editor.document())
        cursor.select(QTextCursor.SelectionType.Document)
        cursor.insertText(normalize_newlines(text))
        self.editor.moveCursor(QTextCursor.MoveOperation.Start)

    def load_sample(self, sample: Sample) -> None:
        """Put a sample from the Samples menu in the editor."""
        self.set_text(sample.load())
        self.statusBar().showMessage(f"Sample: {sample.title}", 3000)

    # ================================================================ files
    def choose_text_file(self) -> None:
        """Ask for a text file and open it."""
        path, _ = QFileDialog.getOpenFileName(
            self,
            "Open text",
            str(Path.home()),
            "Text files (*.txt *.md *.py *.json *.csv *.html *.xml);;All files (*)",
        )
        if path:
            self.open_text_file(path)

    def open_text_file(self, path: str) -> bool:
        """Load a UTF-8 text file into the editor and remember it among the recent files."""
        try:
            data = Path(path).read_bytes()
        except OSError as exc:
            self._show_error("Cannot open file", f"{path}: {exc.strerror or exc}")
            return False
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            text = data.decode("utf-8", errors="replace")
            self.statusBar().showMessage(
                f"{Path(path).name} is not valid UTF-8 (byte {exc.start}); shown with replacement characters",
                8000,
            )
        self.editor.setPlainText(normalize_newlines(text.removeprefix("\ufeff")))
        self.setWindowTitle(f"{Path(path).name} — tokviz")
        self._add_recent(path)
        return True

    def _add_recent(self, path: str) -> None:
        recent = [p for p in self._recent_files() if p != path]
        recent.insert(0, str(path))
        self.settings.setValue("recentFiles", recent[:MAX_RECENT])
        self._fill_recent_menu()

    def _recent_files(self) -> list[str]:
        value = self.settings.value("recentFiles", [])
        if isinstance(value, str):
            value = [value]
        return [str(v) for v in (value or [])]

    def _fill_recent_menu(self) -> None:
        self.recent_menu.clear()
        recent = self._recent_files()
        for i, path in enumerate(recent, start=1):
            act = self.recent_menu.addAction(f"&{i} {Path(path).name}")
            act.setToolTip(path)
            act.setShortcut(QKeySequence(f"Ctrl+Alt+{i}"))
            act.triggered.connect(lambda *_, p=path: self.open_text_file(p))
        self.recent_menu.setEnabled(bool(recent))

    def choose_tokenizer_file(self, panel: TokenPanel | None) -> None:
        """Ask for a tokenizer file; it is loaded in the background and shown in ``panel`` (or the last view)."""
        path, _ = QFileDialog.getOpenFileName(
            self,
            "Open tokenizer",
            str(Path.home()),
            "Tokenizers (*.json *.tiktoken *.txt *.model);;All files (*)",
        )
        if path:
            self.open_tokenizer_file(path, panel)

    def open_tokenizer_file(self, path: str, panel: TokenPanel | None = None):  # noqa: ANN201 - returns the Job
        """Load a tokenizer file in the background; on success the view switches to it.

        A file that fails to load shows an error and changes nothing.
        """
        target = panel or (self.panels[-1] if self.panels else None)
        job = self.tokenizers.open_file(path)

        def done(_tok: object) -> None:
            key = job.property("key")
            if target is not None and target in self.panels and key:
                target.select_tokenizer(str(key))
            self.statusBar().showMessage(f"Loaded tokenizer {Path(path).name}", 4000)

        job.returned.connect(done)
        return job

    def _on_load_failed(self, source: str, message: str) -> None:
        self._show_error("Cannot load tokenizer", f"{Path(source).name}: {message}")

    def _show_error(self, title: str, message: str) -> None:
        self.last_error = message
        box = QMessageBox(QMessageBox.Icon.Warning, title, message, QMessageBox.StandardButton.Ok, self)
        box.setObjectName("errorDialog")
        box.setWindowModality(Qt.WindowModality.WindowModal)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        urls: list[QUrl] = [u for u in event.mimeData().urls() if u.isLocalFile()]
        if urls:
            self.open_text_file(urls[0].toLocalFile())
            event.acceptProposedAction()

    # ================================================================ hover, selection, scrolling
    def _on_hover(self, panel: TokenPanel, index: int) -> None:
        table = panel.view.table
        if index < 0 or table is None or table.text != self.text:
            self._hover = None
            self._set_editor_highlight(None)
            self._on_editor_selection()
            self.statusBar().clearMessage()
            return
        self._hover = (panel, index)
        lo, hi = int(table.start[index]), int(table.end[index])
        self._set_editor_highlight((lo, hi))
        for p in self.panels:
            if p is panel:
                p.view.set_highlight(0, 0)
                continue
            other = p.view.table
            if other is not None and other.text == self.text:
                p.view.set_highlight(*other.tokens_overlapping(lo, hi))
        d = panel.view.details(index)
        if d is not None:
            extra = f" · merge rank {d.rank}" if d.rank is not None else ""
            self.statusBar().showMessage(
                f"{panel.model.tokenizer.name if panel.model.tokenizer else ''} token {d.id}: {d.text!r} · {d.hex} · {d.length} bytes{extra}"
            )

    def _set_editor_highlight(self, span: tuple[int, int] | None) -> None:
        if span is None:
            self.editor.setExtraSelections([])
            return
        lo, hi = span
        sel = QTextEdit.ExtraSelection()
        cursor = QTextCursor(self.editor.document())
        cursor.setPosition(self._index.to_utf16(lo))
        cursor.setPosition(self._index.to_utf16(hi), QTextCursor.MoveMode.KeepAnchor)
        fmt = QTextCharFormat()
        fmt.setBackground(self._colors.editor_highlight)
        fmt.setProperty(QTextFormat.Property.FullWidthSelection, False)
        sel.cursor = cursor
        sel.format = fmt
        self.editor.setExtraSelections([sel])

    def _on_editor_selection(self) -> None:
        if self._hover is not None:
            return
        cursor = self.editor.textCursor()
        if (
            not cursor.hasSelection()
            or self.editor.document().characterCount() - 1 != self._index.utf16_length
        ):
            for p in self.panels:
                p.view.set_highlight(0, 0)
            return
        lo = self._index.to_code_point(cursor.selectionStart())
        hi = self._index.to_code_point(cursor.selectionEnd())
        for p in self.panels:
            table = p.view.table
            if table is not None and table.text == self.text:
                p.view.set_highlight(*table.tokens_overlapping(lo, hi))

    def selected_tokens(self, panel: TokenPanel) -> tuple[int, int]:
        """The token range a view currently outlines (editor selection or hover elsewhere)."""
        return panel.view.highlighted

    def _on_editor_scrolled(self, _value: int) -> None:
        if self._syncing or not self.act_sync.isChecked():
            return
        cp = self._index.to_code_point(_top_position(self.editor))
        self._sync_scroll(cp, None)

    def _sync_scroll(self, cp: int, source: TokenPanel | None) -> None:
        if self._syncing or not self.act_sync.isChecked():
            return
        self._syncing = True
        try:
            for p in self.panels:
                if p is not source and p.view.table is not None and p.view.table.text == self.text:
                    p.view.scroll_to_source(cp)
            if source is not None:
                _scroll_edit_to(self.editor, self._index.to_utf16(cp))
        finally:
            self._syncing = False

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

    # ================================================================ display options, theme, zoom
    def _display_options(self) -> DisplayOptions:
        return DisplayOptions(show_ids=self.act_ids.isChecked(), whitespace=self.act_ws.isChecked())

    def _on_display_options(self, _checked: bool = False) -> None:
        options = self._display_options()
        for p in self.panels:
            p.view.set_options(options)

    def _on_chunks(self, checked: bool) -> None:
        for p in self.panels:
            p.view.set_show_chunks(checked)

    def set_theme(self, theme: str) -> None:
        """``"system"``, ``"light"`` or ``"dark"``."""
        self._theme = theme if theme in ("system", "light", "dark") else "system"
        act = self.theme_actions[self._theme]
        if not act.isChecked():
            act.setChecked(True)
        self._apply_theme()

    def is_dark(self) -> bool:
        """Whether the dark theme is in use."""
        return self._theme == "dark" or (self._theme == "system" and system_prefers_dark())

    def _apply_theme(self) -> None:
        dark = self.is_dark()
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.setPalette(app_palette(dark))
        self._colors = self.colors_for(dark)
        for p in self.panels:
            p.view.set_colors(self._colors)
        self._update_legend()
        if self._hover is not None:
            self._on_hover(*self._hover)
        self.colorsChanged.emit(self._colors)

    def _update_legend(self) -> None:
        c = self._colors

        def swatch(fill: QColor, border: QColor, label: str) -> str:
            return (
                f"<span style='background:{fill.name()};border:1px solid {border.name()};'>&nbsp;&nbsp;&nbsp;</span>"
                f"&nbsp;{label}"
            )

        self.legend.setText(
            "&nbsp;&nbsp;"
            + swatch(c.partial_fill, c.partial_border, "part of a UTF-8 character")
            + "&nbsp;&nbsp;&nbsp;"
            + swatch(c.special_fill, c.special_border, "special token")
            + "&nbsp;&nbsp;&nbsp;"
            + f"<span style='color:{c.diff_mark.name()};'><b>▁▁</b></span>&nbsp;differs from view 1"
            + "&nbsp;&nbsp;&nbsp;"
            + f"<span style='color:{c.chunk_mark.name()};'><b>|</b></span>&nbsp;chunk boundary"
        )

    def zoom(self, step: int) -> None:
        """Bigger (+1), smaller (-1) or default (0) text in the editor and views."""
        if step == 0:
            self._point_size = float(DEFAULT_POINT_SIZE)
        else:
            self._point_size = min(48.0, max(7.0, self._point_size + step))
        self._apply_zoom()

    def _apply_zoom(self) -> None:
        font = mono_font(self._point_size)
        self.editor.setFont(font)
        for p in self.panels:
            p.view.setFont(font)
        table_font = mono_font(max(8.0, self._point_size - 2))
        self.vocab.set_table_font(table_font)

    @property
    def point_size(self) -> float:
        """Current font size of the editor and views."""
        return self._point_size

    def set_point_size(self, size: float) -> None:
        """Use ``size`` points for the editor and views (presentation mode, scripts)."""
        self._point_size = min(48.0, max(7.0, float(size)))
        self._apply_zoom()

    @property
    def colors(self) -> TokenColors:
        """The token colours in use (``colorsChanged`` fires when they change)."""
        return self._colors

    def colors_for(self, dark: bool) -> TokenColors:
        """Token colours for a light or dark theme: presentation mode substitutes its own palette."""
        if self.presentation is not None and self.presentation.active:
            return self.presentation.token_colors(dark)
        return token_colors(dark)

    def reapply_theme(self) -> None:
        """Repaint everything with the current theme's colours (after presentation mode changed them)."""
        self._apply_theme()

    def _about(self) -> None:
        from .about import show_about

        show_about(self)

    # ================================================================ settings
    def _restore_dock_layout(self) -> None:
        """Put every dock back where the user left it (docks are added after ``_restore``)."""
        state = self.settings.value("windowState")
        if isinstance(state, QByteArray):
            self.restoreState(state)

    def _restore(self) -> None:
        s = self.settings
        self._theme = str(s.value("theme", "system"))
        if self._theme not in self.theme_actions:
            self._theme = "system"
        self.theme_actions[self._theme].setChecked(True)
        try:
            self._point_size = float(s.value("pointSize", DEFAULT_POINT_SIZE))
        except (TypeError, ValueError):
            self._point_size = float(DEFAULT_POINT_SIZE)
        self._colors = token_colors(self.is_dark())
        for act, key in (
            (self.act_ids, "showIds"),
            (self.act_ws, "showWhitespace"),
            (self.act_chunks, "showChunks"),
        ):
            act.setChecked(str(s.value(key, "false")).lower() == "true")
        self.act_sync.setChecked(str(s.value("syncScroll", "true")).lower() == "true")
        keys = s.value("views", ["gpt2", "cl100k"])
        if isinstance(keys, str):
            keys = [keys]
        keys = [k for k in (keys or []) if self.tokenizers.row_of(str(k)) >= 0] or ["gpt2", "cl100k"]
        for key in keys:
            self.add_view(str(key))
        self.vocab.show_tokenizer(self.panels[0].model.key, "")
        self._fill_recent_menu()
        geometry = s.value("geometry")
        if isinstance(geometry, QByteArray):
            self.restoreGeometry(geometry)
        else:
            self.resize(QSize(1360, 860))
        state = s.value("windowState")
        if isinstance(state, QByteArray):
            self.restoreState(state)
        text = s.value("text")
        self.editor.setPlainText(str(text) if isinstance(text, str) and text else DEFAULT_TEXT)
        self.retokenize_now()

    def save_settings(self) -> None:
        """Remember text (unless huge), views, options, theme, zoom and window layout."""
        s = self.settings
        text = self.text
        if len(text) <= MAX_SAVED_TEXT:
            s.setValue("text", text)
        else:
            s.remove("text")
        s.setValue("views", [p.model.key for p in self.panels if not p.model.key.startswith("model:")])
        s.setValue("theme", self._theme)
        s.setValue("pointSize", self._point_size)
        s.setValue("showIds", self.act_ids.isChecked())
        s.setValue("showWhitespace", self.act_ws.isChecked())
        s.setValue("showChunks", self.act_chunks.isChecked())
        s.setValue("syncScroll", self.act_sync.isChecked())
        s.setValue("geometry", self.saveGeometry())
        s.setValue("windowState", self.saveState())
        s.sync()

    def closeEvent(self, event: QCloseEvent) -> None:
        self.retokenize_now()
        self.save_settings()
        super().closeEvent(event)
