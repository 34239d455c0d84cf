"""Reaching a window's parts as the app and its user do: docks, actions and menus by object name.

The window keeps no attribute for tests. A panel is the widget of its dock (``trainDock``,
``vocabDock``, ...), a command is an action (``actionShowIds``), a menu is found by its name
(``viewMenu``), and the parts only actions reach (the exporter, the Lecture menu) are the window's
children. An error the window reports is the text of its error dialog.
"""

from __future__ import annotations

from typing import TypeVar

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QDockWidget, QMenu, QMessageBox, QWidget

from tokviz.gui.window.export import Exporter
from tokviz.gui.window.lecture_menu import LectureMenu

W = TypeVar("W", bound=QObject)


def child(window: QWidget, kind: type[W], name: str | None = None) -> W:
    """The window's one child of ``kind`` (named ``name``, when given)."""
    found = window.findChild(kind, name) if name is not None else window.findChild(kind)
    assert isinstance(found, kind), f"no {kind.__name__} {name or ''} in the window"
    return found


def dock(window: QWidget, name: str) -> QDockWidget:
    """The dock named ``name`` (``trainDock``, ``timelineDock``, ``exchangeChartDock``, ...)."""
    return child(window, QDockWidget, name)


def docked(window: QWidget, name: str, kind: type[W]) -> W:
    """The panel a dock holds: the widget of the dock named ``name``, checked to be a ``kind``."""
    widget = dock(window, name).widget()
    assert isinstance(widget, kind), f"{name} holds {type(widget).__name__}, not {kind.__name__}"
    return widget


def action(window: QWidget, name: str) -> QAction:
    """The action named ``name`` (``actionShowIds``, ``actionTheme_dark``, ``actionQuit``, ...)."""
    return child(window, QAction, name)


def menu(window: QWidget, name: str) -> QMenu:
    """The menu named ``name`` (``fileMenu``, ``viewMenu``, ``recentMenu``, ``samplesMenu``, ...)."""
    return child(window, QMenu, name)


def exporter(window: QWidget) -> Exporter:
    """What File ▸ Export panel… and Copy image run."""
    return child(window, Exporter, "exporter")


def lecture(window: QWidget) -> LectureMenu:
    """What the Lecture menu runs."""
    return child(window, LectureMenu)


def error_text(window: QWidget) -> str | None:
    """The message of the error dialog the window opened last, or None when it shows none."""
    boxes = window.findChildren(QMessageBox, "errorDialog")
    return boxes[-1].text() if boxes else None
