"""Saving and exporting the model the Train panel trained: in a worker, checked, all files or none.

The model file records where the model came from (the corpus files with sizes and SHA-256, or
the text's size and hash, the filters, the tokviz version and the date); exports go through
:func:`tokviz.core.exports.write_export`, so the panel writes exactly what ``tokviz train
--export-*`` writes (config files, tokenizer.json beside vocab.json when needed, the .tiktoken
sidecar), and shows what the user must know about an export under the result.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tokviz.core.counts import CountTable
from tokviz.core.errors import TokvizError
from tokviz.core.exports import ModelExtras, write_export
from tokviz.core.provenance import corpus_record, file_sha256, make_provenance
from tokviz.gui.panels.training.report import file_stem, html_text
from tokviz.gui.widgets import file_dialogs
from tokviz.gui.workers.jobs import Job, run_job
from tokviz.gui.workers.training import TrainOutcome

if TYPE_CHECKING:
    from PySide6.QtCore import SignalInstance
    from PySide6.QtWidgets import QLabel

    from tokviz.gui.models.tokenizers import TokenizerRegistryModel


def outcome_provenance(outcome: TrainOutcome) -> dict[str, Any]:
    """Where a finished run's model came from (runs in a worker: the files are hashed).

    A run on files reuses the sizes and hashes its count table took while counting.
    """
    s = outcome.settings
    chosen: dict[str, Any] = {}
    if s.include:
        chosen["include"] = list(s.include)
    if s.exclude:
        chosen["exclude"] = list(s.exclude)
    if s.max_file_size is not None:
        chosen["max_file_size"] = s.max_file_size
    if isinstance(s.source, str):
        corpus = corpus_record(text=s.source, description="text given to the Train panel")
    else:
        table = outcome.extra.get("count_table")
        counted = table.files if isinstance(table, CountTable) else ()
        if counted:
            files = [
                {"path": f.path, "bytes": f.size, "sha256": f.sha256 or file_sha256(f.path)[1]}
                for f in counted
            ]
            corpus = {"files": files, "total_bytes": sum(f.size for f in counted)}
        else:
            corpus = corpus_record([str(p) for p in s.source if Path(p).is_file()])
    return make_provenance(corpus, chosen, s.errors)


class SavingMixin:
    """The Train panel's Save model… and Export ▾ actions (mixed into ``TrainPanel``)."""

    outcome: TrainOutcome | None
    key: str | None
    registry: TokenizerRegistryModel
    status: QLabel
    result: QLabel
    fileJobDone: SignalInstance
    _file_job: Job | None
    last_export_notes: list[str]

    _show_error: Callable[[str | None], None]

    def choose_save_path(self) -> None:
        """Ask where to save the trained model."""
        if self.outcome is None:
            return
        default = str(Path.home() / f"{file_stem(self.outcome.settings.name)}.tokviz.json")
        path, _ = file_dialogs.get_save_file_name(
            self,
            "Save tokviz model",
            default,
            "tokviz model (*.json);;All files (*)",
        )
        if path:
            self.save_model_to(path)

    def save_model_to(self, path: str | os.PathLike[str]) -> Job | None:
        """Save the trained model with its settings, merge history and provenance (in a worker);
        ``fileJobDone`` reports. The path is checked like the CLI's ``-o`` (never the corpus)."""
        outcome = self.outcome
        if outcome is None:
            return None
        res, tok, corpus = outcome.result, outcome.tokenizer, self._corpus_paths()

        def save() -> list[str]:
            extras = ModelExtras(res.settings(), res.history, outcome_provenance(outcome))
            return write_export(tok, "model", path, what="the model file", extras=extras, inputs=corpus)

        job = self._file_task(save, f"Saved {Path(path).name}")
        # Saved, the model is that file: remembered, it comes back in the pickers after a restart.
        key = self.key
        job.returned.connect(lambda _value: self.registry.mark_saved(key, str(path)) if key else None)
        return job

    def choose_export(self, kind: str) -> None:
        """Ask where to export: a folder for vocab.json + merges.txt and tokenizer.json, a file for .tiktoken."""
        if self.outcome is None:
            return
        stem = file_stem(self.outcome.settings.name)
        parent: Any = self
        if kind == "tiktoken":
            path, _ = file_dialogs.get_save_file_name(
                parent,
                "Export .tiktoken",
                str(Path.home() / f"{stem}.tiktoken"),
                "tiktoken ranks (*.tiktoken)",
            )
        else:
            title = "Export vocab.json + merges.txt into" if kind == "gpt2" else "Export tokenizer.json into"
            path = file_dialogs.get_existing_directory(parent, title, str(Path.home()))
            path = f"{path}{os.sep}" if path and kind == "hf" else path
        if path:
            self.export_to(kind, path)

    def export_to(self, kind: str, path: str | os.PathLike[str]) -> Job | None:
        """Export the trained model as ``gpt2`` (folder), ``hf`` (folder, or a file) or ``tiktoken`` (file
        and sidecar), in a worker; checked like the CLI's ``--export-*`` and written atomically."""
        if self.outcome is None:
            return None
        tok, corpus = self.outcome.tokenizer, self._corpus_paths()
        return self._file_task(lambda: write_export(tok, kind, path, inputs=corpus), f"Exported to {path}")

    def _corpus_paths(self) -> list[str]:
        """The files and folders the model was trained on: no save or export may overwrite them."""
        source = self.outcome.settings.source if self.outcome is not None else None
        return [str(p) for p in source] if isinstance(source, list | tuple) else []

    def _file_task(self, fn: Callable[[], Any], success: str) -> Job:
        self._show_error(None)
        job = run_job(fn, self)
        self._file_job = job

        def done(value: object) -> None:
            notes = [str(n) for n in value] if isinstance(value, list) else []
            self.last_export_notes = notes
            self.status.setText(success)
            if notes:
                self.result.setText("<br>".join(html_text(n).replace("\n", "<br>") for n in notes))
            self.fileJobDone.emit("")

        def failed(exc: BaseException) -> None:
            message = str(exc) if isinstance(exc, TokvizError) else f"{type(exc).__name__}: {exc}"
            self._show_error(message)
            self.fileJobDone.emit(message)

        job.returned.connect(done)
        job.errored.connect(failed)
        return job
