"""``tokviz eval``: tokenizers x a folder (or files, or globs): totals, per folder or category, per file.

Files are chosen by :func:`tokviz.core.corpus.fileselect.select_files` (text only; binaries and the rest
counted on standard error), encoded by :func:`tokviz.core.analysis.evaluation.evaluate`, and printed as a
table, CSV, JSON or markdown; ``--plot`` draws the totals with the chart panel's drawing code.
Nothing is written until every file is measured, so Ctrl+C (exit 130) leaves no output behind.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import IO, TYPE_CHECKING, Any

from tokviz.cli.assumed import assumptions_by_label, note_assumptions
from tokviz.cli.command import EXIT_ERROR, EXIT_OK, UsageError, print_error, print_note
from tokviz.cli.compare import add_plot_options, check_plot_options, plot_compare
from tokviz.cli.corpus_files import add_include_binary, add_record_options, read_options, say_reading
from tokviz.cli.eval_output import FORMATS, render
from tokviz.cli.options import (
    add_file_options,
    add_specials_in_text,
    load_tokenizer,
    reading_specials,
    specials_note,
)

if TYPE_CHECKING:
    from tokviz.core.analysis.evaluation import EvalProgress, Evaluation, Grouper

DEFAULT_EVAL = ("gpt2", "cl100k")
# The chart shows at most this many groups besides the total; the smaller ones are drawn together.
PLOT_GROUPS = 10


COLUMNS = """columns: bytes/token = UTF-8 bytes over tokens; x fewest = tokens over the fewest any
tokenizer needs on the same files; tokens used = distinct tokens that occur, of the vocabulary's
(vocab: its number of tokens), and their share (used); id range = highest id + 1, shown where ids
have gaps (cl100k: 100,277 for 100,261 tokens); mean len = their mean length in bytes. Empty files
make no rows. Every table ends with how special-token text was read (--specials-in-text).

example:
  tokviz eval heldout/ --include '*.py' --tokenizer gpt2 --tokenizer cl100k --tokenizer py32k.json --format markdown
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.epilog = COLUMNS
    p.formatter_class = argparse.RawDescriptionHelpFormatter
    p.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help="folders (walked recursively), files or globs ('src/**/*.py')",
    )
    p.add_argument(
        "--tokenizer",
        action="append",
        metavar="NAME|PATH",
        help=f"a built-in name or a tokenizer file; repeat to compare several (default: {', '.join(DEFAULT_EVAL)})",
    )
    pick = p.add_argument_group("which files (text files only; binaries are skipped and counted)")
    pick.add_argument(
        "--include",
        action="append",
        default=[],
        metavar="GLOB",
        help="use only files that match (repeatable): '*.py' matches a name at any depth, "
        "'src/**/*.py' a path under the folder given, 'docs/' a folder",
    )
    pick.add_argument(
        "--exclude", action="append", default=[], metavar="GLOB", help="leave out files or folders that match"
    )
    pick.add_argument(
        "--max-file-size", metavar="SIZE", help="leave out files larger than this on disk (e.g. 10MB, 500K)"
    )
    pick.add_argument(
        "--replace-invalid",
        action="store_true",
        help="read files that are not UTF-8 with U+FFFD for the bad bytes instead of skipping them",
    )
    add_include_binary(pick)
    add_record_options(pick)
    show = p.add_argument_group("what to show")
    show.add_argument(
        "--by",
        choices=("folder", "category"),
        default=None,
        help="also total per sub-folder of each folder given, or per category (see --categories)",
    )
    show.add_argument(
        "--categories",
        metavar="FILE",
        help="categories as lines 'NAME: GLOB [GLOB ...]' (first match wins; the rest is 'other'); "
        "implies --by category",
    )
    show.add_argument("--per-file", action="store_true", help="also one row per file and tokenizer")
    show.add_argument("--format", choices=FORMATS, default="table", help="output form (default: table)")
    show.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="write the rows to FILE (all at once, at the end) instead of stdout",
    )
    show.add_argument("-q", "--quiet", action="store_true", help="no progress and no notes on standard error")
    add_file_options(p, special=False)
    add_specials_in_text(p)
    add_plot_options(p, "draw the totals (per group, when grouped) as a bytes-per-token chart")


def run(args: argparse.Namespace) -> int:
    """Select the files, measure them under every tokenizer, print the rows and draw the chart."""
    from tokviz.core.corpus.fileselect import parse_size, select_files

    check_plot_options(args)
    if args.by == "category" and not args.categories:
        raise UsageError("--by category needs --categories FILE")
    if args.categories and args.by == "folder":
        raise UsageError("--categories goes with --by category, not --by folder")
    # Outputs are checked before any work: a missing folder or a read-only file fails at once.
    outputs = [(flag, path) for flag, path in (("--output", args.output), ("--plot", args.plot)) if path]
    if outputs:
        from tokviz.core.io.outputs import Output, check_outputs

        check_outputs(
            [Output.file(path, flag) for flag, path in outputs],
            inputs=named_files(args.paths) + _files_inside(args.paths, [path for _, path in outputs]),
        )
    max_size = parse_size(args.max_file_size) if args.max_file_size is not None else None
    categories = read_categories(args.categories)
    specs, loaded, failed = _load_tokenizers(
        list(dict.fromkeys(args.tokenizer or DEFAULT_EVAL)), args.pattern
    )
    tokenizers = reading_specials(loaded, args)
    errors = "replace" if args.replace_invalid else "strict"
    selection = select_files(
        args.paths,
        args.include,
        args.exclude,
        max_size=max_size,
        errors=errors,
        include_binary=args.include_binary,
        as_text=args.as_text,
    )
    note = selection.note()
    if not selection.files:
        raise _nothing_to_evaluate(note)
    if note and not args.quiet:
        print_note(note)
    evaluation = _evaluate(args, specs, tokenizers, selection, categories, errors)
    _say_read(evaluation, args.quiet)
    if not args.quiet:
        say_reading(evaluation.reading)
    assumed = assumptions_by_label(evaluation.tokenizers, loaded)
    text = render(
        evaluation,
        args.format,
        args.per_file,
        assumed,
        (args.specials_in_text, specials_note(tokenizers, args)),
    )
    if not args.quiet:
        note_assumptions(evaluation.tokenizers, loaded)
    if args.plot:
        written = plot_compare(_chart_rows(evaluation), args.plot, _id_spaces(evaluation, tokenizers), args)
        if not args.quiet:
            print_note(f"chart written to {written}")
    if args.output:
        from tokviz.core.io.outputs import Output, write_outputs

        write_outputs([(Output.file(args.output, "--output"), text.encode("utf-8"))], named_files(args.paths))
        if not args.quiet:
            print_note(f"rows written to {args.output}")
    else:
        sys.stdout.write(text)
    return EXIT_ERROR if failed else EXIT_OK


def _say_read(evaluation: Evaluation, quiet: bool) -> None:
    """What reading the files found: a warning about stretches encoded in pieces (even with
    ``--quiet``), and the empty files left out of the rows."""
    if evaluation.long_stretches_note is not None:
        print_note(f"warning: {evaluation.long_stretches_note}")
    if evaluation.empty_files and not quiet:
        n = evaluation.empty_files
        print_note(f"{n:,} empty {'file' if n == 1 else 'files'} left out of the rows")


def _load_tokenizers(specs: list[str], pattern: str | None) -> tuple[list[str], list[Any], list[str]]:
    """Load every tokenizer that loads; each one that does not is said in one line and left out.

    Returns the specs and tokenizers that loaded and the specs that failed (the command then ends
    with exit status 1 after evaluating the rest); when none loads, the first failure is raised.
    """
    from tokviz.core.errors import TokvizError

    loaded: list[tuple[str, Any]] = []
    failed: list[tuple[str, Exception]] = []
    for spec in specs:
        try:
            loaded.append((spec, load_tokenizer(spec, pattern=pattern)))
        except (TokvizError, OSError, ValueError) as exc:
            failed.append((spec, exc))
    if not loaded and failed:
        raise failed[0][1]
    from tokviz.cli import describe_error

    for spec, problem in failed:
        print_error(f"cannot load {spec}: {describe_error(problem)}")
    return [s for s, _ in loaded], [t for _, t in loaded], [s for s, _ in failed]


def named_files(paths: list[str]) -> list[str]:
    """The inputs that are files: an output may not overwrite one of them."""
    import os

    return [p for p in paths if os.path.isfile(p)]


def _files_inside(paths: list[str], outputs: list[str]) -> list[str]:
    """Outputs that already exist inside an input folder: writing one would overwrite the corpus."""
    import os

    folders = [os.path.realpath(p) for p in paths if os.path.isdir(p)]
    inside = []
    for out in outputs:
        real = os.path.realpath(out)
        if os.path.isfile(real) and any(real.startswith(folder + os.sep) for folder in folders):
            inside.append(out)
    return inside


def read_categories(path: str | None) -> Any:
    if path is None:
        return None
    from tokviz.core.analysis.evaluation import Categories

    return Categories.read(path)


def _nothing_to_evaluate(note: str | None) -> Exception:
    from tokviz.core.errors import CorpusError

    found = f" ({note})" if note else ""
    return CorpusError(f"no text files to evaluate{found}")


def _evaluate(
    args: argparse.Namespace,
    specs: list[str],
    tokenizers: list[Any],
    selection: Any,
    categories: Any,
    errors: str,
) -> Evaluation:
    from tokviz.core.analysis.evaluation import by_folder, evaluate, unique_labels

    group_of: Grouper | None = None
    order: tuple[str, ...] = ()
    if categories is not None:
        group_of, order = categories.group_of, categories.names
    elif args.by == "folder":
        group_of = by_folder(selection)
    meter = None if args.quiet else EvalMeter(sys.stderr)
    try:
        return evaluate(
            selection,
            tokenizers,
            unique_labels(specs, tokenizers),
            group_of=group_of,
            group_order=order,
            per_file=args.per_file,
            errors=errors,
            progress=meter,
            reading=read_options(args),
        )
    finally:
        if meter is not None:
            meter.close()


def _chart_rows(evaluation: Evaluation) -> list[dict[str, Any]]:
    """The totals (and the largest groups) as rows the chart draws: one bar per tokenizer each."""
    rows = list(evaluation.groups)
    n_tok = len(evaluation.tokenizers)
    groups = [rows[i : i + n_tok] for i in range(0, len(rows), n_tok)]
    if len(groups) > PLOT_GROUPS:
        largest = sorted(range(len(groups)), key=lambda k: groups[k][0].bytes, reverse=True)
        keep = set(largest[: PLOT_GROUPS - 1])
        kept = [g for k, g in enumerate(groups) if k in keep]  # in their table order
        rest = [g for k, g in enumerate(groups) if k not in keep]
        label = f"{len(rest)} others"
        merged = [
            {
                "input": label,
                "tokenizer": rest[0][j].tokenizer,
                "bytes": sum(g[j].bytes for g in rest),
                "code_points": sum(g[j].code_points for g in rest),
                "tokens": sum(g[j].tokens for g in rest),
            }
            for j in range(n_tok)
        ]
        groups = kept
    else:
        merged = []
    n_files = evaluation.totals[0].files
    total = f"all {n_files:,} {'file' if n_files == 1 else 'files'}"
    out = [_chart_row(r.group, r) for g in groups for r in g] + merged
    out += [_chart_row(total, r) for r in evaluation.totals]
    for row in out:
        row["bytes_per_token"] = row["bytes"] / row["tokens"] if row["tokens"] else None
    return out


def _chart_row(label: str, r: Any) -> dict[str, Any]:
    return {
        "input": label,
        "tokenizer": r.tokenizer,
        "bytes": r.bytes,
        "code_points": r.code_points,
        "tokens": r.tokens,
    }


def _id_spaces(evaluation: Evaluation, tokenizers: list[Any]) -> dict[str, int | None]:
    from tokviz.core.analysis.evaluation import id_space

    return {name: id_space(tok) for name, tok in zip(evaluation.tokenizers, tokenizers)}


class EvalMeter:
    """Progress of an evaluation on standard error: a bar redrawn in place on a terminal, a line
    every tenth of the way in a log; silent for runs shorter than ``delay`` seconds."""

    def __init__(
        self, stream: IO[str], delay: float = 1.0, interactive: bool | None = None, verb: str = "evaluating"
    ) -> None:
        self.stream = stream
        self.verb = verb
        self.start = time.perf_counter()
        self.delay = delay
        self.interactive = _isatty(stream) if interactive is None else interactive
        self.last_draw = 0.0
        self.last_decile = -1
        self.drawn = False

    def __call__(self, p: EvalProgress) -> None:
        now = time.perf_counter()
        elapsed = now - self.start
        if elapsed < self.delay:
            return
        fraction = p.done / p.total if p.total else 1.0
        rate = p.done / 1e6 / elapsed
        line = (
            f"{self.verb} {fraction * 100:5.1f}%  file {p.files_done:,}/{p.files_total:,}  "
            f"{p.done / 1e6:.1f}/{p.total / 1e6:.1f} MB  {rate:.1f} MB/s"
        )
        if self.interactive:
            if now - self.last_draw < 0.1 and fraction < 1.0:
                return
            self.last_draw = now
            self.stream.write("\r" + line + "\x1b[K")
            self.drawn = True
        else:
            decile = int(fraction * 10)
            if decile == self.last_decile:
                return
            self.last_decile = decile
            self.stream.write(line + "\n")
        self.stream.flush()

    def close(self) -> None:
        """End the bar's line, if one was drawn."""
        if self.drawn:
            self.stream.write("\n")
            self.stream.flush()
            self.drawn = False


def _isatty(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
