"""Held-out curves on the timeline: what every vocabulary size of the replayed merge list buys.

The user picks held-out files or a folder; :func:`tokviz.core.analysis.sweep.sweep_files` encodes them once
in a worker (progress and Cancel in the row) and gives bytes/token at every merge step, which the
timeline's plot draws on its bytes/token axis, a curve per group (folder or language) with each
curve's knee as a dot. "Use this size" makes the vocabulary of the first merges up to the cursor
a tokenizer of its own in the registry, so every picker, the views and Export offer it.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np
from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QMenu, QPushButton, QToolButton, QWidget

from tokviz.core.analysis.evaluation import EvalProgress, by_folder
from tokviz.core.analysis.sweep import (
    Sweep,
    SweepCurve,
    by_language,
    check_sweepable,
    prefix_tokenizer,
    sweep_files,
)
from tokviz.core.bpe.tokenizer import Tokenizer
from tokviz.core.corpus.fileselect import select_files
from tokviz.core.errors import Cancelled, TokvizError
from tokviz.gui.drawing.chart_style import series_color
from tokviz.gui.models.tokenizers import TokenizerRegistryModel
from tokviz.gui.panels.timeline.plot import TokenCountPlot
from tokviz.gui.widgets.elided import ElidedLabel
from tokviz.gui.widgets.file_dialogs import get_existing_directory, get_open_file_names
from tokviz.gui.workers.jobs import Job, run_job

GROUPINGS = {"together": "all together", "folder": "by folder", "language": "by language"}


def sweep_paths(
    tokenizer: Tokenizer,
    paths: Sequence[str],
    by: str,
    cancel: threading.Event,
    progress: Any = None,
) -> Sweep:
    """Worker-thread part: select the text files under ``paths`` and sweep them (``by`` a key of GROUPINGS)."""
    tokenizer.merge_rank_of_id  # noqa: B018 - the merge tables (GPT-2 recovers its merges here)
    check_sweepable(tokenizer)
    selection = select_files(list(paths), errors="replace")
    if not selection.files:
        raise TokvizError("no text files there to sweep")
    group_of = {"folder": by_folder(selection), "language": by_language}.get(by)
    return sweep_files(
        tokenizer, selection, group_of=group_of, errors="replace", progress=progress, cancel=cancel.is_set
    )


class _Progress(QObject):
    """Carries a worker's progress to the GUI thread (a queued signal)."""

    moved = Signal(int, int)

    def __call__(self, p: EvalProgress) -> None:
        self.moved.emit(p.files_done, p.files_total)


class HeldOutCurves(QWidget):
    """The timeline's held-out row (choose files, grouping, Use this size) and its plot curves.

    Signals: ``swept(sweep)`` when curves are shown; ``failed(message)``; ``sizeAdded(key)`` when
    "Use this size" put a tokenizer in the registry.
    """

    swept = Signal(Sweep)
    failed = Signal(str)
    sizeAdded = Signal(str)

    def __init__(
        self, plot: TokenCountPlot, registry: TokenizerRegistryModel | None, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("timelineHeldOut")
        self.plot = plot
        self.registry = registry
        self.tokenizer: Tokenizer | None = None
        self.paths: list[str] = []
        self.sweep: Sweep | None = None
        self.step = 0
        self._job: Job | None = None
        self._cancel = threading.Event()
        self._items: list[Any] = []
        self._build()

    def _build(self) -> None:
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.choose = QToolButton(self)
        self.choose.setText("Held-out…")
        self.choose.setObjectName("timelineHeldOutChoose")
        self.choose.setToolTip("Measure held-out files at every vocabulary size of this merge list")
        self.choose.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu(self.choose)
        menu.addAction("Choose a folder…", self._choose_folder)
        menu.addAction("Choose files…", self._choose_files)
        self.clear_action = menu.addAction("Clear held-out curves", self.clear)
        self.choose.setMenu(menu)
        self.grouping = QComboBox(self)
        self.grouping.setObjectName("timelineHeldOutGrouping")
        for key, label in GROUPINGS.items():
            self.grouping.addItem(label, key)
        self.grouping.setToolTip("One curve for all held-out files, or one per folder or language")
        self.grouping.currentIndexChanged.connect(lambda _i: self._run())
        self.use_size = QPushButton("Use this size", self)
        self.use_size.setObjectName("timelineUseSize")
        self.use_size.setToolTip("Add the vocabulary of the merges up to the cursor as a tokenizer")
        self.use_size.clicked.connect(self.add_size_at_cursor)
        self.cancel_button = QPushButton("Cancel", self)
        self.cancel_button.clicked.connect(self.cancel)
        self.cancel_button.hide()
        self.status = ElidedLabel("", self)
        self.status.setObjectName("timelineHeldOutStatus")
        for widget in (self.choose, self.grouping, self.use_size, self.cancel_button):
            layout.addWidget(widget)
        layout.addWidget(self.status, 1)
        self._sync()

    # ---------------------------------------------------------------- public API
    @property
    def by(self) -> str:
        """The grouping chosen: a key of :data:`GROUPINGS`."""
        return str(self.grouping.currentData())

    @property
    def plot_items(self) -> list[Any]:
        """The pyqtgraph items drawn on the plot: a line per curve, then its knee's dot if it has one."""
        return list(self._items)

    def running(self) -> bool:
        """True while held-out files are being swept."""
        return self._job is not None and not self._job.done

    def set_tokenizer(self, tokenizer: Tokenizer | None) -> None:
        """The timeline replays another tokenizer: its curves replace the old ones."""
        if tokenizer is self.tokenizer:
            return
        self.tokenizer = tokenizer
        self._run()

    def set_step(self, step: int) -> None:
        """Follow the timeline's cursor (the size "Use this size" takes)."""
        self.step = step
        self._sync()

    def set_paths(self, paths: Sequence[str]) -> None:
        """Sweep these files and folders (in a worker) and draw their curves."""
        self.paths = [os.fspath(p) for p in paths]
        self._run()

    def clear(self) -> None:
        """No held-out files: remove the curves."""
        self.paths = []
        self._run()

    def cancel(self) -> None:
        """Stop the sweep that runs; the plot keeps no partial curves."""
        self._cancel.set()

    def add_size_at_cursor(self) -> str | None:
        """Put the vocabulary up to the cursor's merge in the registry; returns its key."""
        tok = self.tokenizer
        if tok is None or self.registry is None:
            return None
        size = tok.size_after(self.step)
        try:
            prefix = prefix_tokenizer(tok, size, name=f"{tok.name} {size:,}")
        except TokvizError as exc:
            self.failed.emit(str(exc))
            return None
        key = self.registry.add_tokenizer(prefix.name, prefix)
        self.status.setText(f"Added {prefix.name} to the tokenizers")
        self.sizeAdded.emit(key)
        return key

    # ---------------------------------------------------------------- work
    def _run(self) -> None:
        self._cancel.set()  # the one running (if any) is dropped when it returns
        self._job = None
        self.sweep = None
        self._draw()
        tok = self.tokenizer
        if tok is None or not self.paths:
            self.status.setText("")
            self._sync()
            return
        cancel = threading.Event()
        self._cancel = cancel
        progress = _Progress(self)
        progress.moved.connect(self._on_progress)
        paths, by = list(self.paths), self.by
        job = run_job(lambda: sweep_paths(tok, paths, by, cancel, progress), self)
        job.returned.connect(lambda sweep, job=job: self._on_swept(job, sweep))
        job.errored.connect(lambda exc, job=job: self._on_failed(job, exc))
        self._job = job
        self.status.setText("Sweeping the held-out files…")
        self._sync()

    def _on_progress(self, done: int, total: int) -> None:
        if self.running():
            self.status.setText(f"Sweeping the held-out files… {done:,} of {total:,}")

    def _on_swept(self, job: Job, sweep: Sweep) -> None:
        if job is not self._job:
            return
        self.sweep = sweep
        self._draw()
        self.status.setText(self._legend(sweep))
        self._sync()
        self.swept.emit(sweep)

    def _on_failed(self, job: Job, exc: BaseException) -> None:
        if job is not self._job:
            return
        message = "Cancelled" if isinstance(exc, Cancelled) else str(exc)
        if not isinstance(exc, (TokvizError, OSError)):
            message = f"{type(exc).__name__}: {exc}"
        self.status.setText(f"Held-out: {message}")
        self._sync()
        self.failed.emit(message)

    def _sync(self) -> None:
        running = self.running()
        self.cancel_button.setVisible(running)
        self.clear_action.setEnabled(bool(self.paths))
        self.use_size.setEnabled(
            self.tokenizer is not None and self.tokenizer.is_bpe and self.registry is not None
        )

    # ---------------------------------------------------------------- drawing
    def _draw(self) -> None:
        """Put the sweep's curves (and knees) on the plot's bytes/token axis, or take them off."""
        if self._items:
            for item in self._items:
                self.plot.ratio_box.removeItem(item)
            self._items = []
        self.plot.extra_ratio_top = 0.0
        sweep = self.sweep
        if sweep is None:
            if self.plot.built:
                self.plot.flush()
            return
        if not self.plot.built:
            self.plot.build()
        import pyqtgraph as pg

        dark = self.palette().color(self.backgroundRole()).lightness() < 128
        top = 0.0
        for curve, color in self._coloured(sweep, dark):
            bpt = curve.bytes_per_token
            steps = np.arange(len(bpt))
            line = pg.PlotDataItem(steps, bpt, pen=pg.mkPen(color, width=1.5))
            line.setToolTip(f"held-out {curve.group}: bytes/token at every step")
            self.plot.ratio_box.addItem(line)
            line.setDownsampling(auto=True, method="peak")
            self._items.append(line)
            # The total's name under its line's end, the groups' above theirs: apart where they meet.
            below = curve is sweep.total and len(sweep.curves) > 1
            name = pg.TextItem(curve.group, color=color, anchor=(1, 0 if below else 1))
            name.setPos(float(steps[-1]), float(bpt[-1]))
            self.plot.ratio_box.addItem(name)
            self._items.append(name)
            knee = curve.knee()
            if knee is not None:
                dot = pg.ScatterPlotItem(
                    [knee], [float(bpt[knee])], size=9, brush=pg.mkBrush(color), pen=None
                )
                self.plot.ratio_box.addItem(dot)
                self._items.append(dot)
            finite = bpt[np.isfinite(bpt)]
            if finite.size:
                top = max(top, float(finite.max()))
        self.plot.extra_ratio_top = top * 1.1
        self.plot.flush()

    @staticmethod
    def _coloured(sweep: Sweep, dark: bool) -> list[tuple[SweepCurve, QColor]]:
        """Each curve with its colour (the chart's series colours, after the two the text curves use)."""
        return [(curve, series_color(slot + 2, dark)) for slot, curve in enumerate(sweep.curves)]

    def _legend(self, sweep: Sweep) -> str:
        """The curves' names and each knee (the plot names each curve in its colour)."""
        parts = []
        for curve in sweep.curves:
            knee = curve.knee()
            where = f"knee {sweep.size_of(knee):,}" if knee is not None else "no knee"
            parts.append(f"{curve.group} ({where})")
        n = sweep.total.files
        return f"{n:,} held-out {'file' if n == 1 else 'files'}: " + " · ".join(parts)

    def _choose_folder(self) -> None:
        path = get_existing_directory(self, "Held-out folder")
        if path:
            self.set_paths([path])

    def _choose_files(self) -> None:
        paths, _ = get_open_file_names(self, "Held-out files")
        if paths:
            self.set_paths(paths)
