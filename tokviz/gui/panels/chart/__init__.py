"""The exchange-rate chart panel: bytes per token of every input under every tokenizer, and what it costs.

:class:`ExchangeChart` is the dock panel that keeps the chart (drawn by
:mod:`tokviz.gui.drawing.chart_canvas`) up to date with the editor, the category samples, added files and
every tokenizer on offer, and exports it as PNG, SVG and CSV.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDockWidget,
    QLabel,
    QSpinBox,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from tokviz.core.analysis.exchange import DEFAULT_EMBEDDING_DIM, ExchangeTable
from tokviz.core.analysis.metrics import TextMetrics
from tokviz.core.bpe.tokenizer import Tokenizer
from tokviz.gui.context import PanelContext
from tokviz.gui.drawing.chart_canvas import ChartCanvas, plot_compare_rows, render_canvas, write_chart
from tokviz.gui.drawing.chart_style import (
    CACHE_ENTRIES,
    DEBOUNCE_MS,
    EDITOR_LABEL,
    EXPORT_SIZE,
    VIEW_TIPS,
    VIEWS,
    ChartInput,
    ChartStyle,
    byte_color,
    sample_inputs,
    series_color,
    short_labels,
)
from tokviz.gui.models.tokenizers import TokenizerRegistryModel
from tokviz.gui.panels.chart.files import ReadProblem, add_remembered_files, read_chart_text
from tokviz.gui.panels.chart.measured import MeasuredView
from tokviz.gui.panels.chart.parity import PARITY_LABEL, PARITY_TIP, PARITY_VIEW, ParityView
from tokviz.gui.panels.docking import follow_editor_text
from tokviz.gui.settings import CHART_FILES, CHART_HIDDEN_SERIES
from tokviz.gui.style.presentation_sizes import sizes_for
from tokviz.gui.widgets import file_dialogs


# ----------------------------------------------------------------------------- the panel
class ExchangeChart(MeasuredView):
    """The dock panel: the chart, its view and options, the inputs, and exports.

    Inputs are the editor's text (``set_text``), the five category samples and any files added;
    tokenizers are every one the registry offers (a model trained or loaded later becomes a new
    series). Metrics are computed in a worker, debounced, with the samples' results cached.
    ``tableChanged(ExchangeTable)`` fires after each update.
    """

    canvas: ChartCanvas
    filesChanged = Signal()
    seriesChanged = Signal()
    # The dock's title for the view shown ("Exchange rate: attention cost"), on every change of view.
    titleChanged = Signal(str)

    def __init__(self, registry: TokenizerRegistryModel | None = None, parent: QWidget | None = None) -> None:
        super().__init__(registry, parent, "chartStatus")
        self.setObjectName("compareChart")
        self.setAccessibleName("Bytes per token chart")
        self._editor_text: str | None = "" if registry is not None else None
        self._samples = sample_inputs()
        self._samples_on = True
        self._files: list[ChartInput] = []
        self._file_paths: list[str] = []
        self._fixed_tokenizers: list[tuple[str, str, Tokenizer]] = []
        self._hidden: set[str] = set()
        self._cache: OrderedDict[tuple[int, str], tuple[object, TextMetrics]] = OrderedDict()
        self._last_request: tuple[tuple[tuple[str, str], ...], tuple[int, ...]] | None = None
        self.table: ExchangeTable | None = None
        self.keys: list[str] = []
        self._slots: dict[str, int] = {}
        self._other_views: dict[str, QWidget] = {}

        self.canvas = ChartCanvas(self, show_title=False)
        self.view_picker = QComboBox(self)
        self.view_picker.setObjectName("chartViewPicker")
        self.view_picker.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.view_picker.setMinimumContentsLength(12)
        self.view_picker.setAccessibleName("Chart view")
        for key, label in VIEWS.items():
            self.view_picker.addItem(label, key)
            self.view_picker.setItemData(
                self.view_picker.count() - 1, VIEW_TIPS[key], Qt.ItemDataRole.ToolTipRole
            )
        self.dim_label = QLabel("d =", self)
        self.dim_spin = QSpinBox(self)
        self.dim_spin.setObjectName("embeddingDim")
        self.dim_spin.setAccessibleName("Embedding width d")
        self.dim_spin.setToolTip("Model width d: the embedding table has V × d parameters")
        self.dim_spin.setRange(1, 1 << 16)
        self.dim_spin.setValue(DEFAULT_EMBEDDING_DIM)
        self.dim_spin.setSingleStep(64)
        self.inputs_button = self.menu_button("chartInputs", "Inputs")
        self.inputs_menu = self.inputs_button.menu()
        self.series_button = self.menu_button("chartSeries", "Series", "Which tokenizers the chart compares")
        self.series_menu = self.series_button.menu()
        self.series_menu.aboutToShow.connect(self.fill_series_menu)
        self.large_button = QToolButton(self)
        self.large_button.setObjectName("chartLargeText")
        self.large_button.setText("Large text")
        self.large_button.setCheckable(True)
        self.large_button.setToolTip("Presentation size: bigger labels for a projector")
        self.export_button = self.menu_button("chartExport", "Export")
        export_menu = self.export_button.menu()
        w, h = EXPORT_SIZE.width(), EXPORT_SIZE.height()
        self.act_png = export_menu.addAction(f"PNG image, {w} × {h}…")
        self.act_png.setObjectName("actionExportPng")
        self.act_png2 = export_menu.addAction(f"PNG image, {2 * w} × {2 * h} (2×)…")
        self.act_png2.setObjectName("actionExportPng2x")
        self.act_svg = export_menu.addAction("SVG drawing…")
        self.act_svg.setObjectName("actionExportSvg")
        self.act_csv = export_menu.addAction("Numbers as CSV…")
        self.act_csv.setObjectName("actionExportCsv")
        self.lay_out(
            [
                self.view_picker,
                self.dim_label,
                self.dim_spin,
                self.inputs_button,
                self.series_button,
                self.large_button,
            ],
            self.export_button,
            self.canvas,
        )
        self.view_picker.currentIndexChanged.connect(lambda _i: self.set_view(self.view_picker.currentData()))
        self.dim_spin.valueChanged.connect(self.canvas.set_embedding_dim)
        self.large_button.toggled.connect(lambda _on: self.apply_style())
        self.act_png.triggered.connect(lambda: self._choose_export("png", 1.0))
        self.act_png2.triggered.connect(lambda: self._choose_export("png", 2.0))
        self.act_svg.triggered.connect(lambda: self._choose_export("svg", 1.0))
        self.act_csv.triggered.connect(lambda: self._choose_export("csv", 1.0))
        self._fill_inputs_menu()
        self._sync_controls()
        self.apply_style()
        if registry is not None:
            self.follow_registry(registry.dataChanged)
        self.schedule()

    # ---------------------------------------------------------------- inputs
    def set_text(self, text: str) -> None:
        """The editor's text, the first group of bars (recomputed after a short pause)."""
        if text == self._editor_text:
            return
        self._editor_text = text
        self.schedule()

    def set_samples_shown(self, on: bool) -> None:
        """Include the five category samples or not."""
        self._samples_on = on
        self._fill_inputs_menu()
        self.schedule()

    def add_file(self, path: str | Path) -> ChartInput:
        """Add a UTF-8 text file as a group of bars (a regular file under a size cap: see .files)."""
        p = Path(path)
        text = read_chart_text(p)
        taken = {i.label for i in self.inputs()}
        label, n = p.name, 2
        while label in taken:
            label, n = f"{p.name} ({n})", n + 1
        item = ChartInput(label, text, "file")
        self._files.append(item)
        self._file_paths.append(str(p.absolute()))
        self._fill_inputs_menu()
        self.schedule()
        self.filesChanged.emit()
        return item

    def remove_files(self) -> None:
        """Drop every added file."""
        self._files.clear()
        self._file_paths.clear()
        self._fill_inputs_menu()
        self.schedule()
        self.filesChanged.emit()

    def added_paths(self) -> list[str]:
        """The files added as groups of bars, in order (absolute paths, for remembering them)."""
        return list(self._file_paths)

    def inputs(self) -> list[ChartInput]:
        """The groups of bars, in order: the editor's text, the samples (if shown), added files."""
        out: list[ChartInput] = []
        if self._editor_text is not None:
            out.append(ChartInput(EDITOR_LABEL, self._editor_text, "editor"))
        if self._samples_on:
            out.extend(self._samples)
        out.extend(self._files)
        return out

    def set_tokenizers(self, tokenizers: Sequence[tuple[str, Tokenizer]]) -> None:
        """Compare these (label, tokenizer) pairs instead of the registry's (scripts and tests)."""
        self._fixed_tokenizers = [(label, label, tok) for label, tok in tokenizers]
        self.schedule()

    def hidden_series(self) -> list[str]:
        """The tokenizers (registry keys, or labels of ``set_tokenizers``) the user took off the chart."""
        return sorted(self._hidden)

    def set_hidden_series(self, keys: Sequence[str]) -> None:
        """Leave these tokenizers off the chart; every other one is a series."""
        hidden = {str(k) for k in keys}
        if hidden == self._hidden:
            return
        self._hidden = hidden
        self.schedule()
        self.seriesChanged.emit()

    def _series_keys(self) -> list[tuple[str, str]]:
        """(key, label) of every tokenizer the chart could compare."""
        if self.registry is None:
            return [(key, label) for key, label, _t in self._fixed_tokenizers]
        return [(key, self.registry.label(key)) for key in self.registry.keys()]

    def fill_series_menu(self) -> None:
        """One checkable entry per tokenizer on offer (the menu is filled as it opens)."""
        self.series_menu.clear()
        for key, label in self._series_keys():
            action = self.series_menu.addAction(label)
            action.setObjectName(f"chartSeries:{key}")
            action.setCheckable(True)
            action.setChecked(key not in self._hidden)
            action.toggled.connect(lambda on, k=key: self._show_series(k, on))

    def _show_series(self, key: str, on: bool) -> None:
        self.set_hidden_series(sorted(self._hidden - {key} if on else self._hidden | {key}))

    def _tokenizers(self) -> list[tuple[str, str, Tokenizer]]:
        """(key, label, tokenizer) of every loaded tokenizer the user did not take off the chart; asks
        the registry to load the rest."""
        if self.registry is None:
            return [t for t in self._fixed_tokenizers if t[0] not in self._hidden]
        out = []
        for key in self.registry.keys():
            if key in self._hidden:
                continue
            tok = self.registry.tokenizer(key)
            if tok is None:
                entry = self.registry.entry(key)
                if entry is not None and entry.loading is None and self.isVisible():
                    self.registry.ensure_loaded(key)
                continue
            out.append((key, self.registry.label(key), tok))
        return out

    def _pending_names(self) -> list[str]:
        """Tokenizers still loading (a file that failed to load is not waited for)."""
        if self.registry is None:
            return []
        return [
            self.registry.label(k)
            for k in self.registry.keys()
            if self.registry.tokenizer(k) is None and k not in self._failed and k not in self._hidden
        ]

    def _fill_inputs_menu(self) -> None:
        menu = self.inputs_menu
        menu.clear()
        samples = menu.addAction("Category samples (English, Python, JSON, Chinese, digits)")
        samples.setObjectName("actionChartSamples")
        samples.setCheckable(True)
        samples.setChecked(self._samples_on)
        samples.toggled.connect(self.set_samples_shown)
        menu.addSeparator()
        for item in self._files:
            menu.addAction(f"File: {item.label}").setEnabled(False)
        add = menu.addAction("Add text file…")
        add.setObjectName("actionChartAddFile")
        add.triggered.connect(self._choose_file)
        remove = menu.addAction("Remove added files")
        remove.setObjectName("actionChartRemoveFiles")
        remove.setEnabled(bool(self._files))
        remove.triggered.connect(self.remove_files)

    def _choose_file(self) -> None:
        path, _ = file_dialogs.get_open_file_name(
            self,
            "Add a text to the chart",
            str(Path.home()),
            "Text files (*.txt *.md *.py *.json *.csv);;All files (*)",
        )
        if path:
            try:
                self.add_file(path)
            except ReadProblem as exc:
                self.report(f"Cannot add {Path(path).name}: it {exc.reason}")

    # ---------------------------------------------------------------- computing
    def refresh_now(self) -> None:
        """Start measuring the current inputs with the current tokenizers (in a worker)."""
        self._debouncer.cancel()
        if self.measuring():
            return
        if self.registry is not None and not self.isVisible():
            return  # a hidden panel catches up when it is shown (showEvent schedules)
        inputs = self.inputs()
        toks = self._tokenizers()
        texts = {item.label: item.text for item in inputs}
        request = (tuple(texts.items()), tuple(id(t) for _k, _l, t in toks))
        pending = ", ".join(self._pending_names())
        self.status.setText(f"loading {pending}…" if pending else "")
        self.canvas.set_measuring(bool(pending) or request != self._last_request)
        if request == self._last_request and self.table is not None:
            return
        keys = [k for k, _l, _t in toks]
        names = [label for _k, label, _t in toks]
        tokenizers = [t for _k, _l, t in toks]

        def done(table: ExchangeTable) -> None:
            self._last_request = request
            self.canvas.set_measuring(bool(self._pending_names()))
            self._show(table, keys)

        def failed(exc: BaseException) -> None:
            self._last_request = None
            self.report(f"Could not measure: {exc}")

        self.measure(lambda: ExchangeTable.measure(texts, tokenizers, names, self._measure), done, failed)

    def _measure(self, tokenizer: Tokenizer, text: str) -> TextMetrics:
        """TextMetrics.of with a cache (runs in the worker; one job at a time touches the cache)."""
        key = (id(tokenizer), text)
        hit = self._cache.get(key)
        if hit is not None and hit[0] is tokenizer:
            self._cache.move_to_end(key)
            return hit[1]
        metrics = TextMetrics.of(tokenizer, text)
        self._cache[key] = (tokenizer, metrics)
        while len(self._cache) > CACHE_ENTRIES:
            self._cache.popitem(last=False)
        return metrics

    def _show(self, table: ExchangeTable, keys: Sequence[str]) -> None:
        self.table = table
        self.keys = list(keys)
        slots = []
        for j, key in enumerate(keys):
            if table.is_byte_level(j):
                slots.append(0)
                continue
            if key not in self._slots:
                self._slots[key] = len(self._slots)
            slots.append(self._slots[key])
        self.canvas.show_table(table, slots)
        self.tableChanged.emit(table)

    def is_ready(self) -> bool:
        """True when the chart shows the current inputs under every tokenizer that could be loaded."""
        if not self.settled() or self.table is None:
            return False
        if self.isVisible() and self._pending_names():
            return False
        toks = self._tokenizers()
        texts = {item.label: item.text for item in self.inputs()}
        return self._last_request == (tuple(texts.items()), tuple(id(t) for _k, _l, t in toks))

    # ---------------------------------------------------------------- view and style
    def set_view(self, view: str) -> None:
        """Switch between ``bytes``, ``attention`` and ``vocab``."""
        index = self.view_picker.findData(view)
        if index < 0:
            raise ValueError(f"unknown chart view {view!r}")
        if self.view_picker.currentIndex() != index:
            self.view_picker.setCurrentIndex(index)
            return
        other = self._other_views.get(view)
        # Hide before showing: both at once would need their heights added, and the window would grow.
        shown = other or self.canvas
        for widget in [*self._other_views.values(), self.canvas]:
            if widget is not shown:
                widget.hide()
        shown.show()
        for control in (self.inputs_button, self.export_button):
            control.setVisible(other is None)
        if other is None:
            self.canvas.set_view(view)
        self._sync_controls()
        self.titleChanged.emit(self.title())

    def title(self) -> str:
        """What the dock is called while this view shows: "Exchange rate: " and the view's name."""
        name = self.view_picker.currentText()
        return f"Exchange rate: {name[:1].lower()}{name[1:]}"

    def add_view(self, key: str, label: str, widget: QWidget, tip: str = "") -> None:
        """Offer ``widget`` in the view picker as ``label``: chosen, it takes the chart's place."""
        self._other_views[key] = widget
        widget.setParent(self)
        widget.hide()
        layout = self.layout()
        assert isinstance(layout, QVBoxLayout)
        layout.addWidget(widget, 1)
        self.view_picker.addItem(label, key)
        self.view_picker.setItemData(self.view_picker.count() - 1, tip, Qt.ItemDataRole.ToolTipRole)

    def set_large_text(self, on: bool) -> None:
        """Presentation size on or off."""
        self.large_button.setChecked(on)

    def _sync_controls(self) -> None:
        vocab = self.canvas.view == "vocab" and self.canvas.isVisibleTo(self)
        self.dim_label.setVisible(vocab)
        self.dim_spin.setVisible(vocab)

    def apply_style(self) -> None:
        """The palette's light or dark, and presentation-size text when Large text is on."""
        large = sizes_for(self).chart
        self.canvas.set_style(ChartStyle(self.dark(), self.large_button.isChecked(), large_point_size=large))

    # ---------------------------------------------------------------- exports
    def export_png(self, path: str | Path, scale: float = 1.0) -> Path:
        """Write the chart as a slide-sized PNG (1280 × 720 logical pixels times ``scale``)."""
        return self.export(path, "png", scale)

    def _choose_export(self, kind: str, scale: float) -> None:
        suffix = "@2x" if scale == 2.0 else ""
        default = Path.home() / f"exchange-rate-{self.canvas.view}{suffix}.{kind}"
        self.save_as(kind, "Export chart", default, scale)


# ----------------------------------------------------------------------------- window integration
def install(context: PanelContext) -> QDockWidget:
    """Add the chart as a dock (hidden at first; View menu and Ctrl+Shift+B toggle it); returns the dock.

    The chart (``dock.widget()``) follows the editor's text while it is visible, every
    tokenizer in the registry, and presentation mode (its large text).
    """
    chart = ExchangeChart(context.tokenizers, context.parent_widget())
    parent = context.parent_widget()
    dock = context.add_dock(
        chart,
        chart.title(),
        "exchangeChartDock",
        shortcut="Ctrl+Shift+B",
        action_text="E&xchange rate chart",
        # A bottom dock opens at its minimum height; give the chart a readable share of the window.
        first_size=lambda: max(340, parent.height() * 2 // 5),
    )
    follow_editor_text(context, dock, chart.set_text, DEBOUNCE_MS)
    chart.titleChanged.connect(dock.setWindowTitle)
    hidden: list[str] = context.settings.get(CHART_HIDDEN_SERIES)
    chart.set_hidden_series(hidden)
    chart.seriesChanged.connect(lambda: context.settings.set(CHART_HIDDEN_SERIES, chart.hidden_series()))
    parity = ParityView(context.tokenizers, context.settings, chart)
    chart.add_view(PARITY_VIEW, PARITY_LABEL, parity, PARITY_TIP)
    parity.set_large_text(context.is_presentation())
    context.presentationChanged.connect(parity.set_large_text)
    remembered: list[str] = context.settings.get(CHART_FILES)
    skipped = add_remembered_files(chart.add_file, remembered)
    if skipped:  # a FIFO, a device or a file too large is named; one gone since is dropped quietly
        context.show_status(skipped)
    context.settings.set(CHART_FILES, chart.added_paths())
    chart.filesChanged.connect(lambda: context.settings.set(CHART_FILES, chart.added_paths()))
    chart.exported.connect(lambda path: context.show_status(f"Chart saved to {path}"))
    if context.is_presentation():
        chart.set_large_text(True)
    context.presentationChanged.connect(chart.set_large_text)
    return dock


__all__ = [
    "VIEWS",
    "ChartCanvas",
    "ChartInput",
    "ChartStyle",
    "ExchangeChart",
    "byte_color",
    "install",
    "plot_compare_rows",
    "render_canvas",
    "sample_inputs",
    "series_color",
    "short_labels",
    "write_chart",
]
