"""``tokviz compare``: bytes, tokens, bytes per token and attention cost per input and tokenizer.

An input is a text (``--text``), a file, standard input (``-``) or a folder: a folder counts as
one input, the totals over its text files (``tokviz eval`` breaks a folder down further). Empty
inputs make no rows. The rows are those of the chart panel (:class:`tokviz.core.analysis.exchange.ExchangeTable`):
the CSV has the chart's CSV columns, numbers rounded alike, and tokenizers are named as the app
names them ("GPT-2", a model file's stem). ``--plot`` draws the same rows as the chart panel
does (Qt imported only then).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from tokviz.cli.assumed import note_assumptions
from tokviz.cli.command import UsageError, print_note, warns_on_cuts
from tokviz.cli.drawing import qt_drawing
from tokviz.cli.options import (
    ArgumentAdder,
    add_file_options,
    add_input,
    add_specials_in_text,
    add_tokenizers,
    add_words_corpus,
    check_drawing_options,
    is_words,
    load_tokenizer,
    load_tokenizers,
    read_text_file,
    specials_note,
)
from tokviz.cli.output import format_int, format_ratio, render_markdown, render_table

if TYPE_CHECKING:
    from tokviz.core.analysis.metrics import TextMetrics
    from tokviz.core.bpe.tokenizer import Tokenizer

DEFAULT_COMPARE = ("bytes", "gpt2", "cl100k")
PLOT_VIEWS = ("bytes", "attention", "vocab")
FORMATS = ("table", "csv", "json", "markdown")
# Above this many inputs the chart draws their total (one bar per tokenizer), and eval is suggested.
PLOT_MAX_INPUTS = 12


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_tokenizers(p, "repeat to compare several", DEFAULT_COMPARE)
    add_input(p, several=True)
    p.add_argument("--format", choices=FORMATS, default="table", help="output form (default: table)")
    add_words_corpus(p)
    add_file_options(p)
    add_specials_in_text(p)
    add_plot_options(p, "also draw the bytes-per-token chart into a PNG or SVG file (1280x720)")


def add_plot_options(p: argparse.ArgumentParser, plot_help: str) -> None:
    """The chart options of ``compare`` and ``eval``: ``--plot`` and what shapes the picture."""
    plot: ArgumentAdder = p.add_argument_group("chart (needs the desktop app's libraries; no display needed)")
    plot.add_argument("--plot", metavar="OUT.png|OUT.svg", help=plot_help)
    plot.add_argument(
        "--scale", type=float, default=None, metavar="X", help="PNG pixels per point, e.g. 2 for 2560x1440"
    )
    plot.add_argument(
        "--plot-view",
        choices=PLOT_VIEWS,
        default=None,
        help="bytes per token (default), attention cost, or vocabulary size against V x d",
    )
    plot.add_argument(
        "--embedding-dim", type=int, default=None, metavar="D", help="d in V x d (default: 768)"
    )
    plot.add_argument("--dark", action="store_true", help="dark background")
    plot.add_argument("--large-text", action="store_true", help="presentation-size text")


@warns_on_cuts
def run(args: argparse.Namespace) -> int:
    """Print one row per input and tokenizer (table, CSV, JSON or markdown), then draw the chart if asked."""
    if args.text is not None and args.files:
        raise UsageError("give either --text or FILEs, not both")
    if args.text is None and not args.files:
        raise UsageError("give the input as --text TEXT or as one or more FILEs or folders")
    check_plot_options(args)
    texts: dict[str, str] = {}
    folders: dict[str, Any] = {}
    if args.text is not None:
        texts["text"] = args.text
    for path in args.files:
        if path != "-" and os.path.isdir(path):
            folders[path] = _folder_selection(path)
        else:
            texts[path] = read_text_file(path)
    order = ["text"] if args.text is not None else list(dict.fromkeys(args.files))
    specs, _, tokenizers = load_tokenizers(args, words_texts=list(texts.values()))
    rows = measured_rows(texts, folders, specs, tokenizers, args.embedding_dim or 768, order)
    lesson = add_lesson_columns(rows, texts, specs, tokenizers)
    labels = [str(row["tokenizer"]) for row in rows[: len(tokenizers)]] or [t.name for t in tokenizers]
    label_sizes(rows, tokenizers)
    for row in rows:
        row["specials_in_text"] = args.specials_in_text
    if args.format == "json":
        add_assumptions(rows, tokenizers)
    sys.stdout.write(render_rows(rows, args.format, lesson, specials_note(tokenizers, args)))
    note_assumptions(labels, tokenizers)
    if lesson and any(is_words(spec) for spec in specs) and not args.words_corpus:
        print_note(
            "words: the vocabulary was built from the input itself, so no word is unknown; "
            "give --words-corpus FILE to build it from other text"
        )
    n_inputs = len(rows) // len(specs)
    if n_inputs > PLOT_MAX_INPUTS and args.format == "table":
        print_note(f"{n_inputs} inputs: 'tokviz eval FOLDER' gives totals per tokenizer and per sub-folder")
    if args.plot:
        sizes = {r["tokenizer"]: r["id_range"] for r in rows}
        chart_rows = rows if n_inputs <= PLOT_MAX_INPUTS else _total_rows(rows, n_inputs)
        written = plot_compare(chart_rows, args.plot, sizes, args)
        print_note(f"chart written to {written}")
    return 0


def label_sizes(rows: list[dict[str, Any]], tokenizers: Sequence[Tokenizer]) -> None:
    """Name both sizes as ``tokviz eval`` does: ``vocab_tokens`` (distinct tokens, specials included)
    and ``id_range`` (highest id + 1, the chart's V), in place of the chart's ``vocab_size``."""
    for i, row in enumerate(rows):
        row["id_range"] = row.pop("vocab_size")
        row["vocab_tokens"] = tokenizers[i % len(tokenizers)].vocab_size


def _folder_selection(path: str) -> Any:
    """The text files of a folder input; what was left out is said on standard error."""
    from tokviz.core.corpus.fileselect import select_files

    selection = select_files([path])
    note = selection.note()
    if note:
        print_note(f"{path}: {note}")
    return selection


def measured_rows(
    texts: dict[str, str],
    folders: dict[str, Any],
    specs: Sequence[str],
    tokenizers: Sequence[Tokenizer],
    embedding_dim: int = 768,
    order: Sequence[str] = (),
) -> list[dict[str, Any]]:
    """The chart's rows (:meth:`ExchangeTable.rows`) for text and folder inputs, empty ones left out.

    Tokenizers are named by :func:`tokviz.core.analysis.evaluation.unique_labels`; a folder's row holds the
    totals over its text files; the vocabulary size is the id space (V in V x d). ``order`` lists
    the input labels in the order to show (default: texts, then folders).
    """
    from tokviz.core.analysis.evaluation import evaluate, id_space, unique_labels
    from tokviz.core.analysis.exchange import ExchangeTable
    from tokviz.core.analysis.metrics import TextMetrics

    names = unique_labels(specs, tokenizers)
    measured: dict[str, tuple[TextMetrics, ...]] = {}
    notes: list[str] = []
    for label in order or [*texts, *folders]:
        if label in texts:
            metrics = tuple(TextMetrics.of(tok, texts[label]) for tok in tokenizers)
            if not metrics[0].bytes:
                notes.append(f"{label} is empty: no rows for it")
                continue
            measured[label] = metrics
            continue
        selection = folders[label]
        totals = evaluate(selection, tokenizers, names).totals if selection.files else ()
        if not totals or not totals[0].bytes:
            notes.append(f"{label} holds no text: no rows for it")
            continue
        measured[label.rstrip("/" + os.sep) or label] = tuple(
            TextMetrics(r.bytes, r.code_points, r.tokens, r.bytes_per_token, round_trip=not r.lossy)
            for r in totals
        )
    if not measured:
        from tokviz.core.errors import CorpusError

        raise CorpusError("nothing to compare: every input is empty")
    for note in notes:
        print_note(note)
    table = ExchangeTable(
        tuple(measured), tuple(names), tuple(measured.values()), tuple(id_space(t) for t in tokenizers)
    )
    return table.rows(embedding_dim)


def labelled_rows(
    inputs: dict[str, str], tokenizer_specs: Sequence[str], tokenizers: Sequence[Tokenizer] | None = None
) -> list[dict[str, Any]]:
    """The rows ``compare`` prints for text inputs (see :func:`measured_rows`), for other callers."""
    if tokenizers is None:
        tokenizers = [load_tokenizer(spec) for spec in tokenizer_specs]
    return measured_rows(inputs, {}, tokenizer_specs, tokenizers)


def _total_rows(rows: list[dict[str, Any]], n_inputs: int) -> list[dict[str, Any]]:
    """One row per tokenizer summing all inputs: what a chart of many inputs can show legibly."""
    totals: dict[str, dict[str, Any]] = {}
    for r in rows:
        t = totals.setdefault(
            r["tokenizer"],
            {
                "input": f"all {n_inputs} inputs",
                "tokenizer": r["tokenizer"],
                "bytes": 0,
                "code_points": 0,
                "tokens": 0,
            },
        )
        for key in ("bytes", "code_points", "tokens"):
            t[key] += r[key]
    for t in totals.values():
        t["bytes_per_token"] = t["bytes"] / t["tokens"] if t["tokens"] else None
    return list(totals.values())


def check_plot_options(args: argparse.Namespace) -> None:
    """Chart options make sense only with --plot, and the file must be a PNG or an SVG."""
    shaping = {
        "--scale": args.scale,
        "--plot-view": args.plot_view,
        "--embedding-dim": args.embedding_dim,
        "--dark": args.dark,
        "--large-text": args.large_text,
    }
    check_drawing_options("--plot", args.plot, args.scale, shaping, "chart")
    if args.embedding_dim is not None and args.embedding_dim < 1:
        raise UsageError("--embedding-dim must be 1 or more")


def plot_compare(
    rows: list[dict[str, Any]], path: str, vocab_sizes: dict[str, int | None], args: argparse.Namespace
) -> str:
    """Draw the rows as the chart panel does, into ``path``; Qt is imported only here."""
    with qt_drawing("--plot needs PySide6 and pyqtgraph"):
        from tokviz.gui.drawing.chart_canvas import plot_compare_rows
    written = plot_compare_rows(
        rows,
        path,
        vocab_sizes,
        view=args.plot_view or "bytes",
        scale=args.scale or 1.0,
        dark=args.dark,
        large=args.large_text,
        embedding_dim=args.embedding_dim or 768,
    )
    return str(written)


def add_lesson_columns(
    rows: list[dict[str, Any]], inputs: dict[str, str], specs: Sequence[str], tokenizers: Sequence[Tokenizer]
) -> bool:
    """With the lecture's characters or words tokenizer compared, add ``unknown`` (and show ``vocab_size``).

    The lesson in numbers: characters need a token per character from a 1,114,112-id space, words
    need a vocabulary entry per word and lose every word they never saw (``unknown``), bytes and
    BPE lose nothing. Returns whether the columns were added. A folder input's ``unknown`` is empty.
    """
    from tokviz.core.bpe.lecture_tokenizers import CharacterTokenizer, WordTokenizer

    if not any(isinstance(tok, CharacterTokenizer | WordTokenizer) for tok in tokenizers):
        return False
    for i, row in enumerate(rows):
        tok = tokenizers[i % len(specs)]
        text = inputs.get(row["input"])
        if text is None:
            row["unknown"] = None
        else:
            row["unknown"] = len(tok.unknown_words(text)) if isinstance(tok, WordTokenizer) else 0
    return True


def add_assumptions(rows: list[dict[str, Any]], tokenizers: Sequence[Tokenizer]) -> None:
    """Give each row the list of what tokviz assumed about its tokenizer (rows come input by input,
    one per tokenizer in order)."""
    for index, row in enumerate(rows):
        row["assumptions"] = list(tokenizers[index % len(tokenizers)].assumptions)


def render_rows(rows: list[dict[str, Any]], form: str, lesson: bool = False, note: str = "") -> str:
    """The rows as an aligned table, markdown, CSV (the chart's columns, rounded) or JSON.

    ``note`` (how special-token text was read) is the line under a table or markdown table.
    """
    if form == "csv":
        return _csv(rows, lesson)
    if form == "json":
        import json

        from tokviz.core.analysis.evaluation import rounded_rows
        from tokviz.core.io.safe_text import encodable

        return json.dumps(encodable(rounded_rows(rows)), ensure_ascii=False, indent=2) + "\n"
    headers = ["input", "tokenizer", "bytes", "tokens", "bytes/token", "attention x"]
    right = [False, False, True, True, True, False]
    cells = [
        [
            r["input"],
            r["tokenizer"],
            format_int(r["bytes"]),
            format_int(r["tokens"]),
            format_ratio(r["bytes_per_token"]),
            format_ratio(r["attention_multiplier"]) + _mark(r),
        ]
        for r in rows
    ]
    if lesson:
        _add_lesson_cells(rows, headers, right, cells)
    lines = [LOSSY_NOTE] if any(r.get("lossy") for r in rows) else []
    tail = "".join(f"{line}\n" for line in [*lines, *([note] if note else [])])
    if form == "markdown":
        return render_markdown(headers, cells, right) + "\n\n" + tail
    return render_table(headers, cells, right) + "\n" + tail


LOSSY_NOTE = (
    "lossy: its tokens do not decode back to the text (an <unk>, or a normalizer such as lowercasing "
    "or NFKC), so fewer tokens is no saving; it is never called best while another kept the text"
)


def _mark(row: dict[str, Any]) -> str:
    """What follows a row's attention multiplier: lossy (never best while another kept the text) or best."""
    if row.get("lossy") and not row["best"]:
        return "  (lossy)"
    if row.get("lossy"):
        return "  (best, lossy)"
    return "  (best)" if row["best"] else ""


def _add_lesson_cells(
    rows: list[dict[str, Any]], headers: list[str], right: list[bool], cells: list[list[str]]
) -> None:
    """The lesson's columns before the last: vocab (tokens), id range where it differs, unknown words."""
    gaps = any(r.get("id_range") != r.get("vocab_tokens", r.get("id_range")) for r in rows)
    headers[-1:-1] = ["vocab", *(["id range"] if gaps else []), "unknown"]
    right[-1:-1] = [True, *([True] if gaps else []), True]
    for r, row in zip(rows, cells):
        unknown = "-" if r["unknown"] is None else str(r["unknown"])
        sizes = [format_int(r.get("vocab_tokens", r.get("id_range")))]
        if gaps:
            sizes.append(format_int(r.get("id_range")))
        row[-1:-1] = [*sizes, unknown]


def _csv(rows: list[dict[str, Any]], lesson: bool) -> str:
    import csv
    import io

    from tokviz.core.analysis.evaluation import rounded_rows
    from tokviz.core.analysis.exchange import CSV_FIELDS
    from tokviz.core.io.safe_text import csv_cell

    fields = [
        f for name in CSV_FIELDS for f in (("vocab_tokens", "id_range") if name == "vocab_size" else (name,))
    ]
    fields += ["unknown"] if lesson else []
    fields += ["specials_in_text"] if rows and "specials_in_text" in rows[0] else []
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=fields, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    for row in rounded_rows(rows):
        writer.writerow({k: "" if row.get(k) is None else csv_cell(row[k]) for k in fields})
    return buffer.getvalue()
