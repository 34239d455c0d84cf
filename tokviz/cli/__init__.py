"""The ``tokviz`` command: the GUI with no arguments, headless commands over the core otherwise.

Each command is one module of this package with ``add_arguments(parser)`` and ``run(args)``;
:data:`COMMANDS` is the list of them (each command's module and its line in ``tokviz -h``), and a
command's module is imported only when that command runs, so ``tokviz encode`` starts fast and
never loads Qt. A new command is a new module plus one line in :data:`COMMANDS`.

Errors a user can cause print one line, ``tokviz: error: ...``, and exit 1; usage errors exit 2
(argparse's convention); an interrupted training run exits 130 and writes nothing.

Two kinds of input are refused here, once for every command: ``--text`` (``--name``, ``--special-token``)
holding bytes that are not UTF-8 (Python keeps them as lone surrogates in ``sys.argv``; they are
an error like invalid UTF-8 in an input file, never a silent U+FFFD), and writing to a closed
standard output (``>&-``), which is an error (exit 1) where a reader that went away (``| head``)
is not (exit 0).
"""

from __future__ import annotations

import argparse
import errno
import importlib
import os
import sys
from collections.abc import Sequence
from typing import Any, NamedTuple, cast

from tokviz.cli.command import (
    EXIT_ERROR,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    PROG,
    Command,
    UsageError,
    print_error,
)
from tokviz.cli.streams import ArgumentParser, escaped_streams
from tokviz.core.io.safe_text import terminal_text

__all__ = ["COMMANDS", "EXIT_ERROR", "EXIT_INTERRUPTED", "EXIT_OK", "EXIT_USAGE", "build_parser", "main"]


class CommandEntry(NamedTuple):
    """Where a command lives and the one line ``tokviz -h`` shows for it."""

    module: str
    help: str


# In the order ``tokviz -h`` lists them. The help lines are here, not in the modules, so the
# overview needs no command module imported.
COMMANDS: dict[str, CommandEntry] = {
    "train": CommandEntry(
        "tokviz.cli.train",
        "train a vocabulary: byte-level BPE, or Unigram, SentencePiece BPE or WordPiece by their libraries",
    ),
    "encode": CommandEntry("tokviz.cli.encode", "encode text and print ids or tokens"),
    "replay": CommandEntry("tokviz.cli.replay", "show BPE merges one by one on a text"),
    "segment": CommandEntry(
        "tokviz.cli.segment",
        "a unigram model's segmentation lattice, N best and samples; BPE-dropout samples",
    ),
    "render": CommandEntry(
        "tokviz.cli.render", "draw a text's coloured token strips into a PNG or SVG (no display needed)"
    ),
    "count": CommandEntry(
        "tokviz.cli.count", "count a corpus's pre-tokens into a table to train from (locally or on Dask)"
    ),
    "compare": CommandEntry("tokviz.cli.compare", "compare token counts across tokenizers"),
    "eval": CommandEntry(
        "tokviz.cli.eval", "evaluate tokenizers on a folder: totals per tokenizer, folder or category"
    ),
    "parity": CommandEntry(
        "tokviz.cli.parity", "what the same content costs in tokens in each language of a parallel text"
    ),
    "info": CommandEntry("tokviz.cli.info", "describe a tokenizer"),
    "export": CommandEntry(
        "tokviz.cli.export",
        "write a tokenizer as tokenizer.json, vocab.json + merges.txt, .tiktoken or a model file",
    ),
    "usage": CommandEntry("tokviz.cli.usage", "what share of a vocabulary held-out text uses"),
    "sweep": CommandEntry(
        "tokviz.cli.sweep", "what every vocabulary size of one merge list buys on held-out text (one pass)"
    ),
    "diff": CommandEntry("tokviz.cli.diff", "compare two merge lists (divergence, shifts)"),
    "finish": CommandEntry("tokviz.cli.finish", "put in place the outputs a stopped run left half replaced"),
    "chat": CommandEntry(
        "tokviz.cli.chat", "what a conversation costs in tokens once a folder's chat template wraps it"
    ),
    "lecture": CommandEntry(
        "tokviz.cli.lecture",
        "check a lecture deck, or write it as a PDF handout or slide pictures (no display needed)",
    ),
    "audit": CommandEntry(
        "tokviz.cli.audit", "find broken tokens: unreachable, partial UTF-8, unused, under-trained embeddings"
    ),
}

EXAMPLES = """examples:
  tokviz encode --text "Hello, 🌍! 你好!" --format tokens
  tokviz replay --text "the cat in the hat" --merges 3 --pretokenizer none --tie-break first-seen
  tokviz train notes/*.txt --vocab-size 2000 -o model.json --export-hf tokenizer.json
  tokviz count corpus/ -o counts.parquet && tokviz train --from-counts counts.parquet --vocab-size 32000 -o model.json
  tokviz compare README.md --tokenizer gpt2 --tokenizer model.json
  tokviz compare notes.txt essay.md --plot exchange-rate.png --scale 2
  tokviz eval heldout/ --include '*.py' --tokenizer gpt2 --tokenizer cl100k --format markdown
  tokviz render --text "Hello, 🌍! 你好!" --tokenizer gpt2 --tokenizer cl100k -o strips.png
  tokviz replay --text "the cat in the hat" --merges 3 --pretokenizer none --render merges.png
  tokviz parity flores200_dataset/devtest --tokenizer gpt2 --tokenizer o200k --plot parity.png
  tokviz info cl100k
  tokviz usage heldout/ --include '*.py' --tokenizer py8k.json --format markdown
  tokviz diff py2k.json py8k.json
  tokviz sweep py32k.json heldout/ --by folder --plot sweep.png
  tokviz audit o200k --corpus heldout/ --format markdown
  tokviz export model.json --to hf -o model-hf/
  tokviz chat qwen-folder/ messages.json --generation-prompt
  tokviz lecture --pdf handout.pdf
"""


def load_command(name: str) -> Command:
    """The module of command ``name`` (imported now, on first use)."""
    return cast(Command, importlib.import_module(COMMANDS[name].module))


# ----------------------------------------------------------------------------- parser
def _version() -> str:
    """The installed distribution's version, or a note that tokviz runs from a checkout."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("tokviz-desktop")
    except PackageNotFoundError:
        return "(not installed, running from a checkout)"


class _VersionAction(argparse.Action):
    """``--version``: the version and which merge loop training runs (found only when asked)."""

    def __init__(self, option_strings: list[str], dest: str, help: str | None = None) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help=help)

    def __call__(self, parser: argparse.ArgumentParser, *args: Any) -> None:
        from tokviz.core.training.mergeloop import loop_name

        sys.stdout.write(f"{parser.prog} {_version()} (merge loop: {loop_name()})\n")
        parser.exit()


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser for ``tokviz``; only ``command``'s subparser gets its options (and its module imported).

    Every command is listed (for ``tokviz -h`` and for argparse's choice of command); the others
    stay empty, since one command line runs one command.
    """
    debug = ArgumentParser(add_help=False)
    debug.add_argument(
        "--debug",
        action="store_true",
        default=argparse.SUPPRESS,
        help="show the full traceback of an unexpected error",
    )
    parser = ArgumentParser(
        prog=PROG,
        description="Explore tokenizers: byte-level BPE, Unigram, WordPiece. With no command, opens the desktop app.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--debug", action="store_true", help="show the full traceback of an unexpected error")
    parser.add_argument(
        "--version", action=_VersionAction, help="show the version and which merge loop runs, then exit"
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, entry in COMMANDS.items():
        p = sub.add_parser(name, parents=[debug], help=entry.help)
        if name == command:
            load_command(name).add_arguments(p)
            p.set_defaults(subparser=p)
    return parser


def _command_name(argv: Sequence[str]) -> str | None:
    """The command a command line asks for: its first word that is not an option.

    The options before the command (``--debug``, ``--version``, ``-h``) take no value.
    """
    for arg in argv:
        if arg == "--":
            return None
        if not arg.startswith("-"):
            return arg if arg in COMMANDS else None
    return None


# ----------------------------------------------------------------------------- entry point
def main(argv: Sequence[str] | None = None) -> int:
    """Run ``tokviz`` with ``argv`` (default: the process arguments) and return the exit status.

    Standard output and error show control characters escaped for the whole run
    (:mod:`tokviz.cli.streams`), whatever a command prints.
    """
    with escaped_streams():
        return _main(argv)


def _main(argv: Sequence[str] | None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    if not args_list:
        return _run_gui()
    name = _command_name(args_list)
    parser = build_parser(name)
    try:
        args = parser.parse_args(args_list)
    except SystemExit as exc:  # argparse: --help (0) or a usage error (2)
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    if args.command is None:
        if args.debug:
            return _run_gui()
        parser.print_usage(sys.stderr)
        return EXIT_USAGE
    if sys.stdout is None:  # started with standard output closed (``>&-``)
        sys.stdout = _ClosedOutput()
    try:
        check_text_arguments(args)
        return int(load_command(args.command).run(args) or EXIT_OK)
    except UsageError as exc:
        args.subparser.print_usage(sys.stderr)
        print(f"{args.subparser.prog}: error: {terminal_text(str(exc))}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print_error("interrupted")
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader went away (``tokviz encode ... | head``): not an error worth a message.
        _silence_stdout()
        return EXIT_OK
    except Exception as exc:  # noqa: BLE001 - the single place that turns errors into one line
        if args.debug:
            raise
        print_error(describe_error(exc))
        return EXIT_ERROR


def check_text_arguments(args: argparse.Namespace) -> None:
    """Refuse ``--text``, ``--name`` and ``--special-token`` values that are not valid UTF-8, naming the byte.

    On POSIX, bytes of ``sys.argv`` that are not UTF-8 arrive as lone surrogates (Python's
    ``surrogateescape``). Read as text they would become U+FFFD in one output and a crash in
    another, so they are refused like invalid UTF-8 in an input file (exit 1, one line).
    """
    from tokviz.core.errors import CorpusError

    values: list[tuple[str, str]] = []
    for flag in ("text", "name"):
        if isinstance(getattr(args, flag, None), str):
            values.append((f"--{flag}", getattr(args, flag)))
    values += [
        ("--special-token", v) for v in getattr(args, "special_token", None) or [] if isinstance(v, str)
    ]
    for flag, value in values:
        problem = _utf8_problem(value)
        if problem is not None:
            hint = "give a UTF-8 name" if flag == "--name" else "put the text in a UTF-8 file instead"
            raise CorpusError(f"{flag} is not valid UTF-8 ({problem}); {hint}")


def _utf8_problem(value: str) -> str | None:
    """Where ``value`` (from the command line) stops being UTF-8, or None when it is valid."""
    try:
        value.encode("utf-8")
        return None
    except UnicodeEncodeError:
        pass
    try:
        raw = value.encode("utf-8", "surrogateescape")  # the bytes the shell passed
    except UnicodeEncodeError as exc:  # a true lone surrogate (a UTF-16 command line)
        return f"lone surrogate U+{ord(value[exc.start]):04X} at character {exc.start}"
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return f"byte 0x{raw[exc.start]:02X} at byte offset {exc.start}"
    return "surrogate-escaped bytes"  # pragma: no cover - escaped bytes are never valid UTF-8


class _ClosedOutput:
    """Stands in for a closed standard output: the first write is a one-line error, not an AttributeError."""

    def write(self, _text: str) -> int:
        raise OSError(errno.EBADF, "standard output is closed; redirect it to a file or to /dev/null")

    def flush(self) -> None:
        """Nothing to flush: nothing was ever written."""


def describe_error(exc: BaseException) -> str:
    """A one-line message for an error: the core's own text, or a hint to rerun with --debug."""
    from tokviz.core.errors import TokvizError

    if isinstance(exc, (TokvizError, ValueError)):
        return str(exc) or type(exc).__name__
    if isinstance(exc, OSError):
        what = exc.strerror or str(exc)
        return f"{exc.filename}: {what}" if exc.filename else what
    return f"unexpected {type(exc).__name__}: {exc} (run again with --debug for the traceback)"


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
        print_error(
            f"the desktop app is not available ({exc}); the subcommands work without it, see 'tokviz -h'"
        )
        return EXIT_ERROR
    result = gui_main()
    return result if isinstance(result, int) else EXIT_OK
