"""What kind of thing a path names, and reading a regular file without ever blocking or growing.

Tokenizer files, model files and corpora must be regular files: a FIFO blocks the reader forever
on open, and a device such as ``/dev/zero`` never ends, so both are refused from ``stat`` before
anything is opened. Reads are capped, because a file's size can change between ``stat`` and read.
"""

from __future__ import annotations

import os
import stat

_KINDS = (
    (stat.S_ISDIR, "is a directory"),
    (stat.S_ISFIFO, "is a FIFO (named pipe)"),
    (stat.S_ISCHR, "is a character device"),
    (stat.S_ISBLK, "is a block device"),
    (stat.S_ISSOCK, "is a socket"),
)


def kind_problem(mode: int) -> str | None:
    """``None`` for a regular file's ``st_mode``, else what the path is ("is a FIFO (named pipe)")."""
    if stat.S_ISREG(mode):
        return None
    for test, words in _KINDS:
        if test(mode):
            return words
    return "is not a regular file"


def not_regular_reason(path: str | os.PathLike[str]) -> str | None:
    """Why ``path`` is not a readable regular file ("is a character device", "does not exist"),
    or ``None`` when it is one. Follows symlinks; never opens the path."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return "does not exist"
    except OSError as exc:
        return f"cannot be examined ({exc.strerror or exc})"
    return kind_problem(st.st_mode)


def megabytes(n: int) -> str:
    """A byte count as a short number of MB for messages ("64 MB", "1.5 MB"; "20 KB" below 1 MB)."""
    if n < 2**20:
        return f"{n / 1024:.0f} KB" if n >= 1024 else f"{n:,} bytes"
    mb = n / 2**20
    return f"{mb:.0f} MB" if mb >= 10 or mb == int(mb) else f"{mb:.1f} MB"


class ReadProblem(Exception):
    """Why :func:`read_regular_file` refused a path; ``reason`` is a phrase such as "is a FIFO"."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def read_regular_file(path: str | os.PathLike[str], cap: int) -> bytes:
    """All bytes of a regular file of at most ``cap`` bytes, or :class:`ReadProblem` saying why not.

    The kind and size are checked with ``stat`` before opening; the open is non-blocking (a path
    swapped for a FIFO in between cannot hang it) and checked again with ``fstat``; at most
    ``cap + 1`` bytes are read, so a file that grows is still refused.
    """
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise ReadProblem("does not exist") from None
    except OSError as exc:
        raise ReadProblem(f"cannot be examined ({exc.strerror or exc})") from None
    problem = kind_problem(st.st_mode)
    if problem is not None:
        raise ReadProblem(problem)
    if st.st_size > cap:
        raise ReadProblem(f"is larger than {megabytes(cap)} ({megabytes(st.st_size)})")
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise ReadProblem("does not exist") from None
    except OSError as exc:
        raise ReadProblem(f"cannot be opened ({exc.strerror or exc})") from None
    try:
        problem = kind_problem(os.fstat(fd).st_mode)
        if problem is not None:
            raise ReadProblem(problem)
        chunks: list[bytes] = []
        total = 0
        while total <= cap:
            chunk = os.read(fd, min(1 << 20, cap + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
    except OSError as exc:
        raise ReadProblem(f"cannot be read ({exc.strerror or exc})") from None
    finally:
        os.close(fd)
    if total > cap:
        raise ReadProblem(f"is larger than {megabytes(cap)}")
    return b"".join(chunks)
