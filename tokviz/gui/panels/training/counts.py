"""Count tables in the Train panel: a table as the corpus, and "Save counts…" after a local run.

A count table (``tokviz count -o counts.parquet``, or a run's "Save counts…") added like a corpus
file is shown by its metadata (rows, corpus size, files, pre-tokenizer, special tokens) and a
preview of its first rows; training on it skips counting and uses the table's own pre-tokenizer
and special tokens. After a run on text, "Save counts…" writes the run's table, so a lecturer can
train many vocabulary sizes on a big corpus without counting again.
"""

from __future__ import annotations

import heapq
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QPushButton, QWidget

from tokviz.core.errors import TokvizError
from tokviz.core.io.outputs import Output, write_outputs
from tokviz.core.training.counts import (
    CountTable,
    describe_metadata,
    is_count_table,
    load_table,
    read_metadata,
    table_bytes,
    table_format,
    with_hashes,
)
from tokviz.gui.panels.training.corpus import CorpusInfo, describe_files
from tokviz.gui.panels.training.lifecycle import TrainingRun
from tokviz.gui.panels.training.report import file_stem
from tokviz.gui.panels.training.saving import ModelFiles
from tokviz.gui.panels.training.table_settings import TableSettings
from tokviz.gui.widgets import file_dialogs
from tokviz.gui.workers.jobs import Job
from tokviz.gui.workers.training import TrainOutcome

PREVIEW_ROWS = 40
TABLE_NOTE = "trains with the table's own pre-tokenizer and special tokens"


def describe_corpus(paths: list[str], errors: str = "strict", **filters: Any) -> CorpusInfo:
    """What the panel shows for ``paths``: a count table's metadata and first rows, else the files'
    summary (``filters``: ``include``, ``exclude``, ``max_size`` as :func:`describe_files` takes them)."""
    tables = [p for p in paths if is_count_table(p)]
    if not tables:
        return describe_files(paths, errors, **filters)
    if len(paths) > 1:
        return CorpusInfo(
            "", "", 0, f"{Path(tables[0]).name} is a count table, which trains alone: remove the other files"
        )
    try:
        meta = read_metadata(tables[0])
        table = load_table(tables[0])
    except TokvizError as exc:
        return CorpusInfo("", "", 0, str(exc))
    top = heapq.nlargest(PREVIEW_ROWS, table.counts.items(), key=lambda item: item[1])
    rows = "The most frequent pre-tokens:\n" + "\n".join(f"{n:>12,}  {word!r}" for word, n in top)
    summary = f"Count table · {describe_metadata(meta)} · {TABLE_NOTE}"
    settings = TableSettings(tuple(table.special_tokens), table.pretokenizer)
    return CorpusInfo(summary, rows, int(meta.get("corpus_bytes", 0)), table=settings)


def kept_table(outcome: TrainOutcome | None) -> CountTable | None:
    """The count table a finished run on text kept (None for a run on a table, or no run)."""
    if outcome is None:
        return None
    table = outcome.extra.get("count_table")
    return table if isinstance(table, CountTable) else None


class SaveCounts:
    """The "Save counts…" button of a Train panel: enabled after a run on text, writes its table
    through the panel's :class:`ModelFiles` (so it reports like a saved model)."""

    def __init__(
        self, run: TrainingRun, files: ModelFiles, button: QPushButton, dialog_parent: QWidget
    ) -> None:
        self._run = run
        self._dialog_parent = dialog_parent
        self._files = files
        self.button = button
        button.clicked.connect(self.choose_path)
        run.started.connect(self._on_run_changed)
        run.ended.connect(self._on_run_changed)
        self.update()

    def _on_run_changed(self, *_args: object) -> None:
        self.update()

    def update(self) -> None:
        """Enable the button when the last finished run kept a table and nothing is running."""
        self.button.setEnabled(kept_table(self._run.outcome) is not None and not self._run.running)

    def choose_path(self) -> None:
        """Ask where to save the table (Parquet when pyarrow is installed, else TSV)."""
        outcome = self._run.outcome
        if outcome is None or kept_table(outcome) is None:
            return
        suffix = ".parquet" if _has_pyarrow() else ".tsv"
        stem = file_stem(f"{outcome.settings.name}-counts")
        path, _ = file_dialogs.get_save_file_name(
            self._dialog_parent,
            "Save counts",
            str(Path.home() / f"{stem}{suffix}"),
            "Count tables (*.parquet *.tsv);;All files (*)",
        )
        if path:
            self.save_to(path)

    def save_to(self, path: str) -> Job | None:
        """Write the kept table to ``path`` in a worker (hashing the files first)."""
        table = kept_table(self._run.outcome)
        if table is None:
            return None
        corpus = self._files.corpus_paths()
        output = Output.file(path, "the count table")

        def write() -> None:
            fmt = table_format(path)
            write_outputs([(output, table_bytes(with_hashes(table), fmt))], corpus)

        return self._files.run_task(write, f"Saved counts to {Path(path).name}")


def _has_pyarrow() -> bool:
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        return False
    return True


def save_counts_button(parent: QWidget) -> QPushButton:
    """The "Save counts…" button, for the panel's output row."""
    button = QPushButton("Save counts…", parent)
    button.setObjectName("saveCountsButton")
    button.setToolTip(
        "Save the run's pre-token counts (Parquet or TSV) to train other vocabulary sizes from them "
        "without counting again (tokviz train --from-counts, or add the table as the corpus here)"
    )
    return button
