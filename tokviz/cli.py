"""The ``tokviz`` command: the GUI with no arguments, headless subcommands over the core otherwise.

Every subcommand imports what it needs lazily, so ``tokviz encode`` starts fast and never loads
Qt. Errors a user can cause print one line, ``tokviz: error: ...``, and exit 1; usage errors exit
2 (argparse's convention); an interrupted training run exits 130 and writes nothing.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tokviz.core.tokenizer import Tokenizer
    from tokviz.core.train import Progress, TrainResult

PROG = "tokviz"
DEFAULT_COMPARE = ("bytes", "gpt2", "cl100k")
PLOT_VIEWS = ("bytes", "attention", "vocab")
EXAMPLES = """examples:
  tokviz encode --text "Hello, 🌍! 你好!" --format tokens
  tokviz replay --text "the cat in the hat" --merges 3 --pretokenizer none --tie-break first-seen
  tokviz train notes/*.txt --vocab-size 2000 -o model.json --export-hf tokenizer.json
  tokviz compare README.md --tokenizer gpt2 --tokenizer model.json
  tokviz compare notes.txt essay.md --plot exchange-rate.png --scale 2
  tokviz render --text "Hello, 🌍! 你好!" --tokenizer gpt2 --tokenizer cl100k -o strips.png
  tokviz replay --text "the cat in the hat" --merges 3 --pretokenizer none --render merges.png
  tokviz info cl100k
"""
# Final tokens shown in replay's summary line before it is cut short.
SUMMARY_TOKEN_LIMIT = 400


class UsageError(Exception):
    """A combination of options that argparse cannot express; reported like argparse does (exit 2)."""


# ----------------------------------------------------------------------------- parser
def _version() -> str:
    """The installed distribution's version, or a note that tokviz runs from a checkout."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("tokviz-desktop")
    except PackageNotFoundError:
        return "(not installed, running from a checkout)"


def build_parser() -> argparse.ArgumentParser:
    """The argument parser for ``tokviz`` and its subcommands."""
    debug = argparse.ArgumentParser(add_help=False)
    debug.add_argument(
        "--debug",
        action="store_true",
        default=argparse.SUPPRESS,
        help="show the full traceback of an unexpected error",
    )
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Explore byte-level BPE tokenizers. With no command, opens the desktop app.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--debug", action="store_true", help="show the full traceback of an unexpected error")
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("train", parents=[debug], help="train a BPE vocabulary on text files")
    p.add_argument("corpus", nargs="+", metavar="CORPUS", help="text files or folders (read as UTF-8)")
    p.add_argument("--vocab-size", type=int, required=True, metavar="N", help="256 bytes + merges + specials")
    _add_special(p)
    p.add_argument("--pretokenizer", default="gpt2", metavar="P", help="none, gpt2, cl100k or a regex")
    _add_tie_break(p)
    p.add_argument("-o", "--output", required=True, metavar="MODEL.json", help="where to save the model")
    p.add_argument("--export-gpt2", metavar="DIR", help="also write vocab.json and merges.txt into DIR")
    p.add_argument("--export-tiktoken", metavar="FILE", help="also write a .tiktoken rank file")
    p.add_argument("--export-hf", metavar="FILE", help="also write a Hugging Face tokenizer.json")
    p.add_argument(
        "--replace-invalid",
        action="store_true",
        help="read invalid UTF-8 as U+FFFD instead of stopping with an error",
    )
    p.add_argument("--workers", type=int, metavar="N", help="pre-tokenization processes (default: CPUs)")
    p.set_defaults(func=cmd_train, subparser=p)

    p = sub.add_parser("encode", parents=[debug], help="encode text and print ids or tokens")
    _add_tokenizer(p, "gpt2")
    _add_special(p)
    _add_input(p)
    p.add_argument("--format", choices=("ids", "tokens", "json"), default="ids", help="output form")
    p.set_defaults(func=cmd_encode, subparser=p)

    p = sub.add_parser("replay", parents=[debug], help="show BPE merges one by one on a text")
    _add_input(p)
    p.add_argument("--merges", type=int, metavar="K", help="number of merges (default: all)")
    p.add_argument(
        "--pretokenizer", metavar="P", help="when training on the text: none, gpt2, cl100k or a regex"
    )
    _add_tie_break(p, default=None)
    p.add_argument(
        "--tokenizer", metavar="NAME|PATH", help="replay this tokenizer's merges instead of training"
    )
    p.add_argument(
        "--only-changes",
        action="store_true",
        help="table: list only the merges that change the text",
    )
    p.add_argument("--format", choices=("table", "json"), default="table", help="output form")
    picture = p.add_argument_group("picture (needs the desktop app's libraries; no display needed)")
    picture.add_argument(
        "--render",
        metavar="OUT.png|OUT.svg",
        help="also draw the merge table and the final tokens into a PNG or SVG file",
    )
    _add_picture_options(picture)
    p.set_defaults(func=cmd_replay, subparser=p)

    p = sub.add_parser(
        "render",
        parents=[debug],
        help="draw a text's coloured token strips into a PNG or SVG (no display needed)",
    )
    _add_input(p)
    p.add_argument(
        "--tokenizer",
        action="append",
        metavar="NAME|PATH",
        help="one strip per tokenizer; repeat for several (default: gpt2 and cl100k)",
    )
    p.add_argument("-o", "--output", required=True, metavar="OUT.png|OUT.svg", help="the image to write")
    _add_picture_options(p)
    p.add_argument("--ids", action="store_true", help="draw token ids instead of their text")
    p.add_argument("--whitespace", action="store_true", help="show spaces, tabs and newlines as · → ↵")
    p.set_defaults(func=cmd_render, subparser=p)

    p = sub.add_parser("compare", parents=[debug], help="compare token counts across tokenizers")
    p.add_argument(
        "--tokenizer",
        action="append",
        metavar="NAME|PATH",
        help=f"repeat to compare several (default: {', '.join(DEFAULT_COMPARE)})",
    )
    p.add_argument("files", nargs="*", metavar="FILE", help="text files ('-' for standard input)")
    p.add_argument("--text", metavar="T", help="compare on this text instead of files")
    p.add_argument("--format", choices=("table", "csv", "json"), default="table", help="output form")
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
    p.set_defaults(func=cmd_compare, subparser=p)

    p = sub.add_parser("info", parents=[debug], help="describe a tokenizer")
    p.add_argument("tokenizer", metavar="NAME|PATH", help="bytes, gpt2, cl100k or a model/vocabulary file")
    p.add_argument("--format", choices=("text", "json"), default="text", help="output form")
    p.set_defaults(func=cmd_info, subparser=p)
    return parser


def _add_special(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--special-token",
        action="append",
        default=[],
        metavar="T",
        help="a special token (repeatable); it is never split and gets one id",
    )


def _add_picture_options(p: Any) -> None:
    """``--scale`` and ``--theme`` for the commands that draw pictures (``p``: a parser or an argument group)."""
    p.add_argument(
        "--scale",
        type=float,
        default=None,
        metavar="X",
        help="PNG pixels per point: 1, 2 (default) or 3 for sharp slides",
    )
    p.add_argument("--theme", choices=("light", "dark"), default=None, help="colours (default: light)")


def _add_tie_break(p: argparse.ArgumentParser, default: str | None = "lexicographic") -> None:
    p.add_argument(
        "--tie-break",
        choices=("lexicographic", "first-seen"),
        default=default,
        help="which pair wins among equal counts (default: lexicographic)",
    )


def _add_tokenizer(p: argparse.ArgumentParser, default: str) -> None:
    p.add_argument(
        "--tokenizer",
        default=default,
        metavar="NAME|PATH",
        help=f"bytes, gpt2, cl100k or a model/vocabulary file (default: {default})",
    )


def _add_input(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", nargs="?", metavar="FILE", help="a UTF-8 text file ('-' for standard input)")
    p.add_argument("--text", metavar="T", help="use this text instead of a file")


# ----------------------------------------------------------------------------- entry point
def main(argv: Sequence[str] | None = None) -> int:
    """Run ``tokviz`` with ``argv`` (default: the process arguments) and return the exit status."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    if not args_list:
        return _run_gui()
    parser = build_parser()
    try:
        args = parser.parse_args(args_list)
    except SystemExit as exc:  # argparse: --help (0) or a usage error (2)
        return exc.code if isinstance(exc.code, int) else 2
    if args.command is None:
        if args.debug:
            return _run_gui()
        parser.print_usage(sys.stderr)
        return 2
    try:
        return int(args.func(args) or 0)
    except UsageError as exc:
        args.subparser.print_usage(sys.stderr)
        print(f"{args.subparser.prog}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        _error("interrupted")
        return 130
    except BrokenPipeError:
        # The reader went away (``tokviz encode ... | head``): not an error worth a message.
        _silence_stdout()
        return 0
    except Exception as exc:  # noqa: BLE001 - the single place that turns errors into one line
        if args.debug:
            raise
        _error(_describe(exc))
        return 1


def _describe(exc: BaseException) -> str:
    """A one-line message for an error: the core's own text, or a hint to rerun with --debug."""
    from tokviz.core.errors import TokvizError

    if isinstance(exc, (TokvizError, ValueError)):
        return str(exc) or type(exc).__name__
    if isinstance(exc, OSError):
        what = exc.strerror or str(exc)
        return f"{exc.filename}: {what}" if exc.filename else what
    return f"unexpected {type(exc).__name__}: {exc} (run again with --debug for the traceback)"


def _error(message: str) -> None:
    one_line = " ".join(message.split())
    print(f"{PROG}: error: {one_line}", file=sys.stderr)


def _silence_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def _run_gui() -> int:
    try:
        from tokviz.gui.app import main as gui_main
    except ImportError as exc:
        _error(f"the desktop app is not available ({exc}); the subcommands work without it, see 'tokviz -h'")
        return 1
    result = gui_main()
    return result if isinstance(result, int) else 0


# ----------------------------------------------------------------------------- input helpers
def read_text_file(path: str) -> str:
    """Read a whole UTF-8 file ('-' is standard input); invalid UTF-8 names the byte offset."""
    from tokviz.core.errors import CorpusError

    if path == "-":
        data = sys.stdin.buffer.read()
        path = "<stdin>"
    else:
        with open(path, "rb") as fh:
            data = fh.read()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CorpusError(f"{path} is not valid UTF-8 (byte offset {exc.start})", path, exc.start) from None


def _input_text(args: argparse.Namespace) -> str:
    if args.text is not None and args.file is not None:
        raise UsageError("give either --text or FILE, not both")
    if args.text is None and args.file is None:
        raise UsageError("give the input as --text TEXT or as a FILE")
    return args.text if args.text is not None else read_text_file(args.file)


def load_tokenizer(spec: str, special_tokens: Sequence[str] = ()) -> Tokenizer:
    """Load a tokenizer by name or path, adding ``special_tokens`` to the ones it already has."""
    from tokviz.core.registry import load_tokenizer as load

    tok = load(spec)
    extra = [s for s in dict.fromkeys(special_tokens) if s and s not in tok.special_tokens]
    if extra:
        tok = with_special_tokens(tok, extra)
    return tok


def with_special_tokens(tok: Tokenizer, extra: Sequence[str]) -> Tokenizer:
    """The same vocabulary and merges with more special tokens (ids after the current largest)."""
    return tok.with_special_tokens(extra)


# ----------------------------------------------------------------------------- display helpers
def token_label(data: bytes) -> str:
    """Token bytes as visible text: ``printable_token`` glyphs, hex for bytes that are not characters."""
    from tokviz.core.bytes_ import printable_token

    return printable_token(data, whitespace=True)


def bracket_label(data: bytes) -> str:
    """Token bytes for ``[..]`` lists: spaces stay spaces, control characters are escaped."""
    from tokviz.core.bytes_ import printable_token

    text = printable_token(data, whitespace=False)
    return text.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")


def quoted_label(data: bytes) -> str:
    """Token bytes in quotes, JSON-escaped, with ``<F0 9F>`` hex for bytes that are not characters."""
    from tokviz.core.bytes_ import printable_token

    return json.dumps(printable_token(data, whitespace=False), ensure_ascii=False)


def text_or_hex(data: bytes) -> str:
    """The bytes as a string when they are valid UTF-8, else as hex digits (JSON output)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.hex()


def format_ratio(value: float | None, digits: int = 2) -> str:
    """A short decimal: 1.5, 3.25, 12 (no trailing zeros); '-' for None."""
    if value is None:
        return "-"
    text = f"{value:.{digits}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def render_table(headers: Sequence[str], rows: Sequence[Sequence[str]], right: Sequence[bool]) -> str:
    """Plain aligned columns; ``right`` marks the numeric columns."""
    widths = [len(h) for h in headers]
    for row in rows:
        widths = [max(w, len(c)) for w, c in zip(widths, row)]

    def line(cells: Sequence[str]) -> str:
        parts = [c.rjust(w) if r else c.ljust(w) for c, w, r in zip(cells, widths, right)]
        return "  ".join(parts).rstrip()

    return "\n".join([line(headers), *(line(r) for r in rows)])


# ----------------------------------------------------------------------------- encode
def cmd_encode(args: argparse.Namespace) -> int:
    """``tokviz encode``: ids, visible tokens, or JSON spans of a text."""
    text = _input_text(args)
    tok = load_tokenizer(args.tokenizer, args.special_token)
    out = sys.stdout
    if args.format == "ids":
        out.write(" ".join(str(i) for i in tok.encode(text)) + "\n")
    elif args.format == "tokens":
        out.write("|".join(token_label(tok.id_bytes(i)) for i in tok.encode(text)) + "\n")
    else:
        items = [
            {
                "id": span.id,
                "bytes": span.bytes.hex(),
                "text": None if span.partial else span.bytes.decode("utf-8", errors="replace"),
                "start": span.start,
                "end": span.end,
            }
            for span in tok.encode_spans(text)
        ]
        json.dump(items, out, ensure_ascii=False)
        out.write("\n")
    return 0


# ----------------------------------------------------------------------------- info
def cmd_info(args: argparse.Namespace) -> int:
    """``tokviz info``: what a tokenizer is made of, without recovering lazy merges."""
    tok = load_tokenizer(args.tokenizer)
    pre = tok.pretokenizer
    info = {
        "name": tok.name,
        "vocab_size": tok.vocab_size,
        "merges": tok.merge_count,
        "special_tokens": dict(sorted(tok.special_tokens.items(), key=lambda kv: kv[1])),
        "pretokenizer": pre.name,
        "pattern": pre.pattern,
    }
    if args.format == "json":
        json.dump(info, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
        return 0
    specials = ", ".join(f"{s} ({i})" for s, i in info["special_tokens"].items()) or "none"
    lines = [
        f"name:           {tok.name}",
        f"vocab size:     {tok.vocab_size}",
        f"merges:         {tok.merge_count}",
        f"special tokens: {specials}",
        f"pre-tokenizer:  {pre.name}" + (f"  {pre.pattern}" if pre.name == "custom" else ""),
    ]
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


# ----------------------------------------------------------------------------- compare
def cmd_compare(args: argparse.Namespace) -> int:
    """``tokviz compare``: bytes, tokens, bytes/token and attention multiplier per input and tokenizer."""
    if args.text is not None and args.files:
        raise UsageError("give either --text or FILEs, not both")
    if args.text is None and not args.files:
        raise UsageError("give the input as --text TEXT or as one or more FILEs")
    inputs: dict[str, str] = {}
    if args.text is not None:
        inputs["text"] = args.text
    for path in args.files:
        inputs[path] = read_text_file(path)
    _check_plot_options(args)
    specs = list(dict.fromkeys(args.tokenizer or DEFAULT_COMPARE))
    tokenizers = [load_tokenizer(spec) for spec in specs]
    rows = compare(inputs, specs, tokenizers)
    emit = {"table": _compare_table, "csv": _compare_csv, "json": _compare_json}[args.format]
    emit(rows, sys.stdout)
    if args.plot:
        sizes = {spec: tok.vocab_size for spec, tok in zip(specs, tokenizers)}
        written = plot_compare(rows, args.plot, sizes, args)
        print(f"{PROG}: chart written to {written}", file=sys.stderr)
    return 0


def compare(
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


def _check_plot_options(args: argparse.Namespace) -> None:
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
        if given:
            verb = "applies" if len(given) == 1 else "apply"
            raise UsageError(f"{', '.join(given)} {verb} only to the chart: add --plot OUT.png or OUT.svg")
        return
    suffix = os.path.splitext(args.plot)[1].lower()
    if suffix not in (".png", ".svg"):
        raise UsageError(f"--plot writes .png or .svg files, not {suffix or 'a file without an extension'}")
    if args.scale is not None and not 0.25 <= args.scale <= 8:
        raise UsageError("--scale must be between 0.25 and 8")
    if args.scale is not None and suffix == ".svg":
        raise UsageError("--scale applies to PNG files; an SVG drawing has no pixels")
    if args.embedding_dim is not None and args.embedding_dim < 1:
        raise UsageError("--embedding-dim must be 1 or more")


def use_offscreen_qt_without_display(environ: dict[str, str] | None = None) -> bool:
    """Make Qt render without a window system when there is no display; returns True if it did.

    On Linux and other X11/Wayland systems with neither ``DISPLAY`` nor ``WAYLAND_DISPLAY`` set,
    Qt could not start its usual platform plugin, so ``QT_QPA_PLATFORM=offscreen`` is set (a
    value the user chose is kept). Must run before Qt is imported.
    """
    env = os.environ if environ is None else environ
    if env.get("QT_QPA_PLATFORM") or sys.platform in ("win32", "darwin"):
        return False
    if env.get("DISPLAY") or env.get("WAYLAND_DISPLAY"):
        return False
    env["QT_QPA_PLATFORM"] = "offscreen"
    return True


def plot_compare(
    rows: list[dict[str, Any]], path: str, vocab_sizes: dict[str, int], args: argparse.Namespace
) -> str:
    """Draw the rows as the chart panel does, into ``path``; Qt is imported only here."""
    from tokviz.core.errors import ExportError

    use_offscreen_qt_without_display()
    try:
        from tokviz.gui.chart_canvas import plot_compare_rows
    except ImportError as exc:
        raise ExportError(
            f"--plot needs PySide6 and pyqtgraph, which could not be imported ({exc})"
        ) from None
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


def _compare_table(rows: list[dict[str, Any]], out: IO[str]) -> None:
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
    writer = csv.DictWriter(out, fieldnames=fields, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)


def _compare_json(rows: list[dict[str, Any]], out: IO[str]) -> None:
    json.dump(rows, out, ensure_ascii=False, indent=2)
    out.write("\n")


# ----------------------------------------------------------------------------- render
def _check_picture_options(args: argparse.Namespace, flag: str, output: str | None) -> None:
    """``--scale`` and ``--theme`` need an image to draw; the image must be a PNG or an SVG."""
    if not output:
        given = [f for f, v in (("--scale", args.scale), ("--theme", args.theme)) if v is not None]
        if given:
            verb = "applies" if len(given) == 1 else "apply"
            raise UsageError(f"{', '.join(given)} {verb} only to the picture: add {flag} OUT.png or OUT.svg")
        return
    suffix = os.path.splitext(output)[1].lower()
    if suffix not in (".png", ".svg"):
        raise UsageError(f"{flag} writes .png or .svg files, not {suffix or 'a file without an extension'}")
    if args.scale is not None and not 0.25 <= args.scale <= 8:
        raise UsageError("--scale must be between 0.25 and 8")
    if args.scale is not None and suffix == ".svg":
        raise UsageError("--scale applies to PNG files; an SVG drawing has no pixels")


def _import_gui_drawing(flag: str) -> Any:
    """The headless drawing module, with Qt told to render offscreen when there is no display."""
    from tokviz.core.errors import ExportError

    use_offscreen_qt_without_display()
    try:
        from tokviz.gui import render
    except ImportError as exc:
        raise ExportError(f"{flag} needs PySide6, which could not be imported ({exc})") from None
    return render


def cmd_render(args: argparse.Namespace) -> int:
    """``tokviz render``: the text as coloured token strips, one per tokenizer, drawn like the window does."""
    text = _input_text(args)
    _check_picture_options(args, "-o", args.output)
    specs = list(dict.fromkeys(args.tokenizer or ("gpt2", "cl100k")))
    tokenizers = [load_tokenizer(spec) for spec in specs]
    names = [tok.name for tok in tokenizers]
    if len(set(names)) != len(names):
        names = specs
    gui = _import_gui_drawing("tokviz render")
    written = gui.render_strips(
        text,
        list(zip(names, tokenizers)),
        args.output,
        scale=args.scale or 2.0,
        dark=args.theme == "dark",
        show_ids=args.ids,
        whitespace=args.whitespace,
    )
    if len(text) > gui.MAX_RENDER_CHARS:
        print(f"{PROG}: drew the first {gui.MAX_RENDER_CHARS:,} of {len(text):,} characters", file=sys.stderr)
    print(f"{PROG}: token strips drawn in {written}", file=sys.stderr)
    return 0


# ----------------------------------------------------------------------------- replay
@dataclass(frozen=True)
class ReplayStep:
    """One merge and the size of the text right after it."""

    step: int
    left: bytes
    right: bytes
    new_id: int
    count: int
    tokens: int


@dataclass
class Replay:
    """A replay: the steps, the text's size before any merge, and its final tokens."""

    steps: list[ReplayStep]
    start_tokens: int
    final: list[bytes]
    text_bytes: int
    vocab_size: int


def cmd_replay(args: argparse.Namespace) -> int:
    """``tokviz replay``: the merges one by one with the token count of the text after each."""
    text = _input_text(args)
    if args.merges is not None and args.merges < 0:
        raise UsageError("--merges must be 0 or more")
    _check_picture_options(args, "--render", args.render)
    if args.tokenizer is not None:
        if args.pretokenizer is not None or args.tie_break is not None:
            raise UsageError(
                "--pretokenizer and --tie-break apply only when training on the text (no --tokenizer)"
            )
        replay = replay_tokenizer(load_tokenizer(args.tokenizer), text, args.merges)
    else:
        replay = replay_training(
            text, args.merges, args.pretokenizer or "gpt2", args.tie_break or "lexicographic"
        )
    if args.format == "json":
        items = [
            {
                "step": s.step,
                "left": text_or_hex(s.left),
                "right": text_or_hex(s.right),
                "new_id": s.new_id,
                "bytes": text_or_hex(s.left + s.right),
                "count": s.count,
                "tokens": s.tokens,
            }
            for s in replay.steps
        ]
        json.dump(items, sys.stdout, ensure_ascii=False, indent=1)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(replay_table(replay, args.only_changes) + "\n")
    if args.render:
        written = render_replay_picture(replay, text, args)
        print(f"{PROG}: merge table drawn in {written}", file=sys.stderr)
    return 0


def render_replay_picture(replay: Replay, text: str, args: argparse.Namespace) -> str:
    """Draw the merge table into ``args.render``; Qt is imported only here.

    A published tokenizer has tens of thousands of merges and almost none touch a short text, so
    its picture lists only the merges that change the text (training on the text lists them all).
    """
    shown = " ".join(text.split())
    if len(shown) > 48:
        shown = shown[:47] + "…"
    title = f"BPE merges on “{shown}”"
    only_changes = bool(args.only_changes or args.tokenizer is not None)
    if args.tokenizer is not None:
        subtitle = f"merges of {args.tokenizer}"
    else:
        subtitle = (
            f"trained on the text · pre-tokenizer {args.pretokenizer or 'gpt2'}"
            f" · tie-break {args.tie_break or 'lexicographic'}"
        )
    if only_changes:
        subtitle += " · only merges that change the text"
    gui = _import_gui_drawing("--render")
    written = gui.render_replay(
        replay,
        args.render,
        title,
        subtitle,
        scale=args.scale or 2.0,
        dark=args.theme == "dark",
        only_changes=only_changes,
    )
    return str(written)


def replay_training(text: str, merges: int | None, pretokenizer: str, tie_break: str) -> Replay:
    """Train ``merges`` merges (default: until nothing is left to merge) on the text itself."""
    from tokviz.core.train import train_bpe

    n_bytes = len(text.encode("utf-8"))
    k = merges if merges is not None else max(n_bytes - 1, 0)
    if not text:
        return Replay([], 0, [], 0, 256)
    result = train_bpe(text, 256 + k, pretokenizer=pretokenizer, tie_break=tie_break, workers=1)
    steps = [ReplayStep(r.step, r.left, r.right, r.new_id, r.count, r.tokens_after) for r in result.history]
    tok = result.tokenizer("replay")
    final = [tok.id_bytes(i) for i in tok.encode(text)]
    return Replay(steps, result.initial_tokens, final, n_bytes, 256 + len(result.merges))


def replay_tokenizer(tok: Tokenizer, text: str, merges: int | None) -> Replay:
    """The first ``merges`` merges of ``tok`` and the text's token count after each.

    Only merges that change the text move the count: the final tokens are trees of merges, and
    every inner node is one merge applied once. Counting those nodes by merge index gives every
    step's count in one pass, instead of re-encoding the text after each of (say) 50,000 merges.
    """
    all_merges = tok.merges
    k = len(all_merges) if merges is None else min(merges, len(all_merges))
    ids = tok.encode_with_merges(text, k)
    rank_of = tok.merge_rank_of_id
    parents = tok.parents_of_id
    applied = [0] * (k + 1)  # applied[r] = merge applications of merge index r in the text
    stack = [i for i in ids if not tok.is_special(i)]
    while stack:
        node = stack.pop()
        rank = rank_of.get(node)
        if rank is None:
            continue  # a single byte
        applied[rank] += 1
        stack.extend(parents[node])
    n_bytes = len(text.encode("utf-8"))
    start = sum(len(tok.id_bytes(i)) if not tok.is_special(i) else 1 for i in ids) if ids else 0
    id_of_rank = {r: i for i, r in rank_of.items()}
    steps: list[ReplayStep] = []
    tokens = start
    for r in range(k):
        tokens -= applied[r]
        left, right = all_merges[r]
        steps.append(ReplayStep(r + 1, left, right, id_of_rank.get(r, -1), applied[r], tokens))
    if steps and steps[-1].tokens != len(ids):  # pragma: no cover - guards the tree argument above
        raise AssertionError("replay counts disagree with the encoder")
    vocab_size = 256 + k + len(tok.special_tokens)
    return Replay(steps, start, [tok.id_bytes(i) for i in ids], n_bytes, vocab_size)


def replay_table(replay: Replay, only_changes: bool = False) -> str:
    """Rows of step, merge, new id, bytes, count and tokens, then a one-line summary."""
    rows = [["0", "", "", "", "", "", str(replay.start_tokens)]]
    previous = replay.start_tokens
    for s in replay.steps:
        if only_changes and s.tokens == previous:
            continue
        previous = s.tokens
        rows.append(
            [
                str(s.step),
                f"{quoted_label(s.left)} + {quoted_label(s.right)}",
                "->",
                str(s.new_id),
                quoted_label(s.left + s.right),
                str(s.count),
                str(s.tokens),
            ]
        )
    headers = ["step", "merge", "", "new id", "bytes", "count", "tokens"]
    table = render_table(headers, rows, [True, False, False, True, False, True, True])
    shown = "".join(f"[{bracket_label(b)}]" for b in replay.final[:SUMMARY_TOKEN_LIMIT])
    if len(replay.final) > SUMMARY_TOKEN_LIMIT:
        shown += f"... ({len(replay.final) - SUMMARY_TOKEN_LIMIT} more)"
    bpt = format_ratio(replay.text_bytes / len(replay.final)) if replay.final else "-"
    n = len(replay.final)
    summary = (
        f"{n} token{'' if n == 1 else 's'}: {shown}  {bpt} bytes per token  vocab size {replay.vocab_size}"
    )
    return table + "\n" + summary


# ----------------------------------------------------------------------------- train
class ProgressPrinter:
    """Training progress on a stream: a bar redrawn in place on a terminal, plain lines otherwise.

    Redraws are throttled (at most ``rate`` per second); plain output prints a line when the phase
    changes and every tenth of the way, so a log file stays short.
    """

    def __init__(self, stream: IO[str], interactive: bool | None = None, rate: float = 10.0) -> None:
        self.stream = stream
        self.interactive = _isatty(stream) if interactive is None else interactive
        self.min_interval = 1.0 / rate
        self.phase = ""
        self.phase_start = 0.0
        self.last_elapsed = 0.0
        self.last_draw = 0.0
        self.last_decile = -1
        self.shown_done = -1
        self.drawn = False
        self.lock = threading.Lock()

    def __call__(self, progress: Progress) -> None:
        with self.lock:
            self._update(progress)

    def _update(self, p: Progress) -> None:
        now = time.perf_counter()
        if p.phase == "done":
            # The last merges arrive with "done": finish the merging line at its final count.
            if self.phase == "merging" and self.shown_done != p.done:
                self.last_decile = -1
                self.last_draw = 0.0
                final = dataclasses.replace(p, phase="merging")
                self._show(final, p.done / p.total if p.total else 1.0, now)
            self._end_line()
            self.phase = p.phase
            return
        if p.phase != self.phase:
            self._end_line()
            self.phase = p.phase
            # A phase that does not open with a zero report has already run since the previous one.
            self.phase_start = p.elapsed if p.done == 0 else self.last_elapsed
            self.last_decile = -1
            self.last_draw = 0.0
        self.last_elapsed = p.elapsed
        if p.phase == "reading":
            return
        fraction = min(p.done / p.total, 1.0) if p.total > 0 else 0.0
        self._show(p, fraction, now)

    def _show(self, p: Progress, fraction: float, now: float) -> None:
        if self.interactive:
            if now - self.last_draw < self.min_interval and fraction < 1.0:
                return
            self.last_draw = now
            self.stream.write("\r" + self._line(p, fraction, bar=True) + "\x1b[K")
            self.drawn = True
            self.shown_done = p.done
        else:
            decile = int(fraction * 10)
            if decile == self.last_decile:
                return
            self.last_decile = decile
            self.stream.write(self._line(p, fraction, bar=False) + "\n")
            self.shown_done = p.done
        self.stream.flush()

    def _line(self, p: Progress, fraction: float, bar: bool) -> str:
        width = 24
        filled = int(fraction * width)
        graphic = f"[{'#' * filled}{'.' * (width - filled)}] " if bar else ""
        elapsed = max(p.elapsed - self.phase_start, 1e-9)
        if p.phase == "merging":
            detail = f"{p.done}/{p.total} merges  {p.done / elapsed:,.0f} merges/s"
        elif p.phase == "pre-tokenizing":
            detail = f"{p.done / 1e6:.1f}/{p.total / 1e6:.1f} MB  {p.done / 1e6 / elapsed:.1f} MB/s"
        else:
            detail = ""
        return f"{p.phase:<14} {graphic}{fraction * 100:5.1f}%  {detail}".rstrip()

    def _end_line(self) -> None:
        if self.drawn:
            self.stream.write("\n")
            self.stream.flush()
            self.drawn = False

    def close(self) -> None:
        """Finish a bar that is still on its line."""
        with self.lock:
            self._end_line()


def _isatty(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def run_training(
    train: Callable[[threading.Event], TrainResult],
) -> TrainResult:
    """Run ``train`` on a worker thread so Ctrl+C can set its cancel flag and wait for a clean stop.

    Raises :class:`KeyboardInterrupt` once the training thread has stopped after an interrupt.
    """
    cancel = threading.Event()
    outcome: dict[str, Any] = {}

    def target() -> None:
        try:
            outcome["result"] = train(cancel)
        except BaseException as exc:  # noqa: BLE001 - handed back to the main thread
            outcome["error"] = exc

    worker = threading.Thread(target=target, name="tokviz-train", daemon=True)
    interrupted = False
    while True:
        try:
            if worker.ident is None:
                worker.start()
            while worker.is_alive():
                worker.join(0.1)
            break
        except KeyboardInterrupt:
            # Ask the trainer to stop, then keep waiting: it ends at its next cancel check.
            interrupted = True
            cancel.set()
    if interrupted:
        raise KeyboardInterrupt
    if "error" in outcome:
        raise outcome["error"]
    return outcome["result"]


def cmd_train(args: argparse.Namespace) -> int:
    """``tokviz train``: train, then save the model (and any exports) only when training finished."""
    from tokviz.core.errors import Cancelled, CorpusError
    from tokviz.core.train import train_bpe

    if args.workers is not None and args.workers < 1:
        raise UsageError("--workers must be 1 or more")
    printer = ProgressPrinter(sys.stderr)
    errors = "replace" if args.replace_invalid else "strict"

    def train(cancel: threading.Event) -> TrainResult:
        return train_bpe(
            list(args.corpus),
            args.vocab_size,
            special_tokens=args.special_token,
            pretokenizer=args.pretokenizer,
            tie_break=args.tie_break,
            progress=printer,
            cancel=cancel,
            errors=errors,
            workers=args.workers,
        )

    try:
        result = run_training(train)
    except (KeyboardInterrupt, Cancelled):
        printer.close()
        _error("training cancelled; nothing was written")
        return 130
    except CorpusError as exc:
        printer.close()
        if exc.offset is not None and not args.replace_invalid:
            raise CorpusError(
                f"{exc.path} is not valid UTF-8 (byte offset {exc.offset}); "
                "use --replace-invalid to read it with U+FFFD replacement characters",
                exc.path,
                exc.offset,
            ) from None
        raise
    finally:
        printer.close()
    save_outputs(result, args)
    t = result.timings
    merges_per_s = len(result.merges) / t["merge"] if t.get("merge") else 0.0
    print(
        f"trained {len(result.merges)} merges on {result.corpus_bytes / 1e6:.2f} MB "
        f"({result.unique_words} unique pre-tokens) in {t.get('total', 0.0):.2f} s "
        f"(pre-tokenize {t.get('pretokenize', 0.0):.2f} s, merges {t.get('merge', 0.0):.2f} s, "
        f"{merges_per_s:,.0f} merges/s); vocab size {len(result.vocab)}",
        file=sys.stderr,
    )
    return 0


def save_outputs(result: TrainResult, args: argparse.Namespace) -> None:
    """Write the model, then each requested export, saying where each one went."""
    from tokviz.core.formats import export_gpt2, export_hf, export_tiktoken, save_model

    name = os.path.splitext(os.path.basename(args.output))[0] or "trained"
    tok = result.tokenizer(name)
    save_model(args.output, tok, settings=result.settings(), history=result.history)
    print(f"wrote {args.output}", file=sys.stderr)
    if args.export_gpt2:
        export_gpt2(tok, args.export_gpt2)
        print(f"wrote {os.path.join(args.export_gpt2, 'vocab.json')} and merges.txt", file=sys.stderr)
    if args.export_tiktoken:
        export_tiktoken(tok, args.export_tiktoken)
        print(f"wrote {args.export_tiktoken}", file=sys.stderr)
    if args.export_hf:
        export_hf(tok, args.export_hf)
        print(f"wrote {args.export_hf}", file=sys.stderr)
