"""Which files of the folders given make a corpus: the ``--include`` / ``--exclude`` /
``--max-file-size`` options and the selection ``train`` and ``count`` both use, so the two read
exactly the same files and say the same about what they left out."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from .command import UsageError, print_note

if TYPE_CHECKING:
    from tokviz.core.fileselect import Selection


def add_file_filters(p: argparse.ArgumentParser) -> None:
    """``--include`` / ``--exclude`` / ``--max-file-size``: which files of a folder make the corpus."""
    p.add_argument(
        "--include",
        action="append",
        default=[],
        metavar="GLOB",
        help="use only files matching GLOB (relative to the folder given; '*.py', 'src/**/*.py'); repeatable",
    )
    p.add_argument(
        "--exclude",
        action="append",
        default=[],
        metavar="GLOB",
        help="leave out files or folders matching GLOB ('tests/', '*_pb2.py'); repeatable",
    )
    p.add_argument(
        "--max-file-size", metavar="SIZE", help="leave out files larger than SIZE (e.g. 500K, 10MB)"
    )


def max_file_size(text: str | None) -> int | None:
    """``--max-file-size`` in bytes (``None`` when not given); a bad size is a usage error."""
    from tokviz.core.errors import InvalidArgument
    from tokviz.core.fileselect import parse_size

    if text is None:
        return None
    try:
        return parse_size(text)
    except InvalidArgument as exc:
        raise UsageError(f"--max-file-size: {exc}") from None


def select_corpus(
    paths: list[str], include: list[str], exclude: list[str], max_size: int | None, errors: str
) -> Selection:
    """The text files training reads from ``paths``; a note on standard error says what was left out.

    Folders are walked once here and training gets the files found, so the note counts exactly
    what was skipped ("skipped 717 binary files (.pyc, .so, .a, …)"). A file named on the command
    line was asked for: when it is binary or not UTF-8 that is an error naming it (and the byte
    offset, and ``--replace-invalid``), not a silent skip as in a folder. Nothing left is an error
    that says what the filters and the folder walk left out.
    """
    from tokviz.core.errors import CorpusError, InvalidArgument
    from tokviz.core.fileselect import select_files

    try:
        selection = select_files(paths, include, exclude, max_size=max_size, errors=errors)
    except InvalidArgument as exc:
        raise UsageError(str(exc)) from None
    except CorpusError as exc:
        if exc.offset is None:
            raise
        raise CorpusError(
            f"{exc.path} is not valid UTF-8 (byte offset {exc.offset}); "
            "use --replace-invalid to read it with U+FFFD replacement characters",
            exc.path,
            exc.offset,
        ) from None
    note = selection.note("--replace-invalid")
    if not selection.files:
        raise CorpusError(f"the corpus is empty: no text file is left ({note or 'no files'})")
    if note is not None:
        print_note(note)
    return selection
