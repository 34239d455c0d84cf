"""``tokviz render``: a text's coloured token strips, one per tokenizer, drawn as the window does."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from tokviz.cli.command import UsageError, print_note
from tokviz.cli.drawing import qt_drawing
from tokviz.cli.options import (
    add_file_options,
    add_input,
    add_picture_options,
    add_specials_in_text,
    add_tokenizers,
    add_words_corpus,
    check_picture_options,
    input_text,
    load_tokenizers,
    specials_note,
)

if TYPE_CHECKING:
    from tokviz.core.bpe.tokenizer import Tokenizer

DEFAULT_TOKENIZERS = ("gpt2", "cl100k")


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_input(p)
    add_tokenizers(p, "one strip per tokenizer; repeat for several", DEFAULT_TOKENIZERS)
    p.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="OUT.png|OUT.svg|OUT.html",
        help="the image to write, or a self-contained HTML page (hover a token for its id and bytes)",
    )
    add_picture_options(p)
    add_words_corpus(p)
    add_file_options(p)
    add_specials_in_text(p)
    p.add_argument("--ids", action="store_true", help="draw token ids instead of their text")
    p.add_argument("--whitespace", action="store_true", help="show spaces, tabs and newlines as · → ↵")


def run(args: argparse.Namespace) -> int:
    """Draw the strips into ``--output``; Qt is imported only once the options are checked."""
    text = input_text(args)
    is_page = args.output.lower().endswith((".html", ".htm"))
    if is_page:
        check_page_options(args)
    else:
        check_picture_options(args, "-o", args.output)
    specs, _, tokenizers = load_tokenizers(args, words_texts=[text])
    names = [tok.name for tok in tokenizers]
    if len(set(names)) != len(names):
        names = specs
    if is_page:
        return _write_page(args, text, list(zip(names, tokenizers)), specials_note(tokenizers, args))
    with qt_drawing("tokviz render needs PySide6"):
        from tokviz.gui.drawing.strips import MAX_RENDER_CHARS, render_strips
    written = render_strips(
        text,
        list(zip(names, tokenizers)),
        args.output,
        scale=args.scale or 2.0,
        dark=args.theme == "dark",
        show_ids=args.ids,
        whitespace=args.whitespace,
    )
    if len(text) > MAX_RENDER_CHARS:
        print_note(f"drew the first {MAX_RENDER_CHARS:,} of {len(text):,} characters")
    print_note(f"token strips drawn in {written} ({specials_note(tokenizers, args)})")
    return 0


def check_page_options(args: argparse.Namespace) -> None:
    """An HTML page is drawn by the browser at its own scale, in the light theme."""
    given = [f for f, v in (("--scale", args.scale), ("--theme", args.theme)) if v is not None]
    if given:
        verb = "applies" if len(given) == 1 else "apply"
        raise UsageError(f"{', '.join(given)} {verb} to PNG and SVG pictures, not to HTML pages")


def _write_page(args: argparse.Namespace, text: str, named: list[tuple[str, Tokenizer]], note: str) -> int:
    """Write the self-contained page (all or nothing; never over the input file)."""
    from tokviz.core.io.outputs import Output, write_outputs
    from tokviz.core.show.token_html import MAX_HTML_CHARS, tokens_page

    page = tokens_page(
        text,
        named,
        title=f"tokviz: {', '.join(n for n, _ in named)}",
        show_ids=args.ids,
        whitespace=args.whitespace,
    )
    inputs = [args.file] if args.file not in (None, "-") else []
    write_outputs([(Output.file(args.output, "-o"), page.encode("utf-8"))], inputs)
    if len(text) > MAX_HTML_CHARS:
        print_note(f"the page shows the first {MAX_HTML_CHARS:,} of {len(text):,} characters")
    print_note(f"token page written to {args.output} ({note})")
    return 0
