"""Display options, theme, colours and zoom of the editor and the views.

:class:`Appearance` is one part of the window: it is given the window (whose palette and dock
buttons follow the theme), the editor and the window's list of views, and owns the theme, the
text size, the display options and whether the presentation palette is in use. It says what
changed through its signals; the window wires them to the other parts.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtWidgets import QApplication, QPlainTextEdit, QWidget

from tokviz.gui.settings import POINT_SIZE
from tokviz.gui.style.dock_buttons import recolour_dock_buttons
from tokviz.gui.style.fonts import mono_font
from tokviz.gui.style.theme import TokenColors, app_palette, system_prefers_dark, token_colors
from tokviz.gui.text.display import DisplayOptions
from tokviz.gui.widgets.token_panel import TokenPanel
from tokviz.gui.window.presentation_colors import presentation_colors

THEMES = ("system", "light", "dark")
MIN_POINT_SIZE = 7.0
MAX_POINT_SIZE = 48.0


class Appearance(QObject):
    """How the editor and the views look. Signals: ``themeChanged(str)`` when another theme is
    chosen, ``colorsChanged(TokenColors)`` after the colours were applied,
    ``displayOptionsChanged(DisplayOptions)`` when ids or whitespace are switched."""

    themeChanged = Signal(str)
    colorsChanged = Signal(TokenColors)
    displayOptionsChanged = Signal(DisplayOptions)

    def __init__(self, window: QWidget, editor: QPlainTextEdit, views: list[TokenPanel]) -> None:
        super().__init__(window)
        self._window = window
        self._editor = editor
        self._views = views
        self._theme = "system"
        self._point_size = float(POINT_SIZE.default)
        self._options = DisplayOptions()
        self._show_chunks = False
        self._presentation = False
        self._colors = token_colors(self.is_dark())

    # ---------------------------------------------------------------- views
    def style_view(self, panel: TokenPanel) -> None:
        """Give a new view the current font, colours and display options."""
        panel.view.setFont(mono_font(self._point_size))
        panel.view.set_colors(self._colors)
        panel.view.set_options(self._options)
        panel.view.set_show_chunks(self._show_chunks)

    def display_options(self) -> DisplayOptions:
        """What the token views show besides the tokens (ids, visible whitespace)."""
        return self._options

    def set_display_options(self, options: DisplayOptions) -> None:
        """Show ids and whitespace as ``options`` say, in every view."""
        self._options = options
        for p in self._views:
            p.view.set_options(options)
        self.displayOptionsChanged.emit(options)

    def set_show_chunks(self, on: bool) -> None:
        """Mark the pre-tokenizer's chunk boundaries in every view, or not."""
        self._show_chunks = on
        for p in self._views:
            p.view.set_show_chunks(on)

    # ---------------------------------------------------------------- theme
    @property
    def theme(self) -> str:
        """``"system"``, ``"light"`` or ``"dark"``."""
        return self._theme

    def set_theme(self, theme: str) -> None:
        """Use ``"system"``, ``"light"`` or ``"dark"`` (anything else follows the system)."""
        self._theme = theme if theme in THEMES else "system"
        self.themeChanged.emit(self._theme)
        self.apply_theme()

    def is_dark(self) -> bool:
        """Whether the dark theme is in use."""
        return self._theme == "dark" or (self._theme == "system" and system_prefers_dark())

    def set_presentation_colors(self, on: bool) -> None:
        """Paint tokens with presentation mode's high-contrast palette (applied by :meth:`apply_theme`)."""
        self._presentation = on

    @property
    def colors(self) -> TokenColors:
        """The token colours in use (``colorsChanged`` fires when they change)."""
        return self._colors

    def apply_theme(self) -> None:
        """Repaint the application and every view with the current theme's colours."""
        dark = self.is_dark()
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.setPalette(app_palette(dark))
        self._colors = presentation_colors(dark) if self._presentation else token_colors(dark)
        for p in self._views:
            p.view.set_colors(self._colors)
        # Fusion's grey float/close icons vanish on the dark theme; docks added later get theirs next turn.
        recolour_dock_buttons(self._window)
        QTimer.singleShot(0, self, lambda: recolour_dock_buttons(self._window))
        self.colorsChanged.emit(self._colors)

    # ---------------------------------------------------------------- zoom
    @property
    def point_size(self) -> float:
        """Current font size of the editor and views."""
        return self._point_size

    def set_point_size(self, size: float) -> None:
        """Use ``size`` points for the editor and views (clamped to 7-48)."""
        self._point_size = min(MAX_POINT_SIZE, max(MIN_POINT_SIZE, float(size)))
        font = mono_font(self._point_size)
        self._editor.setFont(font)
        for p in self._views:
            p.view.setFont(font)

    def zoom(self, step: int) -> None:
        """Bigger (+1), smaller (-1) or default (0) text in the editor and views."""
        self.set_point_size(POINT_SIZE.default if step == 0 else self._point_size + step)
