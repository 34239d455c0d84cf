"""The docks' float and close buttons are drawn in the theme's text colour, so they stay visible
on the dark theme (Fusion's own icons are grey on dark grey)."""

from __future__ import annotations

from PySide6.QtGui import QColor
from PySide6.QtWidgets import QAbstractButton
from pytestqt.qtbot import QtBot

from tokviz.gui.style.dock_buttons import CLOSE, FLOAT

from .fixture_types import MakeWindow
from .reach import child, dock


def _ink(button: QAbstractButton) -> QColor:
    """The most opaque pixel of the button's icon: the colour its strokes are drawn in."""
    image = button.icon().pixmap(16, 16).toImage()
    pixels = (image.pixelColor(x, y) for x in range(image.width()) for y in range(image.height()))
    return max(pixels, key=lambda c: c.alpha())


def test_dock_buttons_follow_the_theme(qtbot: QtBot, make_window: MakeWindow) -> None:
    window = make_window(size=(1024, 768))
    close, float_ = (child(dock(window, "vocabDock"), QAbstractButton, name) for name in (CLOSE, FLOAT))
    window.appearance.set_theme("dark")

    def light_strokes() -> None:
        for button in (close, float_):
            assert _ink(button).lightness() > 200, "light strokes on the dark title bar"

    qtbot.waitUntil(light_strokes)
    window.appearance.set_theme("light")
    qtbot.waitUntil(lambda: _ink(close).lightness() < 60)
