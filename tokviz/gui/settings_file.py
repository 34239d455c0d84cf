"""The settings file on disk, read and written by tokviz only as a regular file of bounded size.

QSettings opens its file with a blocking read of the whole file and saves by renaming a new file
over whatever the path resolves to. So a FIFO in its place keeps the window from ever appearing,
a file of hundreds of megabytes takes gigabytes to parse, and a link to ``/dev/zero`` gets the
device replaced by a regular file. :class:`SettingsFile` stands between them: QSettings works on
a private copy in a temporary folder of its own, and only this module touches the real file.

- Reading: the path must be absent, or a regular file (directly or through a symbolic link) of at
  most :data:`SETTINGS_FILE_CAP` bytes, read without blocking
  (:func:`tokviz.core.io.filekind.read_regular_file`). Anything else (a FIFO, a device, a folder, a
  link to nothing, an unreadable or larger file) leaves the file as it is: the app starts with the
  default settings, says so in one line (:attr:`SettingsFile.problem`) and never saves over it.
- Writing: the copy goes back with :func:`tokviz.core.io.atomic.atomic_write_bytes` (a temporary
  file renamed over the target) only while the path is still absent or a regular file. A symbolic
  link to a regular file is written through: its target is replaced atomically and the link
  stays (a dotfiles folder keeps working); a link to nothing, a device or a FIFO is never written.
  Settings larger than the cap are not saved, so the app can always read back what it wrote.
"""

from __future__ import annotations

import atexit
import os
import shutil
import stat
import tempfile
from pathlib import Path

from tokviz.core.io.atomic import atomic_write_bytes
from tokviz.core.io.filekind import ReadProblem, kind_problem, read_regular_file
from tokviz.core.io.safe_text import terminal_text

SETTINGS_FILE_CAP = 8 * 2**20
"""The largest settings file read or written; a session's settings take a few kilobytes (the
editor's text, at most 200,000 characters, is the largest value)."""


class SettingsFile:
    """The real settings file at ``path`` and the private copy QSettings reads and writes (:attr:`copy`).

    :attr:`problem` is ``None``, or the one line saying why the file was not read (the app then
    runs on the default settings and never writes the file).
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._folder = Path(tempfile.mkdtemp(prefix="tokviz-settings-"))
        atexit.register(shutil.rmtree, self._folder, ignore_errors=True)
        self.copy = self._folder / "tokviz.ini"
        self._saved: bytes | None = None
        self.pending = False  # a save is scheduled (gui/settings.py)
        reason = self._read()
        self.problem = (
            None
            if reason is None
            else f"the settings file {terminal_text(str(path))} {reason}: tokviz starts with the "
            "default settings and will not save them"
        )

    def _read(self) -> str | None:
        """Copy the real file for QSettings; why it cannot be used, or ``None``."""
        if not os.path.lexists(self.path):
            return None  # a first start: the copy starts empty
        if os.path.islink(self.path) and not os.path.exists(self.path):
            return "is a link to nothing (or a loop of links)"
        try:
            data = read_regular_file(self.path, SETTINGS_FILE_CAP)
        except ReadProblem as exc:
            return exc.reason
        self.copy.write_bytes(data)
        self._saved = data
        return None

    def write_problem(self) -> str | None:
        """Why the real file must not be written now (``None``: absent, or a regular file, possibly
        behind a symbolic link)."""
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return "is a link to nothing" if os.path.islink(self.path) else None
        except OSError as exc:
            return f"cannot be examined ({exc.strerror or exc})"
        return kind_problem(st.st_mode) if not stat.S_ISREG(st.st_mode) else None

    def save(self) -> str | None:
        """Write the copy back to the real file if it changed; the one-line reason when it was not
        written (``None`` when it was, or had nothing new)."""
        if self.problem is not None:
            return None  # said at start: this session does not save
        try:
            data = read_regular_file(self.copy, SETTINGS_FILE_CAP) if self.copy.exists() else b""
        except ReadProblem as exc:
            return f"settings not saved: they are {exc.reason.removeprefix('is ')}"
        if data == self._saved or (self._saved is None and not data):
            return None
        problem = self.write_problem()
        if problem is not None:
            return f"settings not saved: {terminal_text(str(self.path))} {problem}"
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_bytes(self.path, data)
        except OSError as exc:
            return f"settings not saved: {terminal_text(str(self.path))}: {exc.strerror or exc}"
        self._saved = data
        return None
