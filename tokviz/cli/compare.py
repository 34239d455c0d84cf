"""``tokviz compare``: bytes, tokens, bytes per token and attention cost per input and tokenizer.

The rows come from :func:`tokviz.core.metrics.compare_rows`; ``--plot`` draws the same rows as
the chart panel does (Qt imported only then).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import IO, TYPE_CHECKING, Any

from .command import UsageError, print_note
from .drawing import qt_drawing
from .options import (
    add_words_corpus,
    check_image_path,
    check_only_with_picture,
    is_words,
    load_tokenizer,
    read_text_file,
)
from .output import format_ratio, render_table

if TYPE_CHECKING:
    from tokviz.core.tokenizer import Tokenizer

DEFAULT_COMPARE = ("bytes", "gpt2", "cl100k")
PLOT_VIEWS = ("bytes", "attention", "vocab")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--tokenizer",
        action="append",
        metavar="NAME|PATH",
        help=f"repeat to compare several (default: {', '.join(DEFAULT_COMPARE)})",
    )
    p.add_argument("files", nargs="*", metavar="FILE", help="text files ('-' for standard input)")
    p.add_argument("--text", metavar="T", help="compare on this text instead of files")
    p.add_argument("--format", choices=("table", "csv", "json"), default="table", help="output form")
    add_words_corpus(p)
    plot = p.add_argument_group("chart (needs the desktop app's libraries; no display needed)")
    plot.add_argument(
        "--plot",
        metavar="OUT.png|OUT.svg",
        help="also draw the bytes-per-token chart into a PNG or SVG file (1280x720)",
    )
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


def run(args: argparse.Namespace) -> int:
    """Print one row per input and tokenizer (table, CSV or JSON), then draw the chart if asked."""
    if args.text is not None and args.files:
        raise UsageError("give either --text or FILEs, not both")
    if args.text is None and not args.files:
        raise UsageError("give the input as --text TEXT or as one or more FILEs")
    inputs: dict[str, str] = {}
    if args.text is not None:
        inputs["text"] = args.text
    for path in args.files:
        inputs[path] = read_text_file(path)
    check_plot_options(args)
    specs = list(dict.fromkeys(args.tokenizer or DEFAULT_COMPARE))
    texts = list(inputs.values())
    tokenizers = [load_tokenizer(spec, words_corpus=args.words_corpus, words_texts=texts) for spec in specs]
    rows = labelled_rows(inputs, specs, tokenizers)
    lecture = add_lesson_columns(rows, inputs, specs, tokenizers)
    if args.format == "table":
        _compare_table(rows, sys.stdout, lecture)
    else:
        {"csv": _compare_csv, "json": _compare_json}[args.format](rows, sys.stdout)
    if lecture and any(is_words(spec) for spec in specs) and not args.words_corpus:
        print_note(
            "words: the vocabulary was built from the input itself, so no word is unknown; "
            "give --words-corpus FILE to build it from other text"
        )
    if args.plot:
        # The chart names the bundled tokenizers as the app does ("GPT-2", not "gpt2"); files keep
        # the name the user typed.
        names = {spec: chart_name(spec, tok) for spec, tok in zip(specs, tokenizers)}
        sizes = {names[spec]: tok.vocab_size for spec, tok in zip(specs, tokenizers)}
        chart_rows = [dict(row, tokenizer=names[row["tokenizer"]]) for row in rows]
        written = plot_compare(chart_rows, args.plot, sizes, args)
        print_note(f"chart written to {written}")
    return 0


def labelled_rows(
    inputs: dict[str, str], tokenizer_specs: Sequence[str], tokenizers: Sequence[Tokenizer] | None = None
) -> list[dict[str, Any]]:
    """Rows of :func:`tokviz.core.metrics.compare_rows`, labelled by the names the user gave.

    Kept separate from the printing so other outputs (the ``--plot`` chart) use the same rows.
    ``tokenizers`` are the loaded ``tokenizer_specs`` when the caller has them already.
    """
    from tokviz.core.metrics import compare_rows

    if tokenizers is None:
        tokenizers = [load_tokenizer(spec) for spec in tokenizer_specs]
    rows = compare_rows(inputs, tokenizers)
    for i, row in enumerate(rows):
        row["tokenizer"] = tokenizer_specs[i % len(tokenizer_specs)]
    return rows


def chart_name(spec: str, tokenizer: Tokenizer) -> str:
    """A bundled tokenizer's display name (GPT-2, cl100k, bytes); anything else as the user named it."""
    from tokviz.core.registry import is_builtin

    return tokenizer.name if is_builtin(spec) else spec


def check_plot_options(args: argparse.Namespace) -> None:
    """Chart options make sense only with --plot, and the file must be a PNG or an SVG."""
    if not args.plot:
        given = [
            flag
            for flag, value in (
                ("--scale", args.scale),
                ("--plot-view", args.plot_view),
                ("--embedding-dim", args.embedding_dim),
                ("--dark", args.dark or None),
                ("--large-text", args.large_text or None),
            )
            if value is not None
        ]
        check_only_with_picture(given, "chart", "--plot")
        return
    check_image_path("--plot", args.plot, args.scale)
    if args.embedding_dim is not None and args.embedding_dim < 1:
        raise UsageError("--embedding-dim must be 1 or more")


def plot_compare(
    rows: list[dict[str, Any]], path: str, vocab_sizes: dict[str, int], args: argparse.Namespace
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
    """With the lecture's characters or words tokenizer compared, add ``vocab_size`` and ``unknown``.

    The lesson in numbers: characters need a token per character from a 1,114,112-id space, words
    need a vocabulary entry per word and lose every word they never saw (``unknown``), bytes and
    BPE lose nothing. Returns whether the columns were added.
    """
    from tokviz.core.lecture_tokenizers import CharacterTokenizer, WordTokenizer

    if not any(isinstance(tok, CharacterTokenizer | WordTokenizer) for tok in tokenizers):
        return False
    labels = list(inputs)
    for i, row in enumerate(rows):
        tok = tokenizers[i % len(specs)]
        row["vocab_size"] = tok.vocab_size
        text = inputs[labels[i // len(specs)]]
        row["unknown"] = len(tok.unknown_words(text)) if isinstance(tok, WordTokenizer) else 0
    return True


def _compare_table(rows: list[dict[str, Any]], out: IO[str], lesson: bool = False) -> None:
    headers = ["input", "tokenizer", "bytes", "tokens", "bytes/token", "attention x"]
    cells = [
        [
            r["input"],
            r["tokenizer"],
            str(r["bytes"]),
            str(r["tokens"]),
            format_ratio(r["bytes_per_token"]),
            format_ratio(r["attention_multiplier"]) + ("  (best)" if r["best"] else ""),
        ]
        for r in rows
    ]
    right = [False, False, True, True, True, False]
    if lesson:
        headers[-1:-1] = ["vocab size", "unknown"]
        right[-1:-1] = [True, True]
        for r, row in zip(rows, cells):
            row[-1:-1] = [f"{r['vocab_size']:,}", str(r["unknown"])]
    out.write(render_table(headers, cells, right) + "\n")


def _compare_csv(rows: list[dict[str, Any]], out: IO[str]) -> None:
    import csv

    fields = [
        "input",
        "tokenizer",
        "bytes",
        "code_points",
        "tokens",
        "bytes_per_token",
        "attention_multiplier",
    ]
    if rows and "vocab_size" in rows[0]:
        fields += ["vocab_size", "unknown"]
    writer = csv.DictWriter(out, fieldnames=fields, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)


def _compare_json(rows: list[dict[str, Any]], out: IO[str]) -> None:
    import json

    json.dump(rows, out, ensure_ascii=False, indent=2)
    out.write("\n")
