"""A lecture on two screens, as a laptop and a projector give it: the slides fill one screen, the
presenter window (notes, next slide, timer) opens on the other.

The app runs in a child process whose Qt sees two screens side by side: Qt's offscreen platform
configured with two screens (``offscreen:configfile=``). An X server is not used because none
here can show Qt two screens: Xvfb's ``+xinerama`` puts every head at 0,0, Qt 6's xcb plugin takes
screens from RandR (not Xinerama), and Xvfb and Xephyr keep one RandR monitor whatever
``xrandr --setmonitor`` asks. A picture of the two screens (each window's grab where it stands) is
kept in ``$TOKVIZ_LECTURE_SHOTS`` (or the test's folder) to look at.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

SCREEN = (1024, 768)

# The child: the lecture started as Lecture ▸ Start starts it, then where each window is, once both show.
LECTURE = textwrap.dedent(
    """
    import json, sys
    from PySide6.QtCore import QPoint, QTimer
    from PySide6.QtGui import QColor, QImage, QPainter
    from PySide6.QtWidgets import QApplication
    from tokviz.core.lecture.deck import default_deck
    from tokviz.gui.lecture.presenter import start_lecture

    app = QApplication(sys.argv[:1])
    out, picture = sys.argv[1], sys.argv[2]
    screens = app.screens()
    if len(screens) != 2:
        json.dump({"screens": len(screens)}, open(out, "w"))
        sys.exit(0)
    view = start_lecture(default_deck())

    def report():
        presenter = view.presenter
        if presenter is None or view.content is None or presenter.next.layout_ is None:
            return
        desktop = screens[0].virtualGeometry()
        image = QImage(desktop.size(), QImage.Format.Format_RGB32)
        image.fill(QColor("black"))
        painter = QPainter(image)
        for window in (presenter, view):
            painter.drawPixmap(window.geometry().topLeft() - desktop.topLeft(), window.grab())
        painter.end()
        image.save(picture)
        status = {
            "screens": [list(s.geometry().getRect()) for s in screens],
            "slides": list(view.geometry().getRect()),
            "slides_screen": screens.index(view.screen()),
            "full_screen": view.isFullScreen(),
            "presenter": list(presenter.geometry().getRect()),
            "presenter_screen": screens.index(presenter.screen()),
            "notes": presenter.notes.toPlainText(),
            "timer": presenter.elapsed.text(),
            "next": presenter.next.layout_ is not None,
        }
        json.dump(status, open(out, "w"))
        app.quit()

    timer = QTimer()
    timer.timeout.connect(report)
    timer.start(100)
    sys.exit(app.exec())
    """
)


def two_screens(folder: Path) -> Path:
    """A configuration of Qt's offscreen platform: two screens of ``SCREEN``, side by side."""
    screens = [
        {"name": name, "x": x, "y": 0, "width": SCREEN[0], "height": SCREEN[1], "logicalDpi": 96,
         "logicalBpp": 32, "dpr": 1}
        for name, x in (("laptop", 0), ("projector", SCREEN[0]))
    ]  # fmt: skip
    path = folder / "two-screens.json"
    path.write_text(json.dumps({"screens": screens}), encoding="utf-8")
    return path


def inside(rect: list[int], screen: list[int]) -> bool:
    x, y, w, h = rect
    sx, sy, sw, sh = screen
    return sx <= x and sy <= y and x + w <= sx + sw and y + h <= sy + sh


def test_the_slides_fill_one_screen_and_the_presenter_window_the_other(tmp_path: Path) -> None:
    shots = Path(os.environ.get("TOKVIZ_LECTURE_SHOTS", tmp_path))
    shots.mkdir(parents=True, exist_ok=True)
    status_file, picture = tmp_path / "status.json", shots / "two-screens.png"
    env = {k: v for k, v in os.environ.items() if not k.startswith("QT_")}
    env["QT_QPA_PLATFORM"] = f"offscreen:configfile={two_screens(tmp_path)}"
    done = subprocess.run(
        [sys.executable, "-c", LECTURE, str(status_file), str(picture)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    status = json.loads(status_file.read_text(encoding="utf-8"))
    if status["screens"] == 1:
        pytest.skip("this Qt's offscreen platform takes no screen configuration: it shows one screen")

    laptop, projector = status["screens"]
    assert status["slides_screen"] == 1 and status["full_screen"], "the slides go on the projector"
    assert status["slides"] == projector, "and fill it"
    assert status["presenter_screen"] == 0 and inside(status["presenter"], laptop), "the presenter stays home"
    assert status["notes"].strip() and re.fullmatch(r"\d\d:\d\d", status["timer"]) and status["next"], (
        "notes, timer, next"
    )
    assert picture.exists()
