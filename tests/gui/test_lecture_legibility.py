"""Legible from the back row: every text a slide paints, measured on a 1024×768 projector.

A recording painter notes each ``drawText`` as the slide paints it: the text, its size in screen
pixels and its colour. The same slide painted again with no text gives what each text sits on
(the commonest colour under it). Every text must be at least 20 pixels high and have a contrast
of at least 4.5:1 against that. The check runs on every slide and step of the bundled deck and on
a slide of every kind in the deck format's table, so a new kind is checked as soon as it exists.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFontMetricsF, QImage, QPainter

from tokviz.core.lecture.deck import SLIDE_KINDS, Deck, Slide, default_deck
from tokviz.core.lecture.slides import slide_content
from tokviz.gui.lecture.paint import SlideLayout, canvas_size, paint_keys, paint_scaled
from tokviz.gui.lecture.show import LECTURE_KEYS
from tokviz.gui.style.theme import token_colors
from tokviz.gui.window.presentation_colors import contrast_ratio

from .test_lecture_pictures import red_png

pytestmark = [pytest.mark.gui, pytest.mark.usefixtures("qapp")]

PROJECTOR = (1024, 768)
SMALLEST_PX = 20.0
LEAST_CONTRAST = 4.5
DECK = default_deck()
# What a slide of each kind is given to show, as much as it can: a lossy tokenizer beside a byte-level
# one, a text with an emoji, Chinese and a word no vocabulary has. A kind's other keys keep their default.
SAMPLE_OPTIONS: dict[str, Any] = {
    "text": "Hi 🌍 你好 zyzzyva",
    "tokenizers": ("words", "gpt2"),
    "samples": ("english", "chinese", "digits"),
    "path": "picture.png",
    "caption": "a picture beside the deck",
    "body": "A paragraph of words.\n- a bullet\n- another bullet",
    "cluster": "👍🏽",
}
# A merge slide shows every pair tied for the next merge: a text with repeated pairs, as a lecture has.
KIND_OPTIONS: dict[str, dict[str, Any]] = {"merges": {"text": "the cat in the hat 🌍"}}


@dataclass(frozen=True)
class Drawn:
    """One text as painted: where on the screen, how many pixels high its font is, in what colour."""

    text: str
    rect: QRectF
    pixels: float
    colour: QColor


class RecordingPainter(QPainter):
    """A painter that notes every text drawn through it, and with ``texts=False`` leaves texts out."""

    def __init__(self, image: QImage, texts: bool) -> None:
        super().__init__(image)
        self.texts = texts
        self.drawn: list[Drawn] = []

    def drawText(self, *args: Any) -> None:  # type: ignore[override]  # noqa: N802 - Qt's name, every overload
        if len(args) == 2 and isinstance(args[0], QPointF):
            at, text = args
            fm = QFontMetricsF(self.font())
            local = QRectF(at.x(), at.y() - fm.ascent(), fm.horizontalAdvance(text), fm.height())
        elif len(args) == 3 and isinstance(args[0], QRectF):
            rect, flags, text = args
            local = QFontMetricsF(self.font()).boundingRect(rect, flags, text)
        else:
            raise AssertionError(f"a slide drew text in a way this check does not measure: {args!r}")
        if text.strip():
            transform = self.worldTransform()
            pixels = self.font().pixelSize() * transform.m22()
            self.drawn.append(Drawn(text, transform.mapRect(local), pixels, QColor(self.pen().color())))
        if self.texts:
            super().drawText(*args)


def painted(draw: Any, texts: bool) -> tuple[QImage, list[Drawn]]:
    image = QImage(*PROJECTOR, QImage.Format.Format_RGB32)
    painter = RecordingPainter(image, texts)
    draw(painter)
    painter.end()
    return image, painter.drawn


def background(image: QImage, rect: QRectF) -> QColor:
    """The commonest colour inside ``rect`` of ``image`` (what a text there sits on)."""
    pixels = np.frombuffer(image.constBits(), np.uint8).reshape(image.height(), image.width(), 4)
    x0, y0 = max(int(rect.left()), 0), max(int(rect.top()), 0)
    x1, y1 = min(int(rect.right()) + 1, image.width()), min(int(rect.bottom()) + 1, image.height())
    region = pixels[y0:y1, x0:x1, :3].reshape(-1, 3)
    assert len(region), f"a text drawn off the screen at {rect}"
    colours, counts = np.unique(region, axis=0, return_counts=True)
    blue, green, red = (int(c) for c in colours[counts.argmax()])
    return QColor(red, green, blue)


def illegible(draw: Any) -> list[str]:
    """Every text ``draw`` paints that is smaller than 20 pixels or fainter than 4.5:1, described."""
    plain, _ = painted(draw, texts=False)
    _, drawn = painted(draw, texts=True)
    assert drawn, "nothing was written"
    found = []
    for item in drawn:
        under = background(plain, item.rect)
        contrast = contrast_ratio(item.colour, under)
        if item.pixels < SMALLEST_PX - 0.05 or contrast < LEAST_CONTRAST:
            found.append(
                f"{item.text[:40]!r}: {item.pixels:.1f} px, {item.colour.name()} on {under.name()} "
                f"{contrast:.2f}:1"
            )
    return found


def slide_drawing(layout: SlideLayout, base: QColor) -> Any:
    return lambda painter: paint_scaled(painter, layout, QRectF(0, 0, *PROJECTOR), base)


def check_slide(slide: Slide, deck: Deck, dark: bool) -> list[str]:
    colors = token_colors(dark)
    problems = []
    for step in range(slide.steps):
        content = slide_content(slide, deck, step)
        layout = SlideLayout(
            content, canvas_size(PROJECTOR[0] / PROJECTOR[1]), colors, "Tokenization · 12 / 12"
        )
        where = f"{slide.kind} slide {slide.title!r} step {step + 1} ({'dark' if dark else 'light'})"
        problems += [f"{where}: {problem}" for problem in illegible(slide_drawing(layout, colors.base))]
    return problems


@pytest.mark.slow
@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
def test_every_text_of_the_bundled_deck_is_legible_on_a_1024x768_projector(dark: bool) -> None:
    problems = [problem for slide in DECK.slides for problem in check_slide(slide, DECK, dark)]
    assert problems == []


def sample_slide(kind: str) -> Slide:
    samples = {**SAMPLE_OPTIONS, **KIND_OPTIONS.get(kind, {})}
    options = {key: samples.get(key, option.default) for key, option in SLIDE_KINDS[kind].items()}
    return Slide(kind, f"A {kind} slide on a projector", "", options)


@pytest.mark.parametrize("kind", sorted(SLIDE_KINDS))
def test_every_slide_kind_is_legible_with_a_lossy_tokenizer_and_mixed_scripts(
    kind: str, tmp_path: Path
) -> None:
    (tmp_path / "picture.png").write_bytes(red_png(64))
    deck = Deck("A projector check", (), folder=tmp_path)
    assert check_slide(sample_slide(kind), deck, dark=False) == []


def test_the_check_catches_small_text_and_grey_on_colour() -> None:
    def faint(painter: QPainter) -> None:
        painter.fillRect(QRectF(0, 0, *PROJECTOR), QColor("#8fb8ff"))
        font = painter.font()
        font.setPixelSize(15)
        painter.setFont(font)
        painter.setPen(QColor("#6b6b6b"))
        painter.drawText(QRectF(10, 10, 300, 40), int(Qt.AlignmentFlag.AlignLeft), "12520")

    (problem,) = illegible(faint)
    assert "15.0 px" in problem and "#6b6b6b on #8fb8ff" in problem


def test_the_keys_shown_over_a_slide_are_legible() -> None:
    colors = token_colors(False)
    layout = SlideLayout(slide_content(DECK.slides[0], DECK), canvas_size(4 / 3), colors)

    def with_keys(painter: QPainter) -> None:
        paint_scaled(painter, layout, QRectF(0, 0, *PROJECTOR), colors.base)
        paint_keys(painter, QRectF(0, 0, *PROJECTOR), colors, LECTURE_KEYS)

    assert illegible(with_keys) == []
