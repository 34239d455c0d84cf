"""Atomic file writes: a reader sees the old file or the new one, never half of either.

The data goes to a temporary file in the target's own folder (so the final rename stays on one
file system), is flushed and fsynced, then renamed over the target with :func:`os.replace`. On any
error, including KeyboardInterrupt, the temporary file is removed and the target is untouched.
A symlink is written through to its target (and stays a symlink); a device, FIFO or socket is
refused rather than replaced by a regular file. Errors name the path given, never the temporary
file. A run with several outputs uses :mod:`tokviz.core.io.outputs`, which checks them first.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from pathlib import Path

from .output_lock import temp_name

_O_BINARY = getattr(os, "O_BINARY", 0)  # Windows: no newline translation on a raw descriptor


class NotRegularFileError(OSError):
    """The path names a device, FIFO or socket, which an atomic write would replace: refused."""


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Replace ``path`` with ``data`` atomically (write a temp file, fsync it, rename it over).

    A new file gets the usual permissions (0o666 less the umask); an existing file keeps its mode.
    """
    target = Path(os.path.realpath(path))
    folder = target.parent
    old_mode: int | None = None
    with contextlib.suppress(FileNotFoundError, NotADirectoryError):
        st = os.stat(target)
        if not (stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode)):
            raise NotRegularFileError(errno.EINVAL, "not a regular file; refusing to replace it", str(path))
        old_mode = stat.S_IMODE(st.st_mode)
    try:
        tmp, fd = _create_temp(folder, target.name, 0o666 if old_mode is None else old_mode)
    except OSError as exc:
        if exc.errno is None:
            raise
        raise type(exc)(exc.errno, exc.strerror, str(path)) from None
    try:
        write_and_close(fd, data)
        if old_mode is not None and os.name == "posix":
            # os.open applied the umask; an existing file keeps its exact mode.
            os.chmod(tmp, old_mode)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    fsync_dir(folder)


def write_and_close(fd: int, data: bytes) -> None:
    """Write all of ``data`` to the open file ``fd``, fsync it and close it (closed even on error)."""
    try:
        view = memoryview(data).cast("B")
        written = 0
        while written < len(view):
            written += os.write(fd, view[written:])
        os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write_text(path: str | os.PathLike[str], text: str, encoding: str = "utf-8") -> None:
    """Replace ``path`` with ``text`` atomically; newlines are written exactly as given.

    The text is encoded first, so an encoding error leaves no file behind.
    """
    atomic_write_bytes(path, text.encode(encoding))


def _create_temp(folder: Path, name: str, mode: int) -> tuple[Path, int]:
    """Create a fresh, exclusive temporary file next to the target; return its path and descriptor."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O_BINARY
    for _ in range(100):
        tmp = temp_name(folder / name)  # names this process, so a check never removes it while it runs
        try:
            return tmp, os.open(tmp, flags, mode)
        except FileExistsError:
            continue
    raise FileExistsError(f"could not create a temporary file next to {folder / name}")


def fsync_dir(folder: Path) -> None:
    """Make renames in ``folder`` durable where the platform allows fsync on a directory."""
    if os.name != "posix":
        return
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
