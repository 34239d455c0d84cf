"""``tokviz lecture``: check a deck, list its slides, or write it as a PDF handout or slide pictures.

With no output option it checks the deck (one line per mistake, exit 1) and lists its slides with
the figures each states. ``--pdf`` writes the handout (a page per slide, or per step with
``--per-step``; with ``--paper a4`` or ``letter``, printable pages with each slide's speaker notes
under it); ``--png``/``--svg`` write each slide into a folder. The bundled lecture is used
when no deck is named. Drawing imports Qt only after the options are checked.
"""

from __future__ import annotations

import argparse

from tokviz.cli.command import UsageError, print_note
from tokviz.cli.drawing import qt_drawing

ASPECTS = {"16:9": 16 / 9, "4:3": 4 / 3}


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("deck", nargs="?", metavar="DECK.toml", help="the deck (default: the bundled lecture)")
    out = p.add_mutually_exclusive_group()
    out.add_argument("--pdf", metavar="OUT.pdf", help="write the handout: one page per slide")
    out.add_argument("--png", metavar="DIR", help="write each slide as DIR/slide-01.png …")
    out.add_argument("--svg", metavar="DIR", help="write each slide as DIR/slide-01.svg …")
    p.add_argument("--per-step", action="store_true", help="a page or picture per step (one per merge)")
    p.add_argument(
        "--paper",
        choices=["a4", "letter"],
        help="with --pdf: print on A4 or letter pages, each slide with its speaker notes under it",
    )
    p.add_argument(
        "--aspect", choices=sorted(ASPECTS), default="16:9", help="the slides' shape (default 16:9)"
    )
    p.add_argument("--theme", choices=["light", "dark"], default="light", help="colours (default light)")
    p.add_argument(
        "--scale", type=float, default=2.0, help="PNG pixels per slide pixel (default 2: 3200 × 1800)"
    )


def run(args: argparse.Namespace) -> int:
    """Load and check the deck, then list it or draw it."""
    from tokviz.core.lecture.deck import deck_files, default_deck, load_deck

    if not 0.25 <= args.scale <= 4:
        raise UsageError("--scale must be between 0.25 and 4")
    if args.paper and not args.pdf:
        raise UsageError("--paper sets the handout's pages: use it with --pdf")
    if args.pdf and not args.pdf.lower().endswith(".pdf"):
        raise UsageError(f"--pdf writes a .pdf file, not {args.pdf}")
    deck = load_deck(args.deck) if args.deck else default_deck()
    inputs = deck_files(deck, args.deck)
    if not (args.pdf or args.png or args.svg):
        _list(deck)
        return 0
    aspect, dark = ASPECTS[args.aspect], args.theme == "dark"
    with qt_drawing("tokviz lecture needs PySide6 to draw slides"):
        from tokviz.gui.drawing.sheet import ensure_app
        from tokviz.gui.lecture.handout import family_fallback_for_emoji, write_pdf, write_slides
    if args.pdf:
        family_fallback_for_emoji()  # emoji as text in the PDF; before Qt lays out any text
    ensure_app()
    if args.pdf:
        write_pdf(
            deck, args.pdf, per_step=args.per_step, aspect=aspect, dark=dark, inputs=inputs, paper=args.paper
        )
        print_note(f"handout written to {args.pdf}")
        return 0
    fmt, folder = ("png", args.png) if args.png else ("svg", args.svg)
    written = write_slides(
        deck,
        folder,
        fmt=fmt,
        per_step=args.per_step,
        aspect=aspect,
        dark=dark,
        scale=args.scale,
        inputs=inputs,
    )
    print_note(f"{len(written)} slides written to {folder}")
    return 0


def _list(deck: object) -> None:
    """The deck's title and one line per slide; titles and figures come from the deck file, so
    their control characters are shown escaped (a title must not set the terminal's title)."""
    from tokviz.core.io.safe_text import terminal_text
    from tokviz.core.lecture.deck import Deck
    from tokviz.core.lecture.slides import slide_content

    assert isinstance(deck, Deck)
    print(f"{terminal_text(deck.title or 'untitled deck')}: {len(deck.slides)} slides")
    for number, slide in enumerate(deck.slides, 1):
        content = slide_content(slide, deck, slide.steps - 1)
        figures = "; ".join(f"{k}: {v}" for k, v in content.figures.items() if "ids" not in k)
        steps = f" ({slide.steps} steps)" if slide.steps > 1 else ""
        shown = terminal_text(f"{slide.title}{steps}" + (f"  [{figures}]" if figures else ""))
        print(f"{number:>3}  {slide.kind:<9}  {shown}")
