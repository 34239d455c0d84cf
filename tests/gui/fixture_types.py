"""The types of the GUI fixtures that hand a test a function rather than a widget.

Qt is imported for the type checker only: conftest imports this module, and the Qt-free tests in
this folder run without Qt.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from PySide6.QtCore import QSettings

    from tokviz.gui.settings import Settings
    from tokviz.gui.window.main_window import MainWindow


class MakeWindow(Protocol):
    """The ``make_window`` fixture: opens a main window, shown and tokenized, closed after the test."""

    def __call__(
        self,
        text: str | None = None,
        size: tuple[int, int] = (1280, 800),
        settings: QSettings | Settings | None = None,
    ) -> MainWindow: ...
