"""A lecture given from the real app: F5 in a real X window, then the whole default deck with the clicker.

At 1024×768, 1366×768 and 1920×1080 the app starts as a user starts it, F5 opens the deck full
screen and the clicker's keys (Right, PageDown, Space, Enter, a number then Enter, PageUp) walk
every slide and every merge step. The app writes a line per slide it shows (``TOKVIZ_LECTURE_REPORT``):
the slide must fill the screen, lie on the canvas of the screen's shape, and have no text clipped,
no token box cut, nothing squeezed off the canvas and no text shrunk under 20 pixels on a
projector. Each slide's screenshot is kept in ``$TOKVIZ_LECTURE_SHOTS`` (or the test's own folder)
for people to look at; Esc returns to the window.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from tokviz.core.lecture.deck import default_deck

from ..x11 import read_status, screenshot, tokviz_command, tool, wait_for, xdotool, xvfb
from .test_projector_sizes import SIZES, app_env, window_manager

DECK = default_deck()
STEPS = [(n, s) for n, slide in enumerate(DECK.slides, 1) for s in range(1, slide.steps + 1)]
# The worked examples' figures, as the slide on screen states them (its own model, via the report).
SEED_FIGURES = {
    (2, 1): {"code points": "U+0048 U+0069 U+0020 U+1F30D", "bytes": "48 69 20 F0 9F 8C 8D"},
    (6, 1): {"tokens": "18"},
    (6, 2): {"tokens": "18 → 16"},
    (6, 3): {"tokens": "18 → 16 → 14"},
    (6, 4): {"tokens": "18 → 16 → 14 → 12"},
    (7, 1): {"tokens": "16"},
    (9, 1): {"bytes": "20", "GPT-2 tokens": "12"},
}
CLICKER_NEXT = ["Right", "Next", "space", "Return"]  # Next is PageDown's X name


def shown(report: Path) -> list[dict]:
    try:
        lines = report.read_text(encoding="utf-8").splitlines()
    except OSError:
        return []
    return [json.loads(line) for line in lines if line.endswith("}")]


def check_slide(line: dict, size: tuple[int, int]) -> None:
    where = f"slide {line['slide']} step {line['step']} at {size[0]}x{size[1]}"
    assert line["window"] == list(size), f"{where}: the lecture is {line['window']}, not the whole screen"
    wide = size[0] / size[1] >= 1.55
    assert line["canvas"] == [1600.0 if wide else 1200.0, 900.0], f"{where}: canvas {line['canvas']}"
    assert not line["overflow"], f"{where}: the content does not fit its canvas"
    assert line["clipped"] == [], f"{where}: clipped text {line['clipped']}"
    assert line["elided"] == [], f"{where}: token boxes cut short {line['elided']}"
    assert line["legible"], (
        f"{where}: shrunk to {line['layout_scale']}, text under 20 px on a 1024x768 projector"
    )


@pytest.mark.long_pole
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_whole_deck_walked_with_the_clicker_fits_every_screen(tmp_path, size):
    tool("xdotool")
    command, _how = tokviz_command()
    ready_file, report = tmp_path / "ready.json", tmp_path / "slides.jsonl"
    shots = Path(os.environ.get("TOKVIZ_LECTURE_SHOTS") or tmp_path / "shots") / f"{size[0]}x{size[1]}"
    shots.mkdir(parents=True, exist_ok=True)
    with xvfb(tmp_path, size) as display, window_manager(display):
        env = {**app_env(display, tmp_path / "home", ready_file), "TOKVIZ_LECTURE_REPORT": str(report)}
        app = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               stdin=subprocess.DEVNULL)  # fmt: skip
        try:
            wait_for(lambda: read_status(ready_file).get("ready"), "the first tokens", app, 60)
            main = xdotool(display, "search", "--sync", "--onlyvisible", "--class", "^tokviz$").split()[0]
            xdotool(display, "windowactivate", "--sync", main)
            xdotool(display, "key", "--clearmodifiers", "F5")

            def press(key: str) -> None:
                xdotool(display, "key", "--clearmodifiers", key)

            def arrive(slide: int, step: int) -> dict:
                def there() -> bool:
                    lines = shown(report)
                    return bool(lines) and (lines[-1]["slide"], lines[-1]["step"]) == (slide, step)

                wait_for(there, f"slide {slide} step {step}", app, 30)
                time.sleep(0.25)  # painted
                return shown(report)[-1]

            seen = []
            for i, (slide, step) in enumerate(STEPS):
                if i:
                    press(CLICKER_NEXT[i % len(CLICKER_NEXT)])
                line = arrive(slide, step)
                check_slide(line, size)
                for name, value in SEED_FIGURES.get((slide, step), {}).items():
                    assert line["figures"][name] == value, (slide, step, name)
                screenshot(display, shots / f"slide-{slide:02d}-{step}.png")
                seen.append((line["slide"], line["step"]))
            assert seen == STEPS
            for key in ("6", "Return"):
                press(key)
            assert arrive(6, 1)["figures"]["tokens"] == "18"
            press("Prior")  # PageUp: back to the last step of slide 5
            arrive(5, 1)
            press("Escape")
            wait_for(lambda: "lectureView" not in _visible_names(display), "the lecture to close", app, 20)
            xdotool(display, "windowactivate", "--sync", main)
            xdotool(display, "key", "--clearmodifiers", "ctrl+q")
            assert app.wait(30) == 0
        finally:
            if app.poll() is None:
                app.kill()
                app.wait(10)


def _visible_names(display: str) -> str:
    try:
        ids = xdotool(display, "search", "--onlyvisible", "--name", "Tokenization").split()
    except AssertionError:  # xdotool search exits 1 when nothing matches
        return ""
    return "lectureView" if ids else ""
