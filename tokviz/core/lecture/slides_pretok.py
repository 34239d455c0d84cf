"""Slides on the pre-tokenizer: GPT-2's regex alternative by alternative, and how numbers are chopped.

The ``regex`` slide runs GPT-2's pattern as published (:data:`GPT2_PUBLISHED_ALTERNATIVES`) on the
slide's text with each alternative in a group of its own, so every chunk is coloured by the
alternative that matched it; the leading-space convention is shown on the tokenizer's own ids for
"hello" and " hello", one box each with its id. The ``digits`` slide puts the tokens of a numeric text side by side for
several tokenizers: GPT-2 keeps a whole number as one chunk and cuts it wherever its merges
happen to end, cl100k's pattern cuts runs of at most three digits before any merge.
"""

from __future__ import annotations

import functools

import regex

from ..pretok.bytes_ import printable_token
from ..pretok.pretokenize import GPT2_PUBLISHED_ALTERNATIVES, GPT2_PUBLISHED_PATTERN
from .blocks import Block, Built, Chip, ChipRow, SlideInput, Words, chip_label, token_chips

ALTERNATIVE_NAMES = ("contraction", "letters", "digits", "other symbols", "spaces before a space", "spaces")
"""What each alternative of :data:`GPT2_PUBLISHED_ALTERNATIVES` catches, in the same order."""


@functools.lru_cache(maxsize=1)
def _grouped() -> regex.Pattern[str]:
    """The published pattern with each alternative in a group: the group that matched names it."""
    return regex.compile("|".join(f"({alt})" for alt in GPT2_PUBLISHED_ALTERNATIVES))


def published_chunks(text: str) -> list[tuple[str, int]]:
    """``text`` cut by GPT-2's published pattern: each chunk with the index of the alternative that
    matched it (0 = contractions … 5 = any other whitespace). The chunks tile the text."""
    return [(m.group(), (m.lastindex or 1) - 1) for m in _grouped().finditer(text)]


def _alternative_colour(index: int) -> int:
    """A palette index per alternative, hues spread apart so neighbours never look alike."""
    return index * 4


def _pattern_label(alternative: str) -> str:
    """An alternative as a box shows it: its space (which matters) as ␣."""
    return alternative.replace(" ", "␣")


def regex_slide(s: SlideInput, _step: int) -> Built:
    """The published GPT-2 pattern, its alternatives lit on the slide's text, and "hello" vs " hello"."""
    chunks = published_chunks(s.text)
    legend = tuple(
        Chip(_pattern_label(alt), f"{i + 1} {name}", _alternative_colour(i))
        for i, (alt, name) in enumerate(zip(GPT2_PUBLISHED_ALTERNATIVES, ALTERNATIVE_NAMES))
    )
    lit = tuple(
        Chip(chip_label(chunk.encode("utf-8", "replace")), str(alt + 1), _alternative_colour(alt))
        for chunk, alt in chunks
    )
    blocks: list[Block] = [
        ChipRow("GPT-2's pattern as published (␣ is a space)", legend),
        ChipRow(f"the text: {len(chunks)} chunks, coloured by alternative", lit),
    ]
    figures = {
        "pattern": GPT2_PUBLISHED_PATTERN,
        "chunks": " | ".join(printable_token(c.encode("utf-8", "replace")) for c, _ in chunks),
        "alternatives": " ".join(str(alt + 1) for _, alt in chunks),
    }
    name, tok = s.tokenizers()[0]
    pair: list[Chip] = []
    for word in ("hello", " hello"):
        spans = tok.encode_spans(word)
        pair.extend(token_chips(spans, tok))
        figures[f"{name} “{word}”"] = " ".join(str(sp.id) for sp in spans)
    # The two boxes show both ids; the caption says what they show, so no sentence repeats them.
    blocks.append(
        ChipRow(f"{name}: “hello” and “ hello”, the space belongs to the word after it", tuple(pair))
    )
    blocks.append(Words("tiktoken's rewrite (possessive ++, \\s++$) cuts the same chunks.", tone="muted"))
    return blocks, figures


def _digit_pieces(s: SlideInput) -> list[tuple[str, list[str], ChipRow]]:
    out = []
    for name, tok in s.tokenizers():
        spans = tok.encode_spans(s.text)
        pieces = [printable_token(sp.bytes) for sp in spans]
        caption = f"{name}: {len(spans)} tokens"
        out.append((name, pieces, ChipRow(caption, token_chips(spans, tok))))
    return out


def digits_slide(s: SlideInput, _step: int) -> Built:
    """A numeric text as each tokenizer cuts it: GPT-2's learned pieces against cl100k's runs of three."""
    rows = _digit_pieces(s)
    blocks: list[Block] = [row for _, _, row in rows]
    blocks.append(
        Words(
            "GPT-2's ␣?\\p{N}+ keeps a whole number as one chunk, and its merges end wherever the "
            "training text happened to: the pieces have nothing to do with place value."
        )
    )
    blocks.append(
        Words("cl100k's \\p{N}{1,3} cuts every number into runs of at most three digits, left to right.")
    )
    return blocks, {f"{name} pieces": " | ".join(pieces) for name, pieces, _ in rows}
