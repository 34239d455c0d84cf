"""The chart panel's parity view: which languages pay more tokens for the same content.

:class:`ParityView` reads a folder of parallel text (the bundled sample unless the user opens
another, FLORES-200's devtest say), measures the chosen languages under the chosen tokenizers with
:func:`tokviz.core.analysis.parity.measure_parity` in a worker, and draws the premiums as sorted bars
(:class:`~tokviz.gui.drawing.parity_chart.ParityCanvas`) with the dearest languages named under
them. The folder, tokenizers, languages and reference are remembered in the settings.
:func:`add_parity_view` puts it into the exchange-rate chart's view picker.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, Signal
from PySide6.QtGui import QAction, QPalette, QShowEvent
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QMenu,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from tokviz.core.analysis.parity import (
    ParallelSet,
    ParityTable,
    bundled_sample,
    measure_parity,
    parity_csv,
    read_parallel,
)
from tokviz.core.bpe.tokenizer import Tokenizer
from tokviz.core.errors import TokvizError
from tokviz.core.io.atomic import atomic_write_text
from tokviz.gui.drawing.chart_style import DEBOUNCE_MS, ChartStyle
from tokviz.gui.drawing.parity_chart import ParityCanvas, write_parity_chart
from tokviz.gui.models.tokenizers import TokenizerRegistryModel
from tokviz.gui.settings import PARITY_FOLDER, PARITY_LANGUAGES, PARITY_REFERENCE, PARITY_TOKENIZERS, Settings
from tokviz.gui.widgets import file_dialogs
from tokviz.gui.workers.debounce import Debouncer
from tokviz.gui.workers.jobs import Job, run_job

if TYPE_CHECKING:
    from tokviz.gui.context import PanelContext
    from tokviz.gui.panels.chart import ExchangeChart

PARITY_VIEW = "parity"
PARITY_LABEL = "Parity across languages"
PARITY_TIP = "The same content in many languages: each language's tokens over the reference language's"


class ParityView(QWidget):
    """Pickers for the folder, reference, tokenizers and languages above a :class:`ParityCanvas`.

    Work happens only while the view is visible: reading the folder and measuring run in workers,
    one at a time, and tokenizers still loading are asked for and waited for.
    ``tableChanged(ParityTable)`` fires after each update.
    """

    tableChanged = Signal(object)
    failed = Signal(str)

    def __init__(
        self,
        registry: TokenizerRegistryModel | None,
        settings: Settings | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("parityView")
        self.registry = registry
        self.settings = settings
        self._folder = PARITY_FOLDER.default
        self._tokenizer_keys = list(PARITY_TOKENIZERS.default)
        self._languages: list[str] = []
        self._reference = PARITY_REFERENCE.default
        if settings is not None:
            self._folder = settings.get(PARITY_FOLDER)
            self._tokenizer_keys = settings.get(PARITY_TOKENIZERS)
            self._languages = settings.get(PARITY_LANGUAGES)
            self._reference = settings.get(PARITY_REFERENCE)
        self._fixed: list[tuple[str, Tokenizer]] | None = None
        self._failed: set[str] = set()
        self.parallel: ParallelSet | None = None
        self.table: ParityTable | None = None
        self._read_job: Job | None = None
        self._job: Job | None = None
        self._dirty = False
        self._last_request: tuple[object, ...] | None = None
        self.last_export: Path | None = None

        self.folder_button = self._menu_button("parityFolder", "Sample", "Where the parallel text comes from")
        self.reference_picker = QComboBox(self)
        self.reference_picker.setObjectName("parityReference")
        self.reference_picker.setAccessibleName("Reference language")
        self.reference_picker.setToolTip("The language every premium is measured against (1×)")
        self.reference_picker.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.tokenizers_button = self._menu_button(
            "parityTokenizers", "Tokenizers", "Which tokenizers to compare"
        )
        self.languages_button = self._menu_button("parityLanguages", "Languages", "Which languages to show")
        self.export_button = self._menu_button("parityExport", "Export", "Save the chart or its numbers")
        export = self.export_button.menu()
        export.addAction("PNG image, 1280 × 720…").triggered.connect(lambda: self._choose_export("png"))
        export.addAction("SVG drawing…").triggered.connect(lambda: self._choose_export("svg"))
        export.addAction("Numbers as CSV…").triggered.connect(lambda: self._choose_export("csv"))
        self.status = QLabel(self)
        self.status.setObjectName("parityStatus")
        self.status.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.canvas = ParityCanvas(self, show_title=False)

        bar = QHBoxLayout()
        bar.setContentsMargins(4, 2, 4, 2)
        bar.setSpacing(6)
        bar.addWidget(self.folder_button)
        bar.addWidget(QLabel("against", self))
        bar.addWidget(self.reference_picker)
        bar.addWidget(self.tokenizers_button)
        bar.addWidget(self.languages_button)
        bar.addWidget(self.status, 1)
        bar.addWidget(self.export_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addLayout(bar)
        layout.addWidget(self.canvas, 1)

        self._debouncer = Debouncer(DEBOUNCE_MS, self)
        self._debouncer.triggered.connect(self.refresh_now)
        self.reference_picker.activated.connect(
            lambda _i: self.set_reference(self.reference_picker.currentData())
        )
        self.folder_button.menu().aboutToShow.connect(self._fill_folder_menu)
        self.tokenizers_button.menu().aboutToShow.connect(self._fill_tokenizers_menu)
        self.languages_button.menu().aboutToShow.connect(self._fill_languages_menu)
        if registry is not None:
            registry.tokenizerLoaded.connect(self.schedule)
            registry.rowsInserted.connect(self.schedule)
            registry.rowsRemoved.connect(self.schedule)
            registry.loadFailed.connect(self._on_load_failed)
        self._apply_style()

    def _menu_button(self, name: str, text: str, tip: str) -> QToolButton:
        button = QToolButton(self)
        button.setObjectName(name)
        button.setText(text)
        button.setToolTip(tip)
        button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        button.setMenu(QMenu(button))
        return button

    # ---------------------------------------------------------------- choices
    def set_folder(self, folder: str | Path | None) -> None:
        """Read parallel text from ``folder`` (None or "": the bundled sample), in a worker."""
        self._folder = str(folder) if folder else ""
        self._remember(PARITY_FOLDER, self._folder)
        self.parallel = None
        self.table = None
        self._last_request = None
        self.folder_button.setText(Path(self._folder).name or self._folder if self._folder else "Sample")
        self._read()

    def set_tokenizers(self, keys: Sequence[str]) -> None:
        """Compare these registry keys (in the registry's order)."""
        self._tokenizer_keys = list(dict.fromkeys(keys))
        self._remember(PARITY_TOKENIZERS, self._tokenizer_keys)
        self.schedule()

    def use_tokenizers(self, tokenizers: Sequence[tuple[str, Tokenizer]]) -> None:
        """Compare these (label, tokenizer) pairs instead of the registry's (scripts and tests)."""
        self._fixed = list(tokenizers)
        self.schedule()

    def set_languages(self, codes: Sequence[str]) -> None:
        """Show only these languages (their file codes; none: every language of the folder)."""
        self._languages = list(dict.fromkeys(codes))
        self._remember(PARITY_LANGUAGES, self._languages)
        self.schedule()

    def set_reference(self, code: str) -> None:
        """Measure premiums against the language with this file code."""
        self._reference = code
        self._remember(PARITY_REFERENCE, code)
        index = self.reference_picker.findData(code)
        if index >= 0:
            self.reference_picker.setCurrentIndex(index)
        self.schedule()

    def chosen_tokenizers(self) -> list[str]:
        """The registry keys chosen, in the registry's order."""
        if self.registry is None:
            return []
        return [k for k in self.registry.keys() if k in self._tokenizer_keys]

    def chosen_languages(self) -> list[str]:
        """The file codes of the languages shown (every language when none is chosen)."""
        codes = [lang.code for lang in self.parallel.languages] if self.parallel is not None else []
        picked = [c for c in codes if c in self._languages]
        return picked or codes

    def _remember(self, key: object, value: object) -> None:
        if self.settings is not None:
            self.settings.set(key, value)  # type: ignore[arg-type]

    # ---------------------------------------------------------------- menus
    def _fill_folder_menu(self) -> None:
        menu = self.folder_button.menu()
        menu.clear()
        sample = menu.addAction("Bundled sample (for illustration)")
        sample.setCheckable(True)
        sample.setChecked(not self._folder)
        sample.triggered.connect(lambda: self.set_folder(None))
        if self._folder:
            menu.addAction(f"Folder: {self._folder}").setEnabled(False)
        menu.addAction("Open parallel text folder (FLORES-200 devtest, en.txt…)…").triggered.connect(
            self._choose_folder
        )

    def _choose_folder(self) -> None:
        folder = file_dialogs.get_existing_directory(self, "Folder of parallel text, one file per language")
        if folder:
            self.set_folder(folder)

    def _fill_tokenizers_menu(self) -> None:
        menu = self.tokenizers_button.menu()
        menu.clear()
        if self.registry is None:
            return
        chosen = set(self._tokenizer_keys)
        for key in self.registry.keys():
            action = menu.addAction(self.registry.label(key))
            action.setCheckable(True)
            action.setChecked(key in chosen)
            action.toggled.connect(lambda on, k=key: self._toggle_tokenizer(k, on))

    def _toggle_tokenizer(self, key: str, on: bool) -> None:
        keys = [k for k in self._tokenizer_keys if k != key] + ([key] if on else [])
        self.set_tokenizers(keys)

    def _fill_languages_menu(self) -> None:
        menu = self.languages_button.menu()
        menu.clear()
        if self.parallel is None:
            menu.addAction("Reading the folder…").setEnabled(False)
            return
        menu.addAction("All languages").triggered.connect(lambda: self.set_languages([]))
        menu.addSeparator()
        shown = set(self.chosen_languages())
        for lang in self.parallel.languages:
            action: QAction = menu.addAction(f"{lang.name} ({lang.code})")
            action.setCheckable(True)
            action.setChecked(lang.code in shown)
            action.toggled.connect(lambda on, c=lang.code: self._toggle_language(c, on))

    def _toggle_language(self, code: str, on: bool) -> None:
        codes = [c for c in self.chosen_languages() if c != code] + ([code] if on else [])
        self.set_languages(codes)

    def _fill_reference_picker(self) -> None:
        picker = self.reference_picker
        picker.blockSignals(True)
        picker.clear()
        for lang in self.parallel.languages if self.parallel is not None else ():
            picker.addItem(lang.name, lang.code)
        picker.blockSignals(False)
        if self.parallel is None or not self.parallel.languages:
            return
        languages = self.parallel.languages
        match = next((lang for lang in languages if lang.code == self._reference), None)
        match = match or next((lang for lang in languages if lang.matches(self._reference)), None)
        match = match or next((lang for lang in languages if lang.iso3 == "eng"), languages[0])
        self._reference = match.code
        picker.setCurrentIndex(picker.findData(match.code))

    # ---------------------------------------------------------------- computing
    def _read(self) -> None:
        if self._read_job is not None or (self.registry is not None and not self.isVisible()):
            return
        folder = self._folder or bundled_sample()
        self.status.setText(f"reading {Path(folder).name}…")
        job = run_job(lambda: read_parallel(folder), self)
        self._read_job = job

        def done(parallel: ParallelSet) -> None:
            if (self._folder or bundled_sample()) != folder:
                return
            self.parallel = parallel
            self._fill_reference_picker()
            self.status.setText("")
            self.schedule()

        def failed(exc: BaseException) -> None:
            message = str(exc) if isinstance(exc, TokvizError) else f"cannot read {folder}: {exc}"
            self._report(message)
            self.canvas.show_table(None)

        def finished() -> None:
            self._read_job = None
            if self.parallel is None and (self._folder or bundled_sample()) != folder:
                self._read()

        job.returned.connect(done)
        job.errored.connect(failed)
        job.finished.connect(finished)

    def schedule(self, *_args: object) -> None:
        """Measure again after a short pause (coalesces bursts of choices)."""
        self._debouncer.trigger()

    def _tokenizers(self) -> tuple[list[str], list[Tokenizer], list[str]]:
        """Labels and tokenizers that are ready, and the labels of those still loading."""
        if self._fixed is not None:
            return [label for label, _ in self._fixed], [tok for _, tok in self._fixed], []
        labels: list[str] = []
        tokenizers: list[Tokenizer] = []
        pending: list[str] = []
        if self.registry is None:
            return labels, tokenizers, pending
        for key in self.chosen_tokenizers():
            tok = self.registry.tokenizer(key)
            if tok is None:
                if key not in self._failed:
                    self.registry.ensure_loaded(key)
                    pending.append(self.registry.label(key))
                continue
            labels.append(self.registry.label(key))
            tokenizers.append(tok)
        return labels, tokenizers, pending

    def _on_load_failed(self, source: str, _message: str) -> None:
        assert self.registry is not None
        for key in self.registry.keys():
            entry = self.registry.entry(key)
            if entry is not None and entry.tokenizer is None and (entry.source or key) == source:
                self._failed.add(key)
        self.schedule()

    def _request(self) -> tuple[object, ...]:
        labels, tokenizers, _ = self._tokenizers()
        return (
            id(self.parallel),
            tuple(labels),
            tuple(map(id, tokenizers)),
            tuple(self.chosen_languages()),
            self._reference,
        )

    def refresh_now(self) -> None:
        """Measure the chosen languages under the chosen tokenizers (in a worker)."""
        self._debouncer.cancel()
        if self.registry is not None and not self.isVisible():
            return
        if self.parallel is None:
            self._read()
            return
        if self._job is not None:
            self._dirty = True
            return
        labels, tokenizers, pending = self._tokenizers()
        self.status.setText(f"loading {', '.join(pending)}…" if pending else "")
        request = self._request()
        if request == self._last_request:
            return
        self._dirty = False
        parallel, reference, languages = self.parallel, self._reference, self.chosen_languages()
        job = run_job(
            lambda: measure_parity(parallel, tokenizers, labels, reference=reference, languages=languages),
            self,
        )
        self._job = job

        def done(table: ParityTable) -> None:
            self._last_request = request
            self._show(table if tokenizers else None)

        def failed(exc: BaseException) -> None:
            self._last_request = None
            self._report(str(exc) if isinstance(exc, TokvizError) else f"Could not measure: {exc}")

        job.returned.connect(done)
        job.errored.connect(failed)
        job.finished.connect(self._on_job_finished)

    def _on_job_finished(self) -> None:
        self._job = None
        if self._dirty:
            self.refresh_now()

    def _show(self, table: ParityTable | None) -> None:
        self.table = table
        self.canvas.show_table(table)
        self.tableChanged.emit(table)

    def is_ready(self) -> bool:
        """True when the chart shows the current choices under every chosen tokenizer."""
        if self._debouncer.is_pending() or self._job is not None or self._read_job is not None or self._dirty:
            return False
        if self.parallel is None or self._tokenizers()[2]:
            return False
        return self._last_request == self._request()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.schedule()

    # ---------------------------------------------------------------- style and exports
    def set_large_text(self, on: bool) -> None:
        """Presentation size on or off."""
        self._large = on
        self._apply_style()

    def _apply_style(self) -> None:
        dark = self.palette().color(QPalette.ColorRole.Window).lightness() < 128
        self.canvas.set_style(ChartStyle(dark, getattr(self, "_large", False)))

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self._apply_style()

    def export(self, path: str | Path, kind: str) -> Path:
        """Write the chart as ``png`` or ``svg`` (slide-sized), or its numbers as ``csv``."""
        if self.table is None:
            raise ValueError("the parity chart has no numbers yet")
        out = Path(path)
        if out.suffix.lower() != f".{kind}":
            out = out.with_suffix(f".{kind}")
        if kind == "csv":
            atomic_write_text(out, parity_csv(self.table))
        else:
            write_parity_chart(self.table, out, style=self.canvas.style_)
        self.last_export = out
        return out

    def _choose_export(self, kind: str) -> None:
        filters = {"png": "PNG images (*.png)", "svg": "SVG drawings (*.svg)", "csv": "CSV files (*.csv)"}
        default = str(file_dialogs.last_save_folder() / f"parity.{kind}")
        path, _ = file_dialogs.get_save_file_name(self, "Export parity chart", default, filters[kind])
        if not path:
            return
        try:
            written = self.export(path, kind)
        except (OSError, ValueError, TokvizError) as exc:
            self._report(f"Export failed: {exc}")
            return
        self.status.setText(f"Saved {written.name}")

    def _report(self, message: str) -> None:
        self.status.setText(message)
        self.status.setToolTip(message)
        self.failed.emit(message)


def add_parity_view(chart: ExchangeChart, context: PanelContext) -> ParityView:
    """Offer the parity view in ``chart``'s view picker, remembering its choices in the settings."""
    view = ParityView(context.tokenizers, context.settings, chart)
    chart.add_view(PARITY_VIEW, PARITY_LABEL, view, PARITY_TIP)
    view.set_large_text(context.is_presentation())
    context.presentationChanged.connect(view.set_large_text)
    return view
