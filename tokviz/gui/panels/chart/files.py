"""The text files added to the exchange-rate chart: only regular files of a bounded size are read.

A path remembered in the settings may since name a FIFO (opening it would block the window), a
device such as ``/dev/zero`` (it never ends) or a huge file (the chart keeps its text and encodes
it with every tokenizer). :func:`read_chart_text` refuses those from ``stat`` before anything is
opened, and :func:`add_remembered_files` turns what it skipped into one status line.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from tokviz.core.io.filekind import ReadProblem, read_regular_file

# The largest text file the chart reads (a few MB of text already takes seconds to encode with
# every tokenizer); a larger one, a FIFO or a device is skipped with a message.
CHART_FILE_CAP = 8 << 20


def read_chart_text(path: str | Path) -> str:
    """The text of a regular file of at most :data:`CHART_FILE_CAP` bytes (invalid UTF-8 as U+FFFD).

    Anything else raises :class:`~tokviz.core.io.filekind.ReadProblem` saying what the path is.
    """
    return read_regular_file(path, CHART_FILE_CAP).decode("utf-8", errors="replace").removeprefix("\ufeff")


def add_remembered_files(add: Callable[[str], object], paths: Iterable[str]) -> str | None:
    """``add`` each remembered path; a file gone since is dropped without a word, any other that
    cannot be read is named in the returned status line (None when every file was added)."""
    skipped: list[str] = []
    for path in paths:
        try:
            add(path)
        except ReadProblem as exc:
            if exc.reason != "does not exist":
                skipped.append(f"{Path(path).name} ({exc.reason})")
    return f"Chart: skipped {', '.join(skipped)}" if skipped else None


__all__ = ["CHART_FILE_CAP", "ReadProblem", "add_remembered_files", "read_chart_text"]
