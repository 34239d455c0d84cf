"""Nothing shown cut off: the real app in a real window, at every projector size, mode and theme.

At 1024×768, 1366×768 and 1920×1080 the app is launched as a user launches it (Xvfb, openbox),
the lecture demo is run (Ctrl+Shift+L: the merge timeline), the "Hello, 🌍! 你好!" sample is
chosen (Alt+4: emoji and CJK) and the chart, pre-tokenizer, streaming decode and round-trip panels
are opened. Then in light and dark, normal and presentation mode, each bottom panel is brought to
the front in turn (and in normal mode the Train and Vocabulary docks), and the window's own layout
report (``TOKVIZ_LAYOUT_REPORT``, see tokviz/gui/window/layout_inspect.py) must list nothing:
no label, button, combo box, tab, table cell or header wider than its rectangle (text elided with
"…" is fine while no number is cut), no plot text past its plot, no token box broken across lines
although the token fits on one. Presentation type must grow with the screen: its pixel size at
1080 lines is 1080/768 of the size at 768 lines, within 10 %.

A screenshot of every state is kept under ``build/layout/`` (or the folder ``TOKVIZ_LAYOUT_SHOTS``
names), with ``reports.json``: each state's layout report (what it showed cut off, the window's
size, the font sizes).
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tokviz.gui.text.samples import LECTURE_SAMPLES

from ..x11 import read_status, screenshot, tokviz_command, tool, wait_for, xdotool, xvfb
from .test_projector_sizes import app_env, window_manager

ROOT = Path(__file__).resolve().parents[2]
SHOTS = Path(os.environ.get("TOKVIZ_LAYOUT_SHOTS") or ROOT / "build" / "layout")
SIZES = ((1024, 768), (1366, 768), (1920, 1080))
SETUP_KEYS = ["ctrl+shift+l", "alt+4", "ctrl+shift+b", "ctrl+shift+h", "ctrl+shift+d", "ctrl+shift+j"]
"""The lecture demo (it opens the merge timeline), the multi-script sample, then the other panels."""
SAMPLE = next(s.text for s in LECTURE_SAMPLES if s.title == "Hello, 🌍! 你好!")
"""The sample Alt+4 chooses: Latin, an emoji of four UTF-8 bytes, CJK."""
STATES = (
    ("light", "normal", ["ctrl+alt+l"]),
    ("dark", "normal", ["ctrl+alt+d"]),
    ("dark", "presentation", ["F11"]),
    ("light", "presentation", ["ctrl+alt+l"]),
)
PANELS = (
    ("timeline", "timelineDock", "ctrl+shift+m", None),
    ("chart", "exchangeChartDock", "ctrl+shift+b", ("vocabDock", "ctrl+shift+v")),
    ("pretokenizer", "pretokDock", "ctrl+shift+h", ("trainDock", "ctrl+shift+t")),
    ("streaming", "streamDock", "ctrl+shift+d", None),
    ("roundtrip", "roundTripDock", "ctrl+shift+j", None),
    ("lattice", "latticeDock", "ctrl+shift+u", None),
)
"""Each bottom panel's dock and key (it brings a dock behind another tab to the front) and, in normal
mode, a side dock to bring to the front with it (Vocabulary with the chart, Train again after)."""
SETTLE = 0.2
STEADY_TRIES = 10
PRESENTATION_TOLERANCE = 0.10


def state_name(size: tuple[int, int], theme: str, mode: str, panel: str) -> str:
    return f"{size[0]}x{size[1]}-{mode}-{theme}-{panel}"


class Session:
    """The app running on one screen: keys sent to its window, its layout reports read back."""

    def __init__(self, app: subprocess.Popen, display: str, report_file: Path) -> None:
        self.app, self.display, self.report_file = app, display, report_file
        self.window = xdotool(display, "search", "--sync", "--onlyvisible", "--class", "^tokviz$").split()[0]

    def press(self, *keys: str, settle: float = SETTLE) -> None:
        for key in keys:
            xdotool(self.display, "windowactivate", "--sync", self.window)
            xdotool(self.display, "key", "--clearmodifiers", key)
            time.sleep(settle)

    def report_when(self, shows: Callable[[dict], bool], what: str) -> dict:
        """The first report that ``shows`` what the keys asked for, once the layout has settled: two
        reports in a row name the same problems (a raised dock lays itself out over a few turns)."""
        report: dict = {}

        def arrived() -> bool:
            nonlocal report
            report = read_status(self.report_file)
            return bool(report) and shows(report)

        wait_for(arrived, what, self.app, 30)
        for _ in range(STEADY_TRIES):
            earlier = report
            since = earlier["written"]
            wait_for(
                lambda since=since: read_status(self.report_file).get("written", 0) > since,
                what,
                self.app,
                30,
            )
            report = read_status(self.report_file)
            if report["problems"] == earlier["problems"]:
                break
        return report


def showing(dark: bool, presentation: bool, docks: set[str]) -> Callable[[dict], bool]:
    """Whether a layout report is of the theme and mode asked for, with ``docks`` on the screen."""
    return lambda r: r["dark"] == dark and r["presentation"] == presentation and docks <= set(r["docks"])


def check_one_screen(tmp_path: Path, size: tuple[int, int]) -> dict[str, dict]:
    """Launch the app on a ``size`` screen, walk every state; the layout report of each, by state name."""
    command, _how = tokviz_command()
    ready_file, report_file = tmp_path / "ready.json", tmp_path / "layout.json"
    env = {**app_env(":0", tmp_path / "home", ready_file), "TOKVIZ_LAYOUT_REPORT": str(report_file)}
    reports: dict[str, dict] = {}
    with xvfb(tmp_path, size) as display, window_manager(display):
        env["DISPLAY"] = display
        app = subprocess.Popen(
            command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL
        )
        try:
            wait_for(lambda: read_status(ready_file).get("ready"), "the first tokens", app, 60)
            session = Session(app, display, report_file)
            session.press(*SETUP_KEYS, settle=0.5)
            sample = hashlib.sha256(SAMPLE.encode()).hexdigest()
            wait_for(
                lambda: (r := read_status(ready_file)).get("ready") and r.get("text_sha256") == sample,
                "the sample's tokens",
                app,
                60,
            )
            for theme, mode, keys in STATES:
                session.press(*keys)
                for panel, dock, panel_key, side in PANELS:
                    side = side if mode == "normal" else None
                    session.press(panel_key, *([side[1]] if side else []))
                    name = state_name(size, theme, mode, panel)
                    wanted = {dock, side[0]} if side else {dock}
                    reached = showing(theme == "dark", mode == "presentation", wanted)
                    reports[name] = session.report_when(reached, f"{name} on the screen")
                    screenshot(display, SHOTS / f"{name}.png")
            session.press("ctrl+q", settle=0)
            assert app.wait(30) == 0
        finally:
            if app.poll() is None:
                app.kill()
                app.wait(10)
    return reports


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    """The layout report of every state at every size (one app launch per screen size)."""
    tool("xdotool")
    SHOTS.mkdir(parents=True, exist_ok=True)
    found: dict[str, dict] = {}
    for size in SIZES:
        found.update(check_one_screen(tmp_path_factory.mktemp(f"{size[0]}x{size[1]}"), size))
    (SHOTS / "reports.json").write_text(json.dumps(found, indent=1, ensure_ascii=False), encoding="utf-8")
    return found


@pytest.mark.long_pole
def test_nothing_is_cut_off_at_any_size_mode_or_theme(reports):
    found = [
        f"{name}: {p['kind']} {p['where']} {p['text']!r}"
        + (f" needs {p['needs']} px, has {p['has']}" if p["needs"] or p["has"] else "")
        for name, report in reports.items()
        for p in report["problems"]
    ]
    assert not found, f"{len(found)} things shown cut off (screenshots in {SHOTS}):\n" + "\n".join(found)


@pytest.mark.parametrize("which", ["tokens", "interface"])
def test_presentation_type_grows_with_the_screen_height(reports, which):
    """On a 1080-line projector presentation text is as big a part of the screen as on a 768-line one."""

    def pixels(size: tuple[int, int]) -> int:
        return reports[state_name(size, "light", "presentation", "timeline")]["font_pixels"][which]

    small, large = pixels((1024, 768)), pixels((1920, 1080))
    assert abs(pixels((1366, 768)) / small - 1) <= PRESENTATION_TOLERANCE, (
        "the same screen height, the same type"
    )
    ratio = large / small
    assert abs(ratio / (1080 / 768) - 1) <= PRESENTATION_TOLERANCE, (
        f"presentation {which} text is {small} px at 768 lines and {large} px at 1080 "
        f"(×{ratio:.2f}; the screen grew ×{1080 / 768:.2f})"
    )
