"""How the commands print: token labels, short decimals, plain aligned tables, and rows that go to
``--output`` or standard output next to a ``--plot`` chart."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import IO

from tokviz.core.io.safe_text import terminal_text
from tokviz.core.pretok.bytes_ import printable_token


def token_label(data: bytes) -> str:
    """Token bytes as visible text: ``printable_token`` glyphs, hex for bytes that are not characters."""
    return printable_token(data, whitespace=True)


def bracket_label(data: bytes) -> str:
    """Token bytes for ``[..]`` lists: spaces stay spaces, control characters are escaped."""
    text = printable_token(data, whitespace=False)
    return text.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")


def quoted_label(data: bytes) -> str:
    """Token bytes in quotes, JSON-escaped, with ``<F0 9F>`` hex for bytes that are not characters."""
    return json.dumps(printable_token(data, whitespace=False), ensure_ascii=False)


def print_json(document: object, out: IO[str], indent: int = 2) -> None:
    """``document`` as indented JSON and a newline, made in one string and written once (a
    replay's 50,000 steps written piece by piece through the escaping stream took most of its time)."""
    out.write(json.dumps(document, ensure_ascii=False, indent=indent) + "\n")


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
    """Plain aligned columns; ``right`` marks the numeric columns.

    Control characters in a cell are shown as escapes (``\\n``, ``\\x1b``): they would break
    the row or drive the terminal.
    """
    headers = [terminal_text(h) for h in headers]
    rows = [[terminal_text(c) for c in row] for row in rows]
    widths = [len(h) for h in headers]
    for row in rows:
        widths = [max(w, len(c)) for w, c in zip(widths, row)]

    def line(cells: Sequence[str]) -> str:
        parts = [c.rjust(w) if r else c.ljust(w) for c, w, r in zip(cells, widths, right)]
        return "  ".join(parts).rstrip()

    return "\n".join([line(headers), *(line(r) for r in rows)])


def render_markdown(headers: Sequence[str], rows: Sequence[Sequence[str]], right: Sequence[bool]) -> str:
    """A GitHub-flavoured markdown table, padded so it also reads as plain text; ``right`` marks
    the numeric columns (aligned right with ``---:``). Pipes and control characters inside cells
    are escaped."""

    def cell(text: str) -> str:
        return terminal_text(text).replace("\\", "\\\\").replace("|", "\\|")

    body = [[cell(c) for c in row] for row in rows]
    head = [cell(h) for h in headers]
    widths = [max(3, len(h)) for h in head]
    for row in body:
        widths = [max(w, len(c)) for w, c in zip(widths, row)]

    def line(cells: Sequence[str]) -> str:
        parts = [c.rjust(w) if r else c.ljust(w) for c, w, r in zip(cells, widths, right)]
        return "| " + " | ".join(parts) + " |"

    rule = "| " + " | ".join(("-" * (w - 1) + ":") if r else "-" * w for w, r in zip(widths, right)) + " |"
    return "\n".join([line(head), rule, *(line(r) for r in body)])


def format_int(n: int | None) -> str:
    """A count with thousands separators (1,313); '-' for None."""
    return "-" if n is None else f"{n:,}"


def format_fixed(value: float | None, digits: int = 2) -> str:
    """A decimal with a fixed number of digits, so a column lines up (4.40, 1.00); '-' for None."""
    return "-" if value is None else f"{value:.{digits}f}"


def format_percent(share: float | None, digits: int = 1) -> str:
    """A share as a percentage (0.4601 -> '46.0%'); '-' for None."""
    return "-" if share is None else f"{share * 100:.{digits}f}%"


# ----------------------------------------------------------------------------- --output and --plot
def check_row_outputs(args: argparse.Namespace, inputs: Sequence[str]) -> None:
    """Check ``--output`` and ``--plot`` before any work, so a missing folder, a read-only file or
    an output over one of the ``inputs`` fails at once rather than after the measuring."""
    outputs = [(flag, path) for flag, path in (("--output", args.output), ("--plot", args.plot)) if path]
    if outputs:
        from tokviz.core.io.outputs import Output, check_outputs

        check_outputs([Output.file(path, flag) for flag, path in outputs], inputs=list(inputs))


def write_rows(text: str, args: argparse.Namespace, inputs: Sequence[str]) -> None:
    """The rows to ``--output`` (written whole, at the end, never over one of the ``inputs``) or to
    standard output; a note says where they went unless ``--quiet``."""
    from tokviz.cli.command import print_note

    if not args.output:
        sys.stdout.write(text)
        return
    from tokviz.core.io.outputs import Output, write_outputs

    write_outputs([(Output.file(args.output, "--output"), text.encode("utf-8"))], list(inputs))
    if not args.quiet:
        print_note(f"rows written to {args.output}")
