"""``tokviz parity``: what the same content costs in each language, under each tokenizer.

DIR holds parallel text, one file per language with aligned lines (FLORES-200's ``eng_Latn.devtest``
or ``en.txt``); without DIR the small sample that ships with tokviz is used. Every line is encoded on
its own by :func:`tokviz.core.analysis.parity.measure_parity`; the rows (tokens, bytes and characters per
token, the premium over the reference language) print as a table, CSV, JSON or markdown, followed
by the dearest languages; ``--plot`` draws sorted bars, one series per tokenizer (Qt imported only then).
"""

from __future__ import annotations

import argparse
import sys
from typing import IO, TYPE_CHECKING, Any

from tokviz.cli.assumed import assumptions_by_label, note_assumptions
from tokviz.cli.command import EXIT_OK, UsageError, print_note, warns_on_cuts
from tokviz.cli.drawing import qt_drawing
from tokviz.cli.options import (
    add_file_options,
    add_specials_in_text,
    add_tokenizers,
    check_drawing_options,
    load_tokenizers,
    specials_note,
)
from tokviz.cli.output import check_row_outputs, render_markdown, render_table, write_rows
from tokviz.cli.progress import ProgressLine

if TYPE_CHECKING:
    from tokviz.core.analysis.parity import ParallelSet, ParityTable

DEFAULT_PARITY = ("gpt2", "cl100k", "o200k")
FORMATS = ("table", "csv", "json", "markdown")

EPILOG = """columns: tokens = the sum over the lines, each line encoded on its own (newlines not
counted); bytes/token and chars/token = UTF-8 bytes and characters over tokens; premium = tokens
over the reference language's tokens for the same lines (2.00x: the same content costs twice the
tokens). Rows come dearest first under each tokenizer; the dearest languages are named below.

examples:
  tokviz parity --tokenizer gpt2 --tokenizer o200k
  tokviz parity flores200_dataset/devtest --language hin_Deva --language amh_Ethi --plot parity.png
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.epilog = EPILOG
    p.formatter_class = argparse.RawDescriptionHelpFormatter
    p.add_argument(
        "folder",
        nargs="?",
        metavar="DIR",
        help="one UTF-8 file per language, aligned line by line: en.txt, fr.txt, ... or FLORES-200's "
        "eng_Latn.devtest, ... (its top folder reads devtest/); default: the small sample bundled "
        "with tokviz, written for illustration",
    )
    add_tokenizers(
        p, "a built-in name or a tokenizer file or folder; repeat to compare several", DEFAULT_PARITY
    )
    p.add_argument(
        "--reference",
        default="en",
        metavar="LANG",
        help="the language premiums are measured against: a code (en, eng_Latn) or a name (default: en)",
    )
    p.add_argument(
        "--language",
        action="append",
        default=[],
        metavar="LANG",
        help="measure only these languages (repeatable; the reference is always measured)",
    )
    p.add_argument(
        "--worst",
        type=int,
        default=3,
        metavar="N",
        help="name the N dearest languages per tokenizer (default: 3)",
    )
    p.add_argument(
        "--field",
        default="text",
        metavar="NAME",
        help="the sentence field of language files of records (eng_Latn.parquet, en.jsonl; default: text)",
    )
    p.add_argument("--format", choices=FORMATS, default="table", help="output form (default: table)")
    p.add_argument("-o", "--output", metavar="FILE", help="write the rows to FILE instead of stdout")
    p.add_argument("-q", "--quiet", action="store_true", help="no notes on standard error")
    add_file_options(p, special=False)
    add_specials_in_text(p)
    plot = p.add_argument_group("chart (needs the desktop app's libraries; no display needed)")
    plot.add_argument("--plot", metavar="OUT.png|OUT.svg", help="draw the premiums as sorted bars (1280x720)")
    plot.add_argument("--scale", type=float, default=None, metavar="X", help="PNG pixels per point, e.g. 2")
    plot.add_argument("--dark", action="store_true", help="dark background")
    plot.add_argument("--large-text", action="store_true", help="presentation-size text")


@warns_on_cuts
def run(args: argparse.Namespace) -> int:
    """Read the parallel set, measure it under every tokenizer, print the rows and draw the chart."""
    from tokviz.core.analysis.evaluation import unique_labels
    from tokviz.core.analysis.parity import bundled_sample, measure_parity, read_parallel

    _check_options(args)
    parallel = read_parallel(args.folder if args.folder is not None else bundled_sample(), args.field)
    inputs = [t.path for t in parallel.texts]
    check_row_outputs(args, inputs)
    specs, loaded, tokenizers = load_tokenizers(args)
    labels = unique_labels(specs, loaded)
    meter = None if args.quiet else ParityMeter(sys.stderr)
    try:
        table = measure_parity(
            parallel, tokenizers, labels, reference=args.reference, languages=args.language, progress=meter
        )
    finally:
        if meter is not None:
            meter.close()
    if args.format == "json":
        text = _json(table, args.worst, parallel, assumptions_by_label(labels, loaded))
    else:
        text = render(table, args.format, args.worst, specials_note(tokenizers, args))
    if not args.quiet:
        if args.folder is None:
            print_note(
                f"the bundled sample ({len(parallel.texts)} languages, {parallel.line_count} lines), "
                "written for illustration; measure with FLORES-200 for real numbers"
            )
        note_assumptions(labels, loaded)
    if args.plot:
        written = _plot(table, args)
        if not args.quiet:
            print_note(f"chart written to {written}")
    write_rows(text, args, inputs)
    return EXIT_OK


def _check_options(args: argparse.Namespace) -> None:
    if args.worst < 0:
        raise UsageError("--worst must be 0 or more")
    shaping = {"--scale": args.scale, "--dark": args.dark, "--large-text": args.large_text}
    check_drawing_options("--plot", args.plot, args.scale, shaping, "chart")


def render(table: ParityTable, form: str, worst: int = 3, note: str = "") -> str:
    """The rows as an aligned table, markdown or CSV, with the dearest languages under a table."""
    if form == "csv":
        from tokviz.core.analysis.parity import parity_csv

        return parity_csv(table)
    headers, rows, right = table.headers(), table.rows(), table.right_aligned()
    dearest = [f"dearest under {line}" for line in table.summary(worst)] if worst else []
    tail = "".join(f"{line}\n" for line in [*dearest, note] if line)
    if form == "markdown":
        return render_markdown(headers, rows, right) + f"\n\n*{table.caption()}.*\n\n" + tail
    return render_table(headers, rows, right) + f"\n{table.caption()}\n" + tail


def _json(table: ParityTable, worst: int, parallel: ParallelSet, assumptions: dict[str, list[str]]) -> str:
    import json

    from tokviz.core.analysis.evaluation import rounded_rows
    from tokviz.core.analysis.parity import iter_rows
    from tokviz.core.io.safe_text import encodable

    document: dict[str, Any] = {
        "folder": parallel.folder,
        "lines": parallel.line_count,
        "reference": {"language": table.reference.name, "code": table.reference.code},
        "rows": rounded_rows(iter_rows(table)),
        "dearest": {
            tok: rounded_rows(
                {"language": r.language.name, "code": r.language.code, "premium": r.premium}
                for r in table.worst(tok, worst)
            )
            for tok in table.tokenizers
        },
        "assumptions": assumptions,
    }
    return json.dumps(encodable(document), ensure_ascii=False, indent=2) + "\n"


def _plot(table: ParityTable, args: argparse.Namespace) -> str:
    """Draw the premiums as the chart panel's parity view does, into ``args.plot``."""
    with qt_drawing("--plot needs PySide6 and pyqtgraph"):
        from tokviz.gui.drawing.parity_chart import plot_parity
    return str(plot_parity(table, args.plot, scale=args.scale or 1.0, dark=args.dark, large=args.large_text))


class ParityMeter(ProgressLine):
    """Progress on standard error for a big folder (FLORES-200 under several tokenizers); silent
    for runs shorter than ``delay`` seconds."""

    def __init__(self, stream: IO[str], delay: float = 1.0) -> None:
        super().__init__(stream, delay=delay)

    def __call__(self, done: int, total: int) -> None:
        if total:
            line = f"measuring {done / total * 100:5.1f}%  ({done:,} of {total:,} languages x tokenizers)"
            self.show(done / total, lambda _bar: line)
