"""File ▸ Export tokenizer…: write any tokenizer in the pickers to another format, or say why it cannot go there.

Every tokenizer the registry offers can be picked (trained in this session, opened from a tokviz
model file, a vocab.json + merges.txt folder, a tokenizer.json or a .tiktoken file, or a
built-in). Each format it cannot go to is greyed out with the reason in its tooltip and listed
under the form (a SentencePiece model goes to tokenizer.json and its .model file only, a WordPiece
model to tokenizer.json and, with BERT's pipeline, vocab.txt; a vocabulary with gaps in its ids
cannot become a .tiktoken file). The export itself is
:func:`tokviz.core.formats.exports.write_export`, in a worker: every file of it is written, or none, and
what the user must know afterwards (the tiktoken snippet) is shown in a box they can copy from.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Signal
from PySide6.QtGui import QStandardItemModel
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QPushButton,
    QWidget,
)

from tokviz.core.bpe.tokenizer import Tokenizer
from tokviz.core.errors import TokvizError
from tokviz.core.formats.exports import (
    EXPORT_KINDS,
    EXPORT_LABELS,
    format_of_another_kind,
    formats_for,
    write_export,
)
from tokviz.gui.widgets import file_dialogs
from tokviz.gui.widgets.boxes import column
from tokviz.gui.widgets.fixed_text import fixed_text
from tokviz.gui.workers.jobs import Job, run_job

if TYPE_CHECKING:
    from tokviz.gui.models.tokenizers import TokenizerRegistryModel

# The file name each format suggests (a folder for the two Hugging Face layouts).
_SUFFIXES = {"model": ".tokviz.json", "tiktoken": ".tiktoken", "spm": ".model"}
_FILTERS = {
    "model": "tokviz model (*.json)",
    "tiktoken": "tiktoken ranks (*.tiktoken)",
    "spm": "SentencePiece model (*.model)",
}
_FOLDER_TITLES = {
    "gpt2": "Export vocab.json + merges.txt into",
    "hf": "Export tokenizer.json into",
    "bert": "Export vocab.txt into",
}


def safe_stem(name: str) -> str:
    """A file name made of a tokenizer's name ("py 32k (cl100k)" -> "py-32k-cl100k")."""
    stem = "".join(c if c.isalnum() or c in "-_." else "-" for c in name).strip("-.")
    while "--" in stem:
        stem = stem.replace("--", "-")
    return stem or "tokenizer"


class ModelExportDialog(QDialog):
    """Pick a tokenizer and a format, then a file or folder; ``exported(message)`` follows each export
    ("" when it worked, else the one-line reason)."""

    exported = Signal(str)

    def __init__(self, registry: TokenizerRegistryModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("modelExportDialog")
        self.setWindowTitle("Export tokenizer")
        self.registry = registry
        self.job: Job | None = None
        self.problems: dict[str, str | None] = {}
        self._generation = 0
        self.tokenizer_box = QComboBox(self)
        self.tokenizer_box.setObjectName("exportModelTokenizer")
        self.tokenizer_box.setAccessibleName("Tokenizer to export")
        self.format_box = QComboBox(self)
        self.format_box.setObjectName("exportModelFormat")
        self.format_box.setAccessibleName("Export format")
        for kind in EXPORT_KINDS:
            self.format_box.addItem(EXPORT_LABELS[kind], kind)
        self.why_not = QLabel(self)
        self.why_not.setObjectName("exportModelWhyNot")
        self.why_not.setWordWrap(True)
        self.message = QLabel(self)
        self.message.setObjectName("exportModelMessage")
        self.message.setWordWrap(True)
        self.notes = fixed_text(self, "exportModelNotes", "What to know about the export")
        self.notes.setMinimumHeight(130)
        self.notes.hide()
        self.setMinimumWidth(560)
        self.save_button = QPushButton("&Export…", self)
        self.save_button.setObjectName("exportModelSave")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.addButton(self.save_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.rejected.connect(self.reject)
        form = QFormLayout()
        form.addRow("&Tokenizer:", self.tokenizer_box)
        form.addRow("&Format:", self.format_box)
        column(form, self.why_not, self.message, self.notes, buttons, parent=self)
        self.tokenizer_box.currentIndexChanged.connect(self._update)
        self.format_box.currentIndexChanged.connect(self._update_button)
        self.save_button.clicked.connect(self._choose_path)
        registry.tokenizerLoaded.connect(self._loaded)
        registry.tokenizersChanged.connect(self._registry_changed)
        self.refresh()

    # ------------------------------------------------------------------ state
    def refresh(self, prefer: str | None = None) -> None:
        """List every tokenizer on offer and select ``prefer`` (or keep the current one)."""
        keep = prefer or self.key()
        self.tokenizer_box.blockSignals(True)
        self.tokenizer_box.clear()
        for key in self.registry.keys():
            self.tokenizer_box.addItem(self.registry.label(key), key)
        self.tokenizer_box.setCurrentIndex(max(0, self.tokenizer_box.findData(keep)))
        self.tokenizer_box.blockSignals(False)
        self._update()

    def key(self) -> str | None:
        """The chosen tokenizer's registry key."""
        data = self.tokenizer_box.currentData()
        return str(data) if data is not None else None

    def kind(self) -> str:
        """The chosen format (one of :data:`tokviz.core.formats.exports.EXPORT_KINDS`)."""
        return str(self.format_box.currentData())

    def tokenizer(self) -> Tokenizer | None:
        """The chosen tokenizer, or ``None`` while it is still loading."""
        key = self.key()
        entry = self.registry.entry(key) if key is not None else None
        return entry.tokenizer if entry is not None else None  # as loaded: exports ignore the view setting

    def _registry_changed(self) -> None:
        """A tokenizer was added or removed: list them again, keeping the choice."""
        self.refresh(self.key())

    def _loaded(self, key: str) -> None:
        if key == self.key():
            self._update()

    def _update(self, *_args: object) -> None:
        """Find which formats the chosen tokenizer can go to, in a worker (a custom pattern is tried)."""
        key, tok = self.key(), self.tokenizer()
        self._generation += 1
        generation = self._generation
        if tok is None:
            text = "Loading the tokenizer…" if key is not None else "No tokenizer to export."
            self._show_problems(dict.fromkeys(EXPORT_KINDS, "still loading"), text)
            if key is not None:
                self.registry.ensure_loaded(key)
            return
        self._show_problems(dict.fromkeys(EXPORT_KINDS, "still checking"), "Checking the formats…")
        check = run_job(lambda: formats_for(tok), self)

        def checked(problems: object) -> None:
            if generation == self._generation and isinstance(problems, dict):
                missing = [
                    f"{EXPORT_LABELS[k]}: {why}"
                    for k, why in problems.items()
                    if why and not format_of_another_kind(tok, k)
                ]
                self._show_problems(problems, "Not available — " + "; ".join(missing) if missing else "")

        def failed(exc: BaseException) -> None:
            if generation == self._generation:
                self._show_problems(dict.fromkeys(EXPORT_KINDS, str(exc)), f"Cannot export: {exc}")

        check.returned.connect(checked)
        check.errored.connect(failed)

    def _show_problems(self, problems: dict[str, str | None], why_not: str) -> None:
        self.problems = problems
        self.why_not.setText(why_not)
        self.why_not.setVisible(bool(why_not))
        model = self.format_box.model()
        for row, kind in enumerate(EXPORT_KINDS):
            item = model.item(row) if isinstance(model, QStandardItemModel) else None
            if item is not None:
                why = self.problems.get(kind)
                item.setEnabled(why is None)
                item.setToolTip(why or f"Write {EXPORT_LABELS[kind]}")
        if self.problems.get(self.kind()) is not None:
            usable = [k for k in EXPORT_KINDS if self.problems.get(k) is None]
            if usable:
                self.format_box.setCurrentIndex(self.format_box.findData(usable[0]))
        self._update_button()

    def _update_button(self, *_args: object) -> None:
        self.save_button.setEnabled(self.job is None and self.problems.get(self.kind(), "") is None)

    # ------------------------------------------------------------------ exporting
    def _choose_path(self) -> None:
        tok, kind = self.tokenizer(), self.kind()
        if tok is None:
            return
        folder = file_dialogs.last_folder()
        stem = safe_stem(tok.name)
        if kind in _FOLDER_TITLES:
            path = file_dialogs.get_existing_directory(self, _FOLDER_TITLES[kind], str(folder))
            path = f"{path}{os.sep}" if path and kind == "hf" else path
        else:
            default = str(Path(folder) / f"{stem}{_SUFFIXES[kind]}")
            title = f"Export {EXPORT_LABELS[kind]}"
            path, _ = file_dialogs.get_save_file_name(self, title, default, _FILTERS[kind])
        if path:
            self.export_to(kind, path)

    def export_to(self, kind: str, path: str | os.PathLike[str]) -> Job | None:
        """Export the chosen tokenizer as ``kind`` to ``path`` in a worker (``exported`` reports)."""
        tok = self.tokenizer()
        if tok is None or self.job is not None:
            return None
        why = self.problems.get(kind)
        if why is not None:
            self._failed(f"cannot write {EXPORT_LABELS[kind]}: {why}")
            return None
        self.format_box.setCurrentIndex(self.format_box.findData(kind))
        self.message.setText(f"Exporting {tok.name}…")
        self.notes.hide()
        job = run_job(lambda: write_export(tok, kind, path), self)
        self.job = job
        self._update_button()
        key = self.key()
        entry = self.registry.entry(key) if key is not None else None
        # A model trained in the app, exported as a tokviz model file, is saved: remembered as that file.
        saves = kind == "model" and entry is not None and entry.source is None and entry.tokenizer is tok

        def done(notes: object) -> None:
            self.job = None
            lines = [str(n) for n in notes] if isinstance(notes, list) else []
            self.message.setText(f"Exported {tok.name} to {path}")
            self.notes.setPlainText("\n\n".join(lines))
            self.notes.setVisible(bool(lines))
            file_dialogs.remember_folder(
                Path(path).parent if kind not in _FOLDER_TITLES else Path(path), saved=True
            )
            if saves and key is not None:
                self.registry.mark_saved(key, os.fspath(path))
            self._update_button()
            self.exported.emit("")

        def failed(exc: BaseException) -> None:
            self.job = None
            self._update_button()
            self._failed(str(exc) if isinstance(exc, TokvizError) else f"{type(exc).__name__}: {exc}")

        job.returned.connect(done)
        job.errored.connect(failed)
        return job

    def _failed(self, message: str) -> None:
        self.message.setText(f"Export failed: {message}")
        self.exported.emit(message)
