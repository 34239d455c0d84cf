"""A picture slide draws the checked bytes: a PNG decoded from them, an SVG as vectors with its own parts."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from PySide6.QtCore import QBuffer, QIODevice
from PySide6.QtGui import QColor, QImage

from tokviz.core.lecture.deck import load_deck
from tokviz.core.lecture.slides import Picture, slide_content
from tokviz.gui.lecture.handout import layouts, png_bytes

from ..core.test_deck_limits import image_deck, png, svg


def drawn(deck_path: Path) -> QImage:
    deck = load_deck(deck_path)
    (_n, _step, layout), *_ = layouts(deck)
    return QImage.fromData(png_bytes(layout, scale=1.0))


def red_png(side: int) -> bytes:
    image = QImage(side, side, QImage.Format.Format_RGB32)
    image.fill(QColor("#ff0000"))
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")
    return bytes(buffer.data().data())


def reddish(colour: QColor) -> bool:
    return colour.red() > 200 and colour.green() < 60 and colour.blue() < 60


@pytest.mark.usefixtures("qapp")
def test_a_png_picture_is_painted_from_its_checked_bytes(tmp_path):
    (tmp_path / "red.png").write_bytes(red_png(40))
    image = drawn(image_deck(tmp_path, "red.png"))
    assert reddish(image.pixelColor(image.width() // 2, image.height() // 2))


@pytest.mark.usefixtures("qapp")
def test_an_svg_picture_is_painted_with_its_gradient_and_embedded_png(tmp_path):
    embedded = base64.b64encode(red_png(4)).decode()
    body = (
        '<defs><linearGradient id="g"><stop offset="0" stop-color="#ff0000"/>'
        '<stop offset="1" stop-color="#ff0000"/></linearGradient></defs>'
        '<rect width="10" height="10" style="fill:url(#g)"/>'
        f'<image x="0" y="0" width="2" height="2" xlink:href="data:image/png;base64,{embedded}"/>'
    )
    (tmp_path / "p.svg").write_text(svg(body), encoding="utf-8")
    image = drawn(image_deck(tmp_path, "p.svg"))
    assert reddish(image.pixelColor(image.width() // 2, image.height() // 2))


def test_a_picture_changed_after_loading_is_checked_again_when_shown(tmp_path):
    (tmp_path / "p.png").write_bytes(png(4, 4))
    deck = load_deck(image_deck(tmp_path, "p.png"))
    (tmp_path / "p.png").write_bytes(png(20_000, 20_000, pixels=False))
    content = slide_content(deck.slides[0], deck)
    assert not any(isinstance(block, Picture) for block in content.blocks)
    assert "20,000 × 20,000 pixels" in content.blocks[0].text  # the slide says why, instead of drawing
