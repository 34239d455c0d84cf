"""Opening texts and tokenizer files: dialogs, recent files and tokenizers, and load errors.

:class:`FileOpener` is one part of the window: it is given a widget to parent its dialogs to, the
settings, the tokenizer registry and the Open recent menu it keeps, and reports what it opened
through its signals; the window puts a text in the editor or a tokenizer in a view.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QMenu, QWidget

from tokviz.gui.models.tokenizers import TokenizerRegistryModel
from tokviz.gui.settings import RECENT_FILES, Settings
from tokviz.gui.text.utf16 import normalize_newlines
from tokviz.gui.widgets import file_dialogs
from tokviz.gui.widgets.token_panel import TokenPanel
from tokviz.gui.window.remembered import (
    RememberedTokenizer,
    RememberedTokenizers,
    forgotten_message,
    write_remembered,
)
from tokviz.gui.workers.jobs import Job

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


class FileOpener(QObject):
    """Open texts and tokenizers for one window. Signals:

    ``textOpened(text, file_name)`` with a file's text (newlines normalised, no BOM);
    ``tokenizerOpened(key, view)`` once a tokenizer is in the registry, for ``view`` (a
    :class:`TokenPanel`) or, with None, for a new view; ``message(text, msecs)`` for the status bar;
    ``failed(title, message)`` when a file cannot be read or loaded.
    """

    textOpened = Signal(str, str)
    tokenizerOpened = Signal(str, TokenPanel)  # the view to show it in, or None for a new view
    message = Signal(str, int)
    failed = Signal(str, str)

    def __init__(
        self,
        dialog_parent: QWidget,
        settings: Settings,
        tokenizers: TokenizerRegistryModel,
        recent_menu: QMenu,
    ) -> None:
        super().__init__(dialog_parent)
        self._dialog_parent = dialog_parent
        self._settings = settings
        self._tokenizers = tokenizers
        self._recent_menu = recent_menu
        self.remembered = RememberedTokenizers(tokenizers, settings, self)
        self.remembered.changed.connect(self.fill_recent_menu)
        tokenizers.loadFailed.connect(self._on_load_failed)

    # ---------------------------------------------------------------- texts
    def choose_text_file(self) -> None:
        """Ask for a text file and open it."""
        path, _ = file_dialogs.get_open_file_name(
            self._dialog_parent,
            "Open text",
            str(Path.home()),
            "Text files (*.txt *.md *.py *.json *.csv *.html *.xml);;All files (*)",
        )
        if path:
            self.open_text_file(path)

    def open_text_file(self, path: str) -> bool:
        """Read a UTF-8 text file (``textOpened``) and remember it among the recent files."""
        try:
            data = Path(path).read_bytes()
        except OSError as exc:
            self.failed.emit("Cannot open file", f"{path}: {exc.strerror or exc}")
            return False
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            text = data.decode("utf-8", errors="replace")
            self.message.emit(
                f"{Path(path).name} is not valid UTF-8 (byte {exc.start}); shown with replacement characters",
                8000,
            )
        self.textOpened.emit(normalize_newlines(text.removeprefix("\ufeff")), Path(path).name)
        self._add_recent(path)
        return True

    def _add_recent(self, path: str) -> None:
        recent = [p for p in self._settings.get(RECENT_FILES) if p != path]
        recent.insert(0, str(path))
        self._settings.set(RECENT_FILES, recent[:MAX_RECENT])
        self.fill_recent_menu()

    def fill_recent_menu(self) -> None:
        """Texts first (Ctrl+Alt+1…), then the remembered tokenizers (each opens in a new view)."""
        menu = self._recent_menu
        menu.clear()
        menu.setToolTipsVisible(True)
        recent = self._settings.get(RECENT_FILES)
        remembered = self.remembered.items()
        if recent and remembered:
            menu.addSection("Texts")
        for i, path in enumerate(recent, start=1):
            act = menu.addAction(f"&{i} {Path(path).name}")
            act.setToolTip(path)
            act.setShortcut(QKeySequence(f"Ctrl+Alt+{i}"))
            act.triggered.connect(lambda *_, p=path: self.open_text_file(p))
        if remembered:
            menu.addSection("Tokenizers")
        for item in remembered:
            act = menu.addAction(item.label.replace("&", "&&"))
            act.setObjectName("recentTokenizer")
            act.setToolTip(item.path)
            act.triggered.connect(lambda *_, it=item: self.open_remembered_tokenizer(it))
        menu.setEnabled(bool(recent or remembered))

    # ---------------------------------------------------------------- tokenizers
    def restore_remembered_tokenizers(self) -> None:
        """Offer the tokenizer files of past sessions in every picker (before the views come back);
        files that are gone are forgotten, with a word in the status bar."""
        missing = self.remembered.restore()
        if missing:
            self.message.emit(forgotten_message(missing), 10000)

    def open_remembered_tokenizer(self, item: RememberedTokenizer) -> None:
        """Show a remembered tokenizer in a new view (it loads then); a file gone meanwhile is forgotten."""
        if not Path(item.path).exists():
            write_remembered(self._settings, [i for i in self.remembered.items() if i.path != item.path])
            self.fill_recent_menu()
            self.message.emit(forgotten_message([item]), 8000)
            return
        self.tokenizerOpened.emit(self.remembered.key_of(item), None)

    def choose_tokenizer_file(self, panel: TokenPanel | None = None) -> None:
        """Ask for a tokenizer file or folder (and, for rank files, its pattern and special tokens);
        it is loaded in the background and shown in ``panel`` (or a new view)."""
        request = file_dialogs.ask_tokenizer(self._dialog_parent)
        if request is not None:
            self.open_tokenizer_file(
                request.path, panel, pattern=request.pattern, special_tokens=request.special_tokens
            )

    def open_tokenizer_file(
        self,
        path: str,
        panel: TokenPanel | None = None,
        *,
        pattern: str | None = None,
        special_tokens: tuple[str, ...] = (),
    ) -> Job:
        """Load a tokenizer file or folder in the background; on success ``tokenizerOpened`` asks for
        it in ``panel`` or, without a panel (File ▸ Open tokenizer), in a new view beside the others.

        ``pattern`` and ``special_tokens`` go to the loader (a .tiktoken or vocab/merges file takes
        them). A file that fails to load shows an error and changes nothing.
        """
        job = self._tokenizers.open_file(path, pattern=pattern, special_tokens=special_tokens)

        def done(_tok: object) -> None:
            key = job.property("key")
            if not key:
                return
            self.tokenizerOpened.emit(str(key), panel)
            self.message.emit(f"Loaded tokenizer {Path(path).name}", 4000)

        job.returned.connect(done)
        return job

    def _on_load_failed(self, source: str, message: str) -> None:
        self.failed.emit("Cannot load tokenizer", naming_the_file_once(source, message))
