"""Which files of the folders given are read, and how: the options, the selection and the run
every command over files uses. ``train`` and ``count`` read a corpus; ``eval``, ``sweep`` and
``usage`` read held-out files (:func:`add_heldout`, :func:`select_heldout`). All of them
take the same ``--include`` / ``--exclude`` / ``--max-file-size`` / ``--include-binary`` with the
same meaning, read exactly the same files, say the same about what they left out and stop the
same way on Ctrl+C or invalid UTF-8."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from tokviz.cli.command import UsageError, print_error, print_note
from tokviz.cli.options import ArgumentAdder

if TYPE_CHECKING:
    from collections.abc import Sequence

    from tokviz.cli.progress import ProgressLine
    from tokviz.core.corpus.documents import ReadOptions, ReadSummary
    from tokviz.core.corpus.fileselect import Selection
    from tokviz.core.corpus.reading import FileRead
    from tokviz.core.errors import CorpusError

T = TypeVar("T")


def add_file_filters(p: ArgumentAdder) -> None:
    """``--include`` / ``--exclude`` / ``--max-file-size``: which files of a folder make the corpus."""
    p.add_argument(
        "--include",
        action="append",
        default=[],
        metavar="GLOB",
        help="use only files that match (repeatable): '*.py' matches a name at any depth, "
        "'src/**/*.py' a path under the folder given, 'docs/' a folder",
    )
    p.add_argument(
        "--exclude",
        action="append",
        default=[],
        metavar="GLOB",
        help="leave out files or folders matching GLOB ('tests/', '*_pb2.py'); repeatable",
    )
    p.add_argument(
        "--max-file-size",
        metavar="SIZE",
        help="leave out files larger than SIZE bytes on disk (e.g. 500K, 10MB; K and M are 1024 and 1024²)",
    )
    add_include_binary(p)
    add_record_options(p)


def add_heldout(p: argparse.ArgumentParser, metavar: str = "PATH", *, or_text: bool = False) -> None:
    """What chooses held-out files (``eval``, ``sweep``, ``usage``): the ``paths`` they are found in
    and, in one group, the corpus's filters and ``--replace-invalid`` to read text that is not UTF-8
    instead of skipping it (:func:`select_heldout` reads them all).

    With ``or_text`` the paths may be left out for ``--text T``, the text itself, or be ``-``,
    standard input.
    """
    p.add_argument(
        "paths",
        nargs="*" if or_text else "+",
        metavar=metavar,
        help="folders (walked recursively), files or globs ('src/**/*.py')"
        + ("; '-' for standard input" if or_text else ""),
    )
    if or_text:
        p.add_argument("--text", metavar="T", help="use this text instead of files")
    pick = p.add_argument_group("which files (text files only; binaries are skipped and counted)")
    add_file_filters(pick)
    pick.add_argument(
        "--replace-invalid",
        action="store_true",
        help="read files that are not UTF-8 with U+FFFD for the bad bytes instead of skipping them",
    )


# Files named on the command line are always read; folders and globs leave out what looks binary.
INCLUDE_BINARY_HELP = (
    "also read the files of folders and globs that look binary (NUL or control bytes) when they "
    "are UTF-8 (all of them with --replace-invalid); files named on the command line always are"
)


def add_include_binary(p: ArgumentAdder) -> None:
    """``--include-binary``: read the files a folder walk would leave out as binary."""
    p.add_argument("--include-binary", action="store_true", help=INCLUDE_BINARY_HELP)


def add_record_options(p: ArgumentAdder) -> None:
    """``--field``, ``--skip-bad-records``, ``--as-text``: how JSON Lines, Parquet and Arrow files are read."""
    p.add_argument(
        "--field",
        default="text",
        metavar="NAME",
        help="the text field of JSON Lines, Parquet and Arrow records (default: text; "
        "a dotted path such as meta.content reaches into nested objects); each record is a document",
    )
    p.add_argument(
        "--skip-bad-records",
        action="store_true",
        help="skip and count malformed JSON Lines records instead of stopping at the first (file:line)",
    )
    p.add_argument(
        "--as-text",
        action="store_true",
        help="read JSON Lines files as plain text, JSON syntax and all (said on standard error)",
    )


def add_limit_options(p: ArgumentAdder) -> None:
    """``--max-bytes`` / ``--max-records``: read only the start of a large corpus."""
    p.add_argument(
        "--max-bytes",
        metavar="SIZE",
        help="read only the first SIZE bytes of text (e.g. 500MB, 2G) across the files, in order",
    )
    p.add_argument(
        "--max-records",
        type=int,
        metavar="N",
        help="read only the first N documents (records; a text file is one) across the files, in order",
    )


def read_options(args: argparse.Namespace) -> ReadOptions:
    """The :class:`~tokviz.core.corpus.documents.ReadOptions` the command's options ask for."""
    from tokviz.core.corpus.documents import ReadOptions
    from tokviz.core.errors import InvalidArgument

    max_bytes = getattr(args, "max_bytes", None)
    try:
        return ReadOptions(
            field=args.field,
            skip_bad=args.skip_bad_records,
            as_text=args.as_text,
            max_bytes=_size_option("--max-bytes", max_bytes) if max_bytes is not None else None,
            max_records=getattr(args, "max_records", None),
        )
    except InvalidArgument as exc:
        raise UsageError(
            str(exc).replace("max_records", "--max-records").replace("field", "--field")
        ) from None


def record_options_given(args: argparse.Namespace) -> list[str]:
    """The record and limit options given (for commands that read no corpus files with them)."""
    given = [
        flag
        for flag, value in (
            ("--field", args.field != "text"),
            ("--skip-bad-records", args.skip_bad_records),
            ("--as-text", args.as_text),
            ("--max-bytes", getattr(args, "max_bytes", None)),
            ("--max-records", getattr(args, "max_records", None)),
        )
        if value
    ]
    return given


def say_reading(summary: ReadSummary | None) -> None:
    """On standard error: what reading records saw (one line), and where a limit stopped it."""
    if summary is None:
        return
    note = summary.note()
    if note is not None:
        print_note(note)
    if summary.stopped is not None:
        print_note(summary.stopped)


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


def read_corpus(work: Callable[[], T], doing: str, printer: ProgressLine, replace_invalid: bool) -> T | None:
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
    return None if text is None else _size_option("--max-file-size", text)


def _size_option(flag: str, text: str) -> int:
    """A size option's value in bytes; a bad size is a usage error naming ``flag``."""
    from tokviz.core.corpus.fileselect import parse_size
    from tokviz.core.errors import InvalidArgument

    try:
        return parse_size(text)
    except InvalidArgument as exc:
        raise UsageError(f"{flag}: {exc}") from None


def select_heldout(args: argparse.Namespace, doing: str) -> tuple[Selection, str]:
    """The held-out files the options of :func:`add_heldout` choose from ``args.paths``, and
    how their text is decoded (``"strict"`` or ``"replace"``).

    As :func:`select_corpus` (a bad size or pattern is a usage error, a note says what was left
    out unless ``--quiet``); nothing left is the error "no text files to ``doing``".
    """
    errors = "replace" if args.replace_invalid else "strict"
    selection = select_corpus(
        args, args.paths, errors, nothing_left=f"no text files to {doing}", quiet=args.quiet
    )
    return selection, errors


def named_files(paths: list[str]) -> list[str]:
    """The inputs that are files: an output may not overwrite one of them."""
    return [p for p in paths if os.path.isfile(p)]


def heldout_inputs(args: argparse.Namespace) -> list[str]:
    """What ``--output`` and ``--plot`` may not overwrite: the files named, and a file that already
    exists inside a folder read (writing it would destroy the held-out text)."""
    folders = [os.path.realpath(p) for p in args.paths if os.path.isdir(p)]
    inside = []
    for out in (args.output, args.plot):
        real = os.path.realpath(out) if out else ""
        if os.path.isfile(real) and any(real.startswith(folder + os.sep) for folder in folders):
            inside.append(out)
    return named_files(args.paths) + inside


def select_corpus(
    args: argparse.Namespace,
    paths: list[str],
    errors: str,
    *,
    nothing_left: str = "the corpus is empty: no text file is left",
    quiet: bool = False,
) -> Selection:
    """The text files training reads from ``paths``, chosen by the options of
    :func:`add_file_filters` in ``args``; a note on standard error says what was left out (unless
    ``quiet``).

    Folders are walked once here and training gets the files found, so the note counts exactly
    what was skipped ("skipped 717 binary files (.pyc, .so, .a, …)"). A file named on the command
    line was asked for: it is read when it is UTF-8, NUL bytes and all, and when it is not UTF-8
    that is an error naming it (and the byte offset, and ``--replace-invalid``), not a silent skip
    as in a folder. Nothing left is an error (``nothing_left``) that says what the filters and the
    folder walk left out.
    """
    from tokviz.core.corpus.fileselect import select_files
    from tokviz.core.errors import CorpusError, InvalidArgument

    try:
        selection = select_files(
            paths,
            args.include,
            args.exclude,
            max_size=max_file_size(args.max_file_size),
            errors=errors,
            include_binary=args.include_binary,
            as_text=args.as_text,
        )
    except InvalidArgument as exc:
        raise UsageError(str(exc)) from None
    except CorpusError as exc:
        if exc.offset is None:
            raise
        raise invalid_utf8(exc.path, exc.offset) from None
    note = selection.note("--replace-invalid")
    if not selection.files:
        raise CorpusError(f"{nothing_left} ({note or 'no files'})")
    if note is not None and not quiet:
        print_note(note)
    return selection


def corpus_provenance(
    selection: Selection,
    args: argparse.Namespace,
    errors: str,
    files_read: Sequence[FileRead],
    reading: ReadSummary | None,
) -> dict[str, object]:
    """The model file's provenance: each corpus file's size and SHA-256 as training read it (so a
    file changed since names no wrong bytes), the filters, version and date."""
    from tokviz.core.formats.provenance import corpus_record, make_provenance

    chosen: dict[str, object] = {}
    if args.include:
        chosen["include"] = list(args.include)
    if args.exclude:
        chosen["exclude"] = list(args.exclude)
    if args.max_file_size:
        chosen["max_file_size"] = args.max_file_size
    note = selection.note("--replace-invalid")
    if note:
        chosen["skipped"] = note
    corpus = corpus_record(read=files_read)
    if reading is not None and reading.to_json():
        corpus["reading"] = reading.to_json()
    return make_provenance(corpus, chosen, errors)


def corpus_sample(provenance: dict[str, object], replace: bool, limit: int = 64_000) -> list[str]:
    """Lines from the start of the first corpus files (about ``limit`` bytes of text; the records of
    JSON Lines, Parquet and Arrow files): exports are checked on them too, so a pattern the other
    library reads otherwise shows on the user's text."""
    from pathlib import Path

    from tokviz.core.corpus.documents import CorpusReader, ReadOptions
    from tokviz.core.corpus.reading import CorpusFile, sniff_file
    from tokviz.core.errors import TokvizError

    corpus = provenance.get("corpus")
    entries = corpus.get("files", []) if isinstance(corpus, dict) else []
    files = []
    field = "text"
    for entry in entries[:8]:
        path = entry.get("path") if isinstance(entry, dict) else None
        if not isinstance(path, str) or not os.path.isfile(path):
            continue
        try:
            compression = sniff_file(Path(path))[1]
        except OSError:
            continue
        files.append(CorpusFile(Path(path), 0, compression, str(entry.get("container", "text"))))
        field = str(entry.get("field") or field)
    lines: list[str] = []
    reader = CorpusReader(ReadOptions(field=field, max_bytes=limit), "replace" if replace else "strict")
    for file in files:
        try:
            for document in reader.corpus([file]):
                for piece in document:
                    lines.extend(piece.splitlines(keepends=True))
        except (TokvizError, OSError):
            continue  # a sample is a help: a file that cannot be read adds nothing to it
    return lines
