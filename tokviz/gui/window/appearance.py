"""Display options, theme, legend and zoom of the editor and the views."""

from __future__ import annotations

from PySide6.QtCore import QTimer
from PySide6.QtGui import (
    QColor,
)
from PySide6.QtWidgets import (
    QApplication,
)

from tokviz.gui.settings import (
    POINT_SIZE,
)
from tokviz.gui.style.dock_buttons import recolour_dock_buttons
from tokviz.gui.style.fonts import mono_font
from tokviz.gui.style.theme import TokenColors, app_palette, system_prefers_dark, token_colors
from tokviz.gui.text.display import DisplayOptions


class AppearanceMixin:
    """Part of :class:`~tokviz.gui.window.main_window.MainWindow`; see the module's docstring."""

    def display_options(self) -> DisplayOptions:
        """What the token views show besides the tokens (ids, visible whitespace)."""
        return DisplayOptions(show_ids=self.act_ids.isChecked(), whitespace=self.act_ws.isChecked())

    def _on_display_options(self, _checked: bool = False) -> None:
        options = self.display_options()
        for p in self.panels:
            p.view.set_options(options)
        self.host.displayOptionsChanged.emit(options)

    def _on_chunks(self, checked: bool) -> None:
        for p in self.panels:
            p.view.set_show_chunks(checked)

    def set_theme(self, theme: str) -> None:
        """``"system"``, ``"light"`` or ``"dark"``."""
        self._theme = theme if theme in ("system", "light", "dark") else "system"
        act = self.theme_actions[self._theme]
        if not act.isChecked():
            act.setChecked(True)
        self._apply_theme()

    def is_dark(self) -> bool:
        """Whether the dark theme is in use."""
        return self._theme == "dark" or (self._theme == "system" and system_prefers_dark())

    def _apply_theme(self) -> None:
        dark = self.is_dark()
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.setPalette(app_palette(dark))
        self._colors = self.colors_for(dark)
        for p in self.panels:
            p.view.set_colors(self._colors)
        self._update_legend()
        # Fusion's grey float/close icons vanish on the dark theme; docks added later get theirs next turn.
        recolour_dock_buttons(self)
        QTimer.singleShot(0, self, lambda: recolour_dock_buttons(self))
        if self._hover is not None:
            self._on_hover(*self._hover)
        self.colorsChanged.emit(self._colors)

    def _update_legend(self) -> None:
        c = self._colors

        def swatch(fill: QColor, border: QColor, label: str) -> str:
            return (
                f"<span style='background:{fill.name()};border:1px solid {border.name()};'>&nbsp;&nbsp;&nbsp;</span>"
                f"&nbsp;{label}"
            )

        self.legend.setText(
            "&nbsp;&nbsp;"
            + swatch(c.partial_fill, c.partial_border, "part of a UTF-8 character")
            + "&nbsp;&nbsp;&nbsp;"
            + swatch(c.special_fill, c.special_border, "special token")
            + "&nbsp;&nbsp;&nbsp;"
            + f"<span style='color:{c.diff_mark.name()};'><b>▁▁</b></span>&nbsp;differs from view 1"
            + "&nbsp;&nbsp;&nbsp;"
            + f"<span style='color:{c.chunk_mark.name()};'><b>|</b></span>&nbsp;chunk boundary"
        )

    def zoom(self, step: int) -> None:
        """Bigger (+1), smaller (-1) or default (0) text in the editor and views."""
        if step == 0:
            self._point_size = POINT_SIZE.default
        else:
            self._point_size = min(48.0, max(7.0, self._point_size + step))
        self._apply_zoom()

    def _apply_zoom(self) -> None:
        font = mono_font(self._point_size)
        self.editor.setFont(font)
        for p in self.panels:
            p.view.setFont(font)

    @property
    def point_size(self) -> float:
        """Current font size of the editor and views."""
        return self._point_size

    def set_point_size(self, size: float) -> None:
        """Use ``size`` points for the editor and views (presentation mode, scripts)."""
        self._point_size = min(48.0, max(7.0, float(size)))
        self._apply_zoom()

    @property
    def colors(self) -> TokenColors:
        """The token colours in use (``colorsChanged`` fires when they change)."""
        return self._colors

    def colors_for(self, dark: bool) -> TokenColors:
        """Token colours for a light or dark theme: presentation mode substitutes its own palette."""
        if self.presentation is not None and self.presentation.active:
            return self.presentation.token_colors(dark)
        return token_colors(dark)

    def reapply_theme(self) -> None:
        """Repaint everything with the current theme's colours (after presentation mode changed them)."""
        self._apply_theme()

    def _about(self) -> None:
        from tokviz.gui.window.about import show_about

        show_about(self)
