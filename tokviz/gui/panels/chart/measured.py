"""What the chart panel's views share: a bar of controls over a canvas, measured in a worker.

:class:`MeasuredView` is the exchange-rate chart's and the parity view's common frame: a bar of
controls with a status line, the canvas under it, measuring in a worker one job at a time after a
short pause (a change while a job runs measures again when it ends), following the tokenizers the
registry offers (one whose file failed to load is not waited for), restyling when the palette
changes, and exports chosen in a save dialog.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import QEvent, Signal
from PySide6.QtGui import QPalette, QShowEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QMenu, QSizePolicy, QToolButton, QVBoxLayout, QWidget

from tokviz.core.errors import TokvizError
from tokviz.gui.drawing.chart_style import DEBOUNCE_MS
from tokviz.gui.drawing.plot_canvas import PlotCanvas
from tokviz.gui.models.tokenizers import TokenizerRegistryModel
from tokviz.gui.widgets import file_dialogs
from tokviz.gui.workers.debounce import Debouncer
from tokviz.gui.workers.jobs import Job, run_job

EXPORT_FILTERS = {"png": "PNG images (*.png)", "svg": "SVG drawings (*.svg)", "csv": "CSV files (*.csv)"}


class MeasuredView(QWidget):
    """A chart view: subclasses lay out their controls (:meth:`lay_out`), measure in
    :meth:`refresh_now` (through :meth:`measure`) and set their canvas's style in :meth:`apply_style`.

    ``tableChanged(table)`` fires after each update, ``failed(message)`` with each problem shown,
    ``exported(path)`` after each export.
    """

    # The table the subclass draws: an ExchangeTable or a ParityTable, so no one class here.
    tableChanged = Signal(object)
    failed = Signal(str)
    exported = Signal(str)
    # The chart drawn: the subclass's own canvas.
    canvas: PlotCanvas

    def __init__(
        self, registry: TokenizerRegistryModel | None, parent: QWidget | None, status_name: str
    ) -> None:
        super().__init__(parent)
        self.registry = registry
        self.last_export: Path | None = None
        # Registry keys whose file failed to load: they are not waited for.
        self._failed: set[str] = set()
        self._job: Job | None = None
        self._dirty = False
        self.status = QLabel(self)
        self.status.setObjectName(status_name)
        # A long "loading GPT-2, cl100k, o200k, …" clips, never widening the window.
        self.status.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self._debouncer = Debouncer(DEBOUNCE_MS, self)
        self._debouncer.triggered.connect(self.refresh_now)

    def menu_button(self, name: str, text: str, tip: str = "") -> QToolButton:
        """A button of the bar that opens its own menu (``button.menu()``) at once."""
        button = QToolButton(self)
        button.setObjectName(name)
        button.setText(text)
        button.setToolTip(tip)
        button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        button.setMenu(QMenu(button))
        return button

    def lay_out(self, controls: Sequence[QWidget], last: QWidget, canvas: QWidget, spacing: int = -1) -> None:
        """The ``controls``, the status line and ``last`` in a bar over ``canvas``, which takes the rest."""
        bar = QHBoxLayout()
        bar.setContentsMargins(4, 2, 4, 2)
        if spacing >= 0:
            bar.setSpacing(spacing)
        for control in controls:
            bar.addWidget(control)
        bar.addWidget(self.status, 1)
        bar.addWidget(last)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addLayout(bar)
        layout.addWidget(canvas, 1)

    def follow_registry(self, *changes: Any) -> None:
        """Measure again when the registry gains, loses or loads a tokenizer (and on each of the
        further ``changes`` signals); remember the ones whose file fails to load."""
        registry = self.registry
        if registry is None:
            return
        # Bound methods: Qt drops these connections when the view is deleted.
        for signal in (registry.tokenizerLoaded, registry.rowsInserted, registry.rowsRemoved, *changes):
            signal.connect(self.schedule)
        registry.loadFailed.connect(self._on_load_failed)

    def _on_load_failed(self, source: str, _message: str) -> None:
        assert self.registry is not None
        for key in self.registry.keys():
            entry = self.registry.entry(key)
            if entry is not None and entry.tokenizer is None and (entry.source or key) == source:
                self._failed.add(key)
        self.schedule()

    # ---------------------------------------------------------------- measuring
    def schedule(self, *_args: object) -> None:
        """Measure again after a short pause (coalesces bursts of changes)."""
        self._debouncer.trigger()

    def refresh_now(self) -> None:
        """Measure what the view shows now (in a worker, through :meth:`measure`)."""
        raise NotImplementedError

    def measuring(self) -> bool:
        """True while a measurement runs; a change meanwhile is measured when it ends."""
        if self._job is not None:
            self._dirty = True
            return True
        return False

    def measure(
        self, work: Callable[[], Any], done: Callable[[Any], None], failed: Callable[[BaseException], None]
    ) -> None:
        """Run ``work()`` in a worker; ``done`` gets its result, ``failed`` its error (in the GUI thread)."""
        self._dirty = False
        job = run_job(work, self)
        self._job = job
        job.returned.connect(done)
        job.errored.connect(failed)
        job.finished.connect(self._on_job_finished)

    def _on_job_finished(self) -> None:
        self._job = None
        if self._dirty:
            self.refresh_now()

    def settled(self) -> bool:
        """True when no measurement runs, waits for a pause or waits for the running one to end."""
        return not (self._debouncer.is_pending() or self._job is not None or self._dirty)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.schedule()  # a hidden view does no work: it catches up when shown

    # ---------------------------------------------------------------- style, exports, problems
    def dark(self) -> bool:
        """Whether the view sits on a dark palette."""
        return self.palette().color(QPalette.ColorRole.Window).lightness() < 128

    def apply_style(self) -> None:
        """Give the canvas the style of the palette and the text size."""
        raise NotImplementedError

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self.apply_style()

    def export(self, path: str | Path, kind: str, scale: float = 1.0) -> Path:
        """Write the chart as ``png`` (at ``scale``) or ``svg``, slide-sized, or its numbers as ``csv``
        (the extension made to fit); a :class:`ValueError` before there are numbers."""
        written = self.canvas.write_file(Path(path), kind, scale)
        self.last_export = written
        self.exported.emit(str(written))
        return written

    def save_as(self, kind: str, title: str, default: Path, scale: float = 1.0) -> None:
        """Ask where to write a ``kind`` file (``png``, ``svg`` or ``csv``) and :meth:`export` it."""
        path, _ = file_dialogs.get_save_file_name(self, title, str(default), EXPORT_FILTERS[kind])
        if not path:
            return
        try:
            written = self.export(path, kind, scale)
        except (OSError, ValueError, TokvizError) as exc:
            self.report(f"Export failed: {exc}")
            return
        self.status.setText(f"Saved {written.name}")

    def report(self, message: str) -> None:
        """Show a problem in the status line (whole in its tooltip) and send it on as ``failed``."""
        self.status.setText(message)
        self.status.setToolTip(message)
        self.failed.emit(message)
