"""``tokviz count``: count a corpus's pre-tokens into a table (locally or on Dask), or add tables.

The table (Parquet or TSV, by the output's name) is what training needs from a corpus, so a big
corpus is counted once, possibly on a cluster, and ``tokviz train --from-counts`` trains any
vocabulary size from it with exactly the merges of training on the text. ``--merge`` adds tables
counted with the same settings (parts of a corpus counted on different days or machines).
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from typing import TYPE_CHECKING

from tokviz.cli.command import EXIT_INTERRUPTED, UsageError, print_error, print_note, run_cancellable
from tokviz.cli.corpus_files import (
    add_file_filters,
    add_limit_options,
    add_reading_options,
    check_workers,
    read_corpus,
    read_options,
    record_options_given,
    say_reading,
)
from tokviz.cli.options import add_normalizer, add_special
from tokviz.cli.progress import ProgressPrinter

if TYPE_CHECKING:
    from tokviz.core.io.outputs import Output
    from tokviz.core.training.counts import CountTable


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "inputs",
        nargs="+",
        metavar="CORPUS",
        help="text, JSON Lines, Parquet or Arrow files, folders or (with --dask) fsspec URLs; "
        "with --merge, the count tables to add",
    )
    p.add_argument(
        "-o", "--output", required=True, metavar="TABLE", help="where to write the table (.parquet or .tsv)"
    )
    p.add_argument("--merge", action="store_true", help="add the count tables given (same settings) into one")
    p.add_argument(
        "--allow-overlap",
        action="store_true",
        help="with --merge, add tables even when they count the same file (or are the same table)",
    )
    add_file_filters(p)
    add_limit_options(p)
    add_special(p)
    p.add_argument("--pretokenizer", default="gpt2", metavar="P", help="none, gpt2, cl100k, o200k or a regex")
    add_normalizer(p)
    add_reading_options(p, workers_help="local counting processes (default: CPUs)")
    p.add_argument(
        "--dask",
        metavar="SCHEDULER",
        help="count on a Dask cluster: its scheduler address (tcp://host:8786) or 'local' for this machine",
    )
    p.add_argument(
        "--chunk-mb",
        type=float,
        default=32.0,
        metavar="MB",
        help="with --dask, the largest byte range one task counts (default 32; smaller when the "
        "corpus would give a worker fewer than four)",
    )
    p.add_argument(
        "--connect-timeout",
        type=float,
        metavar="S",
        help="with --dask, seconds the scheduler has to answer (default 10)",
    )
    p.add_argument(
        "--worker-timeout",
        type=float,
        metavar="S",
        help="with --dask, seconds to wait while no worker is alive and no range is counted (default 60)",
    )
    p.add_argument("--no-hashes", action="store_true", help="do not record the files' SHA-256 (saves a read)")


def run(args: argparse.Namespace) -> int:
    """Count (or add tables), then write the table atomically; Ctrl+C writes nothing."""
    from tokviz.core.io.outputs import Output, check_outputs
    from tokviz.core.training.counts import table_format

    _check_options(args)
    table_format(args.output)
    output = Output.file(args.output, "-o")
    local_inputs = [i for i in args.inputs if "://" not in i]
    check_outputs([output], inputs=local_inputs)
    printer = ProgressPrinter(sys.stderr)
    t0 = time.perf_counter()

    def count() -> CountTable:
        if args.merge:
            return _merge(args.inputs, args.allow_overlap)
        if args.dask:
            return run_cancellable(lambda cancel: _count_dask(args, printer, cancel, t0), "tokviz-count")
        return run_cancellable(lambda cancel: _count_local(args, printer, cancel), "tokviz-count")

    table = read_corpus(count, "counting", printer, args.replace_invalid)
    if table is None:
        return EXIT_INTERRUPTED
    elapsed = time.perf_counter() - t0
    return _write(table, args, output, local_inputs, elapsed)


def _check_options(args: argparse.Namespace) -> None:
    check_workers(args)
    if not args.chunk_mb > 0:
        raise UsageError("--chunk-mb must be more than 0")
    if args.merge:
        _check_merge_options(args)
    elif args.allow_overlap:
        raise UsageError("--allow-overlap is for --merge, which adds count tables")
    elif args.dask:
        _check_dask_options(args)
    elif any("://" in i for i in args.inputs):
        raise UsageError("URLs are read by Dask workers: add --dask SCHEDULER (or --dask local)")
    if not args.dask and (args.connect_timeout is not None or args.worker_timeout is not None):
        raise UsageError("--connect-timeout and --worker-timeout are for counting with --dask")


def _check_merge_options(args: argparse.Namespace) -> None:
    given = [
        flag
        for flag, value in (
            ("--dask", args.dask),
            ("--special-token", args.special_token),
            ("--replace-invalid", args.replace_invalid),
            ("--workers", args.workers),
            ("--include", args.include),
            ("--exclude", args.exclude),
            ("--max-file-size", args.max_file_size),
            ("--include-binary", args.include_binary),
        )
        if value
    ]
    given += record_options_given(args)
    if args.pretokenizer != "gpt2":
        given.append("--pretokenizer")
    if args.normalizer is not None:
        given.append("--normalizer")
    if given:
        raise UsageError(f"--merge adds tables as they were counted; {', '.join(given)} cannot apply")
    if len(args.inputs) < 2:
        raise UsageError("--merge needs two or more count tables")


def _check_dask_options(args: argparse.Namespace) -> None:
    if args.include or args.exclude or args.max_file_size or args.include_binary:
        raise UsageError(
            "--include, --exclude, --max-file-size and --include-binary choose local files; "
            "with --dask, name the files to count"
        )
    if args.workers is not None:
        raise UsageError("--workers is for local counting; a Dask cluster has its own workers")
    if args.max_bytes is not None or args.max_records is not None:
        raise UsageError("--max-bytes and --max-records read the start of a corpus in order, on this machine")
    for flag, value in (
        ("--connect-timeout", args.connect_timeout),
        ("--worker-timeout", args.worker_timeout),
    ):
        if value is not None and not 0 < value < float("inf"):
            raise UsageError(f"{flag} must be more than 0 seconds")
    from tokviz.core.training.dask_count import require_dask

    require_dask()


def _merge(paths: list[str], allow_overlap: bool) -> CountTable:
    from tokviz.core.training.counts import OverlapError, merge_table_files

    try:
        return merge_table_files(paths, allow_overlap)
    except OverlapError as exc:
        exc.args = (f"{exc}; add --allow-overlap to add them anyway",)
        raise


def _count_local(args: argparse.Namespace, printer: ProgressPrinter, cancel: threading.Event) -> CountTable:
    from tokviz.cli.corpus_files import select_corpus
    from tokviz.core.training.counts import count_corpus

    errors = "replace" if args.replace_invalid else "strict"
    selection = select_corpus(args, list(args.inputs), errors)
    files = [str(f.path) for f in selection.files]
    return count_corpus(
        printer,
        files=files,
        special_tokens=args.special_token,
        pretokenizer=args.pretokenizer,
        errors=errors,
        workers=args.workers,
        cancel=cancel,
        hashes=not args.no_hashes,
        reading=read_options(args),
        normalizer=args.normalizer,
    )


def _count_dask(
    args: argparse.Namespace, printer: ProgressPrinter, cancel: threading.Event, t0: float
) -> CountTable:
    from tokviz.core.training.dask_client import CONNECT_TIMEOUT, WORKER_TIMEOUT
    from tokviz.core.training.dask_count import count_on_dask
    from tokviz.core.training.train import Progress

    def progress(done: int, total: int) -> None:
        printer(Progress("pre-tokenizing", done, total, (), time.perf_counter() - t0))

    return count_on_dask(
        args.inputs,
        scheduler=args.dask,
        special_tokens=args.special_token,
        pretokenizer=args.pretokenizer,
        errors="replace" if args.replace_invalid else "strict",
        chunk_bytes=max(1, int(args.chunk_mb * (1 << 20))),
        progress=progress,
        cancel=cancel,
        hashes=not args.no_hashes,
        connect_timeout=args.connect_timeout or CONNECT_TIMEOUT,
        worker_timeout=args.worker_timeout or WORKER_TIMEOUT,
        reading=read_options(args),
        normalizer=args.normalizer,
    )


def _write(
    table: CountTable, args: argparse.Namespace, output: Output, inputs: list[str], elapsed: float
) -> int:
    from tokviz.core.io.outputs import write_outputs
    from tokviz.core.pretok.pretokenize import long_pretokens_note
    from tokviz.core.training.counts import table_bytes, table_format

    data = table_bytes(table, table_format(args.output))
    try:
        write_outputs([(output, data)], inputs=inputs)
    except KeyboardInterrupt:
        print_error("saving cancelled; nothing was written")
        return EXIT_INTERRUPTED
    say_reading(table.reading)
    what = f"added {table.parts} tables" if args.merge else f"counted in {elapsed:.2f} s"
    rate = f" ({table.corpus_bytes / 1e6 / elapsed:.1f} MB/s)" if not args.merge and elapsed > 0 else ""
    print_note(f"{what}{rate}: {table.describe()}")
    note = long_pretokens_note(table.long_pretokens)
    if note is not None:
        print_note(f"warning: {note}")
    from tokviz.core.io.safe_text import terminal_text

    print(f"wrote {terminal_text(args.output)} ({len(data) / 1e6:.2f} MB)", file=sys.stderr)
    return 0


def table_for_training(args: argparse.Namespace) -> CountTable:
    """The table ``tokviz train --from-counts TABLE`` trains on, its settings checked against the options.

    The table decided the pre-tokenizer, the special tokens and the normalizer, so those options
    may be left out (they are then the table's) or repeat the table's; anything else is refused
    with the reason.
    """
    from tokviz.core.pretok.pretokenize import resolve_pretokenizer
    from tokviz.core.training.counts import check_table_normalizer, load_table

    given = [
        flag
        for flag, value in (("--replace-invalid", args.replace_invalid), ("--workers", args.workers))
        if value
    ]
    if args.corpus:
        raise UsageError("give either CORPUS files or --from-counts TABLE, not both")
    if given:
        raise UsageError(f"{', '.join(given)} applies to counting, which --from-counts TABLE has done")
    table = load_table(args.from_counts)
    if (
        args.pretokenizer is not None
        and resolve_pretokenizer(args.pretokenizer).to_json() != table.pretokenizer
    ):
        raise UsageError(
            f"--pretokenizer {args.pretokenizer} differs from the table's {table.pretokenizer!r}; "
            "leave it out to use the table's"
        )
    if args.special_token and set(args.special_token) != set(table.special_tokens):
        raise UsageError(
            f"--special-token {args.special_token} differs from the table's {list(table.special_tokens)}; "
            "leave it out to use the table's"
        )
    check_table_normalizer(table, args.normalizer, args.from_counts)
    args.pretokenizer = table.pretokenizer
    args.special_token = list(table.special_tokens)
    args.normalizer = table.normalizer
    return table
