"""``tokviz diff A B``: how two merge lists differ (first divergence, step shifts, tokens only in one).

Merges are compared by their bytes (:func:`tokviz.core.analysis.usage.diff_merges`), so vocabularies with
different id layouts match where they agree. Steps are 1-based, as in the app's merge timeline.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import IO, TYPE_CHECKING, Any

from tokviz.cli.command import UsageError
from tokviz.cli.options import load_tokenizer
from tokviz.cli.output import print_json, render_table, text_or_hex, token_label
from tokviz.core.io.safe_text import terminal_text

if TYPE_CHECKING:
    from tokviz.core.analysis.usage import MergeDiff, Pair


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("a", metavar="A", help="a built-in name or a tokenizer file")
    p.add_argument("b", metavar="B", help="the tokenizer to compare it with")
    p.add_argument("--top", type=int, default=20, metavar="N", help="rows of each list (default: 20)")
    p.add_argument("--format", choices=("table", "markdown", "json"), default="table", help="output form")


def run(args: argparse.Namespace) -> int:
    """Load both tokenizers, compare their merge lists and print the difference."""
    from tokviz.cli.usage import short_names
    from tokviz.core.analysis.usage import diff_merges

    if args.top < 1:
        raise UsageError("--top must be 1 or more")
    a, b = load_tokenizer(args.a), load_tokenizer(args.b)
    name_a, name_b = short_names([args.a, args.b], [a, b])
    if name_a == name_b:
        name_a, name_b = f"A ({name_a})", f"B ({name_b})"
    diff = diff_merges(a, b, name_a, name_b)
    if args.format == "json":
        print_json(diff_json(diff, args.top), sys.stdout)
    else:
        write_text(diff, args.top, sys.stdout, markdown=args.format == "markdown")
    return 0


def _merge(pair: Pair, label: Callable[[bytes], str]) -> str:
    return f"{label(pair[0])} + {label(pair[1])} → {label(pair[0] + pair[1])}"


def _longest(tokens: Sequence[bytes], top: int) -> list[bytes]:
    return sorted(tokens, key=lambda t: (-len(t), t))[:top]


def _md(data: bytes) -> str:
    text = token_label(data).replace("|", "\\|")
    fence = "``" if "`" in text else "`"
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def write_text(diff: MergeDiff, top: int, out: IO[str], markdown: bool = False) -> None:
    """The difference as aligned text, or as markdown for a design doc."""
    label = _md if markdown else token_label

    def table(headers: list[str], rows: list[list[str]], right: list[bool]) -> str:
        if not markdown:
            return render_table(headers, rows, right)
        lines = [
            "| " + " | ".join(headers) + " |",
            "|" + "|".join("---:" if r else "---" for r in right) + "|",
        ]
        return "\n".join(lines + ["| " + " | ".join(row) + " |" for row in rows])

    def heading(text: str) -> str:
        return f"\n### {text}\n\n" if markdown else f"\n{text}:\n"

    a, b = terminal_text(diff.a_name), terminal_text(diff.b_name)
    out.write(f"{a}: {diff.a_merges:,} merges; {b}: {diff.b_merges:,} merges (· is a space)\n")
    out.write(terminal_text(diff.summary()) + "\n")
    if diff.first_divergence is not None:
        step, pa, pb = diff.first_divergence
        shown_a = _merge(pa, label) if pa is not None else "(no more merges)"
        shown_b = _merge(pb, label) if pb is not None else "(no more merges)"
        out.write(f"first divergence at step {step:,}: {a} {shown_a}; {b} {shown_b}\n")
    if diff.shifts:
        out.write(heading(f"largest step shifts ({len(diff.shifts):,} shared merges moved; top {top})"))
        rows = [
            [f"{s.step_a:,}", f"{s.step_b:,}", f"{s.shift:+,}", _merge(s.pair, label)]
            for s in diff.shifts[:top]
        ]
        out.write(
            table([f"step in {a}", f"step in {b}", "shift", "merge"], rows, [True, True, True, False]) + "\n"
        )
    for name, only in ((a, diff.only_a), (b, diff.only_b)):
        if only:
            out.write(heading(f"merges only in {name} ({len(only):,}; first {min(top, len(only))})"))
            rows = [[f"{step:,}", _merge(pair, label)] for step, pair in only[:top]]
            out.write(table(["step", "merge"], rows, [True, False]) + "\n")
    for name, tokens in ((a, diff.tokens_only_a), (b, diff.tokens_only_b)):
        if tokens:
            out.write(heading(f"tokens only in {name} ({len(tokens):,}; longest {min(top, len(tokens))})"))
            rows = [[str(len(t)), label(t)] for t in _longest(tokens, top)]
            out.write(table(["length", "token"], rows, [True, False]) + "\n")


def _token(data: bytes) -> dict[str, Any]:
    return {"text": text_or_hex(data), "hex": data.hex()}


def _pair(pair: Pair) -> dict[str, Any]:
    return {"left": _token(pair[0]), "right": _token(pair[1]), "token": _token(pair[0] + pair[1])}


def diff_json(diff: MergeDiff, top: int) -> dict[str, Any]:
    """The difference as plain JSON values (lists cut to ``top`` rows; the counts are whole)."""
    first = None
    if diff.first_divergence is not None:
        step, pa, pb = diff.first_divergence
        first = {"step": step, "a": _pair(pa) if pa else None, "b": _pair(pb) if pb else None}
    return {
        "a": diff.a_name,
        "b": diff.b_name,
        "a_merges": diff.a_merges,
        "b_merges": diff.b_merges,
        "common_prefix": diff.common_prefix,
        "is_prefix": diff.is_prefix,
        "summary": diff.summary(),
        "first_divergence": first,
        "shared": diff.shared,
        "moved": len(diff.shifts),
        "shifts": [{"step_a": s.step_a, "step_b": s.step_b} | _pair(s.pair) for s in diff.shifts[:top]],
        "only_a": len(diff.only_a),
        "only_b": len(diff.only_b),
        "merges_only_a": [{"step": step} | _pair(p) for step, p in diff.only_a[:top]],
        "merges_only_b": [{"step": step} | _pair(p) for step, p in diff.only_b[:top]],
        "tokens_only_a": len(diff.tokens_only_a),
        "tokens_only_b": len(diff.tokens_only_b),
        "longest_tokens_only_a": [_token(t) for t in _longest(diff.tokens_only_a, top)],
        "longest_tokens_only_b": [_token(t) for t in _longest(diff.tokens_only_b, top)],
    }
