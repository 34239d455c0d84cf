"""The blocks a lecture slide is made of (chip rows, counters, tables, words, bars, pictures) and
what a slide builder is given.

Builders live in :mod:`tokviz.core.lecture.slides` and beside it (one module per group of slide
kinds); they share these types and the token boxes, and the window, the PDF handout and the PNG
export paint the blocks (:mod:`tokviz.gui.lecture.paint`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from ..analysis.lattice import Lattice
from ..bpe.lecture_tokenizers import UNK
from ..bpe.tokenizer import Tokenizer, TokenSpan
from ..pretok.bytes_ import printable_token
from ..show.token_colours import colour_indices
from ..training.train import train_bpe
from .deck import MAX_SLIDE_CHARS, Deck, Slide
from .deck_assets import PictureData


@dataclass(frozen=True)
class Chip:
    """One box: a token, a code point, a byte or a chunk. ``sub`` is the small line under it (an id)."""

    label: str
    sub: str = ""
    colour: int = 0
    kind: str = "normal"  # normal, partial, special, unknown, picked


@dataclass(frozen=True)
class ChipRow:
    """A caption and boxes laid out in reading order; a box is never split across lines."""

    caption: str
    chips: tuple[Chip, ...]


@dataclass(frozen=True)
class Counters:
    """Big numbers with their labels, side by side (``20`` over ``bytes``)."""

    items: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Table:
    """A small table; ``right`` marks numeric columns, ``marked`` the rows to highlight."""

    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    right: tuple[bool, ...]
    marked: tuple[int, ...] = ()


@dataclass(frozen=True)
class Words:
    """A paragraph, or a bullet; ``tone`` is normal, good (a check holds), bad (it fails) or muted."""

    text: str
    bullet: bool = False
    tone: str = "normal"


@dataclass(frozen=True)
class Bars:
    """Grouped bars: one group per category, one bar per series (a bytes-per-token chart).

    ``lossy`` holds, per series and category, what a lossy bar lost ("lossy: 4 <unk>") or "": such a
    bar is hatched and never sets the scale, since fewer tokens for less text is not a better rate.
    """

    title: str
    categories: tuple[str, ...]
    series: tuple[tuple[str, tuple[float, ...]], ...]
    lossy: tuple[tuple[str, ...], ...] = ()

    def loss(self, series: int, category: int) -> str:
        """What the bar of ``series`` over ``category`` lost ("" for a bar that kept all its text)."""
        if series < len(self.lossy) and category < len(self.lossy[series]):
            return self.lossy[series][category]
        return ""


@dataclass(frozen=True)
class Picture:
    """A picture file beside the deck, read and checked (:func:`tokviz.core.lecture.deck_assets.read_picture`), with its caption."""

    picture: PictureData
    caption: str = ""


@dataclass(frozen=True)
class LatticeBlock:
    """A word's segmentation lattice under a caption: every piece over the characters it covers,
    with its log-probability, the best path outlined (:mod:`tokviz.core.analysis.lattice`)."""

    caption: str
    lattice: Lattice


Block = ChipRow | Counters | Table | Words | Bars | Picture | LatticeBlock


@dataclass(frozen=True)
class SlideContent:
    """One slide at one step: its title, blocks in reading order and the figures it states."""

    title: str
    blocks: tuple[Block, ...]
    step: int = 0
    steps: int = 1
    figures: Mapping[str, str] = field(default_factory=dict)
    notes: str = ""


class SlideInput(Protocol):
    """What a builder reads: the slide, its deck, its text and tokenizer names (as edited live)."""

    slide: Slide
    deck: Deck
    text: str
    names: list[str]

    def tokenizers(self) -> list[tuple[str, Tokenizer]]:
        """The slide's tokenizers, each with the name the slide shows."""
        ...

    def load(self, name: str) -> Tokenizer:
        """A tokenizer by name: a built-in, a file beside the deck, or a path."""
        ...


Built = tuple[list[Block], dict[str, str]]
"""A builder's result: the slide's blocks in reading order and the figures it states."""
Builder = Callable[[SlideInput, int], Built]


def edited_text(s: SlideInput) -> str | None:
    """The slide's text when it was typed live (E) and differs from the deck's, else None."""
    written = str(s.slide.options.get("text") or s.deck.text)[:MAX_SLIDE_CHARS]
    return s.text if s.text != written else None


def token_chips(spans: Sequence[TokenSpan], tok: Tokenizer, ids: bool = True) -> tuple[Chip, ...]:
    """Token boxes: each token's bytes as a label, its id under it (``ids``), partial and special
    tokens marked and the words tokenizer's unknown id shown as <unk>."""
    colours = colour_indices([s.id for s in spans])
    chips = []
    for span, colour in zip(spans, colours):
        kind = "special" if span.special else "partial" if span.partial else "normal"
        label = chip_label(span.bytes)
        if tok.name == "words" and span.id == 0:
            kind, label = "unknown", UNK
        chips.append(Chip(label, str(span.id) if ids else "", int(colour), kind))
    return tuple(chips)


@functools.lru_cache(maxsize=4096)
def chip_label(data: bytes) -> str:
    """A token's bytes as a chip shows them (:func:`printable_token`), worked out once: every step
    of a merges slide labels the same tokens again."""
    return printable_token(data)


def trained_tokenizer(text: str, merges: int, slide: Slide) -> Tokenizer:
    """The merges a slide learns on ``text``, with the slide's pre-tokenizer and tie rule."""
    return _train(text, merges, str(slide.get("pretokenizer")), str(slide.get("tie_break")))


@functools.lru_cache(maxsize=8)
def _train(text: str, merges: int, pretokenizer: str, tie_break: str) -> Tokenizer:
    """The slide's merges learned once: every step of a merges slide (each page of a handout per
    step) shows the same training."""
    result = train_bpe(text=text, vocab_size=256 + merges, pretokenizer=pretokenizer, tie_break=tie_break)
    return result.tokenizer()
