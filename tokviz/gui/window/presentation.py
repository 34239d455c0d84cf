"""Presentation mode: large type, a colour-blind-safe high-contrast palette, and no chrome but the menus.

F11 (or View ▸ Presentation mode) toggles the mode; it is remembered in the settings, together with
what to bring back on leaving it (toolbars, vocabulary dock, status bar, text size, window state),
so that a window reopened in presentation mode still returns to the user's layout. The palette is
in :mod:`tokviz.gui.window.presentation_colors`. Panels learn of the mode through the context's
``presentationChanged`` signal (the chart switches its large text with it).
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QAction, QFont, QPalette
from PySide6.QtWidgets import QApplication, QDockWidget, QMainWindow, QToolBar, QWidget

from tokviz.gui.settings import (
    PRESENTATION_ON,
    RESTORE_CHROME,
    RESTORE_POINT_SIZE,
    RESTORE_WINDOW_STATE,
    Settings,
)
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

PRESENTATION_POINT_SIZE = 22.0
UI_FONT_FACTOR = 1.4


class PresentationMode(QObject):
    """Presentation mode of one window; ``toggled(on)`` fires after the window changed."""

    toggled = Signal(bool)

    def __init__(self, window: QMainWindow, settings: Settings, appearance: Appearance) -> None:
        super().__init__(window)
        self.window = window
        self._settings = settings
        self._appearance = appearance
        self._active = False
        self.action: QAction = make_action(
            window, "&Presentation mode", "F11", checkable=True, name="actionPresentationMode"
        )
        self.action.toggled.connect(self.set_active)
        self.action.setToolTip("Large type, colour-blind-safe colours, no toolbars or status bar (F11)")
        appearance.colorsChanged.connect(self._on_colors)

    def _on_colors(self, colors: TokenColors) -> None:
        if self._active:
            self.window.setPalette(presentation_palette(colors.dark))

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
        for part in parts.values():
            part.hide()
        ui = QFont(QApplication.font())
        ui.setPointSizeF(max(ui.pointSizeF(), 9.0) * UI_FONT_FACTOR)
        w.setFont(ui)
        look.set_point_size(max(look.point_size, PRESENTATION_POINT_SIZE))
        look.set_presentation_colors(True)
        look.apply_theme()
        if not w.isFullScreen():
            w.setWindowState(w.windowState() | Qt.WindowState.WindowFullScreen)

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
        w.setFont(QFont())
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
        for key in (RESTORE_CHROME, RESTORE_POINT_SIZE, RESTORE_WINDOW_STATE):
            s.remove(key)


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
