"""Presentation mode: large type, a colour-blind-safe high-contrast palette, and no chrome but the menus.

Token colours come from six Okabe–Ito hues, each as a light and a mid tint. The theme's colour
indices give neighbours whose hue slots are adjacent opposite lightness, so slots 2k and 2k+1 may
share a hue family: two neighbours then always differ either in lightness (same or adjacent
family) or in hue family (slots two or more apart), a difference that survives the common forms
of colour blindness and a washed-out projector. Partial-UTF-8 tokens are told apart by their
hatching and dashed outline, special tokens by a heavy outline, never by colour alone.

F11 (or View ▸ Presentation mode) toggles the mode; it is remembered in the settings, together with
what to bring back on leaving it (toolbars, vocabulary dock, status bar, text size, window state),
so that a window reopened in presentation mode still returns to the user's layout.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QColor, QFont, QPalette
from PySide6.QtWidgets import QApplication, QDockWidget, QToolBar, QWidget

from tokviz.gui.settings import (
    PRESENTATION_ON,
    RESTORE_CHROME,
    RESTORE_POINT_SIZE,
    RESTORE_WINDOW_STATE,
)
from tokviz.gui.style.theme import TokenColors, app_palette

if TYPE_CHECKING:
    from tokviz.gui.window.main_window import MainWindow

# Okabe & Ito (2008), "Color Universal Design": distinguishable under the common colour-vision deficiencies.
OKABE_ITO = {
    "orange": "#E69F00",
    "sky blue": "#56B4E9",
    "bluish green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "reddish purple": "#CC79A7",
    "black": "#000000",
}
# Token fills: six Okabe–Ito hues (vermillion is kept for marks), each at two luminances, for
# black text on a light background and white text on a dark one. The luminances were searched so
# that any two fills that can meet as neighbours stay apart (CIE76 ΔE ≥ 8.5 light, ≥ 4 dark) even
# under a full protan, deutan or tritan simulation (Machado et al. 2009), while the text keeps a
# contrast of at least 7:1 (WCAG AAA); tests/gui/test_presentation.py checks both.
FAMILIES = ("orange", "sky blue", "bluish green", "yellow", "blue", "reddish purple")
LIGHT_FILLS = (
    ("#F0C463", "#C98B00"),
    ("#C4E5F7", "#59B5E9"),
    ("#DDF2EC", "#73CAB2"),
    ("#F1E651", "#C4BA36"),
    ("#88BDDB", "#509ECB"),
    ("#E8C3D7", "#CF7DAA"),
)
DARK_FILLS = (
    ("#3F2B00", "#6E4C00"),
    ("#152B38", "#2A5771"),
    ("#003325", "#005E45"),
    ("#2D2B0C", "#585418"),
    ("#003857", "#005C8F"),
    ("#39222F", "#72445E"),
)

PRESENTATION_POINT_SIZE = 22.0
UI_FONT_FACTOR = 1.4


def _mix(colour: str, other: str, amount: float) -> QColor:
    """``colour`` moved ``amount`` (0..1) of the way towards ``other``."""
    a, b = QColor(colour), QColor(other)
    return QColor(
        round(a.red() + (b.red() - a.red()) * amount),
        round(a.green() + (b.green() - a.green()) * amount),
        round(a.blue() + (b.blue() - a.blue()) * amount),
    )


def _fills(dark: bool) -> tuple[QColor, ...]:
    """24 fills indexed ``hue_slot * 2 + lightness``: hue slots 2k and 2k+1 share family k."""
    table = DARK_FILLS if dark else LIGHT_FILLS
    return tuple(QColor(table[slot // 2][light]) for slot in range(12) for light in (0, 1))


def presentation_colors(dark: bool) -> TokenColors:
    """The presentation palette for a light or a dark background: pure black or white text, strong marks."""
    if dark:
        return TokenColors(
            dark=True,
            fills=_fills(True),
            text=QColor("#ffffff"),
            base=QColor("#000000"),
            partial_fill=QColor("#3a3a3a"),
            partial_hatch=QColor(255, 255, 255, 70),
            partial_border=QColor("#ffffff"),
            special_fill=QColor("#000000"),
            special_border=QColor("#ffffff"),
            chunk_mark=QColor("#ffffff"),
            diff_mark=_mix(OKABE_ITO["vermillion"], "#ffffff", 0.2),
            hover=QColor("#ffffff"),
            highlight=_mix(OKABE_ITO["sky blue"], "#ffffff", 0.2),
            highlight_fill=QColor(86, 180, 233, 90),
            editor_highlight=_mix(OKABE_ITO["blue"], "#000000", 0.3),
            muted=QColor("#c8c8c8"),
        )
    return TokenColors(
        dark=False,
        fills=_fills(False),
        text=QColor("#000000"),
        base=QColor("#ffffff"),
        partial_fill=QColor("#ececec"),
        partial_hatch=QColor(0, 0, 0, 60),
        partial_border=QColor("#000000"),
        special_fill=QColor("#ffffff"),
        special_border=QColor("#000000"),
        chunk_mark=QColor("#000000"),
        diff_mark=QColor(OKABE_ITO["vermillion"]),
        hover=QColor("#000000"),
        highlight=QColor(OKABE_ITO["blue"]),
        highlight_fill=QColor(0, 114, 178, 60),
        editor_highlight=_mix(OKABE_ITO["sky blue"], "#ffffff", 0.5),
        muted=QColor("#404040"),
    )


def presentation_palette(dark: bool) -> QPalette:
    """The theme's palette with pure black and white for text and the text areas' background."""
    palette = app_palette(dark)
    ink, paper = (QColor("#ffffff"), QColor("#000000")) if dark else (QColor("#000000"), QColor("#ffffff"))
    for role in (QPalette.ColorRole.Text, QPalette.ColorRole.WindowText, QPalette.ColorRole.ButtonText):
        palette.setColor(QPalette.ColorGroup.Active, role, ink)
        palette.setColor(QPalette.ColorGroup.Inactive, role, ink)
    palette.setColor(QPalette.ColorRole.Base, paper)
    return palette


def relative_luminance(colour: QColor) -> float:
    """WCAG relative luminance of an sRGB colour (0 black … 1 white)."""

    def channel(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    return (
        0.2126 * channel(colour.redF()) + 0.7152 * channel(colour.greenF()) + 0.0722 * channel(colour.blueF())
    )


def contrast_ratio(a: QColor, b: QColor) -> float:
    """WCAG contrast ratio between two colours (1 … 21); body text wants at least 4.5, slides 7."""
    la, lb = sorted((relative_luminance(a), relative_luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


class PresentationMode(QObject):
    """Presentation mode of one window; ``toggled(on)`` fires after the window changed."""

    toggled = Signal(bool)

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window
        self._active = False
        self.action = window.new_action(
            "&Presentation mode", "F11", self.set_active, checkable=True, name="actionPresentationMode"
        )
        self.action.setToolTip("Large type, colour-blind-safe colours, no toolbars or status bar (F11)")
        window.colorsChanged.connect(self._on_colors)

    def _on_colors(self, colors: TokenColors) -> None:
        if self._active:
            self.window.setPalette(presentation_palette(colors.dark))

    @property
    def active(self) -> bool:
        """Whether presentation mode is on."""
        return self._active

    def token_colors(self, dark: bool) -> TokenColors:
        """The palette token views use while the mode is on."""
        return presentation_colors(dark)

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
        self.window.settings.set(PRESENTATION_ON, on)
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
        w = self.window
        s = w.settings
        parts = self.chrome()
        if not restoring or not s.contains(RESTORE_CHROME):
            s.set(RESTORE_CHROME, [name for name, part in parts.items() if self._shown(part)] or [""])
            s.set(RESTORE_POINT_SIZE, w.point_size)
            s.set(RESTORE_WINDOW_STATE, int(w.windowState().value))
        self._active = True
        for part in parts.values():
            part.hide()
        ui = QFont(QApplication.font())
        ui.setPointSizeF(max(ui.pointSizeF(), 9.0) * UI_FONT_FACTOR)
        w.setFont(ui)
        w.set_point_size(max(w.point_size, PRESENTATION_POINT_SIZE))
        self._set_chart_large(True)
        w.reapply_theme()
        if not w.isFullScreen():
            w.setWindowState(w.windowState() | Qt.WindowState.WindowFullScreen)

    def _leave(self) -> None:
        w = self.window
        s = w.settings
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
            w.zoom(0)
        else:
            w.set_point_size(point_size)
        self._set_chart_large(False)
        w.reapply_theme()
        try:
            state = Qt.WindowState(s.get(RESTORE_WINDOW_STATE))
        except ValueError:
            state = Qt.WindowState.WindowNoState
        w.setWindowState(state & ~Qt.WindowState.WindowMinimized)
        for key in (RESTORE_CHROME, RESTORE_POINT_SIZE, RESTORE_WINDOW_STATE):
            s.remove(key)

    def _set_chart_large(self, on: bool) -> None:
        dock = getattr(self.window, "chart_dock", None)
        chart = dock.widget() if dock is not None else None
        if chart is not None and hasattr(chart, "set_large_text"):
            chart.set_large_text(on)


def install_presentation_mode(window: MainWindow) -> PresentationMode:
    """Add View ▸ Presentation mode (F11) and bring the mode back if the last session ended in it."""
    mode = PresentationMode(window)
    window.view_menu.addSeparator()
    window.view_menu.addAction(mode.action)
    window.presentation = mode
    if window.settings.get(PRESENTATION_ON):
        mode.set_active(True, restoring=True)
    return mode


__all__ = [
    "FAMILIES",
    "OKABE_ITO",
    "PRESENTATION_POINT_SIZE",
    "PresentationMode",
    "contrast_ratio",
    "install_presentation_mode",
    "presentation_colors",
    "presentation_palette",
    "relative_luminance",
]
