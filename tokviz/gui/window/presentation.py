"""Presentation mode: large type, a colour-blind-safe high-contrast palette, and no chrome but the menus.

F11 (or View ▸ Presentation mode) toggles the mode; it is remembered in the settings, together with
what to bring back on leaving it (toolbars, vocabulary dock, status bar, text size, window state),
so that a window reopened in presentation mode still returns to the user's layout; on leaving, the
window's place, the docks' sizes and the editor/views split come back exactly. Type sizes follow the
screen's height (:mod:`tokviz.gui.style.presentation_sizes`), hover cards and floating panels
included, and the token views get most of the height beside the editor. The palette is
in :mod:`tokviz.gui.window.presentation_colors`. Panels learn of the mode through the context's
``presentationChanged`` signal (the chart switches its large text with it).
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QRect, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QFont, QPalette
from PySide6.QtWidgets import QApplication, QDockWidget, QMainWindow, QSplitter, QToolBar, QToolTip, QWidget

from tokviz.gui.settings import (
    PRESENTATION_ON,
    RESTORE_CHROME,
    RESTORE_POINT_SIZE,
    RESTORE_WINDOW_STATE,
    Settings,
)
from tokviz.gui.style.presentation_sizes import TEXT_POINT_SIZE, PresentationSizes, sizes_for
from tokviz.gui.style.theme import TokenColors
from tokviz.gui.window.actions import make_action
from tokviz.gui.window.appearance import Appearance
from tokviz.gui.window.presentation_colors import (
    FAMILIES,
    OKABE_ITO,
    contrast_ratio,
    presentation_colors,
    presentation_palette,
    relative_luminance,
)

PRESENTATION_POINT_SIZE = TEXT_POINT_SIZE
# The height of the bottom docks (the chart, the timeline) in presentation mode, as a share of the screen's.
BOTTOM_DOCK_SHARE = 0.42


class PresentationMode(QObject):
    """Presentation mode of one window; ``toggled(on)`` fires after the window changed."""

    toggled = Signal(bool)

    def __init__(self, window: QMainWindow, settings: Settings, appearance: Appearance) -> None:
        super().__init__(window)
        self.window = window
        self._settings = settings
        self._appearance = appearance
        self._active = False
        self._tip_font = QToolTip.font()
        self._dock_sizes_before: dict[QDockWidget, tuple[Qt.Orientation, int]] = {}
        self._restoring_layout = False
        self._splitter_sizes: list[int] = []
        self._geometry: QRect | None = None
        window.installEventFilter(self)
        self.action: QAction = make_action(
            window, "&Presentation mode", "F11", checkable=True, name="actionPresentationMode"
        )
        self.action.toggled.connect(self.set_active)
        self.action.setToolTip("Large type, colour-blind-safe colours, no toolbars or status bar (F11)")
        appearance.colorsChanged.connect(self._on_colors)

    def _on_colors(self, colors: TokenColors) -> None:
        if self._active:
            self.window.setPalette(presentation_palette(colors.dark))

    def sizes(self) -> PresentationSizes:
        """The type sizes of presentation mode on the window's screen."""
        return sizes_for(self.window)

    @property
    def active(self) -> bool:
        """Whether presentation mode is on."""
        return self._active

    def restore(self) -> None:
        """Come back in presentation mode if the last session ended in it."""
        if self._settings.get(PRESENTATION_ON):
            self.set_active(True, restoring=True)

    def toggle(self) -> None:
        """Switch the mode on or off (what F11 does)."""
        self.set_active(not self._active)

    def set_active(self, on: bool, restoring: bool = False) -> None:
        """Enter or leave presentation mode; ``restoring`` keeps the saved layout from an earlier session."""
        on = bool(on)
        if on == self._active:
            self._sync_action()
            return
        if on:
            self._enter(restoring)
        else:
            self._leave()
        self._settings.set(PRESENTATION_ON, on)
        self._sync_action()
        self.toggled.emit(on)

    def _sync_action(self) -> None:
        if self.action.isChecked() != self._active:
            self.action.blockSignals(True)
            self.action.setChecked(self._active)
            self.action.blockSignals(False)

    # ---------------------------------------------------------------- chrome
    def chrome(self) -> dict[str, QWidget]:
        """The non-essential parts of the window, by a stable name: toolbars, the side docks (the
        vocabulary and what is tabbed with it, such as Train), status bar.

        Hiding the vocabulary alone raised the Train dock tabbed behind it, a third of a projector's
        screen; docks at the bottom (the timeline the lecture steps through) stay.
        """
        w = self.window
        parts: dict[str, QWidget] = {}
        for bar in w.findChildren(QToolBar):
            if bar.parentWidget() is w and bar.objectName():
                parts[f"toolbar:{bar.objectName()}"] = bar
        vocabulary = w.findChild(QDockWidget, "vocabDock")
        if vocabulary is not None:
            parts["dock:vocabDock"] = vocabulary
        sides = (Qt.DockWidgetArea.LeftDockWidgetArea, Qt.DockWidgetArea.RightDockWidgetArea)
        for dock in w.findChildren(QDockWidget):
            if dock.objectName() and not dock.isFloating() and w.dockWidgetArea(dock) in sides:
                parts.setdefault(f"dock:{dock.objectName()}", dock)
        parts["statusbar"] = w.statusBar()
        return parts

    @staticmethod
    def _shown(part: QWidget) -> bool:
        """Whether a part is on: a dock behind another tab is not visible but still open."""
        return not part.isHidden() if isinstance(part, QDockWidget) else part.isVisible()

    def _enter(self, restoring: bool) -> None:
        w, s, look = self.window, self._settings, self._appearance
        parts = self.chrome()
        if not restoring or not s.contains(RESTORE_CHROME):
            s.set(RESTORE_CHROME, [name for name, part in parts.items() if self._shown(part)] or [""])
            s.set(RESTORE_POINT_SIZE, look.point_size)
            s.set(RESTORE_WINDOW_STATE, int(w.windowState().value))
        self._active = True
        self._dock_sizes_before = self._dock_sizes()
        splitter = self._main_splitter()
        self._splitter_sizes = splitter.sizes() if splitter is not None else []
        normal = not w.windowState() & ~Qt.WindowState.WindowActive
        self._geometry = QRect(w.geometry()) if normal else None
        for part in parts.values():
            part.hide()
        sizes = self.sizes()
        ui = QFont(QApplication.font())
        ui.setPointSizeF(sizes.ui)
        self._set_ui_font(ui)
        self._tip_font = QToolTip.font()
        QToolTip.setFont(ui)  # hover cards are windows of their own: they do not inherit the window's font
        look.set_point_size(max(look.point_size, sizes.text))
        look.set_presentation_colors(True)
        look.apply_theme()
        if not w.isFullScreen():
            w.setWindowState(w.windowState() | Qt.WindowState.WindowFullScreen)
        self._share_central_area()

    def _leave(self) -> None:
        w, s, look = self.window, self._settings, self._appearance
        self._active = False
        names = s.get(RESTORE_CHROME) or []
        parts = self.chrome()
        for name in names:
            if name in parts:
                parts[name].show()
        if "dock:vocabDock" in names and "dock:vocabDock" in parts:
            parts["dock:vocabDock"].raise_()  # its tab in front again, as before
        self._set_ui_font(QFont())
        QToolTip.setFont(self._tip_font)
        w.setPalette(QPalette())
        point_size = s.get(RESTORE_POINT_SIZE)
        if point_size is None:
            look.zoom(0)
        else:
            look.set_point_size(point_size)
        look.set_presentation_colors(False)
        look.apply_theme()
        try:
            state = Qt.WindowState(s.get(RESTORE_WINDOW_STATE))
        except ValueError:
            state = Qt.WindowState.WindowNoState
        w.setWindowState(state & ~Qt.WindowState.WindowMinimized)
        if self._geometry is not None and not w.windowState() & ~Qt.WindowState.WindowActive:
            w.setGeometry(self._geometry)  # a window manager may not give a normal window its place back
        # The docks and the splitter come back at the sizes they had, not at what the large type made
        # of them: once the window has its old size back (a window manager resizes it later), and again.
        self._restoring_layout = True
        for msecs in (0, 200):
            QTimer.singleShot(msecs, self, self._restore_layout)
        QTimer.singleShot(1000, self, self._stop_restoring_layout)
        for key in (RESTORE_CHROME, RESTORE_POINT_SIZE, RESTORE_WINDOW_STATE):
            s.remove(key)

    def _set_ui_font(self, font: QFont) -> None:
        """The window's font, and that of every dock: a floating dock is a window of its own, which
        inherits nothing from the main window unless it is told to."""
        self.window.setFont(font)
        for dock in self.window.findChildren(QDockWidget):
            dock.setAttribute(Qt.WidgetAttribute.WA_WindowPropagation, True)
            if dock.isFloating():
                dock.setFont(font)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.window and event.type() == QEvent.Type.Resize:
            if self._active:
                QTimer.singleShot(0, self, self._share_central_area)
            elif self._restoring_layout:
                QTimer.singleShot(0, self, self._restore_layout)
        return False

    def _main_splitter(self) -> QSplitter | None:
        return self.window.findChild(QSplitter, "mainSplitter")

    def _share_central_area(self) -> None:
        """Give the token views (and the counters over them) two thirds of the height beside the
        editor: what the audience looks at, where large type leaves few lines."""
        if not self._active:
            return
        w = self.window
        bottom = [
            d
            for d in w.findChildren(QDockWidget)
            if d.isVisible()
            and not d.isFloating()
            and w.dockWidgetArea(d) == Qt.DockWidgetArea.BottomDockWidgetArea
        ]
        if bottom:  # the same share of the screen on a projector and on a 1080p screen
            w.resizeDocks(bottom[:1], [round(w.height() * BOTTOM_DOCK_SHARE)], Qt.Orientation.Vertical)
        splitter = self._main_splitter()
        if splitter is None or splitter.count() != 2:
            return
        # The editor keeps a quarter: the rest holds the big counters, the legend and the views.
        total = sum(splitter.sizes())
        splitter.setSizes([total // 4, total - total // 4])

    def _stop_restoring_layout(self) -> None:
        self._restoring_layout = False

    def _dock_sizes(self) -> dict[QDockWidget, tuple[Qt.Orientation, int]]:
        """The width of each side dock on screen and the height of each bottom one (one per group of
        tabs: a dock behind another's tab keeps a size of its own, which is not the one shown)."""
        sizes: dict[QDockWidget, tuple[Qt.Orientation, int]] = {}
        w = self.window
        for dock in w.findChildren(QDockWidget):
            if dock.isFloating() or not dock.isVisible() or dock.visibleRegion().isEmpty():
                continue
            if any(other in sizes for other in w.tabifiedDockWidgets(dock)):
                continue
            if w.dockWidgetArea(dock) in (
                Qt.DockWidgetArea.TopDockWidgetArea,
                Qt.DockWidgetArea.BottomDockWidgetArea,
            ):
                sizes[dock] = (Qt.Orientation.Vertical, dock.height())
            else:
                sizes[dock] = (Qt.Orientation.Horizontal, dock.width())
        return sizes

    def _restore_layout(self) -> None:
        if self._active:
            return
        splitter = self._main_splitter()
        if splitter is not None and len(self._splitter_sizes) == splitter.count():
            splitter.setSizes(self._splitter_sizes)
        for orientation in (Qt.Orientation.Horizontal, Qt.Orientation.Vertical):
            docks = [
                (d, px)
                for d, (o, px) in self._dock_sizes_before.items()
                if o == orientation and d.isVisible() and not d.isFloating()
            ]
            if docks:
                self.window.resizeDocks([d for d, _ in docks], [px for _, px in docks], orientation)


__all__ = [
    "FAMILIES",
    "OKABE_ITO",
    "PRESENTATION_POINT_SIZE",
    "PresentationMode",
    "contrast_ratio",
    "presentation_colors",
    "presentation_palette",
    "relative_luminance",
]
