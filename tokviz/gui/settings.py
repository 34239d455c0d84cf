"""Every setting tokviz remembers: its key, its type and its default, in one place.

The window, its panels and presentation mode read and write settings only through :class:`Settings`
and the :class:`Key` constants below, so a key is spelled once and a value read back from the INI
file always has the declared type and a bounded size (a damaged or hand-edited file falls back to
the default). The INI file itself is read and written only as a regular file of bounded size
(:mod:`tokviz.gui.settings_file`).
"""

from __future__ import annotations

import math
import os
import sys
import threading
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar, cast

from PySide6.QtCore import QByteArray, QCoreApplication, QSettings, QTimer

from tokviz.gui.settings_file import SettingsFile

T = TypeVar("T")

MAX_VALUE_SIZE = 65_536
"""The longest string, list item or byte array a key holds unless it says otherwise (a path, a
pattern, a window layout); a longer one read from the file is taken as unset."""
MAX_LIST_ITEMS = 1_000
"""The most items a list value keeps (recent files, remembered tokenizers, corpus paths)."""
SAVE_DELAY_MS = 2_000
"""A change is written to the settings file this long after it is made (several changes, once)."""


@dataclass(frozen=True)
class Key(Generic[T]):
    """A setting: its name in the INI file, the Python type of its value and the value when unset.

    A number may have bounds (``low``, ``high``): a stored value outside them is clamped to them, and
    one that is not finite (``1e999``, ``nan``) reads as the default. A string may have ``choices``:
    any other stored string reads as the default. A string or byte array longer than ``max_size``
    reads as the default; a list keeps its first :data:`MAX_LIST_ITEMS` items of at most
    ``max_size`` characters. So a hand-edited file never reaches the window with a value it cannot
    use, and a value over the bound is never written.
    """

    name: str
    type: type
    default: T
    low: float | None = None
    high: float | None = None
    choices: tuple[str, ...] = ()
    max_size: int = MAX_VALUE_SIZE

    def fits(self, value: object) -> bool:
        """Whether ``value`` is within the key's size bound (numbers and switches always are)."""
        if isinstance(value, QByteArray):
            return value.size() <= self.max_size
        if isinstance(value, str | bytes):
            return len(value) <= self.max_size
        if isinstance(value, list):
            return len(value) <= MAX_LIST_ITEMS and all(self.fits(str(item)) for item in value)
        return True

    def checked(self, value: Any) -> T:
        """``value`` read from the file, made valid: clamped into the bounds, or the default."""
        if not self.fits(value):
            return self.default
        if self.type in (int, float):
            if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value):
                return self.default
            if self.low is not None and value < self.low:
                value = self.type(self.low)
            if self.high is not None and value > self.high:
                value = self.type(self.high)
        elif self.choices and value not in self.choices:
            return self.default
        return cast(T, value)


# The window
THEME: Key[str] = Key("theme", str, "system", choices=("system", "light", "dark"))
POINT_SIZE: Key[float] = Key("pointSize", float, 13.0, low=7.0, high=48.0)
SHOW_IDS: Key[bool] = Key("showIds", bool, False)
SHOW_IDS_WITH_TEXT: Key[bool] = Key("showIdsWithText", bool, False)
SPELLING: Key[str] = Key("spelling", str, "text", choices=("text", "hex", "code points"))
SHOW_WHITESPACE: Key[bool] = Key("showWhitespace", bool, False)
SHOW_CHUNKS: Key[bool] = Key("showChunks", bool, False)
SYNC_SCROLL: Key[bool] = Key("syncScroll", bool, True)
# View ▸ Special tokens in text as plain text: how every view and the vocabulary browser read
# text equal to a special token's ("special": its id, the default of every command; "text").
SPECIALS_IN_TEXT: Key[str] = Key("specialsInText", str, "special", choices=("special", "text"))
VIEWS: Key[list[str]] = Key("views", list, ["gpt2", "cl100k"])
# The editor's text when the window closed; a longer text is not kept (reopen its file instead).
TEXT: Key[str] = Key("text", str, "", max_size=200_000)
RECENT_FILES: Key[list[str]] = Key("recentFiles", list, [])
# Tokenizer files opened or trained models saved, most recent first: one JSON object each
# ({"path", "label", "options"}); they come back in every picker and in File ▸ Open recent.
REMEMBERED_TOKENIZERS: Key[list[str]] = Key("tokenizers/remembered", list, [])
# Where every file dialog starts: the folder of the last file opened or saved.
LAST_FOLDER: Key[str] = Key("lastFolder", str, "")
# Where the last file was saved: save dialogs start there, not in a corpus folder one may not write to.
LAST_SAVE_FOLDER: Key[str] = Key("lastSaveFolder", str, "")
GEOMETRY: Key[QByteArray | None] = Key("geometry", QByteArray, None)
WINDOW_STATE: Key[QByteArray | None] = Key("windowState", QByteArray, None)
# File ▸ Export panel
EXPORT_TARGET: Key[str] = Key("export/target", str, "views")
EXPORT_SCALE: Key[float] = Key("export/scale", float, 2.0, low=0.25, high=8.0)
EXPORT_FORMAT: Key[str] = Key("export/format", str, "png", choices=("png", "svg"))
# The Train panel: the corpus and the settings of the next run (see panels/training/memory.py)
TRAIN_SOURCE: Key[str] = Key("train/source", str, "files")
TRAIN_PATHS: Key[list[str]] = Key("train/paths", list, [])
TRAIN_VOCAB_SIZE: Key[int] = Key("train/vocabSize", int, 1000, low=0, high=2**31 - 1)
TRAIN_SPECIAL_TOKENS: Key[str] = Key("train/specialTokens", str, "<|endoftext|>")
TRAIN_PRETOKENIZER: Key[str] = Key("train/pretokenizer", str, "gpt2")
TRAIN_PATTERN: Key[str] = Key("train/pattern", str, "")
TRAIN_TIE_RULE: Key[str] = Key("train/tieRule", str, "lexicographic", choices=("lexicographic", "first-seen"))
TRAIN_REPLACE_INVALID: Key[bool] = Key("train/replaceInvalid", bool, False)
TRAIN_INCLUDE: Key[str] = Key("train/include", str, "")
TRAIN_EXCLUDE: Key[str] = Key("train/exclude", str, "")
TRAIN_MAX_FILE_SIZE: Key[str] = Key("train/maxFileSize", str, "")
TRAIN_RECORD_FIELD: Key[str] = Key("train/recordField", str, "text")
TRAIN_ALGORITHM: Key[str] = Key(
    "train/algorithm", str, "bpe", choices=("bpe", "unigram", "sentencepiece-bpe", "wordpiece")
)
TRAIN_NORMALIZER: Key[str] = Key("train/normalizer", str, "none")  # "" is the library's default
TRAIN_COVERAGE: Key[float] = Key("train/characterCoverage", float, 0.0, low=0.0, high=1.0)  # 0: default
TRAIN_BYTE_FALLBACK: Key[bool] = Key("train/byteFallback", bool, False)
TRAIN_SPLIT_DIGITS: Key[bool] = Key("train/splitDigits", bool, False)
TRAIN_MAX_PIECE: Key[int] = Key("train/maxPieceLength", int, 0, low=0, high=1024)  # 0: default
# The words tokenizer's corpus: "sample" (tokviz's word list, the default: a fixed vocabulary whose
# unknown words show), "editor" (the editor's text) or "files" (WORDS_FILES); see gui/models/words.py
WORDS_SOURCE: Key[str] = Key("words/source", str, "sample")
WORDS_FILES: Key[list[str]] = Key("words/files", list, [])
# The exchange-rate chart: the text files added as groups of bars
CHART_FILES: Key[list[str]] = Key("chart/files", list, [])
# The chart's parity view: its folder of parallel text ("" = the bundled sample), the tokenizers
# and languages chosen (no languages = all of them) and the reference language's code
PARITY_FOLDER: Key[str] = Key("chart/parity/folder", str, "")
PARITY_TOKENIZERS: Key[list[str]] = Key("chart/parity/tokenizers", list, ["gpt2", "cl100k", "o200k"])
PARITY_LANGUAGES: Key[list[str]] = Key("chart/parity/languages", list, [])
PARITY_REFERENCE: Key[str] = Key("chart/parity/reference", str, "en")
# The tokenizers (registry keys) the user took off the chart; every other one is a series
CHART_HIDDEN_SERIES: Key[list[str]] = Key("chart/hiddenSeries", list, [])
# Presentation mode, and what to give back when it ends
PRESENTATION_ON: Key[bool] = Key("presentation/on", bool, False)
RESTORE_CHROME: Key[list[str] | None] = Key("presentation/restoreChrome", list, None)
RESTORE_POINT_SIZE: Key[float | None] = Key("presentation/restorePointSize", float, None, low=7.0, high=48.0)
RESTORE_WINDOW_STATE: Key[int] = Key("presentation/restoreWindowState", int, 0, low=0, high=15)


_GUARDS: dict[str, SettingsFile] = {}
"""The guarded settings file of each user settings path (one per path, shared by every store)."""
_GUARDS_BY_COPY: dict[str, SettingsFile] = {}
"""The same, by the path of the copy QSettings works on."""


def user_settings_path() -> Path:
    """Where QSettings keeps tokviz's user settings: ``tokviz/tokviz.ini`` in the user's config
    folder, or in the folder ``QSettings.setPath`` names (as the tests do).

    Qt has no getter for that folder, so a store for a made-up organisation is asked its file
    name; it reads only files of that random name, which do not exist.
    """
    probe = QSettings(
        QSettings.Format.IniFormat, QSettings.Scope.UserScope, f"tokviz-probe-{uuid.uuid4().hex}", "tokviz"
    )
    return Path(probe.fileName()).parent.parent / "tokviz" / "tokviz.ini"


def app_settings() -> QSettings:
    """tokviz's settings store: a private copy of the INI file in the user's config folder, which
    :class:`~tokviz.gui.settings_file.SettingsFile` reads and writes back only as a regular file.

    A file that cannot be used is said once, on standard error; the store then starts empty.
    """
    path = user_settings_path()
    guard = _GUARDS.get(str(path))
    if guard is None:
        guard = _GUARDS[str(path)] = SettingsFile(path)
        _GUARDS_BY_COPY[os.path.realpath(guard.copy)] = guard
        if guard.problem is not None:
            print(f"tokviz: {guard.problem}", file=sys.stderr)
    return QSettings(str(guard.copy), QSettings.Format.IniFormat)


def _save(guard: SettingsFile) -> None:
    """Write every pending change of the store on ``guard``'s copy back to the real file."""
    guard.pending = False
    QSettings(str(guard.copy), QSettings.Format.IniFormat).sync()
    problem = guard.save()
    if problem is not None:
        print(f"tokviz: {problem}", file=sys.stderr)


class Settings:
    """Typed access to a QSettings store through :class:`Key` constants."""

    def __init__(self, store: QSettings | None = None) -> None:
        self.store = store if store is not None else app_settings()
        self.file = _GUARDS_BY_COPY.get(os.path.realpath(self.store.fileName()))

    def file_problem(self) -> str | None:
        """Why the settings file was not read (the app runs on the defaults and does not save), or None."""
        return self.file.problem if self.file is not None else None

    def get(self, key: Key[T]) -> T:
        """The stored value as the key's type (Qt converts it), or the key's default when unset."""
        if not self.store.contains(key.name):
            return key.default
        if key.type is QByteArray:
            raw = self.store.value(key.name)
            return cast(T, raw) if isinstance(raw, QByteArray) and key.fits(raw) else key.default
        if key.type is bool:
            return cast(T, _switch(self.store.value(key.name), cast(bool, key.default)))
        try:
            value = self.store.value(key.name, key.default, type=key.type)
        except (TypeError, ValueError, OverflowError):  # "abc", "nan" or "1e308" for a number
            return key.default
        if key.type is list:
            # Qt turns a single stored value into a one-item list; anything else is not a list.
            if not isinstance(value, list):
                return key.default
            items = (str(item) for item in value[:MAX_LIST_ITEMS])
            return cast(T, [item for item in items if item and key.fits(item)])
        return key.checked(value)

    def set(self, key: Key[T], value: T) -> None:
        """Remember ``value`` under ``key`` (a value over the key's size bound is forgotten instead)."""
        if key.fits(value):
            self.store.setValue(key.name, value)
        else:
            self.store.remove(key.name)
        self._save_soon()

    def remove(self, key: Key[Any]) -> None:
        """Forget ``key`` (reads return its default again)."""
        self.store.remove(key.name)
        self._save_soon()

    def _save_soon(self) -> None:
        """Write the change to the settings file after :data:`SAVE_DELAY_MS` (as Qt would), once."""
        guard = self.file
        in_gui_thread = threading.current_thread() is threading.main_thread()
        if guard is None or guard.pending or QCoreApplication.instance() is None or not in_gui_thread:
            return  # nothing to write back, or Settings.sync() will (no event loop here to wait in)
        guard.pending = True
        QTimer.singleShot(SAVE_DELAY_MS, lambda: _save(guard))

    def contains(self, key: Key[Any]) -> bool:
        """Whether a value is stored for ``key``."""
        return self.store.contains(key.name)

    def sync(self) -> None:
        """Write pending changes to disk now."""
        self.store.sync()
        if self.file is not None:
            _save(self.file)

    def file_name(self) -> str:
        """The INI file behind the store."""
        return self.store.fileName()


def _switch(raw: object, default: bool) -> bool:
    """An on/off value as written by Qt (``true``/``false``; ``1``/``0`` by hand), else ``default``:
    ``maybe`` or ``2`` in a hand-edited file is not taken as on."""
    if isinstance(raw, bool):
        return raw
    text = str(raw).strip().lower()
    if text in ("true", "1"):
        return True
    if text in ("false", "0"):
        return False
    return default
