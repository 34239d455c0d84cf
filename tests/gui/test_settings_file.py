"""The settings file is read only as a regular file of bounded size and never written over anything else.

A FIFO in its place, a device behind a link, a folder, a file of hundreds of megabytes or one that
cannot be read: the app starts with the default settings, says so in one line, and leaves the
path as it found it. A link to a regular file is written through (the link stays). The app itself
is launched on such files as a user would start it, with ``XDG_CONFIG_HOME`` in a temporary
folder and its address space capped at what a normal start needs plus 300 MB.
"""

from __future__ import annotations

import json
import os
import resource
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtWidgets import QWidget

from tokviz.gui.settings import (
    MAX_LIST_ITEMS,
    POINT_SIZE,
    RECENT_FILES,
    TEXT,
    THEME,
    VIEWS,
    Settings,
)
from tokviz.gui.settings_file import SETTINGS_FILE_CAP, SettingsFile

from ..cli.helpers import ROOT, child_env

# A normal start offscreen stays under 0.9 GB of address space; the cap leaves 300 MB above that.
ADDRESS_CAP = 1_200_000_000
LAUNCH_TIMEOUT = 60
IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


def settings_path(tmp_path: Path) -> Path:
    """Where the tests' QSettings (tests/gui/conftest.py) keep tokviz's settings file."""
    path = tmp_path / "settings" / "tokviz" / "tokviz.ini"
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def identity(path: Path) -> tuple[int, int, int]:
    """What must not change about a path that is not a regular file: its kind, device and inode."""
    st = os.lstat(path)
    return st.st_mode, st.st_rdev, st.st_ino


def char_device(path: Path) -> Path:
    """A character device node of our own (the null device's numbers) at ``path``: root only."""
    os.mknod(path, stat.S_IFCHR | 0o600, os.makedev(1, 3))
    return path


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_the_window_says_why_the_settings_were_not_used_in_place_of_the_counts(tmp_path, make_window):
    os.mkfifo(settings_path(tmp_path))
    window = make_window()
    message = window.statusBar().currentMessage()
    assert message.startswith("the settings file ") and "FIFO" in message
    counts = window.findChild(QWidget, "statusStats")
    assert counts is not None and not counts.isVisible()  # the message is not drawn over the counts
    window.statusBar().clearMessage()
    assert counts.isVisible()


# ---------------------------------------------------------------- the guard, in this process
@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_in_place_of_the_settings_file_gives_defaults_and_stays_a_fifo(tmp_path):
    ini = settings_path(tmp_path)
    os.mkfifo(ini)
    before = identity(ini)
    settings = Settings()
    assert "FIFO" in (settings.file_problem() or "") and "default settings" in (settings.file_problem() or "")
    assert settings.get(THEME) == THEME.default
    settings.set(THEME, "dark")
    settings.sync()
    assert identity(ini) == before


@pytest.mark.skipif(not IS_ROOT, reason="making a device node needs root")
def test_a_link_to_a_device_is_never_replaced(tmp_path):
    device = char_device(tmp_path / "device")
    ini = settings_path(tmp_path)
    ini.symlink_to(device)
    before, link_before = identity(device), identity(ini)
    settings = Settings()
    assert "character device" in (settings.file_problem() or "")
    settings.set(POINT_SIZE, 20.0)
    settings.sync()
    assert identity(device) == before and identity(ini) == link_before


def test_a_file_over_the_cap_is_not_read_nor_overwritten(tmp_path):
    ini = settings_path(tmp_path)
    with ini.open("wb") as fh:  # sparse: 4 GB on paper, nothing on disk
        fh.truncate(4 << 30)
    settings = Settings()
    assert "larger than" in (settings.file_problem() or "")
    settings.set(THEME, "dark")
    settings.sync()
    assert ini.stat().st_size == 4 << 30


@pytest.mark.parametrize("kind", ["folder", "link loop", "link to nothing"])
def test_other_unusable_paths_are_left_as_they_are(tmp_path, kind):
    ini = settings_path(tmp_path)
    if kind == "folder":
        ini.mkdir()
    elif kind == "link loop":
        ini.symlink_to(ini)
    else:
        ini.symlink_to(tmp_path / "elsewhere" / "settings.ini")
    before = identity(ini)
    settings = Settings()
    assert settings.file_problem() is not None
    settings.set(THEME, "dark")
    settings.sync()
    assert identity(ini) == before
    assert not (tmp_path / "elsewhere").exists()


@pytest.mark.skipif(IS_ROOT or os.name != "posix", reason="root reads any file")
def test_an_unreadable_file_is_kept(tmp_path):
    ini = settings_path(tmp_path)
    ini.write_text("[General]\ntheme=dark\n", encoding="utf-8")
    ini.chmod(0)
    try:
        settings = Settings()
        assert "cannot be opened" in (settings.file_problem() or "")
        settings.set(THEME, "light")
        settings.sync()
    finally:
        ini.chmod(0o600)
    assert ini.read_text(encoding="utf-8") == "[General]\ntheme=dark\n"


def test_a_link_to_a_regular_file_is_written_through_and_stays_a_link(tmp_path):
    target = tmp_path / "dotfiles" / "tokviz.ini"
    target.parent.mkdir()
    target.write_text("[General]\ntheme=dark\n", encoding="utf-8")
    ini = settings_path(tmp_path)
    ini.symlink_to(target)
    settings = Settings()
    assert settings.file_problem() is None and settings.get(THEME) == "dark"
    settings.set(POINT_SIZE, 21.0)
    settings.sync()
    assert ini.is_symlink() and "pointSize=21" in target.read_text(encoding="utf-8")


def test_a_normal_file_is_read_and_saved(tmp_path):
    ini = settings_path(tmp_path)
    ini.write_text("[General]\ntheme=dark\n", encoding="utf-8")
    settings = Settings()
    assert settings.file_problem() is None and settings.get(THEME) == "dark"
    settings.set(THEME, "light")
    settings.sync()
    assert "theme=light" in ini.read_text(encoding="utf-8")
    assert Settings().get(THEME) == "light"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_file_swapped_for_a_fifo_during_the_session_is_not_written(tmp_path):
    ini = settings_path(tmp_path)
    ini.write_text("[General]\ntheme=dark\n", encoding="utf-8")
    guard = SettingsFile(ini)
    assert guard.problem is None
    guard.copy.write_text("[General]\ntheme=light\n", encoding="utf-8")
    ini.unlink()
    os.mkfifo(ini)
    assert "FIFO" in (guard.save() or "")
    assert stat.S_ISFIFO(os.lstat(ini).st_mode)


def test_settings_larger_than_the_cap_are_not_saved(tmp_path):
    ini = settings_path(tmp_path)
    guard = SettingsFile(ini)
    guard.copy.write_bytes(b"[General]\ntext=" + b"x" * SETTINGS_FILE_CAP + b"\n")
    assert "larger than" in (guard.save() or "")
    assert not ini.exists()


# ---------------------------------------------------------------- bounded values
def test_values_over_their_bound_read_as_unset_and_are_never_written(tmp_path):
    ini = settings_path(tmp_path)
    long_path = "/" + "p" * 100_000
    ini.write_text(
        f"[General]\ntheme={'dark' * 20_000}\nrecentFiles={long_path}, /kept.txt\ntext={'t' * 300_000}\n",
        encoding="utf-8",
    )
    settings = Settings()
    assert settings.get(THEME) == THEME.default
    assert settings.get(RECENT_FILES) == ["/kept.txt"]
    assert settings.get(TEXT) == ""
    settings.set(TEXT, "u" * (TEXT.max_size + 1))
    settings.set(VIEWS, ["gpt2"] * (MAX_LIST_ITEMS + 1))
    settings.sync()
    written = ini.read_text(encoding="utf-8")
    assert "uuuu" not in written and "views=" not in written


# ---------------------------------------------------------------- the app, started as a user starts it
def _cap_address_space() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_CAP, ADDRESS_CAP))


def _start_app(tmp_path: Path) -> tuple[subprocess.CompletedProcess[str], dict[str, object]]:
    """Start ``tokviz`` (no command: the window) with its config folder in ``tmp_path``; it closes
    itself once its first tokens are painted. Returns the process and its ready report."""
    ready = tmp_path / "ready.json"
    env = dict(
        child_env(),
        XDG_CONFIG_HOME=str(tmp_path / "config"),
        HOME=str(tmp_path),
        QT_QPA_PLATFORM="offscreen",
        TOKVIZ_QUIT_WHEN_READY="1",
        TOKVIZ_READY_FILE=str(ready),
    )
    done = subprocess.run(
        [sys.executable, "-m", "tokviz"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=LAUNCH_TIMEOUT,
        stdin=subprocess.DEVNULL,
        preexec_fn=_cap_address_space,
    )
    report = json.loads(ready.read_text(encoding="utf-8")) if ready.exists() else {}
    return done, report


def _user_ini(tmp_path: Path) -> Path:
    path = tmp_path / "config" / "tokviz" / "tokviz.ini"
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def _prepare(tmp_path: Path, case: str) -> Path:
    """Put the hostile ``case`` where the app reads its settings; returns the path to watch."""
    ini = _user_ini(tmp_path)
    if case == "fifo":
        os.mkfifo(ini)
    elif case == "device link":
        ini.symlink_to(char_device(tmp_path / "device"))
        return tmp_path / "device"
    elif case == "sparse 4 GB":
        with ini.open("wb") as fh:
            fh.truncate(4 << 30)
    elif case == "huge value":  # under the file cap: read, but the value is dropped
        ini.write_text(f"[General]\nrecentFiles={'a' * (SETTINGS_FILE_CAP - 100)}\n", encoding="utf-8")
    return ini


@pytest.mark.slow
@pytest.mark.parametrize(
    "case",
    [
        pytest.param("fifo", marks=pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs")),
        pytest.param("device link", marks=pytest.mark.skipif(not IS_ROOT, reason="mknod needs root")),
        "sparse 4 GB",
        "huge value",
    ],
)
def test_the_window_opens_on_a_hostile_settings_file_and_leaves_it_alone(tmp_path, case):
    watched = _prepare(tmp_path, case)
    before = identity(watched) if case != "huge value" else None
    done, report = _start_app(tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    assert report.get("ready"), (report, done.stderr[-2000:])
    assert "Traceback" not in done.stderr
    said = [line for line in done.stderr.splitlines() if "settings file" in line]
    if case == "huge value":
        assert said == []  # read, its value dropped; saved again within the cap
        assert _user_ini(tmp_path).stat().st_size <= SETTINGS_FILE_CAP
    else:
        assert len(said) == 1 and said[0].startswith("tokviz: the settings file "), done.stderr
        assert identity(watched) == before
