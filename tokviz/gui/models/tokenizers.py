"""The tokenizers on offer, as a Qt model every picker shares.

:class:`TokenizerRegistryModel` lists every tokenizer the window can show (built-ins, files the
user opened, models trained in the app) for every picker at once; a later training dock calls
:meth:`TokenizerRegistryModel.add_tokenizer` and its model appears everywhere. One text's tokens
under one of them are :class:`~tokviz.gui.models.tokenization.TokenizationModel`.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import QAbstractListModel, QModelIndex, QObject, QPersistentModelIndex, Qt, Signal

from tokviz.core.analysis.evaluation import distinct_labels, tokenizer_label
from tokviz.core.bpe.specials_text import SpecialsInText, check_specials_in_text, reading_specials
from tokviz.core.bpe.tokenizer import Tokenizer
from tokviz.core.errors import TokvizError
from tokviz.core.formats.registry import is_builtin, load_tokenizer
from tokviz.gui.models.entries import TokenizerEntry, describe, warmed
from tokviz.gui.models.words import WORDS_KEY, WordsCorpus
from tokviz.gui.workers.jobs import Job, run_job

OPEN_KEY = "__open__"
# Built-in tokenizers are shared by every window of the process; one thread builds their tables.
_TABLES_LOCK = threading.Lock()
# Every built-in the core knows (o200k once it is bundled), then the lecture's two that fail.
BUILTINS = (
    ("bytes", "bytes"),
    ("gpt2", "GPT-2"),
    ("cl100k", "cl100k"),
    ("o200k", "o200k"),
    ("characters", "characters"),
    ("words", "words"),
)

KeyRole = Qt.ItemDataRole.UserRole + 1
IsActionRole = Qt.ItemDataRole.UserRole + 2


def _build_merge_tables(tok: Tokenizer) -> None:
    with _TABLES_LOCK:
        tok.merge_rank_of_id  # noqa: B018 - built on first access
        tok.parents_of_id  # noqa: B018


class TokenizerRegistryModel(QAbstractListModel):
    """Every tokenizer the pickers offer, plus a last row "Open tokenizer…".

    Built-ins load lazily in a worker (cl100k takes a few hundred ms); ``tokenizerLoaded(key)``
    fires when one is ready, ``loadFailed(source, message)`` when a file cannot be read.
    """

    tokenizersChanged = Signal()
    tokenizerLoaded = Signal(str)
    loadFailed = Signal(str, str)
    mergesReady = Signal(str)
    fileOpened = Signal(str)  # a file loaded, or a trained model was saved to one: remembered (its key)

    def __init__(self, parent: QObject | None = None, builtins: Sequence[str] | None = None) -> None:
        super().__init__(parent)
        # ``builtins`` narrows the built-ins on offer (a script or test that wants only some).
        self._entries: list[TokenizerEntry] = [
            TokenizerEntry(k, label, k)
            for k, label in BUILTINS
            if is_builtin(k) and (builtins is None or k in builtins)
        ]
        self._queue: list[tuple[int, str, str]] = []
        self._running: Job | None = None
        self._shown: dict[str, str] = {}  # each key's label, made distinct by _relabel
        # Where the words tokenizer's vocabulary comes from; it rebuilds it as its corpus changes.
        self.words = WordsCorpus(lambda: self.entry(WORDS_KEY), self)
        self.words.rebuilt.connect(lambda tok: self.replace_tokenizer(WORDS_KEY, tok))
        self.words.failed.connect(self.loadFailed)
        # How every view and count reads special-token text (View ▸ Special tokens in text as plain text).
        self.specials_in_text: SpecialsInText = "special"

    # ---------------------------------------------------------------- background queue
    # Loads and merge preparation run one at a time, loads first: pure-Python work in two threads
    # at once only fights over the GIL, and the views need their tokenizer before anything else.
    def _enqueue(self, priority: int, key: str, kind: str) -> None:
        if (priority, key, kind) not in self._queue:
            self._queue.append((priority, key, kind))
            self._queue.sort(key=lambda item: item[0])
        self._run_next()

    def _run_next(self) -> None:
        if self._running is not None or not self._queue:
            return
        _priority, key, kind = self._queue.pop(0)
        entry = self.entry(key)
        if entry is None:
            self._run_next()
            return
        if kind == "load":
            if entry.tokenizer is not None:
                self._run_next()
                return
            source = entry.source or key
            options = dict(entry.options)
            build = (
                self.words.builder()
                if key == WORDS_KEY
                else lambda: warmed(load_tokenizer(source, **options))
            )
            job = run_job(build, self)
            entry.loading = job

            def loaded(tok: Tokenizer) -> None:
                entry.loading = None
                entry.tokenizer = tok
                self.tokenizerLoaded.emit(key)

            def load_failed(exc: BaseException) -> None:
                entry.loading = None
                self.loadFailed.emit(source, str(exc))

            job.returned.connect(loaded)
            job.errored.connect(load_failed)
        else:
            tok = entry.tokenizer
            if tok is None or entry.merges_ready:
                self._run_next()
                return
            job = run_job(lambda: _build_merge_tables(tok), self)
            entry.preparing = job

            def prepared(_result: object) -> None:
                entry.preparing = None
                if entry.tokenizer is tok:
                    entry.merges_ready = True
                    self.mergesReady.emit(key)

            def prepare_failed(_exc: BaseException) -> None:
                entry.preparing = None

            job.returned.connect(prepared)
            job.errored.connect(prepare_failed)
        self._running = job
        job.finished.connect(self._on_job_finished)

    def _on_job_finished(self) -> None:
        self._running = None
        self._run_next()

    def prepare_merges(self, key: str) -> None:
        """Build a tokenizer's merge tables in the background (recovering cl100k's merges takes ~1 s).

        Hover cards and the vocabulary show merge ranks and parents once ``mergesReady(key)`` fires.
        """
        entry = self.entry(key)
        if entry is not None and entry.tokenizer is not None and not entry.merges_ready:
            self._enqueue(1, key, "merges")

    def merges_ready(self, key: str) -> bool:
        """True when hover cards can show merge ranks and parents for this tokenizer."""
        entry = self.entry(key)
        return bool(entry and entry.merges_ready)

    def busy(self) -> bool:
        """True while a tokenizer is loading or merges are being prepared."""
        return self._running is not None or bool(self._queue)

    # ---------------------------------------------------------------- Qt model
    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._entries) + 1

    def data(
        self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if not index.isValid() or not 0 <= index.row() < self.rowCount():
            return None
        action = index.row() == len(self._entries)
        entry = None if action else self._entries[index.row()]
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.AccessibleTextRole):
            return "Open tokenizer…" if entry is None else self._shown.get(entry.key, entry.label)
        if role == Qt.ItemDataRole.ToolTipRole:
            if entry is None:
                return (
                    "Load a tokenizer: a tokviz model, tokenizer.json, vocab.json + merges.txt, a "
                    "transformers folder, a .tiktoken or a SentencePiece .model file"
                )
            tok = entry.tokenizer
            where = entry.key[5:] if entry.key.startswith("file:") else entry.source or entry.label
            return self.words.describe(tok) if entry.key == WORDS_KEY else describe(tok, where)
        if role == KeyRole:
            return OPEN_KEY if entry is None else entry.key
        if role == IsActionRole:
            return action
        return None

    # ---------------------------------------------------------------- lookups
    def keys(self) -> list[str]:
        """Keys of every tokenizer, in picker order (without the "Open tokenizer…" row)."""
        return [e.key for e in self._entries]

    def row_of(self, key: str) -> int:
        """Picker row of a key, or -1."""
        for row, entry in enumerate(self._entries):
            if entry.key == key:
                return row
        return -1

    def entry(self, key: str) -> TokenizerEntry | None:
        """The entry for a key, or None."""
        row = self.row_of(key)
        return self._entries[row] if row >= 0 else None

    def tokenizer(self, key: str) -> Tokenizer | None:
        """The loaded tokenizer for a key, reading special-token text as :attr:`specials_in_text`
        says (the same object every time), or None while it is not loaded."""
        entry = self.entry(key)
        tok = entry.tokenizer if entry else None
        return reading_specials(tok, self.specials_in_text) if tok is not None else None

    def set_specials_in_text(self, mode: str) -> None:
        """Read special-token text as ``"special"`` or ``"text"`` from now on: every view re-encodes."""
        mode = check_specials_in_text(mode)
        if mode == self.specials_in_text:
            return
        self.specials_in_text = mode
        for entry in self._entries:
            if entry.tokenizer is not None:
                self.tokenizerLoaded.emit(entry.key)

    def label(self, key: str) -> str:
        """Display name of a key."""
        entry = self.entry(key)
        return self._shown.get(key, entry.label) if entry else key

    def _relabel(self) -> None:
        """Give entries that share a name distinct ones (a folder ``multilingual`` and a file
        ``multilingual.tiktoken``) as :func:`tokviz.core.analysis.evaluation.distinct_labels` does for the CLI."""
        specs = [e.key[5:] if e.key.startswith("file:") else None for e in self._entries]
        for row, (entry, label) in enumerate(
            zip(self._entries, distinct_labels([e.label for e in self._entries], specs))
        ):
            if self._shown.setdefault(entry.key, label) != label:
                self._shown[entry.key] = label
                self.dataChanged.emit(self.index(row), self.index(row))

    def note_editor_text(self, text: str) -> None:
        """The editor's text changed (the words vocabulary may be built from it)."""
        self.words.note_editor_text(text)

    def replace_tokenizer(self, key: str, tok: Tokenizer) -> None:
        """Put a new tokenizer under an existing key; everything showing the key switches to it."""
        entry = self.entry(key)
        if entry is None:
            return
        entry.tokenizer = tok
        entry.merges_ready = False
        row = self.row_of(key)
        self.dataChanged.emit(self.index(row), self.index(row))
        self.tokenizerLoaded.emit(key)

    # ---------------------------------------------------------------- changes
    def add_tokenizer(self, name: str, tokenizer: Tokenizer, counts: dict[int, int] | None = None) -> str:
        """Offer a tokenizer that already exists (a trained model, say) in every picker; returns its key.

        Adding a name twice replaces the earlier tokenizer under the same key.
        """
        key = f"model:{name}"
        existing = self.entry(key)
        if existing is not None:
            existing.tokenizer = tokenizer
            existing.counts = counts
            existing.merges_ready = False
            row = self.row_of(key)
            self.dataChanged.emit(self.index(row), self.index(row))
        else:
            row = len(self._entries)
            self.beginInsertRows(QModelIndex(), row, row)
            self._entries.append(TokenizerEntry(key, name, None, tokenizer, counts))
            self.endInsertRows()
            self._relabel()
        self.tokenizersChanged.emit()
        self.tokenizerLoaded.emit(key)
        return key

    def free_model_name(self, name: str) -> str:
        """``name``, or ``name #2``, ``#3``… when a model of that name is already offered."""
        taken = {e.key for e in self._entries}
        free, n = name, 2
        while f"model:{free}" in taken:
            free = f"{name} #{n}"
            n += 1
        return free

    def has_model(self, name: str) -> bool:
        """True when a model (trained in the app) is offered under ``name``."""
        return self.entry(f"model:{name}") is not None

    def add_file_entry(self, path: str, label: str, options: dict[str, Any] | None = None) -> str:
        """Offer a file (remembered from a past session) to load, with ``options``, when first asked for."""
        key = f"file:{Path(path).resolve()}"
        if self.entry(key) is None:
            row = len(self._entries)
            self.beginInsertRows(QModelIndex(), row, row)
            self._entries.append(TokenizerEntry(key, label, path, options=dict(options or {})))
            self.endInsertRows()
            self._relabel()
            self.tokenizersChanged.emit()
        return key

    def mark_saved(self, key: str, path: str) -> None:
        """A tokenizer (a trained model) was saved to ``path``: it is that file now, remembered as such."""
        entry = self.entry(key)
        if entry is not None:
            entry.source, entry.options = path, {}
            self.fileOpened.emit(key)

    def ensure_loaded(self, key: str) -> None:
        """Queue loading a known entry; ``tokenizerLoaded(key)`` fires when it is ready."""
        entry = self.entry(key)
        if entry is not None and entry.tokenizer is None and entry.loading is None:
            self._enqueue(0, key, "load")

    def load_builtin_now(self, key: str) -> Tokenizer:
        """Load a built-in in this thread (scripts and tests that want it at once)."""
        entry = self.entry(key)
        if entry is None:
            raise KeyError(key)
        if entry.tokenizer is None:
            entry.tokenizer = (
                self.words.builder()() if key == WORDS_KEY else load_tokenizer(entry.source or key)
            )
            self.tokenizerLoaded.emit(key)
        return entry.tokenizer

    def open_file(
        self,
        path: str | os.PathLike[str],
        *,
        pattern: str | None = None,
        special_tokens: Sequence[str] = (),
    ) -> Job:
        """Load a tokenizer file or folder in a worker; on success it is added and ``tokenizerLoaded`` fires.

        ``pattern`` and ``special_tokens`` (from the Open tokenizer dialog) tell the loader what a
        ``.tiktoken`` or vocab/merges file does not say. On failure nothing changes and
        ``loadFailed(path, message)`` fires.
        """
        source = str(path)
        options: dict[str, Any] = {}
        if pattern:
            options["pattern"] = pattern
        if special_tokens:
            options["special_tokens"] = list(special_tokens)
        job = run_job(lambda: load_tokenizer(source, **options), self)

        def done(tok: Tokenizer) -> None:
            key = f"file:{Path(source).resolve()}"
            # Named as the CLI names it (tokviz info); a clash with another entry is resolved in _relabel.
            label = tokenizer_label(source, tok)
            existing = self.entry(key)
            if existing is not None:
                existing.tokenizer = tok
                existing.merges_ready = False
                existing.options = dict(options)
                row = self.row_of(key)
                self.dataChanged.emit(self.index(row), self.index(row))
            else:
                row = len(self._entries)
                self.beginInsertRows(QModelIndex(), row, row)
                self._entries.append(TokenizerEntry(key, label, source, tok, options=dict(options)))
                self.endInsertRows()
                self._relabel()
                self.tokenizersChanged.emit()
            job.setProperty("key", key)
            self.tokenizerLoaded.emit(key)
            self.fileOpened.emit(key)

        def failed(exc: BaseException) -> None:
            message = str(exc) if isinstance(exc, TokvizError) else f"{type(exc).__name__}: {exc}"
            self.loadFailed.emit(source, message)

        job.returned.connect(done)
        job.errored.connect(failed)
        return job
