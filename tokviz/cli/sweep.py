"""``tokviz sweep``: what every vocabulary size of one merge list buys on held-out files.

Every prefix of a merge list is a smaller vocabulary; :func:`tokviz.core.analysis.sweep.sweep_files` encodes
each file once and gives tokens, bytes/token, the share of the vocabulary used and Rényi efficiency
at every size, per group (``--by folder|category|language``) and in total, with the knee marked.
The table shows a readable set of sizes (``--every``, ``--sizes``); CSV, JSON and markdown the same
rows; ``--plot`` draws bytes/token against vocabulary size, a curve per group. Files are chosen as
``tokviz eval`` chooses them, and nothing is written until every file is measured.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from tokviz.cli.assumed import note_assumptions
from tokviz.cli.command import UsageError, print_note, warns_on_cuts
from tokviz.cli.corpus_files import add_heldout, heldout_inputs, named_files, select_heldout
from tokviz.cli.eval import EvalMeter, read_categories
from tokviz.cli.options import (
    add_file_options,
    add_picture_options,
    add_specials_in_text,
    check_picture_options,
    load_tokenizer,
    reading_specials,
    specials_note,
)
from tokviz.cli.output import check_row_outputs, render_markdown, render_table, write_rows

if TYPE_CHECKING:
    from tokviz.core.analysis.evaluation import Grouper
    from tokviz.core.analysis.sweep import Sweep

FORMATS = ("table", "csv", "json", "markdown")

ABOUT = """columns: vocab = 256 bytes + merges + special tokens; bytes/token = the files' UTF-8 bytes
over tokens; used = distinct tokens that occur, and their share of the vocabulary; Rényi eff. =
H_alpha(p) / log(vocab) of the token frequencies p (Zouhar et al. 2023; alpha 2.5 unless --alpha).
The knee is the smallest size from which on 10% more vocabulary gains less than 1% bytes/token.

example:
  tokviz sweep model.json heldout/ --by folder --every 2000 --plot sweep.png
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.epilog = ABOUT
    p.formatter_class = argparse.RawDescriptionHelpFormatter
    p.add_argument("tokenizer", metavar="MODEL", help="a BPE tokenizer: a built-in name or a file or folder")
    add_heldout(p, "HELD-OUT")
    show = p.add_argument_group("what to show")
    show.add_argument(
        "--by",
        choices=("folder", "category", "language"),
        default=None,
        help="also a curve per sub-folder, per category (see --categories) or per language "
        "(read from file names: eng_Latn.devtest, en.txt)",
    )
    show.add_argument(
        "--categories",
        metavar="FILE",
        help="categories as lines 'NAME: GLOB [GLOB ...]'; implies --by category",
    )
    sizes = show.add_mutually_exclusive_group()
    sizes.add_argument(
        "--every",
        type=int,
        metavar="N",
        help="a row every N merges (default: a round N giving about 16 rows)",
    )
    sizes.add_argument(
        "--sizes", metavar="N,N,...", help="rows at these vocabulary sizes only (the knee is always shown)"
    )
    show.add_argument(
        "--alpha", type=float, default=None, metavar="A", help="the order of Rényi efficiency (default: 2.5)"
    )
    show.add_argument("--format", choices=FORMATS, default="table", help="output form (default: table)")
    show.add_argument("-o", "--output", metavar="FILE", help="write the rows to FILE instead of stdout")
    show.add_argument("-q", "--quiet", action="store_true", help="no progress and no notes on standard error")
    plot = p.add_argument_group("chart (needs the desktop app's libraries; no display needed)")
    plot.add_argument("--plot", metavar="OUT.png|OUT.svg", help="draw bytes/token against vocabulary size")
    add_picture_options(plot)
    add_file_options(p)
    add_specials_in_text(p)


@warns_on_cuts
def run(args: argparse.Namespace) -> int:
    """Select the files, sweep the merge list over them, print the rows and draw the curves."""
    check_picture_options(args, "--plot", args.plot)
    if args.by == "category" and not args.categories:
        raise UsageError("--by category needs --categories FILE")
    if args.categories and args.by not in (None, "category"):
        raise UsageError(f"--categories goes with --by category, not --by {args.by}")
    if args.every is not None and args.every < 1:
        raise UsageError("--every must be 1 or more")
    wanted = _parse_sizes(args.sizes)
    check_row_outputs(args, heldout_inputs(args))
    categories = read_categories(args.categories)
    selection, errors = select_heldout(args, "sweep")
    loaded = load_tokenizer(args.tokenizer, args.special_token, pattern=args.pattern)
    tokenizer = reading_specials([loaded], args)[0]
    sweep = _sweep(args, tokenizer, selection, categories, errors)
    steps = sweep.steps_to_show(args.every, wanted)
    text = render(sweep, steps, args.format, specials_note([tokenizer], args), loaded.assumptions)
    if not args.quiet:
        note_assumptions([sweep.tokenizer], [loaded])
    if args.plot:
        with _drawing():
            from tokviz.gui.drawing.sweep_chart import write_sweep_chart
        written = write_sweep_chart(sweep, args.plot, scale=args.scale or 2.0, dark=args.theme == "dark")
        if not args.quiet:
            print_note(f"chart written to {written}")
    write_rows(text, args, named_files(args.paths))
    return 0


def _drawing() -> Any:
    from tokviz.cli.drawing import qt_drawing

    return qt_drawing("--plot needs PySide6")


def _parse_sizes(value: str | None) -> list[int]:
    if value is None:
        return []
    try:
        sizes = [int(part.replace("_", "")) for part in value.split(",") if part.strip()]
    except ValueError:
        raise UsageError(f"--sizes takes whole numbers separated by commas, got {value!r}") from None
    if not sizes:
        raise UsageError("--sizes needs at least one vocabulary size")
    return sizes


def _sweep(args: argparse.Namespace, tokenizer: Any, selection: Any, categories: Any, errors: str) -> Sweep:
    from tokviz.cli.corpus_files import read_options, say_reading
    from tokviz.core.analysis.sweep import DEFAULT_ALPHA, sweep_files
    from tokviz.core.corpus.documents import CorpusReader

    group_of, order = _grouping(args, selection, categories)
    meter = None if args.quiet else EvalMeter(sys.stderr, verb="sweeping")
    reader = CorpusReader(read_options(args), errors)
    try:
        sweep = sweep_files(
            tokenizer,
            selection,
            group_of=group_of,
            group_order=order,
            alpha=DEFAULT_ALPHA if args.alpha is None else args.alpha,
            errors=errors,
            progress=meter,
            reader=reader,
        )
    finally:
        if meter is not None:
            meter.close()
    if not args.quiet:
        say_reading(reader.summary())
    return sweep


def _grouping(
    args: argparse.Namespace, selection: Any, categories: Any
) -> tuple[Grouper | None, tuple[str, ...]]:
    """How files are grouped: by category, sub-folder or the language their name declares."""
    from tokviz.core.analysis.evaluation import by_folder

    if categories is not None:
        return categories.group_of, categories.names
    if args.by == "folder":
        return by_folder(selection), ()
    if args.by == "language":
        from tokviz.core.analysis.sweep import by_language

        return by_language, ()
    return None, ()


# ----------------------------------------------------------------------------- output forms
def render(sweep: Sweep, steps: list[int], form: str, note: str = "", assumptions: Sequence[str] = ()) -> str:
    """The sweep's rows at ``steps`` in ``form`` (one of :data:`FORMATS`), ending with a newline.

    ``assumptions`` (what tokviz assumed about the tokenizer: a guessed pre-tokenizer moves the
    knee by thousands of tokens) end the table and go into the JSON document.
    """
    if form == "csv":
        return _csv(sweep, steps)
    if form == "json":
        return _json(sweep, steps, assumptions)
    headers, right = sweep.headers(), sweep.right_aligned()
    rows = sweep.rows(steps)
    if not sweep.groups:  # only the total: a group column saying "all" on every line says nothing
        headers, right, rows = headers[1:], right[1:], [r[1:] for r in rows]
    tail = f"{note}\n" if note else ""
    tail += "".join(f"assumed: {a} (the sizes and the knee rest on that guess)\n" for a in assumptions)
    if form == "markdown":
        return render_markdown(headers, rows, right) + f"\n\n*{sweep.caption()}.*\n" + tail
    return render_table(headers, rows, right) + "\n" + _knees(sweep) + tail


def _knees(sweep: Sweep) -> str:
    """A line per curve saying where its knee is (or that it has none, and why)."""
    return "".join(f"knee ({curve.group}): {curve.knee_words(sweep.size_of)}\n" for curve in sweep.curves)


def _csv(sweep: Sweep, steps: list[int]) -> str:
    from tokviz.core.analysis.sweep import SWEEP_FIELDS
    from tokviz.core.io.safe_text import csv_cell

    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(SWEEP_FIELDS), lineterminator="\n")
    writer.writeheader()
    for point in _rounded(sweep, steps):
        writer.writerow({k: "" if v is None else csv_cell(v) for k, v in point.items()})
    return buffer.getvalue()


def _json(sweep: Sweep, steps: list[int], assumptions: Sequence[str]) -> str:
    from tokviz.core.io.safe_text import encodable

    document = {
        "tokenizer": sweep.tokenizer,
        "merges": sweep.merge_count,
        "alpha": sweep.alpha,
        "knees": {c.group: (None if (k := c.knee()) is None else sweep.size_of(k)) for c in sweep.curves},
        "knee_notes": {c.group: c.knee_words(sweep.size_of) for c in sweep.curves if c.knee() is None},
        "assumptions": list(assumptions),
        "empty_files": sweep.empty_files,
        "rows": _rounded(sweep, steps),
    }
    return json.dumps(encodable(document), ensure_ascii=False, indent=2) + "\n"


def _rounded(sweep: Sweep, steps: list[int]) -> list[dict[str, Any]]:
    """The points as dictionaries, the ratios to 6 decimals (no binary-float noise in files)."""
    out = []
    for point in sweep.points(steps):
        row = point.as_dict()
        for key in ("bytes_per_token", "vocab_used_share", "renyi_efficiency"):
            if row[key] is not None:
                row[key] = round(row[key], 6)
        out.append(row)
    return out
