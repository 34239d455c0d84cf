"""Every setting tokviz remembers: its key, its type and its default, in one place.

The window, its panels and presentation mode read and write settings only through :class:`Settings`
and the :class:`Key` constants below, so a key is spelled once and a value read back from the INI
file always has the declared type (a damaged or hand-edited file falls back to the default).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, cast

from PySide6.QtCore import QByteArray, QSettings

T = TypeVar("T")


@dataclass(frozen=True)
class Key(Generic[T]):
    """A setting: its name in the INI file, the Python type of its value and the value when unset.

    A number may have bounds (``low``, ``high``): a stored value outside them is clamped to them, and
    one that is not finite (``1e999``, ``nan``) reads as the default. A string may have ``choices``:
    any other stored string reads as the default. So a hand-edited file never reaches the window
    with a value it cannot use.
    """

    name: str
    type: type
    default: T
    low: float | None = None
    high: float | None = None
    choices: tuple[str, ...] = ()

    def checked(self, value: Any) -> T:
        """``value`` read from the file, made valid: clamped into the bounds, or the default."""
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
TEXT: Key[str] = Key("text", str, "")
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


def app_settings() -> QSettings:
    """tokviz's settings store: an INI file in the user's config folder (tests point QSettings elsewhere)."""
    return QSettings(QSettings.Format.IniFormat, QSettings.Scope.UserScope, "tokviz", "tokviz")


class Settings:
    """Typed access to a QSettings store through :class:`Key` constants."""

    def __init__(self, store: QSettings | None = None) -> None:
        self.store = store if store is not None else app_settings()

    def get(self, key: Key[T]) -> T:
        """The stored value as the key's type (Qt converts it), or the key's default when unset."""
        if not self.store.contains(key.name):
            return key.default
        if key.type is QByteArray:
            raw = self.store.value(key.name)
            return cast(T, raw) if isinstance(raw, QByteArray) else key.default
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
            return cast(T, [str(item) for item in value if str(item)])
        return key.checked(value)

    def set(self, key: Key[T], value: T) -> None:
        """Remember ``value`` under ``key``."""
        self.store.setValue(key.name, value)

    def remove(self, key: Key[Any]) -> None:
        """Forget ``key`` (reads return its default again)."""
        self.store.remove(key.name)

    def contains(self, key: Key[Any]) -> bool:
        """Whether a value is stored for ``key``."""
        return self.store.contains(key.name)

    def sync(self) -> None:
        """Write pending changes to disk now."""
        self.store.sync()

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
