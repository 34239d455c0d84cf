"""A private X server for the tests that run the real app as a user does (Xvfb, xdotool, screenshots)."""

from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from .environment import console_script


def tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.skip(f"{name} is not installed (apt-get install xvfb xdotool)")
    return path


def tokviz_command() -> tuple[list[str], str]:
    """This environment's ``tokviz`` console script, else ``python -m tokviz`` from this checkout (and which)."""
    script = console_script("tokviz")
    if script is not None:
        return [str(script)], f"installed command {script}"
    return [sys.executable, "-m", "tokviz"], "tokviz is not installed: running 'python -m tokviz' instead"


@contextmanager
def xvfb(tmp_path: Path, size: tuple[int, int]) -> Iterator[str]:
    """A private Xvfb server of ``size`` pixels; yields its DISPLAY value (``:N``)."""
    server = tool("Xvfb")
    read_fd, write_fd = os.pipe()
    with (tmp_path / "xvfb.log").open("wb") as log:
        proc = subprocess.Popen(
            [
                server,
                "-displayfd",
                str(write_fd),
                "-screen",
                "0",
                f"{size[0]}x{size[1]}x24",
                "-nolisten",
                "tcp",
            ],
            pass_fds=(write_fd,),
            stdout=subprocess.DEVNULL,
            stderr=log,
        )
    os.close(write_fd)
    try:
        number = b""
        deadline = time.monotonic() + 20
        while not number.endswith(b"\n"):
            ready, _, _ = select.select([read_fd], [], [], max(0.0, deadline - time.monotonic()))
            chunk = os.read(read_fd, 16) if ready else b""
            if not chunk:
                log = (tmp_path / "xvfb.log").read_text(errors="replace")
                pytest.fail(f"Xvfb did not start within 20 s:\n{log}")
            number += chunk
        yield f":{int(number)}"
    finally:
        os.close(read_fd)
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


def xdotool(display: str, *args: str, timeout: float = 20) -> str:
    proc = subprocess.run(
        ["xdotool", *args],
        env={**os.environ, "DISPLAY": display},
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert proc.returncode == 0, f"xdotool {' '.join(args)} failed: {proc.stderr}"
    return proc.stdout


def read_status(path: Path) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):  # not written yet (the app writes it atomically, so never half)
        return {}


def wait_for(predicate, what: str, app: subprocess.Popen, timeout: float) -> None:  # noqa: ANN001
    deadline = time.monotonic() + timeout
    while not predicate():
        if app.poll() is not None:
            pytest.fail(f"tokviz exited with {app.returncode} while waiting for {what}")
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(0.05)


GRAB_SCRIPT = """
import sys
from PySide6.QtGui import QGuiApplication
app = QGuiApplication(sys.argv[:1])
sys.exit(0 if app.primaryScreen().grabWindow(0).save(sys.argv[1]) else 1)
"""


def screenshot(display: str, path: Path) -> str:
    """Grab the whole screen into ``path``; returns the tool used."""
    env = {**os.environ, "DISPLAY": display, "QT_QPA_PLATFORM": "xcb"}
    if shutil.which("import"):
        command, tool = ["import", "-window", "root", str(path)], "ImageMagick import"
    else:
        command, tool = [sys.executable, "-c", GRAB_SCRIPT, str(path)], "Qt screen grab"
    proc = subprocess.run(command, env=env, capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0 and path.exists(), f"{tool} failed: {proc.stderr}"
    return tool
