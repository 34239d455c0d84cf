"""Which files of the folders given make a corpus, and how they are read: the options, the
selection and the run ``train`` and ``count`` both use, so the two read exactly the same files,
say the same about what they left out and stop the same way on Ctrl+C or invalid UTF-8."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from tokviz.cli.command import UsageError, print_error, print_note
from tokviz.cli.options import ArgumentAdder

if TYPE_CHECKING:
    from tokviz.cli.progress import ProgressPrinter
    from tokviz.core.corpus.fileselect import Selection
    from tokviz.core.errors import CorpusError

T = TypeVar("T")


def add_file_filters(p: ArgumentAdder) -> None:
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
    add_include_binary(p)


# Files named on the command line are always read; folders and globs leave out what looks binary.
INCLUDE_BINARY_HELP = (
    "also read the files of folders and globs that look binary (NUL or control bytes) when they "
    "are UTF-8 (all of them with --replace-invalid); files named on the command line always are"
)


def add_include_binary(p: ArgumentAdder) -> None:
    """``--include-binary``: read the files a folder walk would leave out as binary."""
    p.add_argument("--include-binary", action="store_true", help=INCLUDE_BINARY_HELP)


def add_reading_options(p: argparse.ArgumentParser, workers_help: str) -> None:
    """``--replace-invalid`` and ``--workers N``: how the corpus's text is decoded, and by how many processes."""
    p.add_argument(
        "--replace-invalid",
        action="store_true",
        help="read invalid UTF-8 as U+FFFD instead of stopping with an error",
    )
    p.add_argument("--workers", type=int, metavar="N", help=workers_help)


def check_workers(args: argparse.Namespace) -> None:
    """``--workers`` below 1 is a usage error."""
    if args.workers is not None and args.workers < 1:
        raise UsageError("--workers must be 1 or more")


def invalid_utf8(path: str | None, offset: int) -> CorpusError:
    """The error for a file that is not UTF-8: where, and that ``--replace-invalid`` reads it anyway."""
    from tokviz.core.errors import CorpusError

    return CorpusError(
        f"{path} is not valid UTF-8 (byte offset {offset}); "
        "use --replace-invalid to read it with U+FFFD replacement characters",
        path,
        offset,
    )


def read_corpus(
    work: Callable[[], T], doing: str, printer: ProgressPrinter, replace_invalid: bool
) -> T | None:
    """Run ``work`` (usually through :func:`run_cancellable`); ``None`` when Ctrl+C stopped it.

    A cancelled run says "``doing`` cancelled; nothing was written". Invalid UTF-8 read strictly
    becomes :func:`invalid_utf8`'s error. The progress line is ended in every case.
    """
    from tokviz.core.errors import Cancelled, CorpusError

    try:
        return work()
    except (KeyboardInterrupt, Cancelled):
        printer.close()
        print_error(f"{doing} cancelled; nothing was written")
        return None
    except CorpusError as exc:
        printer.close()
        if exc.offset is not None and not replace_invalid and "U+FFFD" not in str(exc):
            raise invalid_utf8(exc.path, exc.offset) from None
        raise
    finally:
        printer.close()


def max_file_size(text: str | None) -> int | None:
    """``--max-file-size`` in bytes (``None`` when not given); a bad size is a usage error."""
    from tokviz.core.corpus.fileselect import parse_size
    from tokviz.core.errors import InvalidArgument

    if text is None:
        return None
    try:
        return parse_size(text)
    except InvalidArgument as exc:
        raise UsageError(f"--max-file-size: {exc}") from None


def select_corpus(
    paths: list[str],
    include: list[str],
    exclude: list[str],
    max_size: int | None,
    errors: str,
    include_binary: bool = False,
) -> Selection:
    """The text files training reads from ``paths``; a note on standard error says what was left out.

    Folders are walked once here and training gets the files found, so the note counts exactly
    what was skipped ("skipped 717 binary files (.pyc, .so, .a, …)"). A file named on the command
    line was asked for: it is read when it is UTF-8, NUL bytes and all, and when it is not UTF-8
    that is an error naming it (and the byte offset, and ``--replace-invalid``), not a silent skip
    as in a folder. Nothing left is an error
    that says what the filters and the folder walk left out.
    """
    from tokviz.core.corpus.fileselect import select_files
    from tokviz.core.errors import CorpusError, InvalidArgument

    try:
        selection = select_files(
            paths, include, exclude, max_size=max_size, errors=errors, include_binary=include_binary
        )
    except InvalidArgument as exc:
        raise UsageError(str(exc)) from None
    except CorpusError as exc:
        if exc.offset is None:
            raise
        raise invalid_utf8(exc.path, exc.offset) from None
    note = selection.note("--replace-invalid")
    if not selection.files:
        raise CorpusError(f"the corpus is empty: no text file is left ({note or 'no files'})")
    if note is not None:
        print_note(note)
    return selection
