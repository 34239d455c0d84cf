"""The chart panel's parity view: which languages pay more tokens for the same content.

:class:`ParityView` reads a folder of parallel text (the bundled sample unless the user opens
another, FLORES-200's devtest say), measures the chosen languages under the chosen tokenizers with
:func:`tokviz.core.analysis.parity.measure_parity` in a worker, and draws the premiums as sorted bars
(:class:`~tokviz.gui.drawing.parity_chart.ParityCanvas`) with the dearest languages named under
them. The folder, tokenizers, languages and reference are remembered in the settings.
The chart panel's ``install`` puts it into the exchange-rate chart's view picker.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QComboBox,
    QLabel,
    QWidget,
)

from tokviz.core.analysis.parity import (
    ParallelSet,
    ParityTable,
    bundled_sample,
    measure_parity,
    read_parallel,
)
from tokviz.core.bpe.tokenizer import Tokenizer
from tokviz.core.errors import TokvizError
from tokviz.gui.drawing.chart_style import ChartStyle
from tokviz.gui.drawing.parity_chart import ParityCanvas
from tokviz.gui.models.tokenizers import TokenizerRegistryModel
from tokviz.gui.panels.chart.measured import MeasuredView
from tokviz.gui.settings import PARITY_FOLDER, PARITY_LANGUAGES, PARITY_REFERENCE, PARITY_TOKENIZERS, Settings
from tokviz.gui.widgets import file_dialogs
from tokviz.gui.workers.jobs import Job, run_job

PARITY_VIEW = "parity"
PARITY_LABEL = "Parity across languages"
PARITY_TIP = "The same content in many languages: each language's tokens over the reference language's"


class ParityView(MeasuredView):
    """Pickers for the folder, reference, tokenizers and languages above a :class:`ParityCanvas`.

    Work happens only while the view is visible: reading the folder and measuring run in workers,
    one at a time, and tokenizers still loading are asked for and waited for.
    ``tableChanged(ParityTable)`` fires after each update.
    """

    canvas: ParityCanvas

    def __init__(
        self,
        registry: TokenizerRegistryModel | None,
        settings: Settings | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(registry, parent, "parityStatus")
        self.setObjectName("parityView")
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
        self.parallel: ParallelSet | None = None
        self.table: ParityTable | None = None
        self._read_job: Job | None = None
        self._last_request: tuple[object, ...] | None = None

        self.folder_button = self.menu_button("parityFolder", "Sample", "Where the parallel text comes from")
        self.reference_picker = QComboBox(self)
        self.reference_picker.setObjectName("parityReference")
        self.reference_picker.setAccessibleName("Reference language")
        self.reference_picker.setToolTip("The language every premium is measured against (1×)")
        self.reference_picker.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.tokenizers_button = self.menu_button(
            "parityTokenizers", "Tokenizers", "Which tokenizers to compare"
        )
        self.languages_button = self.menu_button("parityLanguages", "Languages", "Which languages to show")
        self.export_button = self.menu_button("parityExport", "Export", "Save the chart or its numbers")
        export = self.export_button.menu()
        export.addAction("PNG image, 1280 × 720…").triggered.connect(lambda: self._choose_export("png"))
        export.addAction("SVG drawing…").triggered.connect(lambda: self._choose_export("svg"))
        export.addAction("Numbers as CSV…").triggered.connect(lambda: self._choose_export("csv"))
        self.canvas = ParityCanvas(self, show_title=False)

        self.lay_out(
            [
                self.folder_button,
                QLabel("against", self),
                self.reference_picker,
                self.tokenizers_button,
                self.languages_button,
            ],
            self.export_button,
            self.canvas,
            spacing=6,
        )
        self.reference_picker.activated.connect(
            lambda _i: self.set_reference(self.reference_picker.currentData())
        )
        self.folder_button.menu().aboutToShow.connect(self._fill_folder_menu)
        self.tokenizers_button.menu().aboutToShow.connect(self._fill_tokenizers_menu)
        self.languages_button.menu().aboutToShow.connect(self._fill_languages_menu)
        self.follow_registry()
        self.apply_style()

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
            self.report(message)
            self.canvas.show_table(None)

        def finished() -> None:
            self._read_job = None
            if self.parallel is None and (self._folder or bundled_sample()) != folder:
                self._read()

        job.returned.connect(done)
        job.errored.connect(failed)
        job.finished.connect(finished)

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
        if self.measuring():
            return
        labels, tokenizers, pending = self._tokenizers()
        self.status.setText(f"loading {', '.join(pending)}…" if pending else "")
        request = self._request()
        if request == self._last_request:
            return
        parallel, reference, languages = self.parallel, self._reference, self.chosen_languages()

        def done(table: ParityTable) -> None:
            self._last_request = request
            self._show(table if tokenizers else None)

        def failed(exc: BaseException) -> None:
            self._last_request = None
            self.report(str(exc) if isinstance(exc, TokvizError) else f"Could not measure: {exc}")

        self.measure(
            lambda: measure_parity(parallel, tokenizers, labels, reference=reference, languages=languages),
            done,
            failed,
        )

    def _show(self, table: ParityTable | None) -> None:
        self.table = table
        self.canvas.show_table(table)
        self.tableChanged.emit(table)

    def is_ready(self) -> bool:
        """True when the chart shows the current choices under every chosen tokenizer."""
        if not self.settled() or self._read_job is not None:
            return False
        if self.parallel is None or self._tokenizers()[2]:
            return False
        return self._last_request == self._request()

    # ---------------------------------------------------------------- style and exports
    def set_large_text(self, on: bool) -> None:
        """Presentation size on or off."""
        self._large = on
        self.apply_style()

    def apply_style(self) -> None:
        """The palette's light or dark, and presentation-size text when asked for."""
        self.canvas.set_style(ChartStyle(self.dark(), getattr(self, "_large", False)))

    def _choose_export(self, kind: str) -> None:
        default = file_dialogs.last_save_folder() / f"parity.{kind}"
        self.save_as(kind, "Export parity chart", default)
