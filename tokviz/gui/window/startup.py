"""Start-up milestones and a machine-readable status file, for tests and benchmarks that drive the real app.

When ``TOKVIZ_READY_FILE`` names a file, the app writes a small JSON status there: once the window
is first painted, and again every time all views hold the tokens of the editor's current text. A
test that launches ``tokviz`` as a user would can wait for that file instead of guessing with sleeps,
and read the token counts without screen-scraping. ``TOKVIZ_QUIT_WHEN_READY=1`` closes the window
(normally, settings saved, exit code 0) once the first tokens are painted, for start-up benchmarks
and smoke tests of a built bundle.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, QObject, QPoint, QRect, QTimer
from PySide6.QtWidgets import QDockWidget, QMainWindow

from tokviz.core.io.atomic import atomic_write_text

if TYPE_CHECKING:
    from tokviz.gui.window.main_window import MainWindow

READY_FILE_ENV = "TOKVIZ_READY_FILE"
QUIT_WHEN_READY_ENV = "TOKVIZ_QUIT_WHEN_READY"
LAYOUT_INTERVAL_MS = 500
REPORT_INTERVAL_ENV = "TOKVIZ_REPORT_INTERVAL_MS"


def report_interval_ms(default: int = LAYOUT_INTERVAL_MS) -> int:
    """How often the status and layout reports are rewritten: ``TOKVIZ_REPORT_INTERVAL_MS`` when it
    holds a whole number of at least 50 ms (a test that walks many states reads them sooner), else
    ``default``."""
    try:
        asked = int(os.environ.get(REPORT_INTERVAL_ENV, ""))
    except ValueError:
        return default
    return asked if asked >= 50 else default


def _rect(r: QRect) -> list[int]:
    return [r.x(), r.y(), r.width(), r.height()]


def layout_status(window: QMainWindow) -> dict[str, Any]:
    """Where the window and its visible docks are on the screen, and whether any is squeezed below
    the size its contents need (then something in it is cut off)."""
    screen = window.screen()
    docks = []
    for dock in window.findChildren(QDockWidget):
        if not dock.isVisible() or dock.visibleRegion().isEmpty():
            continue
        top_left = dock.mapToGlobal(QPoint(0, 0))
        needed = dock.minimumSizeHint()
        docks.append(
            {
                "name": dock.objectName(),
                "rect": [top_left.x(), top_left.y(), dock.width(), dock.height()],
                "needs": [needed.width(), needed.height()],
                "clipped": dock.width() < needed.width() or dock.height() < needed.height(),
            }
        )
    return {
        "screen": _rect(screen.availableGeometry()) if screen is not None else None,
        "window": _rect(window.frameGeometry()),
        "fullscreen": window.isFullScreen(),
        "docks": docks,
    }


class StartupProbe(QObject):
    """Watches one window: when it is first painted, and when its views show the current text's tokens.

    Times are wall-clock seconds (``time.time()``), so a parent process can compare them with the
    moment it launched the app. ``status()`` is what goes to the ready file.
    """

    def __init__(
        self,
        window: MainWindow,
        ready_file: str | os.PathLike[str] | None = None,
        quit_when_ready: bool = False,
    ) -> None:
        super().__init__(window)
        self.window = window
        self.ready_file = Path(ready_file) if ready_file else None
        self.quit_when_ready = quit_when_ready
        self.created = time.time()
        self.shown: float | None = None
        self.tokenized: float | None = None
        self.tokens_painted: float | None = None
        self.updates = 0
        window.installEventFilter(self)
        window.textTokenized.connect(self._on_tokenized)
        if self.ready_file is not None:
            # Keys a test sends (open a panel, switch theme) change the layout without tokenizing:
            # the status follows every half second too.
            self._layout_timer = QTimer(self)
            self._layout_timer.setInterval(report_interval_ms())
            self._layout_timer.timeout.connect(self._write)
            self._layout_timer.start()

    @classmethod
    def from_environment(cls, window: MainWindow) -> StartupProbe | None:
        """A probe configured by ``TOKVIZ_READY_FILE`` / ``TOKVIZ_QUIT_WHEN_READY``, or None when neither is set."""
        ready_file = os.environ.get(READY_FILE_ENV) or None
        quit_when_ready = os.environ.get(QUIT_WHEN_READY_ENV) == "1"
        if ready_file is None and not quit_when_ready:
            return None
        return cls(window, ready_file, quit_when_ready)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            if watched is self.window and self.shown is None:
                self.shown = time.time()
                self._write()
            elif self.tokenized is not None and self.tokens_painted is None:
                QTimer.singleShot(0, self._check_painted)  # after this paint has run
        return False

    def _all_views_painted(self) -> bool:
        """Every view has painted the table it shows now (a view may have painted it before the
        last view was tokenized: views repaint only when what is on their screen changes)."""
        return all(p.view.painted_table is p.view.table is not None for p in self.window.panels)

    def _check_painted(self) -> None:
        if self.tokenized is None or self.tokens_painted is not None or not self._all_views_painted():
            return
        self.tokens_painted = time.time()
        self._write()
        if self.quit_when_ready:
            QTimer.singleShot(0, self.window.close)

    def _on_tokenized(self) -> None:
        self.updates += 1
        if self.tokenized is None:
            self.tokenized = time.time()
            for p in self.window.panels:
                p.view.viewport().installEventFilter(self)
            self._check_painted()
        self._write()

    def status(self) -> dict[str, Any]:
        """Milestones so far, and each view's tokenizer and token count for the editor's current text."""
        window = self.window
        text = window.text
        return {
            "pid": os.getpid(),
            "written": time.time(),
            "created": self.created,
            "shown": self.shown,
            "tokenized": self.tokenized,
            "tokens_painted": self.tokens_painted,
            "ready": window.is_ready(),
            "updates": self.updates,
            "text_chars": len(text),
            "text_sha256": hashlib.sha256(text.encode("utf-8", errors="surrogatepass")).hexdigest(),
            "layout": layout_status(window),
            "views": [
                {"key": p.model.key, "label": window.tokenizers.label(p.model.key), "tokens": count}
                for p, count in zip(window.panels, window.token_counts())
            ],
        }

    def _write(self) -> None:
        if self.ready_file is not None:
            atomic_write_text(self.ready_file, json.dumps(self.status(), indent=1))
