"""A lecturer's projector: the real app in a real X window with a window manager, every panel open.

At 1024×768, 1366×768 and 1920×1080 the app is launched as a user launches it, every panel is
opened with its shortcut, and in the light theme, the dark theme and presentation mode in turn the
window and every dock must lie within the screen and no dock may be squeezed below what its contents need
(the app reports its layout through ``TOKVIZ_READY_FILE``). A screenshot of each is kept under
``build/journeys/`` for people to look at (CI keeps that folder as an artifact).
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from ..x11 import read_status, screenshot, tokviz_command, tool, wait_for, xdotool, xvfb

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "build" / "journeys"
SIZES = ((1024, 768), (1366, 768), (1920, 1080))
MODES = {"light": ["ctrl+alt+l"], "dark": ["ctrl+alt+d"], "presentation": ["F11"]}
# Merge timeline, chart, pre-tokenizer, streaming decode, round trip (the bottom docks share tabs).
PANEL_KEYS = ["ctrl+shift+m", "ctrl+shift+b", "ctrl+shift+h", "ctrl+shift+d", "ctrl+shift+j"]
REPORT_INTERVAL_MS = 150
STEADY_TRIES = 20


@contextmanager
def window_manager(display: str) -> Iterator[None]:
    """Openbox on ``display``: it places, frames and maximises windows as a desktop does."""
    proc = subprocess.Popen(
        [tool("openbox")],
        env={**os.environ, "DISPLAY": display},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    time.sleep(0.5)
    try:
        yield
    finally:
        proc.terminate()
        proc.wait(10)


def app_env(display: str, home: Path, ready_file: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("QT_", "TOKVIZ_"))}
    runtime = home / "runtime"
    runtime.mkdir(mode=0o700, parents=True)
    env.update(
        DISPLAY=display,
        QT_QPA_PLATFORM="xcb",
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_DATA_HOME=str(home / ".local" / "share"),
        XDG_CACHE_HOME=str(home / ".cache"),
        XDG_RUNTIME_DIR=str(runtime),
        TOKVIZ_READY_FILE=str(ready_file),
        # The status and layout reports follow the keys within this many ms: the checks read them sooner.
        TOKVIZ_REPORT_INTERVAL_MS=str(REPORT_INTERVAL_MS),
    )
    return env


def steady_status(ready_file: Path, app: subprocess.Popen, what: str) -> dict:
    """The first status written from now on whose layout the next status repeats: the layout the
    keys sent so far led to, once it has settled (a raised dock lays itself out over a few turns)."""
    status = {"written": time.time()}
    for _ in range(STEADY_TRIES):
        earlier = status

        def newer(since: float = earlier["written"]) -> bool:
            return read_status(ready_file).get("written", 0) > since

        wait_for(newer, what, app, 30)
        status = read_status(ready_file)
        if status.get("layout") == earlier.get("layout"):
            break
    return status


def inside(rect: list[int], screen: list[int], slack: int = 1) -> bool:
    x, y, w, h = rect
    sx, sy, sw, sh = screen
    return x >= sx - slack and y >= sy - slack and x + w <= sx + sw + slack and y + h <= sy + sh + slack


def check_layout(status: dict, size: tuple[int, int], mode: str) -> None:
    """The window and every dock within the screen, no dock squeezed below what it needs."""
    layout = status["layout"]
    screen = [0, 0, *size]
    names = {d["name"] for d in layout["docks"]}
    assert "trainDock" in names and names & {"timelineDock", "roundTripDock"}, (mode, names)
    assert inside(layout["window"], screen), f"{mode}: the window {layout['window']} leaves the {size} screen"
    for dock in layout["docks"]:
        assert inside(dock["rect"], screen), f"{mode}: {dock['name']} at {dock['rect']} is off the screen"
        assert not dock["clipped"], f"{mode}: {dock['name']} is {dock['rect'][2:]} but needs {dock['needs']}"


@pytest.mark.long_pole
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_every_panel_open_fits_the_screen(tmp_path, size):
    """One session per screen size, as a lecturer's: every panel opened, then light, dark and
    presentation mode in turn, each checked and photographed."""
    tool("xdotool")
    command, _how = tokviz_command()
    ready_file = tmp_path / "ready.json"
    with xvfb(tmp_path, size) as display, window_manager(display):
        app = subprocess.Popen(
            command,
            env=app_env(display, tmp_path / "home", ready_file),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            stdin=subprocess.DEVNULL,
        )
        try:
            wait_for(lambda: read_status(ready_file).get("ready"), "the first tokens", app, 60)
            window = xdotool(display, "search", "--sync", "--onlyvisible", "--class", "^tokviz$").split()[0]

            def press(*keys: str, settle: float = 0.2) -> None:
                for key in keys:
                    xdotool(display, "windowactivate", "--sync", window)
                    xdotool(display, "key", "--clearmodifiers", key)
                    time.sleep(settle)

            press(*PANEL_KEYS)
            for mode, keys in MODES.items():
                press(*keys)
                status = steady_status(ready_file, app, f"the layout in {mode}")
                if "trainDock" not in {d["name"] for d in status["layout"]["docks"]}:
                    # Behind the Vocabulary tab (light and dark): its shortcut brings it to the front.
                    press("ctrl+shift+t")
                    status = steady_status(ready_file, app, f"the Train dock in {mode}")
                SHOTS.mkdir(parents=True, exist_ok=True)
                screenshot(display, SHOTS / f"{size[0]}x{size[1]}-{mode}.png")
                check_layout(status, size, mode)
            press("ctrl+q", settle=0)
            assert app.wait(30) == 0
        finally:
            if app.poll() is None:
                app.kill()
                app.wait(10)
