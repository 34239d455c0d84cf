"""File dialogs that start where the user last was, not always in the home folder.

Drop-in versions of ``QFileDialog``'s static functions: a dialog asked to start in the home folder
(or on a default file name there) starts in the folder of the last file opened or saved instead,
and every successful choice is remembered in the settings for the next dialog and the next session.
The Open tokenizer dialog (:func:`ask_tokenizer`) also takes what a rank file cannot say: its
pre-tokenizer pattern and special tokens.
"""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from tokviz.core.pretok.pretokenize import NAMED_PATTERNS, validate_pattern
from tokviz.gui.settings import LAST_FOLDER, LAST_SAVE_FOLDER, Settings
from tokviz.gui.workers.pattern_check import CHECKING, PatternCheck


def last_folder() -> Path:
    """The folder of the last file chosen in any dialog (the home folder before the first)."""
    folder = Path(Settings().get(LAST_FOLDER) or Path.home())
    return folder if folder.is_dir() else Path.home()


def last_save_folder() -> Path:
    """Where the last file was saved; before the first save, the last folder if it can be written
    to (a corpus folder such as /usr/lib/python3.11/json cannot), else the home folder."""
    saved = Settings().get(LAST_SAVE_FOLDER)
    if saved and Path(saved).is_dir():
        return Path(saved)
    folder = last_folder()
    return folder if os.access(folder, os.W_OK) else Path.home()


def remember_folder(folder: str | Path, saved: bool = False) -> None:
    """Start the next dialog in ``folder`` (and the next save dialog too when a file was ``saved`` there)."""
    Settings().set(LAST_FOLDER, str(folder))
    if saved:
        Settings().set(LAST_SAVE_FOLDER, str(folder))


def start_path(directory: str | os.PathLike[str], saving: bool = False) -> str:
    """Where a dialog asked for ``directory`` should start: the last folder (the last save folder
    when ``saving``) instead of the home folder.

    Always a ``str`` (Qt's dialogs refuse a ``Path``: a folder outside home once crashed the export).
    """
    home = Path.home()
    asked = Path(directory) if directory else home
    base = last_save_folder() if saving else last_folder()
    if asked == home:
        return str(base)
    if asked.parent == home:  # a default file name in the home folder
        return str(base / asked.name)
    return os.fspath(directory)


def get_open_file_name(
    parent: QWidget | None, caption: str, directory: str = "", filter: str = ""
) -> tuple[str, str]:
    """``QFileDialog.getOpenFileName`` that starts in, and remembers, the last folder."""
    path, chosen = QFileDialog.getOpenFileName(parent, caption, start_path(directory), filter)
    if path:
        remember_folder(Path(path).parent)
    return path, chosen


def get_open_file_names(
    parent: QWidget | None, caption: str, directory: str = "", filter: str = ""
) -> tuple[list[str], str]:
    """``QFileDialog.getOpenFileNames`` that starts in, and remembers, the last folder."""
    paths, chosen = QFileDialog.getOpenFileNames(parent, caption, start_path(directory), filter)
    if paths:
        remember_folder(Path(paths[0]).parent)
    return paths, chosen


def get_save_file_name(
    parent: QWidget | None, caption: str, directory: str = "", filter: str = ""
) -> tuple[str, str]:
    """``QFileDialog.getSaveFileName`` that starts in, and remembers, the last folder saved to."""
    path, chosen = QFileDialog.getSaveFileName(parent, caption, start_path(directory, saving=True), filter)
    if path:
        remember_folder(Path(path).parent, saved=True)
    return path, chosen


def get_existing_directory(parent: QWidget | None, caption: str, directory: str = "") -> str:
    """``QFileDialog.getExistingDirectory`` that starts in, and remembers, the last folder."""
    path = QFileDialog.getExistingDirectory(parent, caption, start_path(directory))
    if path:
        remember_folder(path)
    return path


TOKENIZER_FILTER = (
    "Tokenizers (tokenizer.json *.json *.tiktoken *.model merges.txt vocab.json *.txt);;All files (*)"
)
# The pattern choice that leaves the pre-tokenizer to the file (or to a stated guess).
FROM_FILE = "As the file says (GPT-2 if it does not say)"


@dataclass(frozen=True)
class TokenizerRequest:
    """What the Open tokenizer dialog asks to load: a file or folder, and what the file cannot say."""

    path: str
    pattern: str | None
    special_tokens: tuple[str, ...]


def parse_special_tokens(text: str) -> tuple[str, ...]:
    """Special tokens typed in one field: separated by spaces, a token with a space in quotes."""
    try:
        parts = shlex.split(text, posix=True)
    except ValueError:  # an unbalanced quote: take the text word by word
        parts = text.split()
    return tuple(dict.fromkeys(p for p in parts if p))


class OpenTokenizerDialog(QDialog):
    """Choose a tokenizer file or folder, and optionally its pre-tokenizer pattern and special tokens.

    Any kind loads: a tokviz model, a Hugging Face tokenizer.json, a folder saved by
    ``transformers``, vocab.json + merges.txt, a ``.tiktoken`` rank file or a SentencePiece
    ``.model``. The pattern and special tokens are for the kinds that cannot say them themselves
    (``.tiktoken`` and vocab/merges files); a typed regex is checked as you type.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("openTokenizerDialog")
        self.setWindowTitle("Open tokenizer")
        self.path = QLineEdit(self)
        self.path.setObjectName("tokenizerPath")
        self.path.setPlaceholderText("a tokenizer file or a folder saved by transformers")
        browse_file = QPushButton("File…", self)
        browse_file.setObjectName("browseTokenizerFile")
        browse_folder = QPushButton("Folder…", self)
        browse_folder.setObjectName("browseTokenizerFolder")
        browse_file.clicked.connect(self._choose_file)
        browse_folder.clicked.connect(self._choose_folder)
        self.pattern = QComboBox(self)
        self.pattern_check = PatternCheck(self)
        self.pattern.setObjectName("tokenizerPattern")
        self.pattern.setEditable(True)
        names = [n for n in (*NAMED_PATTERNS, "o200k") if n != "none" and validate_pattern(n) is None]
        self.pattern.addItems([FROM_FILE, *dict.fromkeys(names), "none"])
        self.pattern.setToolTip(
            "The pre-tokenizer for a .tiktoken or vocab.json + merges.txt file, which do not store one: "
            "a name (gpt2, cl100k, …) or your own regex. Other kinds carry their own."
        )
        self.specials = QLineEdit(self)
        self.specials.setObjectName("tokenizerSpecialTokens")
        self.specials.setPlaceholderText("<|endoftext|> <|im_start|>")
        self.specials.setToolTip("Special tokens, separated by spaces (quote one that holds a space)")
        self.problem = QLabel("", self)
        self.problem.setObjectName("tokenizerDialogProblem")
        self.problem.setWordWrap(True)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Open | QDialogButtonBox.StandardButton.Cancel, self
        )
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)

        where = QHBoxLayout()
        where.addWidget(self.path, 1)
        where.addWidget(browse_file)
        where.addWidget(browse_folder)
        form = QFormLayout()
        form.addRow("Tokenizer:", where)
        form.addRow("Pre-tokenizer:", self.pattern)
        form.addRow("Special tokens:", self.specials)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.problem)
        layout.addWidget(self.buttons)
        self.path.textChanged.connect(self._check)
        self.pattern.currentTextChanged.connect(self._check)
        self.pattern_check.checked.connect(self._check)
        self.resize(640, self.sizeHint().height())
        self._check()

    def _choose_file(self) -> None:
        path, _ = get_open_file_name(self, "Open tokenizer", str(Path.home()), TOKENIZER_FILTER)
        if path:
            self.path.setText(path)

    def _choose_folder(self) -> None:
        path = get_existing_directory(self, "Open a tokenizer folder", str(Path.home()))
        if path:
            self.path.setText(path)

    def chosen_pattern(self) -> str | None:
        """The pattern to pass to the loader, or None to leave it to the file."""
        text = self.pattern.currentText()
        return None if text in (FROM_FILE, "") else text

    def _check(self, *_args: object) -> None:
        """Say what keeps the request from loading; a typed regex is checked in a worker meanwhile."""
        pattern = self.chosen_pattern()
        problem = self.pattern_check.problem(pattern) if pattern is not None else None
        path = self.path.text().strip()
        if problem is None and path and not Path(path).exists():
            problem = f"{path} does not exist"
        self.problem.setText("" if problem == CHECKING else problem or "")
        self.buttons.button(QDialogButtonBox.StandardButton.Open).setEnabled(bool(path) and not problem)

    def request(self) -> TokenizerRequest:
        """What to load, as the fields say now."""
        return TokenizerRequest(
            self.path.text().strip(), self.chosen_pattern(), parse_special_tokens(self.specials.text())
        )


def ask_tokenizer(parent: QWidget | None) -> TokenizerRequest | None:
    """Show the Open tokenizer dialog (modal); the request, or None when cancelled."""
    dialog = OpenTokenizerDialog(parent)
    try:
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return None
        request = dialog.request()
    finally:
        dialog.deleteLater()
    remember_folder(Path(request.path).parent if Path(request.path).is_file() else request.path)
    return request
