"""What every offscreen picture shares: a QApplication, a sheet filled with the theme, a pixel limit,
and writing the sheet once it is drawn."""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtCore import QMessageLogContext, Qt, QtMsgType, qInstallMessageHandler
from PySide6.QtGui import (
    QPalette,
)
from PySide6.QtWidgets import QApplication, QWidget

from tokviz.core.errors import ExportError
from tokviz.core.io.safe_text import terminal_text
from tokviz.gui.drawing.images import write_image
from tokviz.gui.style.theme import TokenColors, app_palette, token_colors

# QImage and most viewers cope with up to 32767 pixels in each direction.
MAX_PIXELS = 32_000
PAD = 24


def ensure_app() -> QApplication:
    """The running QApplication, or a new one for headless drawing (Fusion style, as the window
    uses, and Qt's messages kept off the terminal: :func:`quiet_qt_messages`)."""
    app = QApplication.instance()
    if app is None:
        quiet_qt_messages()
        app = QApplication(["tokviz"])
        app.setStyle("Fusion")
    assert isinstance(app, QApplication)
    return app


def quiet_qt_messages() -> None:
    """Keep Qt's warnings off standard error in headless drawing, its image readers' (libpng's
    "CRC error", the allocation limit) and the SVG renderer's included.

    A command that draws checks its inputs itself and says what is wrong in one line; a library's
    warning would be more lines the user cannot act on. Only a fatal message, after which Qt
    aborts, is shown, as one escaped line. The app's window (which has its QApplication already)
    keeps Qt's usual handler.
    """

    def handler(kind: QtMsgType, _context: QMessageLogContext, message: str) -> None:
        if kind == QtMsgType.QtFatalMsg:
            sys.stderr.write(f"tokviz: error: Qt: {terminal_text(message)}\n")

    qInstallMessageHandler(handler)


def prepare_sheet(sheet: QWidget, name: str, dark: bool, colors: TokenColors | None) -> TokenColors:
    """Set up an offscreen sheet: never shown, filled with the theme's base colour; return its token colours."""
    sheet.setObjectName(name)
    sheet.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen)
    sheet.setAutoFillBackground(True)
    palette = app_palette(dark)
    palette.setColor(QPalette.ColorRole.Window, palette.color(QPalette.ColorRole.Base))
    sheet.setPalette(palette)
    return colors or token_colors(dark)


def check_pixels(widget: QWidget, scale: float) -> None:
    size = widget.size()
    if max(size.width(), size.height()) * scale > MAX_PIXELS:
        raise ExportError(
            f"the image would be {round(size.width() * scale)} × {round(size.height() * scale)} pixels; "
            "use a shorter text or a smaller --scale"
        )


def write_sheet(sheet: QWidget, path: str | Path, scale: float, title: str = "tokviz") -> Path:
    """Write an offscreen sheet as a PNG (at ``scale``, within :data:`MAX_PIXELS`) or an SVG,
    chosen by the extension, and discard the sheet."""
    try:
        if Path(path).suffix.lower() == ".png":
            check_pixels(sheet, scale)
        return write_image(sheet, path, scale, title=title)
    finally:
        sheet.hide()
        sheet.deleteLater()
