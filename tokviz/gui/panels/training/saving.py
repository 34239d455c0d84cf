"""Saving and exporting the model the Train panel trained: in a worker, checked, all files or none.

The model file records where the model came from (the corpus files with sizes and SHA-256, or
the text's size and hash, the filters, the tokviz version and the date); exports go through
:func:`tokviz.core.formats.exports.write_export`, so the panel writes exactly what ``tokviz train
--export-*`` writes (config files, tokenizer.json beside vocab.json when needed, the .tiktoken
sidecar), and shows what the user must know about an export under the result.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QWidget

from tokviz.core.bpe.tokenizer import Tokenizer
from tokviz.core.corpus.reading import FileRead
from tokviz.core.errors import TokvizError
from tokviz.core.formats.exports import EXPORT_KINDS, EXPORT_LABELS, ModelExtras, export_problem, write_export
from tokviz.core.formats.provenance import corpus_record, file_sha256, make_provenance, record_text_bytes
from tokviz.core.training.counts import CountTable
from tokviz.gui.panels.training.lifecycle import TrainingRun
from tokviz.gui.panels.training.report import file_stem
from tokviz.gui.widgets import file_dialogs
from tokviz.gui.workers.engine_training import EngineOutcome
from tokviz.gui.workers.jobs import Job, run_job
from tokviz.gui.workers.training import FileChoice, TrainOutcome


def outcome_provenance(outcome: TrainOutcome) -> dict[str, Any]:
    """Where a finished run's model came from (runs in a worker: the files are hashed).

    A run on files reuses the sizes and hashes its count table took while counting.
    """
    s = outcome.settings
    chosen = _chosen_files(s)
    if isinstance(s.source, str):
        corpus = corpus_record(text=s.source, description="text given to the Train panel")
    else:
        table = outcome.extra.get("count_table")
        counted = table.files if isinstance(table, CountTable) else ()
        if isinstance(table, CountTable) and counted:
            field = (table.records or {}).get("field")
            read = [
                FileRead(f.path, f.size, f.sha256 or file_sha256(f.path)[1], f.container, field, f.records)
                for f in counted
            ]
            corpus = corpus_record(read=read)
            if table.records:
                corpus["reading"] = table.records
        elif outcome.result.files_read:  # the sizes and hashes of the bytes trained on
            corpus = corpus_record(read=outcome.result.files_read)
        else:
            paths = s.source if isinstance(s.source, list | tuple) else []
            corpus = corpus_record([str(p) for p in paths if Path(p).is_file()])
    return record_text_bytes(make_provenance(corpus, chosen, s.errors), outcome.result.text_bytes)


EXPORTS = (
    ("gpt2", "vocab.json + merges.txt folder (transformers)…"),
    ("tiktoken", ".tiktoken rank file (+ pattern sidecar)…"),
    ("hf", "tokenizer.json folder (Hugging Face)…"),
    *(
        (kind, f"{EXPORT_LABELS[kind]}…")
        for kind in EXPORT_KINDS
        if kind not in ("model", "gpt2", "tiktoken", "hf")
    ),
)
# The exports that are one file, with the suffix they suggest; the others go into a folder.
FILE_EXPORTS = {"tiktoken": ".tiktoken", "spm": ".model"}


def _chosen_files(s: FileChoice) -> dict[str, Any]:
    """The filters that chose the corpus's files, as the provenance records them."""
    chosen: dict[str, Any] = {}
    if s.include:
        chosen["include"] = list(s.include)
    if s.exclude:
        chosen["exclude"] = list(s.exclude)
    if s.max_file_size is not None:
        chosen["max_file_size"] = s.max_file_size
    return chosen


def engine_provenance(outcome: EngineOutcome) -> dict[str, Any]:
    """Where a library-trained model came from, for its options record (runs in a worker: the
    files are hashed)."""
    s = outcome.settings
    if isinstance(s.source, str):
        corpus = corpus_record(text=s.source, description="text given to the Train panel")
    else:
        corpus = corpus_record([str(p) for p in s.source if Path(p).is_file()])
    return make_provenance(corpus, _chosen_files(s), s.errors)


class ModelFiles(QObject):
    """Save model… and Export ▾ for the model of a :class:`TrainingRun`, each written in a worker.

    Signals: ``began()`` when a write starts, ``succeeded(message, notes)`` when it is done (the
    notes say what the user must know about an export), ``failed(message)`` when it is not.
    """

    began = Signal()
    succeeded = Signal(str, list)
    failed = Signal(str)

    def __init__(self, run: TrainingRun, dialog_parent: QWidget) -> None:
        super().__init__(dialog_parent)
        self._run = run
        self._dialog_parent = dialog_parent
        self.job: Job | None = None

    def tokenizer(self) -> Tokenizer | None:
        """The last trained model's tokenizer, whichever algorithm made it (None before a run finished)."""
        if self._run.engine_outcome is not None:
            return self._run.engine_outcome.tokenizer
        return self._run.outcome.tokenizer if self._run.outcome is not None else None

    def export_problems(self) -> dict[str, str | None]:
        """Why the trained model cannot go to each export format (None: it can), as File ▸ Export says."""
        tok = self.tokenizer()
        return {kind: export_problem(tok, kind) if tok is not None else "" for kind, _label in EXPORTS}

    def choose_save_path(self) -> None:
        """Ask where to save the trained model (a library's model as its own file: ``.model`` for
        sentencepiece, ``tokenizer.json`` for tokenizers)."""
        engine = self._run.engine_outcome
        if engine is not None:
            wordpiece = engine.model.options.algorithm == "wordpiece"
            suffix, kind = (".json", "tokenizer.json") if wordpiece else (".model", "SentencePiece model")
            default = str(Path.home() / f"{file_stem(engine.settings.name)}{suffix}")
            path, _ = file_dialogs.get_save_file_name(
                self._dialog_parent, f"Save {kind}", default, f"{kind} (*{suffix});;All files (*)"
            )
            if path:
                self.save_model_to(path)
            return
        outcome = self._run.outcome
        if outcome is None:
            return
        default = str(Path.home() / f"{file_stem(outcome.settings.name)}.tokviz.json")
        path, _ = file_dialogs.get_save_file_name(
            self._dialog_parent,
            "Save tokviz model",
            default,
            "tokviz model (*.json);;All files (*)",
        )
        if path:
            self.save_model_to(path)

    def save_model_to(self, path: str | os.PathLike[str]) -> Job | None:
        """Save the trained model with its settings, merge history and provenance (in a worker).
        The path is checked like the CLI's ``-o`` (never the corpus). A library's model is saved as
        its own file with the options it was trained with beside it."""
        engine = self._run.engine_outcome
        if engine is not None:
            job = self.run_task(
                lambda: engine.model.save(path, engine_provenance(engine)), f"Saved {Path(path).name}"
            )
            self._remember_saved(job, path)
            return job
        outcome = self._run.outcome
        if outcome is None:
            return None
        res, tok, corpus = outcome.result, outcome.tokenizer, self.corpus_paths()

        def save() -> list[str]:
            extras = ModelExtras(res.settings(), res.history, outcome_provenance(outcome))
            return write_export(tok, "model", path, what="the model file", extras=extras, inputs=corpus)

        job = self.run_task(save, f"Saved {Path(path).name}")
        self._remember_saved(job, path)
        return job

    def _remember_saved(self, job: Job, path: str | os.PathLike[str]) -> None:
        """Saved, the model is that file: remembered, it comes back in the pickers after a restart."""
        key, registry = self._run.key, self._run.registry
        if key:
            job.returned.connect(lambda _value: registry.mark_saved(key, str(path)))

    def choose_export(self, kind: str) -> None:
        """Ask where to export: a folder for vocab.json + merges.txt and tokenizer.json, a file for
        .tiktoken and the other one-file formats."""
        tok = self.tokenizer()
        if tok is None:
            return
        stem = file_stem(tok.name)
        parent = self._dialog_parent
        if kind in FILE_EXPORTS:
            suffix = FILE_EXPORTS[kind]
            path, _ = file_dialogs.get_save_file_name(
                parent,
                f"Export {EXPORT_LABELS.get(kind, kind)}",
                str(Path.home() / f"{stem}{suffix}"),
                f"{EXPORT_LABELS.get(kind, kind)} (*{suffix})",
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
        tok, corpus = self.tokenizer(), self.corpus_paths()
        if tok is None:
            return None
        return self.run_task(lambda: write_export(tok, kind, path, inputs=corpus), f"Exported to {path}")

    def corpus_paths(self) -> list[str]:
        """The files and folders the model was trained on: no save or export may overwrite them."""
        outcome = self._run.engine_outcome or self._run.outcome
        source = outcome.settings.source if outcome is not None else None
        return [str(p) for p in source] if isinstance(source, list | tuple) else []

    def run_task(self, fn: Callable[[], object], success: str) -> Job:
        """Write in a worker: ``began`` now, then ``succeeded(success, notes)`` or ``failed(message)``."""
        self.began.emit()
        job = run_job(fn, self)
        self.job = job

        def done(value: object) -> None:
            notes = [str(n) for n in value] if isinstance(value, list) else []
            self.succeeded.emit(success, notes)

        def failed(exc: BaseException) -> None:
            message = str(exc) if isinstance(exc, TokvizError) else f"{type(exc).__name__}: {exc}"
            self.failed.emit(message)

        job.returned.connect(done)
        job.errored.connect(failed)
        return job
