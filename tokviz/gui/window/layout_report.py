"""A running window's layout report, for tests that check the real app on real screens.

When ``TOKVIZ_LAYOUT_REPORT`` names a file, the window writes a JSON report there every half second
(or every ``TOKVIZ_REPORT_INTERVAL_MS``):
everything shown cut off (see :mod:`tokviz.gui.window.layout_inspect`), the screen's and the
window's geometry, the docks on screen, the mode and theme, and the pixel sizes of the window's and the token views' fonts, so a
test can check that presentation type grows with the screen. A test sends keys, waits for a report
written after them, and reads it; nothing is computed when the variable is not set.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QTimer
from PySide6.QtGui import QFontInfo
from PySide6.QtWidgets import QDockWidget

from tokviz.core.io.atomic import atomic_write_text
from tokviz.gui.window.layout_inspect import layout_problems, shown
from tokviz.gui.window.startup import report_interval_ms

if TYPE_CHECKING:
    from tokviz.gui.window.main_window import MainWindow

LAYOUT_REPORT_ENV = "TOKVIZ_LAYOUT_REPORT"
REPORT_INTERVAL_MS = 500


def layout_report(window: MainWindow) -> dict[str, Any]:
    """What ``window`` shows cut off, with the geometry and font sizes it was measured at."""
    screen = window.screen()
    size = screen.geometry() if screen is not None else None
    views = [panel.view for panel in window.panels]
    return {
        "written": time.time(),
        "screen": [size.width(), size.height()] if size is not None else None,
        "window": [window.width(), window.height()],
        "fullscreen": window.isFullScreen(),
        "presentation": window.presentation.active,
        "dark": window.is_dark(),
        "docks": sorted(dock.objectName() for dock in window.findChildren(QDockWidget) if shown(dock)),
        "font_pixels": {
            "interface": QFontInfo(window.font()).pixelSize(),
            "tokens": QFontInfo(views[0].font()).pixelSize() if views else None,
        },
        "problems": [problem.to_json() for problem in layout_problems(window)],
    }


class LayoutReporter(QObject):
    """Writes :func:`layout_report` of one window to ``path`` every half second."""

    def __init__(self, window: MainWindow, path: str | os.PathLike[str]) -> None:
        super().__init__(window)
        self.window = window
        self.path = Path(path)
        self._timer = QTimer(self)
        self._timer.setInterval(report_interval_ms(REPORT_INTERVAL_MS))
        self._timer.timeout.connect(self.write)
        self._timer.start()

    @classmethod
    def from_environment(cls, window: MainWindow) -> LayoutReporter | None:
        """A reporter writing to the file ``TOKVIZ_LAYOUT_REPORT`` names, or None when it is not set."""
        path = os.environ.get(LAYOUT_REPORT_ENV)
        return cls(window, path) if path else None

    def write(self) -> None:
        """Measure the window now and replace the report file (atomically: a reader never sees half)."""
        if self.window.isVisible():
            atomic_write_text(self.path, json.dumps(layout_report(self.window), indent=1, ensure_ascii=False))
