"""The PySide6 desktop interface over the Qt-free core (``tokviz.core``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tokviz.gui.window.main_window import MainWindow

__all__ = ["MainWindow"]


def __getattr__(name: str) -> Any:
    # Imported lazily so that ``import tokviz.gui`` alone does not load Qt.
    if name == "MainWindow":
        from tokviz.gui.window.main_window import MainWindow

        return MainWindow
    raise AttributeError(name)
