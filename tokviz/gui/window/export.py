"""File ▸ Export panel… and File ▸ Copy image: pick a part of the window, a format and a scale.
File ▸ Export tokenizer… (:mod:`tokviz.gui.window.export_model`) writes any tokenizer to a file format.

What can be exported is found from the parts of the window an :class:`ExportSources` names (the
token views, each view, every dock on screen, the whole window); the pictures themselves are drawn
by :mod:`tokviz.gui.drawing.images`. The dialog remembers the last target, format, scale and folder
in the settings.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QObject, QSize
from PySide6.QtGui import QAction, QImage, QStandardItemModel
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDockWidget,
    QFormLayout,
    QLabel,
    QMainWindow,
    QMenu,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from tokviz.core.bpe.tokenizer import Tokenizer
from tokviz.core.errors import ExportError, TokvizError
from tokviz.gui.drawing.images import (
    copy_image,
    is_vector,
    write_image,
)
from tokviz.gui.drawing.strips import strip_sheet
from tokviz.gui.models.tokenizers import TokenizerRegistryModel
from tokviz.gui.settings import EXPORT_FORMAT, EXPORT_SCALE, EXPORT_TARGET, Settings
from tokviz.gui.text.token_table import TokenTable
from tokviz.gui.widgets import file_dialogs
from tokviz.gui.widgets.token_panel import TokenPanel
from tokviz.gui.window.actions import make_action, on_trigger
from tokviz.gui.window.appearance import Appearance
from tokviz.gui.window.export_model import ModelExportDialog

SCALES = (1.0, 2.0, 3.0)


@dataclass(frozen=True)
class ExportSources:
    """The parts of a window that export reads: the window itself (its docks, the whole window, its
    status bar), the area and list of token views, their tokenizers and look, and the views' text."""

    window: QMainWindow
    views_area: QWidget
    views: list[TokenPanel]
    tokenizers: TokenizerRegistryModel
    appearance: Appearance
    text: Callable[[], str]


# ----------------------------------------------------------------------------- what can be exported
@dataclass(frozen=True)
class ExportTarget:
    """One exportable part of the window: a stable ``key`` (remembered), a label and the widget."""

    key: str
    label: str
    widget: QWidget
    vector: bool
    # Token views are drawn as a clean sheet (their tokens under a caption, as ``tokviz render``
    # draws them), not as the widgets with their pickers, buttons and empty space.
    sheet: Callable[[], QWidget] | None = None

    @contextmanager
    def picture(self) -> Iterator[QWidget]:
        """The widget to draw for this target: the live widget, or a sheet made now and dropped after.

        Making a sheet may encode the text; a custom pattern that runs past its time limit there
        raises :class:`ExportError` with its one-line message.
        """
        if self.sheet is None:
            yield self.widget
            return
        try:
            sheet = self.sheet()
        except ExportError:
            raise
        except TokvizError as exc:
            raise ExportError(f"cannot draw {self.label}: {exc}") from None
        try:
            yield sheet
        finally:
            sheet.hide()
            sheet.deleteLater()

    def pixel_size(self, scale: float) -> QSize:
        """Size in device pixels of a PNG at ``scale``."""
        with self.picture() as widget:
            size = widget.size()
        return QSize(max(1, round(size.width() * scale)), max(1, round(size.height() * scale)))

    @property
    def file_stem(self) -> str:
        """A file name for this panel: ``token-view-1``, ``merge-timeline``."""
        return re.sub(r"[^a-z0-9]+", "-", self.label.lower()).strip("-") or "tokviz"


def _dock_export_widget(widget: QWidget) -> QWidget:
    # The chart panel exports its canvas (the plot, its title and legend) rather than its buttons.
    canvas = getattr(widget, "canvas", None)
    if isinstance(canvas, QWidget) and callable(getattr(canvas, "svg_bytes", None)):
        return canvas
    return widget


def export_targets(sources: ExportSources) -> list[ExportTarget]:
    """Every part of the window that is on screen now, token views first, the whole window last."""
    targets = [ExportTarget("views", "All token views", sources.views_area, True, _sheet_of(sources, None))]
    for panel in sources.views:
        label = f"Token view {panel.number} ({sources.tokenizers.label(panel.model.key)})"
        targets.append(ExportTarget(f"view:{panel.number}", label, panel, True, _sheet_of(sources, panel)))
    for dock in sources.window.findChildren(QDockWidget):
        inner = dock.widget()
        # A dock behind another dock's tab is "visible" but has nothing on screen.
        if inner is None or not dock.isVisible() or dock.visibleRegion().isEmpty() or not dock.objectName():
            continue
        widget = _dock_export_widget(inner)
        title = dock.windowTitle().replace("&", "")
        # A panel that draws itself for export (the merge timeline: no scroll bars) offers a sheet.
        sheet = getattr(inner, "export_sheet", None)
        targets.append(
            ExportTarget(
                f"dock:{dock.objectName()}",
                title,
                widget,
                is_vector(widget),
                sheet if callable(sheet) else None,
            )
        )
    targets.append(ExportTarget("window", "Whole window", sources.window, False))
    return targets


def _sheet_of(sources: ExportSources, only: TokenPanel | None) -> Callable[[], QWidget]:
    """Make the views' tokens (or one view's) into a sheet as wide as the views are on screen."""

    def make() -> QWidget:
        tokenizers: list[tuple[str, Tokenizer]] = []
        tables: list[TokenTable | None] = []
        for p in sources.views:
            tok = p.model.tokenizer
            if tok is None or (only is not None and p is not only):
                continue
            tokenizers.append((sources.tokenizers.label(p.model.key), tok))
            # A view's table of the current text is drawn as it is: the export then runs no regex
            # in the GUI thread. Only a view still encoding (or a text over the sheet's limit) is
            # encoded again, with the time limit of its pattern.
            tables.append(p.model.table if p.model.current and not p.model.busy else None)
        look = sources.appearance
        options = look.display_options()
        return strip_sheet(
            sources.text(),
            tokenizers,
            dark=look.is_dark(),
            show_ids=options.show_ids,
            whitespace=options.whitespace,
            point_size=look.point_size,
            max_width=max(400, (only or sources.views_area).width()),
            colors=look.colors,
            tables=tables,
        )

    return make


def target_for_focus(window: QWidget, targets: list[ExportTarget]) -> ExportTarget | None:
    """The panel that holds the keyboard focus (a token view, a dock), if any."""
    widget = QApplication.focusWidget()
    by_widget = {id(t.widget): t for t in targets if t.key not in ("views", "window")}
    while widget is not None and widget is not window:
        hit = by_widget.get(id(widget))
        if hit is not None:
            return hit
        if isinstance(widget, QDockWidget) and widget.objectName():
            return next((t for t in targets if t.key == f"dock:{widget.objectName()}"), None)
        widget = widget.parentWidget()
    return None


# ----------------------------------------------------------------------------- the dialog
class ExportDialog(QDialog):
    """Pick a panel, a scale and a format; save to a file or copy to the clipboard."""

    def __init__(self, exporter: Exporter, parent: QWidget) -> None:
        super().__init__(parent)
        self.setObjectName("exportDialog")
        self.setWindowTitle("Export panel")
        self.exporter = exporter
        self.targets: list[ExportTarget] = []
        self.target_box = QComboBox(self)
        self.target_box.setObjectName("exportTarget")
        self.target_box.setAccessibleName("Panel to export")
        self.scale_box = QComboBox(self)
        self.scale_box.setObjectName("exportScale")
        self.scale_box.setAccessibleName("Scale")
        for s in SCALES:
            self.scale_box.addItem(f"{s:g}x", s)
        self.format_box = QComboBox(self)
        self.format_box.setObjectName("exportFormat")
        self.format_box.setAccessibleName("Format")
        self.format_box.addItem("PNG image", "png")
        self.format_box.addItem("SVG drawing (vector)", "svg")
        self.size_label = QLabel(self)
        self.size_label.setObjectName("exportSize")
        self.message = QLabel(self)
        self.message.setObjectName("exportMessage")
        self.message.setWordWrap(True)
        form = QFormLayout()
        form.addRow("&Panel:", self.target_box)
        form.addRow("&Format:", self.format_box)
        form.addRow("&Scale:", self.scale_box)
        form.addRow("Size:", self.size_label)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        self.save_button = QPushButton("&Save…", self)
        self.save_button.setObjectName("exportSave")
        self.copy_button = QPushButton("&Copy image", self)
        self.copy_button.setObjectName("exportCopy")
        buttons.addButton(self.save_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.addButton(self.copy_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.message)
        layout.addWidget(buttons)
        self.target_box.currentIndexChanged.connect(self._update)
        self.scale_box.currentIndexChanged.connect(self._update)
        self.format_box.currentIndexChanged.connect(self._update)
        self.save_button.clicked.connect(self._choose_path)
        self.copy_button.clicked.connect(self._copy)
        self.refresh()

    def refresh(self, prefer: str | None = None) -> None:
        """List the panels on screen now and select ``prefer`` (or the last used one)."""
        self.targets = self.exporter.targets()
        settings = self.exporter.settings
        key = prefer or settings.get(EXPORT_TARGET)
        self.target_box.blockSignals(True)
        self.target_box.clear()
        for t in self.targets:
            self.target_box.addItem(t.label, t.key)
        row = max(0, self.target_box.findData(key))
        self.target_box.setCurrentIndex(row)
        self.target_box.blockSignals(False)
        scale = settings.get(EXPORT_SCALE)
        self.scale_box.setCurrentIndex(max(0, self.scale_box.findData(scale)))
        self.format_box.setCurrentIndex(max(0, self.format_box.findData(settings.get(EXPORT_FORMAT))))
        self._update()

    def target(self) -> ExportTarget:
        """The selected panel."""
        return self.targets[max(0, self.target_box.currentIndex())]

    def scale(self) -> float:
        """The selected scale (1, 2 or 3)."""
        return float(self.scale_box.currentData())

    def kind(self) -> str:
        """``"png"`` or ``"svg"``."""
        return str(self.format_box.currentData())

    def _update(self, *_args: object) -> None:
        target = self.target()
        formats = self.format_box.model()
        if isinstance(formats, QStandardItemModel):  # a combo box's own model
            formats.item(1).setEnabled(target.vector)
        if not target.vector and self.kind() == "svg":
            self.format_box.setCurrentIndex(0)
        svg = self.kind() == "svg"
        self.scale_box.setEnabled(not svg)
        try:
            size = target.pixel_size(1.0 if svg else self.scale())
        except ExportError as exc:
            self.size_label.setText("")
            self.message.setText(f"Export failed: {exc}")
            return
        self.size_label.setText(
            f"{size.width()} × {size.height()} " + ("(SVG user units)" if svg else "pixels")
        )
        self.copy_button.setEnabled(True)

    def _remember(self) -> None:
        s = self.exporter.settings
        s.set(EXPORT_TARGET, self.target().key)
        s.set(EXPORT_SCALE, self.scale())
        s.set(EXPORT_FORMAT, self.kind())

    def _choose_path(self) -> None:
        target, kind, scale = self.target(), self.kind(), self.scale()
        folder = file_dialogs.last_folder()
        suffix = "" if kind == "svg" or scale == 1.0 else f"@{scale:g}x"
        default = str(Path(folder) / f"{target.file_stem}{suffix}.{kind}")
        filters = "PNG images (*.png)" if kind == "png" else "SVG drawings (*.svg)"
        path, _ = file_dialogs.get_save_file_name(self, "Export panel", default, filters)
        if path:
            self.save(path)

    def save(self, path: str | Path) -> Path | None:
        """Write the selected panel to ``path`` (its extension is set to the chosen format)."""
        self._remember()
        target, kind = self.target(), self.kind()
        out = Path(path)
        if out.suffix.lower() != f".{kind}":
            out = out.with_suffix(f".{kind}")
        try:
            written = self.exporter.write(target, out, self.scale())
        except (OSError, ExportError) as exc:
            self.message.setText(f"Export failed: {exc}")
            return None
        file_dialogs.remember_folder(written.parent, saved=True)
        self.message.setText(f"Saved {written.name}")
        return written

    def _copy(self) -> None:
        self._remember()
        try:
            image = self.exporter.copy(self.target(), self.scale())
        except ExportError as exc:
            self.message.setText(f"Copy failed: {exc}")
            return
        self.message.setText(f"Copied {image.width()} × {image.height()} pixels to the clipboard")


# ----------------------------------------------------------------------------- window integration
class Exporter(QObject):
    """The window's export actions: File ▸ Export tokenizer…, Export panel… and Copy image.

    Found as the window's child named ``exporter``; messages go to the window's status bar.
    """

    def __init__(self, sources: ExportSources, settings: Settings) -> None:
        super().__init__(sources.window)
        self.setObjectName("exporter")
        self.sources = sources
        self.settings = settings
        self.dialog: ExportDialog | None = None
        self.last_path: Path | None = None
        window = sources.window
        self.act_export = make_action(window, "&Export panel…", "Ctrl+Shift+E", name="actionExportPanel")
        on_trigger(self.act_export, self.open_dialog)
        self.act_copy = make_action(window, "&Copy image", "Ctrl+Shift+C", name="actionCopyImage")
        on_trigger(self.act_copy, self.copy_current)
        self.act_copy.setToolTip("Copy the focused panel (or all token views) as an image")
        self.model_dialog: ModelExportDialog | None = None
        self.act_export_model = make_action(
            window, "Export &tokenizer…", "Ctrl+Alt+E", name="actionExportTokenizer"
        )
        on_trigger(self.act_export_model, self.open_model_dialog)
        self.act_export_model.setToolTip(
            "Write any tokenizer as a tokviz model, tokenizer.json, vocab.json + merges.txt or .tiktoken"
        )

    def _report(self, message: str, msecs: int) -> None:
        self.sources.window.statusBar().showMessage(message, msecs)

    def targets(self) -> list[ExportTarget]:
        """What can be exported now (see :func:`export_targets`)."""
        return export_targets(self.sources)

    def target(self, key: str) -> ExportTarget:
        """The target with ``key`` (``views``, ``view:1``, ``dock:timelineDock``, ``window``)."""
        for t in self.targets():
            if t.key == key:
                return t
        raise ExportError(f"nothing called {key!r} is on screen to export")

    def write(self, target: ExportTarget, path: str | Path, scale: float = 1.0) -> Path:
        """Write ``target`` as PNG or SVG (by extension); SVG only for vector panels."""
        out = Path(path)
        if out.suffix.lower() == ".svg" and not target.vector:
            raise ExportError(f"{target.label} contains bitmaps; export it as PNG")
        with target.picture() as widget:
            written = write_image(widget, out, scale, title=f"tokviz: {target.label}")
        self.last_path = written
        self._report(f"Exported {target.label} to {written}", 5000)
        return written

    def copy(self, target: ExportTarget, scale: float = 2.0) -> QImage:
        """Copy ``target`` to the clipboard at ``scale``."""
        with target.picture() as widget:
            image = copy_image(widget, scale)
        self._report(f"Copied {target.label} ({image.width()} × {image.height()} px) to the clipboard", 5000)
        return image

    def copy_current(self) -> QImage:
        """Copy the focused panel, or the panel last exported, or all token views (at the remembered scale)."""
        targets = self.targets()
        target = target_for_focus(self.sources.window, targets)
        if target is None:
            key = self.settings.get(EXPORT_TARGET)
            target = next((t for t in targets if t.key == key), targets[0])
        scale = self.settings.get(EXPORT_SCALE)
        try:
            return self.copy(target, scale)
        except ExportError as exc:
            self._report(f"Copy failed: {exc}", 10000)
            return QImage()

    def open_model_dialog(self) -> ModelExportDialog:
        """Show File ▸ Export tokenizer… with the first token view's tokenizer chosen."""
        if self.model_dialog is None:
            self.model_dialog = ModelExportDialog(self.sources.tokenizers, self.sources.window)
        views = self.sources.views
        self.model_dialog.refresh(views[0].model.key if views else None)
        self.model_dialog.show()
        self.model_dialog.raise_()
        return self.model_dialog

    def open_dialog(self) -> ExportDialog:
        """Show the export dialog (non-modal; it lists the panels on screen when opened)."""
        if self.dialog is None:
            self.dialog = ExportDialog(self, self.sources.window)
        focused = target_for_focus(self.sources.window, self.targets())
        self.dialog.refresh(focused.key if focused is not None else None)
        self.dialog.show()
        self.dialog.raise_()
        return self.dialog


def add_export_actions(
    exporter: Exporter, file_menu: QMenu, before: QAction, others: Sequence[QAction] = ()
) -> None:
    """Put File ▸ Export tokenizer…, ``others`` (another Export…), Export panel… and Copy image in
    ``file_menu``, above ``before`` (Quit), with a line under them."""
    for action in (exporter.act_export_model, *others, exporter.act_export, exporter.act_copy):
        file_menu.insertAction(before, action)
    file_menu.insertSeparator(before)


__all__ = [
    "SCALES",
    "ExportDialog",
    "ExportSources",
    "ExportTarget",
    "Exporter",
    "add_export_actions",
    "export_targets",
]
