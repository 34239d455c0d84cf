"""Runs that write into the same folders take turns, and tidy only what no running process owns.

Two tokviz runs writing the same outputs at once (a training run and an export, a script run
twice) must not interleave their renames, nor remove each other's staged files. Each run holds
an exclusive advisory lock (``flock``) on every folder its outputs are renamed into, taken in
sorted order so two runs never wait on each other in a circle, from the moment it stages its
files until its last rename. The lock is on the folder itself, so no lock file is left beside
the outputs (a file system that cannot lock a folder gets a hidden ``.tokviz-outputs.lock`` in
it instead). The kernel drops the lock of a process that dies, so a killed run never blocks the
next one. Platforms without ``flock`` (Windows) run without the lock.

A temporary file carries the id of the process that writes it (``.m.json.4242-<hex>.tmp``): a
check removes it only when that process is gone (:func:`temp_is_stale`).
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
from collections.abc import Iterable, Iterator
from pathlib import Path

from .procpool import process_alive

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

LOCK_FILE_NAME = ".tokviz-outputs.lock"
# ".NAME.<pid>-<12 hex>.tmp"; names written before the pid was added have no "<pid>-".
TEMP_NAME = re.compile(r"\.(?P<name>.+)\.(?:(?P<pid>[0-9]{1,10})-)?[0-9a-f]{12}\.tmp")


def temp_name(target: Path) -> Path:
    """A fresh temporary name beside ``target`` that says which process writes it."""
    return target.parent / f".{target.name}.{os.getpid()}-{secrets.token_hex(6)}.tmp"


def temp_is_stale(name: str, target_name: str) -> bool:
    """Whether ``name`` is a temporary file for ``target_name`` whose writer is no longer running.

    A name without a process id (an older tokviz's) counts as stale, as it always did.
    """
    match = TEMP_NAME.fullmatch(name)
    if match is None or match["name"] != target_name:
        return False
    if match["pid"] is None:
        return True
    pid = int(match["pid"])
    return pid != os.getpid() and not process_alive(pid)


@contextlib.contextmanager
def locked_folders(folders: Iterable[Path]) -> Iterator[None]:
    """Hold an exclusive lock on each of ``folders`` (in sorted order) for the block's duration."""
    held: list[int] = []
    try:
        for folder in sorted({Path(os.path.realpath(f)) for f in folders}):
            fd = _lock(folder)
            if fd is not None:
                held.append(fd)
        yield
    finally:
        for fd in reversed(held):
            os.close(fd)  # closing the descriptor releases its lock


def _lock(folder: Path) -> int | None:
    """A descriptor holding ``folder``'s lock (waiting for another run to finish), or None if none can be had."""
    if fcntl is None:
        return None  # type: ignore[unreachable]  # fcntl is None where the platform has no fcntl (Windows)
    for path, flags in ((folder, os.O_RDONLY), (folder / LOCK_FILE_NAME, os.O_RDWR | os.O_CREAT)):
        try:
            fd = os.open(path, flags, 0o666)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
        except OSError:
            os.close(fd)
            continue
        return fd
    return None
