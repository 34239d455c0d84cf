"""Start-up failures speak English: one line that says what to do, exit 1, before Qt loads."""

from __future__ import annotations

import os
import subprocess
import sys

from tokviz.gui.preflight import display_problem, qt_import_problem


def every_library(name: str) -> str:
    return f"lib{name}.so"


def test_no_display_is_named_as_such():
    problem = display_problem({}, every_library, "linux")
    assert problem is not None and "DISPLAY is not set" in problem and "tokviz -h" in problem


def test_headless_platforms_and_wayland_need_no_x_display():
    assert display_problem({"QT_QPA_PLATFORM": "offscreen"}, every_library, "linux") is None
    assert display_problem({"WAYLAND_DISPLAY": "wayland-0"}, every_library, "linux") is None
    assert display_problem({}, every_library, "darwin") is None


def test_a_display_without_an_x_server(tmp_path):
    problem = display_problem({"DISPLAY": ":987"}, every_library, "linux")
    assert problem == "cannot connect to the X display :987 (no X server is running there)"


def test_missing_xcb_libraries_are_named_with_their_packages():
    def no_cursor(name: str) -> str | None:
        return None if name == "xcb-cursor" else f"lib{name}.so"

    # A display on another host cannot be probed for a server, so the libraries are checked next.
    problem = display_problem({"DISPLAY": "remote-host:0"}, no_cursor, "linux")
    assert problem is not None
    assert "libxcb-cursor0 (Debian/Ubuntu)" in problem and "xcb-util-cursor (Fedora)" in problem
    assert "icccm" not in problem


def test_qt_that_cannot_load_a_system_library_says_what_to_install():
    message = qt_import_problem(ImportError("libEGL.so.1: cannot open shared object file"))
    assert "libEGL.so.1" in message and "libegl1" in message


def test_the_command_without_a_display_exits_1_with_one_line():
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    done = subprocess.run(
        [sys.executable, "-m", "tokviz"], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 1
    assert done.stderr.strip().count("\n") == 0 and done.stderr.startswith("tokviz: no display")
    assert "Traceback" not in done.stderr and done.stdout == ""
