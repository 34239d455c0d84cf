"""``tokviz eval``: tokenizers x a folder (or files, or globs): totals, per folder or category, per file.

Files are chosen by :func:`tokviz.core.corpus.fileselect.select_files` (text only; binaries and the rest
counted on standard error), encoded by :func:`tokviz.core.analysis.evaluation.evaluate`, and printed as a
table, CSV, JSON or markdown; ``--plot`` draws the totals with the chart panel's drawing code.
Nothing is written until every file is measured, so Ctrl+C (exit 130) leaves no output behind.
"""

from __future__ import annotations

import argparse
import sys
from typing import IO, TYPE_CHECKING, Any

from tokviz.cli.assumed import assumptions_by_label, note_assumptions
from tokviz.cli.command import EXIT_ERROR, EXIT_OK, UsageError, print_error, print_note
from tokviz.cli.compare import add_plot_options, check_plot_options, plot_compare
from tokviz.cli.corpus_files import (
    add_heldout,
    heldout_inputs,
    named_files,
    read_options,
    say_reading,
    select_heldout,
)
from tokviz.cli.eval_output import FORMATS, render
from tokviz.cli.options import (
    add_file_options,
    add_specials_in_text,
    add_tokenizers,
    load_tokenizer,
    reading_specials,
    specials_note,
    tokenizer_specs,
)
from tokviz.cli.output import check_row_outputs, write_rows
from tokviz.cli.progress import ProgressLine

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
    add_heldout(p)
    add_tokenizers(p, "a built-in name or a tokenizer file; repeat to compare several", DEFAULT_EVAL)
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
    check_plot_options(args)
    if args.by == "category" and not args.categories:
        raise UsageError("--by category needs --categories FILE")
    if args.categories and args.by == "folder":
        raise UsageError("--categories goes with --by category, not --by folder")
    check_row_outputs(args, heldout_inputs(args))
    categories = read_categories(args.categories)
    selection, errors = select_heldout(args, "evaluate")
    specs, loaded, failed = _load_tokenizers(tokenizer_specs(args), args.pattern)
    tokenizers = reading_specials(loaded, args)
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
    write_rows(text, args, named_files(args.paths))
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


def read_categories(path: str | None) -> Any:
    if path is None:
        return None
    from tokviz.core.analysis.evaluation import Categories

    return Categories.read(path)


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


class EvalMeter(ProgressLine):
    """Progress of an evaluation (or a sweep: ``verb``) on standard error, with files and MB/s;
    silent for runs shorter than ``delay`` seconds."""

    def __init__(
        self, stream: IO[str], delay: float = 1.0, interactive: bool | None = None, verb: str = "evaluating"
    ) -> None:
        super().__init__(stream, interactive, delay=delay)
        self.verb = verb

    def __call__(self, p: EvalProgress) -> None:
        fraction = p.done / p.total if p.total else 1.0
        rate = p.done / 1e6 / max(self.elapsed(), 1e-9)
        line = (
            f"{self.verb} {fraction * 100:5.1f}%  file {p.files_done:,}/{p.files_total:,}  "
            f"{p.done / 1e6:.1f}/{p.total / 1e6:.1f} MB  {rate:.1f} MB/s"
        )
        self.show(fraction, lambda _bar: line)
