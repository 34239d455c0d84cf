"""Opening texts and tokenizer files: dialogs, recent files and tokenizers, drops, and load errors."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import (
    QDragEnterEvent,
    QDropEvent,
    QKeySequence,
)
from PySide6.QtWidgets import (
    QMessageBox,
)

from tokviz.gui.settings import (
    RECENT_FILES,
)
from tokviz.gui.text.utf16 import normalize_newlines
from tokviz.gui.widgets import file_dialogs
from tokviz.gui.widgets.token_panel import TokenPanel
from tokviz.gui.window.remembered import (
    RememberedTokenizer,
    RememberedTokenizers,
    forgotten_message,
    write_remembered,
)

MAX_RECENT = 8


def naming_the_file_once(source: str, message: str) -> str:
    """``message`` about the file ``source``, with the file's name in front unless it already says it.

    The loaders' messages mostly start with the path (``ver_0.json: unknown version``); adding the
    name again gave ``ver_0.json: ver_0.json: ...``. A message that names neither the file nor
    its path (a built-in name that failed, a bare ``OSError``) still gets the name in front.
    """
    name = Path(source).name
    if (name and name in message) or (source and source in message):
        return message
    return f"{name or source}: {message}"


class FilesMixin:
    """Part of :class:`~tokviz.gui.window.main_window.MainWindow`; see the module's docstring."""

    def choose_text_file(self) -> None:
        """Ask for a text file and open it."""
        path, _ = file_dialogs.get_open_file_name(
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
        self.settings.set(RECENT_FILES, recent[:MAX_RECENT])
        self._fill_recent_menu()

    def _recent_files(self) -> list[str]:
        return self.settings.get(RECENT_FILES)

    def _fill_recent_menu(self) -> None:
        """Texts first (Ctrl+Alt+1…), then the remembered tokenizers (each opens in a new view)."""
        self.recent_menu.clear()
        self.recent_menu.setToolTipsVisible(True)
        recent = self._recent_files()
        remembered = self.remembered.items() if getattr(self, "remembered", None) is not None else []
        if recent and remembered:
            self.recent_menu.addSection("Texts")
        for i, path in enumerate(recent, start=1):
            act = self.recent_menu.addAction(f"&{i} {Path(path).name}")
            act.setToolTip(path)
            act.setShortcut(QKeySequence(f"Ctrl+Alt+{i}"))
            act.triggered.connect(lambda *_, p=path: self.open_text_file(p))
        if remembered:
            self.recent_menu.addSection("Tokenizers")
        for item in remembered:
            act = self.recent_menu.addAction(item.label.replace("&", "&&"))
            act.setObjectName("recentTokenizer")
            act.setToolTip(item.path)
            act.triggered.connect(lambda *_, it=item: self.open_remembered_tokenizer(it))
        self.recent_menu.setEnabled(bool(recent or remembered))

    def restore_remembered_tokenizers(self) -> None:
        """Offer the tokenizer files of past sessions in every picker (before the views come back);
        files that are gone are forgotten, with a word in the status bar."""
        self.remembered = RememberedTokenizers(self.tokenizers, self.settings, self)
        missing = self.remembered.restore()
        self.remembered.changed.connect(self._fill_recent_menu)
        if missing:
            self.statusBar().showMessage(forgotten_message(missing), 10000)

    def open_remembered_tokenizer(self, item: RememberedTokenizer) -> None:
        """Show a remembered tokenizer in a new view (it loads then); a file gone meanwhile is forgotten."""
        if not Path(item.path).exists():
            write_remembered(self.settings, [i for i in self.remembered.items() if i.path != item.path])
            self._fill_recent_menu()
            self.statusBar().showMessage(forgotten_message([item]), 8000)
            return
        self.add_view(self.remembered.key_of(item))

    def choose_tokenizer_file(self, panel: TokenPanel | None) -> None:
        """Ask for a tokenizer file or folder (and, for rank files, its pattern and special tokens);
        it is loaded in the background and shown in ``panel`` (or a new view)."""
        request = file_dialogs.ask_tokenizer(self)
        if request is not None:
            self.open_tokenizer_file(
                request.path, panel, pattern=request.pattern, special_tokens=request.special_tokens
            )

    def open_tokenizer_file(  # noqa: ANN201 - returns the Job
        self,
        path: str,
        panel: TokenPanel | None = None,
        *,
        pattern: str | None = None,
        special_tokens: tuple[str, ...] = (),
    ):
        """Load a tokenizer file or folder in the background; on success ``panel`` switches to it, or,
        without a panel (File ▸ Open tokenizer), a new view shows it beside the others.

        ``pattern`` and ``special_tokens`` go to the loader (a .tiktoken or vocab/merges file takes
        them). A file that fails to load shows an error and changes nothing.
        """
        job = self.tokenizers.open_file(path, pattern=pattern, special_tokens=special_tokens)

        def done(_tok: object) -> None:
            key = job.property("key")
            if not key:
                return
            if panel is None:
                self.add_view(str(key))
            elif panel in self.panels:
                panel.select_tokenizer(str(key))
            self.statusBar().showMessage(f"Loaded tokenizer {Path(path).name}", 4000)

        job.returned.connect(done)
        return job

    def _on_load_failed(self, source: str, message: str) -> None:
        self._show_error("Cannot load tokenizer", naming_the_file_once(source, message))

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
