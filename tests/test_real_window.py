"""The real app in a real window: launch the installed ``tokviz`` under Xvfb, type a line, check, quit.

This is the one test that goes through everything a user does: the console script, the xcb platform
plugin, an X server, real key events. It starts its own Xvfb (a free display number chosen by the
server itself via ``-displayfd``), launches ``tokviz`` with no arguments and with fresh config and
data folders, finds the window with ``xdotool search --sync``, types a line with ``xdotool type``,
takes a screenshot of the whole screen (ImageMagick's ``import``, or Qt's own screen grab when
ImageMagick is missing), and checks that the window is not blank and that every view shows exactly
as many tokens as the core computes. The app reports its views' token counts through the status
file named by ``TOKVIZ_READY_FILE`` (see tokviz/gui/window/startup.py). Finally Ctrl+Q must close it with
exit code 0 and no Qt warnings on stderr.

Qt warnings are lines matching :data:`QT_WARNING`. Ignored (harmless, about the test machine, not
the app): :data:`IGNORED_WARNINGS`, the XDG_RUNTIME_DIR notices. The test gives the app a private
0700 runtime folder, so in practice nothing is ignored.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from .x11 import read_status, screenshot, tokviz_command, tool, wait_for, xdotool, xvfb

# A real X server and the installed app, launched anew for each test: the slow lane.
pytestmark = [pytest.mark.gui, pytest.mark.slow]

LINE = "Hello tokviz, typed by xdotool: 12345 tokens!"
QT_WARNING = re.compile(
    r"QWidget::|QPainter::|QObject::|QThread|Qt:|qt\.|QXcb|QFont|Traceback|unexpected error"
)
IGNORED_WARNINGS = (
    re.compile(r"QStandardPaths: XDG_RUNTIME_DIR not set"),
    re.compile(r"QStandardPaths: (wrong permissions on|runtime directory)"),
)
SCREEN = (1600, 1000)


@pytest.fixture
def display(tmp_path: Path) -> Iterator[str]:
    """A private Xvfb server; yields its DISPLAY value (``:N``)."""
    with xvfb(tmp_path, SCREEN) as name:
        yield name


def pixel_spread(path: Path, box: tuple[int, int, int, int]) -> tuple[float, int]:
    """Standard deviation of grey levels and number of distinct colours inside ``box`` (x, y, w, h)."""
    from PySide6.QtGui import QImage

    image = QImage(str(path))
    assert not image.isNull(), f"cannot read the screenshot {path}"
    x0, y0, w, h = box
    greys, colours = [], set()
    for y in range(y0, min(y0 + h, image.height()), 4):
        for x in range(x0, min(x0 + w, image.width()), 4):
            rgb = image.pixel(x, y) & 0xFFFFFF
            colours.add(rgb)
            greys.append(((rgb >> 16) + ((rgb >> 8) & 0xFF) + (rgb & 0xFF)) / 3)
    mean = sum(greys) / len(greys)
    return (sum((g - mean) ** 2 for g in greys) / len(greys)) ** 0.5, len(colours)


def test_the_installed_app_opens_a_window_tokenizes_typed_text_and_quits_cleanly(display, tmp_path):
    tool("xdotool")
    command, how = tokviz_command()
    print(f"launching: {how}")
    home = tmp_path / "home"
    runtime = tmp_path / "runtime"
    for folder in (home, runtime):
        folder.mkdir(mode=0o700)
    ready_file = tmp_path / "ready.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("QT_", "TOKVIZ_"))}
    env.update(
        DISPLAY=display,
        QT_QPA_PLATFORM="xcb",
        QT_FORCE_STDERR_LOGGING="1",
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_DATA_HOME=str(home / ".local" / "share"),
        XDG_CACHE_HOME=str(home / ".cache"),
        XDG_RUNTIME_DIR=str(runtime),
        TOKVIZ_READY_FILE=str(ready_file),
    )
    stderr_path = tmp_path / "tokviz.stderr"
    with stderr_path.open("wb") as stderr:
        app = subprocess.Popen(
            command, env=env, stdout=subprocess.DEVNULL, stderr=stderr, stdin=subprocess.DEVNULL
        )
    try:
        # 1. The window appears and its views show the default text's tokens.
        found = xdotool(
            display, "search", "--sync", "--onlyvisible", "--name", "^tokviz$", timeout=60
        ).split()
        assert found, "no visible window named tokviz"
        window_id = found[0]
        classed = xdotool(display, "search", "--class", "^tokviz$").split()
        assert window_id in classed, "WM_CLASS must match StartupWMClass in packaging/*.desktop"
        wait_for(
            lambda: read_status(ready_file).get("tokens_painted"), "the first tokens to be painted", app, 60
        )

        # 2. Type a line in place of the default text, as a user would.
        xdotool(display, "windowfocus", "--sync", window_id)
        xdotool(display, "key", "--clearmodifiers", "ctrl+e", "ctrl+a")
        xdotool(display, "type", "--delay", "15", LINE)
        digest = hashlib.sha256(LINE.encode()).hexdigest()
        wait_for(
            lambda: (s := read_status(ready_file)).get("text_sha256") == digest and s.get("ready"),
            f"the views to show the tokens of {LINE!r}",
            app,
            30,
        )
        time.sleep(0.3)  # the repaint after the last update

        # 3. The screenshot shows a real, drawn window, not a blank rectangle.
        shot = tmp_path / "screen.png"
        grabber = screenshot(display, shot)
        geometry = xdotool(display, "getwindowgeometry", "--shell", window_id)
        g = dict(line.split("=", 1) for line in geometry.split())
        box = (int(g["X"]), int(g["Y"]), int(g["WIDTH"]), int(g["HEIGHT"]))
        assert box[2] >= 600 and box[3] >= 400, f"window too small: {box}"
        spread, colours = pixel_spread(shot, box)
        assert spread > 10 and colours > 50, f"the window looks blank in the {grabber} screenshot {shot}"

        # 4. Every view shows exactly the core's token count for the typed line.
        from tokviz.core.formats.registry import load_tokenizer

        views = read_status(ready_file)["views"]
        assert [v["key"] for v in views] == ["gpt2", "cl100k"], "a fresh profile opens GPT-2 and cl100k"
        for view in views:
            assert view["tokens"] == len(load_tokenizer(view["key"]).encode(LINE)), view

        # 5. Ctrl+Q quits normally.
        xdotool(display, "key", "--clearmodifiers", "ctrl+q")
        try:
            returncode = app.wait(30)
        except subprocess.TimeoutExpired:
            pytest.fail("tokviz did not exit within 30 s of Ctrl+Q")
    finally:
        if app.poll() is None:
            app.kill()
            app.wait(10)
    log = stderr_path.read_text(encoding="utf-8", errors="replace")
    assert returncode == 0, f"tokviz exited with {returncode}:\n{log}"
    warnings = [
        line
        for line in log.splitlines()
        if QT_WARNING.search(line) and not any(p.search(line) for p in IGNORED_WARNINGS)
    ]
    assert warnings == [], "Qt warnings or errors on stderr:\n" + log
    assert list((home / ".local" / "share").rglob("autosave-*")) == [], "a clean exit leaves no autosave"
    assert (home / ".config" / "tokviz" / "tokviz.ini").exists(), "settings are saved on quit"
