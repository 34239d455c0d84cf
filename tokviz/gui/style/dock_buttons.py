"""Dock title-bar buttons (float, close) drawn in the theme's text colour.

Fusion draws them as fixed grey pixmaps: on the dark theme they are grey on dark grey and nearly
invisible when projected. These icons are painted with the palette's window-text colour, so they
read as well as the dock's title in either theme.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QIcon, QPainter, QPen, QPixmap
from PySide6.QtWidgets import QAbstractButton, QDockWidget, QWidget

CLOSE = "qt_dockwidget_closebutton"
FLOAT = "qt_dockwidget_floatbutton"


def button_icon(kind: str, colour: QColor, size: int = 16, ratio: float = 2.0) -> QIcon:
    """A close cross (``CLOSE``) or two overlapping windows (``FLOAT``) in ``colour``."""
    pixmap = QPixmap(round(size * ratio), round(size * ratio))
    pixmap.setDevicePixelRatio(ratio)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(QPen(colour, 1.6, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap))
    if kind == CLOSE:
        painter.drawLine(QPointF(4.5, 4.5), QPointF(11.5, 11.5))
        painter.drawLine(QPointF(11.5, 4.5), QPointF(4.5, 11.5))
    else:
        painter.drawRect(QRectF(3.5, 6.5, 6.5, 6.5))
        painter.drawPolyline(
            [QPointF(6.5, 6.5), QPointF(6.5, 3.5), QPointF(13, 3.5), QPointF(13, 10), QPointF(10, 10)]
        )
    painter.end()
    return QIcon(pixmap)


def recolour_dock_buttons(window: QWidget) -> int:
    """Give every dock of ``window`` float and close icons in its palette's text colour; returns
    how many buttons were changed (call it again after the theme changes)."""
    colour = window.palette().color(window.foregroundRole())
    icons = {kind: button_icon(kind, colour) for kind in (CLOSE, FLOAT)}
    changed = 0
    for dock in window.findChildren(QDockWidget):
        for kind, icon in icons.items():
            button = dock.findChild(QAbstractButton, kind)
            if button is not None:
                button.setIcon(icon)
                changed += 1
    return changed
