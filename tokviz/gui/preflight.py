"""Why the window cannot open, in one English line, found before Qt is loaded.

Without a display, or without a system library the xcb platform plugin needs, Qt prints a dozen
lines that blame the wrong thing (it names libxcb-cursor0 when the real cause is "could not connect
to display") and then aborts the interpreter. These checks run first, need no Qt, and say what to
do. They only refuse what would certainly fail; anything uncertain is left to Qt.
"""

from __future__ import annotations

import ctypes.util
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

# Qt platforms that need no display server.
HEADLESS_PLATFORMS = ("offscreen", "minimal", "vnc", "eglfs", "linuxfb", "vkkhrdisplay")
# The shared libraries Qt 6's xcb plugin loads, with the packages that provide them.
XCB_LIBRARIES = {
    "xcb-cursor": "libxcb-cursor0 (Debian/Ubuntu) or xcb-util-cursor (Fedora)",
    "xkbcommon-x11": "libxkbcommon-x11-0 (Debian/Ubuntu) or libxkbcommon-x11 (Fedora)",
    "xcb-icccm": "libxcb-icccm4 (Debian/Ubuntu) or xcb-util-wm (Fedora)",
    "xcb-keysyms": "libxcb-keysyms1 (Debian/Ubuntu) or xcb-util-keysyms (Fedora)",
    "xcb-image": "libxcb-image0 (Debian/Ubuntu) or xcb-util-image (Fedora)",
    "xcb-render-util": "libxcb-render-util0 (Debian/Ubuntu) or xcb-util-renderutil (Fedora)",
}
# What to install when the Qt libraries themselves cannot load.
QT_LIBRARIES = (
    "libegl1 libgl1 libxkbcommon0 libfontconfig1 libdbus-1-3 (Debian/Ubuntu; Fedora: mesa-libEGL mesa-libGL)"
)


def _x_server_reachable(display: str) -> bool | None:
    """True or False for a local display (``:0``, ``unix:1.0``); None when it cannot be told (TCP)."""
    host, _, rest = display.rpartition(":")
    number = rest.split(".")[0]
    if host not in ("", "unix") or not number.isdigit():
        return None
    return Path(f"/tmp/.X11-unix/X{number}").exists()


def display_problem(
    environ: Mapping[str, str] | None = None,
    find_library: Callable[[str], str | None] = ctypes.util.find_library,
    platform: str = sys.platform,
) -> str | None:
    """One line saying why the window cannot open here, or None when it should."""
    env = os.environ if environ is None else environ
    if not platform.startswith("linux"):
        return None
    chosen = env.get("QT_QPA_PLATFORM", "").split(":")[0].strip().lower()
    if chosen in HEADLESS_PLATFORMS:
        return None
    display, wayland = env.get("DISPLAY", ""), env.get("WAYLAND_DISPLAY", "")
    if chosen == "wayland" or (wayland and not chosen):
        return None if wayland else "no Wayland display: WAYLAND_DISPLAY is not set"
    if not display:
        return (
            "no display to open the window on (DISPLAY is not set): start tokviz from a desktop session, "
            "or use its subcommands, which need no display (tokviz -h)"
        )
    if _x_server_reachable(display) is False:
        return f"cannot connect to the X display {display} (no X server is running there)"
    if find_library("xcb") is None:
        return None  # the library search itself does not work here (no ldconfig): let Qt try
    missing = [package for library, package in XCB_LIBRARIES.items() if find_library(library) is None]
    if missing:
        return "the window needs system libraries that are not installed: " + "; ".join(missing)
    return None


def qt_import_problem(exc: ImportError) -> str:
    """An ImportError from loading Qt, as what to install."""
    text = str(exc)
    if ".so" in text:
        return f"Qt cannot load a system library ({text}); install {QT_LIBRARIES}"
    return f"the desktop app is not available ({text}); the subcommands work without it, see 'tokviz -h'"
