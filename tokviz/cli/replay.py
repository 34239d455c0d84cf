"""``tokviz replay``: BPE merges one by one on a text, with the text's size after each.

The algorithm lives in :mod:`tokviz.core.training.replay`; this module reads the options, prints the
lecture's table (or JSON) and, with ``--render``, has the GUI's drawing code draw it.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from tokviz.cli.command import UsageError, print_note
from tokviz.cli.drawing import qt_drawing
from tokviz.cli.options import (
    add_file_options,
    add_input,
    add_picture_options,
    add_specials_in_text,
    add_tie_break,
    check_picture_options,
    input_text,
    load_tokenizer,
    reading_specials,
    specials_note,
)
from tokviz.cli.output import bracket_label, format_ratio, print_json, quoted_label, render_table, text_or_hex

if TYPE_CHECKING:
    from tokviz.core.training.replay import Replay

# Final tokens shown in the summary line before it is cut short.
SUMMARY_TOKEN_LIMIT = 400


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_input(p)
    p.add_argument("--merges", type=int, metavar="K", help="number of merges (default: all)")
    p.add_argument(
        "--pretokenizer", metavar="P", help="when training on the text: none, gpt2, cl100k, o200k or a regex"
    )
    add_tie_break(p, default=None)
    p.add_argument(
        "--tokenizer", metavar="NAME|PATH", help="replay this tokenizer's merges instead of training"
    )
    add_file_options(p)
    add_specials_in_text(p)
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
    add_picture_options(picture)


def run(args: argparse.Namespace) -> int:
    """The merges one by one with the token count of the text after each."""
    from tokviz.core.training.replay import replay_tokenizer, replay_training

    text = input_text(args)
    if args.merges is not None and args.merges < 0:
        raise UsageError("--merges must be 0 or more")
    check_picture_options(args, "--render", args.render)
    if args.tokenizer is not None:
        if args.pretokenizer is not None or args.tie_break is not None:
            raise UsageError(
                "--pretokenizer and --tie-break apply only when training on the text (no --tokenizer)"
            )
        tokenizer = reading_specials(
            [load_tokenizer(args.tokenizer, args.special_token, pattern=args.pattern)], args
        )[0]
        replay = replay_tokenizer(tokenizer, text, args.merges)
        note = specials_note([tokenizer], args)
    else:
        note = ""
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
                "bytes": text_or_hex(s.merged),
                "count": s.count,
                "tokens": s.tokens_after,
            }
            for s in replay.steps
        ]
        print_json(items, sys.stdout, indent=1)
    else:
        sys.stdout.write(replay_table(replay, args.only_changes) + "\n" + (note + "\n" if note else ""))
    if args.render:
        written = render_replay_picture(replay, text, args)
        print_note(f"merge table drawn in {written}")
    return 0


def replay_table(replay: Replay, only_changes: bool = False) -> str:
    """Rows of step, merge, new id, bytes, count and tokens, then a one-line summary."""
    rows = [["0", "", "", "", "", "", str(replay.initial_tokens)]]
    previous = replay.initial_tokens
    for s in replay.steps:
        if only_changes and s.tokens_after == previous:
            continue
        previous = s.tokens_after
        rows.append(
            [
                str(s.step),
                f"{quoted_label(s.left)} + {quoted_label(s.right)}",
                "->",
                str(s.new_id),
                quoted_label(s.merged),
                str(s.count),
                str(s.tokens_after),
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
    with qt_drawing("--render needs PySide6"):
        from tokviz.gui.drawing.replay_sheet import render_replay
    written = render_replay(
        replay,
        args.render,
        title,
        subtitle,
        scale=args.scale or 2.0,
        dark=args.theme == "dark",
        only_changes=only_changes,
    )
    return str(written)
