"""Where the window goes: its first size, back on screen after growing, and docks parked off screen."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QSize
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QDockWidget, QTabBar, QWidget

DEFAULT_SIZE = QSize(1360, 860)


def first_size(window: QWidget) -> QSize:
    """The size of a first launch: 1360 × 860, or the screen's free area on a smaller screen."""
    screen = window.screen() or QGuiApplication.primaryScreen()
    if screen is None:
        return DEFAULT_SIZE  # type: ignore[unreachable]  # Qt's stubs say never None; a window off every screen has none
    free = screen.availableGeometry()
    # Leave room for the window manager's frame, title bar and where it places a new window
    # (openbox: 45 px down; 40 px left a 1024 x 768 screen's bottom 10 px cut off).
    return DEFAULT_SIZE.boundedTo(QSize(free.width() - 16, free.height() - 64))


def keep_on_screen(window: QWidget) -> None:
    """Move a window that grew past the screen's free area back inside it (never off its top-left)."""
    screen = window.screen()
    if screen is None or window.isMaximized() or window.isFullScreen() or not window.isVisible():
        return
    free = screen.availableGeometry()
    frame = window.frameGeometry()
    dx = max(0, frame.right() - free.right())
    dy = max(0, frame.bottom() - free.bottom())
    if dx or dy:
        window.move(QPoint(max(free.left(), frame.left() - dx), max(free.top(), frame.top() - dy)))


def in_hidden_dock_tab(widget: QWidget) -> bool:
    """Whether ``widget`` is kept off the screen by the main window: in a dock whose tab is behind
    another, or a dock area's spare tab bar (Qt parks both outside the window, still "visible")."""
    if isinstance(widget, QTabBar):
        return widget.visibleRegion().isEmpty()
    parent: QWidget | None = widget
    while parent is not None and not isinstance(parent, QDockWidget):
        parent = parent.parentWidget()
    return parent is not None and parent.visibleRegion().isEmpty()
