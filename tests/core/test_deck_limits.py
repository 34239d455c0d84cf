"""A deck is bounded before anything is drawn, and reads no file outside its folder.

Every refusal is one line naming the deck file and the line, as the deck's other mistakes are:
pictures and tokenizer files from elsewhere (absolute names, ``..``, links that lead out, an SVG
that references a file), pictures too large to decode (read from the PNG header), texts, bullets,
slides, steps and nesting over the limits, and values of the wrong type.
"""

from __future__ import annotations

import base64
import os
import struct
import time
import zlib
from pathlib import Path

import pytest

from tokviz.core.lecture.deck import (
    MAX_BODY_LINES,
    MAX_CHARS,
    MAX_DRAWN_PIXELS,
    MAX_NESTING,
    MAX_SLIDES,
    MAX_STEPS,
    MAX_TOKENIZERS,
    DeckError,
    load_deck,
)
from tokviz.core.lecture.deck_assets import (
    MAX_PICTURE_BYTES,
    MAX_PICTURE_PIXELS,
    MAX_SVG_ELEMENTS,
    read_picture,
)

from .test_deck import write


def png(width: int, height: int, pixels: bool = True) -> bytes:
    """A PNG of ``width`` × ``height`` grey pixels, or (``pixels=False``) just a header claiming that size."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    rows = zlib.compress((b"\x00" + b"\x80" * width) * height) if pixels else zlib.compress(b"\x00" * 64)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", rows) + chunk(b"IEND", b"")


SVG_HEAD = '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="10" height="10">'


def svg(body: str, head: str = SVG_HEAD) -> str:
    return f"{head}{body}</svg>"


def image_deck(folder: Path, picture: str) -> Path:
    deck = folder / "deck.toml"
    deck.write_text(f'title = "t"\n\n[[slide]]\nkind = "image"\npath = "{picture}"\n', encoding="utf-8")
    return deck


def refusal(deck: Path) -> str:
    """The one line loading ``deck`` is refused with (the test fails if it loads)."""
    with pytest.raises(DeckError) as caught:
        load_deck(deck)
    line = str(caught.value)
    assert "\n" not in line and line.startswith(f"{deck}:"), line
    return line


@pytest.fixture
def folders(tmp_path: Path) -> tuple[Path, Path]:
    """A deck folder and a private folder beside it holding a picture the deck must not reach."""
    deck_folder, private = tmp_path / "deck", tmp_path / "private"
    deck_folder.mkdir()
    private.mkdir()
    (private / "secret.png").write_bytes(png(4, 4))
    (private / "model.json").write_text("{}", encoding="utf-8")
    return deck_folder, private


# ------------------------------------------------------------------------------ outside the folder
@pytest.mark.parametrize(
    "name",
    [
        "{private}/secret.png",  # absolute
        "../private/secret.png",
        "pictures/../../private/secret.png",
        "link.png",  # a link to the private picture
        "linked/secret.png",  # a folder link that leads out
    ],
)
def test_a_picture_outside_the_decks_folder_is_refused_naming_the_slide(folders, name):
    deck_folder, private = folders
    (deck_folder / "pictures").mkdir()
    (deck_folder / "link.png").symlink_to(private / "secret.png")
    (deck_folder / "linked").symlink_to(private, target_is_directory=True)
    line = refusal(image_deck(deck_folder, name.format(private=private)))
    assert "slide 1" in line and ("not in the deck's folder" in line or "leads out" in line)


def test_a_link_that_stays_inside_the_folder_is_fine(folders):
    deck_folder, _ = folders
    (deck_folder / "pictures").mkdir()
    (deck_folder / "pictures" / "p.png").write_bytes(png(4, 4))
    (deck_folder / "alias.png").symlink_to(deck_folder / "pictures" / "p.png")
    assert load_deck(image_deck(deck_folder, "alias.png")).slides[0].kind == "image"


@pytest.mark.parametrize("name", ["{private}/model.json", "../private/model.json"])
def test_a_tokenizer_file_outside_the_folder_is_refused(folders, name):
    deck_folder, private = folders
    deck = deck_folder / "deck.toml"
    deck.write_text(f'tokenizers = ["{name.format(private=private)}"]\n\n[[slide]]\nkind = "views"\n')
    assert "tokenizer" in refusal(deck)


@pytest.mark.parametrize(
    "body",
    [
        '<image width="5" height="5" xlink:href="{private}/secret.png"/>',
        '<image width="5" height="5" href="../private/secret.png"/>',
        '<image width="5" height="5" xlink:href="file://{private}/secret.png"/>',
        '<image width="5" height="5" xlink:href="data:image/svg+xml;base64,PHN2Zz48L3N2Zz4="/>',
        '<rect width="5" height="5" style="fill:url(../private/pattern.svg#p)"/>',
        "<style>@import url(theme.css);</style>",
        '<style>rect {{ fill: url("{private}/x.svg#g") }}</style>',
        '<use xlink:href="other.svg#shape"/>',
    ],
)
def test_an_svg_that_references_anything_outside_itself_is_refused(folders, body):
    deck_folder, private = folders
    (deck_folder / "p.svg").write_text(svg(body.format(private=private)), encoding="utf-8")
    line = refusal(image_deck(deck_folder, "p.svg"))
    assert "'p.svg'" in line and "only its own parts" in line


@pytest.mark.parametrize(
    "text",
    [
        '<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY e SYSTEM "file:///etc/hostname">]>' + svg("&e;"),
        '<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;">]>' + svg("&b;"),
        '<?xml-stylesheet href="style.css"?>' + svg("<rect/>"),
    ],
)
def test_an_svg_with_entities_or_a_style_sheet_is_refused(folders, text):
    deck_folder, _ = folders
    (deck_folder / "p.svg").write_text(text, encoding="utf-8")
    assert "'p.svg'" in refusal(image_deck(deck_folder, "p.svg"))


def test_an_svg_may_use_its_own_parts_and_embedded_png(folders):
    deck_folder, _ = folders
    embedded = base64.b64encode(png(3, 3)).decode()
    body = (
        '<defs><linearGradient id="g"><stop offset="0" stop-color="red"/></linearGradient></defs>'
        '<rect width="10" height="10" style="fill:url(#g)"/><use xlink:href="#g"/>'
        f'<image width="4" height="4" xlink:href="data:image/png;base64,{embedded}"/>'
    )
    (deck_folder / "p.svg").write_text(svg(body), encoding="utf-8")
    picture = read_picture(deck_folder, "p.svg")
    assert picture.kind == "svg" and load_deck(image_deck(deck_folder, "p.svg")).slides[0].kind == "image"


# ------------------------------------------------------------------------------ pictures too large
@pytest.mark.parametrize(
    ("width", "height"),
    [(2**31 - 1, 2**31 - 1), (20_000, 20_000), (4097, 4097), (1, MAX_PICTURE_PIXELS + 1), (0, 10)],
)
def test_a_png_header_over_the_pixel_limit_is_refused_before_decoding(folders, width, height):
    deck_folder, _ = folders
    (deck_folder / "big.png").write_bytes(png(width, height, pixels=False))
    line = refusal(image_deck(deck_folder, "big.png"))
    assert f"{width:,} × {height:,} pixels" in line


def test_an_embedded_png_over_the_pixel_limit_is_refused(folders):
    deck_folder, _ = folders
    embedded = base64.b64encode(png(20_000, 20_000, pixels=False)).decode()
    body = f'<image width="4" height="4" xlink:href="data:image/png;base64,{embedded}"/>'
    (deck_folder / "p.svg").write_text(svg(body), encoding="utf-8")
    assert "20,000 × 20,000 pixels" in refusal(image_deck(deck_folder, "p.svg"))


def test_a_picture_file_over_the_byte_limit_is_refused_unread(folders):
    deck_folder, _ = folders
    with (deck_folder / "huge.png").open("wb") as fh:
        fh.write(png(4, 4))
        fh.truncate(MAX_PICTURE_BYTES + 1)  # sparse
    assert "larger than" in refusal(image_deck(deck_folder, "huge.png"))


def test_an_svg_with_too_many_elements_is_refused(folders):
    deck_folder, _ = folders
    (deck_folder / "p.svg").write_text(svg("<g/>" * MAX_SVG_ELEMENTS), encoding="utf-8")
    assert f"more than {MAX_SVG_ELEMENTS:,} SVG elements" in refusal(image_deck(deck_folder, "p.svg"))


def uses(levels: int, each: int, link: str = "href") -> str:
    """``levels`` groups, each drawing the one before ``each`` times: ``each ** levels`` rectangles."""
    groups = ['<g id="g0"><rect width="1" height="1"/></g>']
    groups += [f'<g id="g{i}">' + f'<use {link}="#g{i - 1}"/>' * each + "</g>" for i in range(1, levels + 1)]
    return "<defs>" + "".join(groups) + f'</defs><use {link}="#g{levels}"/>'


@pytest.mark.parametrize(
    "body",
    [
        uses(9, 10),  # 10^9 rectangles from 100 elements
        uses(3, 30, "xlink:href"),  # 27,000
        uses(1, 15_000),  # the uses alone are within the bound, what they draw is not
        '<use href="#late"/>' * 200
        + '<g id="late">'
        + "<rect/>" * 200
        + "</g>",  # drawn before it is defined
    ],
    ids=["ten-levels", "xlink", "one-level", "forward"],
)
def test_an_svg_whose_uses_draw_too_many_elements_is_refused(folders, body):
    deck_folder, _ = folders
    (deck_folder / "p.svg").write_text(svg(body), encoding="utf-8")
    assert f"draws more than {MAX_SVG_ELEMENTS:,} SVG elements" in refusal(image_deck(deck_folder, "p.svg"))


@pytest.mark.parametrize(
    "body",
    ['<g id="a"><use href="#a"/></g>', '<g id="a"><use href="#b"/></g><g id="b"><use href="#a"/></g>'],
    ids=["itself", "each-other"],
)
def test_an_svg_whose_use_draws_itself_is_refused(folders, body):
    deck_folder, _ = folders
    (deck_folder / "p.svg").write_text(svg(body), encoding="utf-8")
    assert "draws itself" in refusal(image_deck(deck_folder, "p.svg"))


def test_an_svg_that_uses_a_part_many_times_within_the_bound_loads(folders):
    deck_folder, _ = folders
    (deck_folder / "p.svg").write_text(svg(uses(2, 40)), encoding="utf-8")  # 1,600 rectangles drawn twice
    assert load_deck(image_deck(deck_folder, "p.svg")).slides[0].kind == "image"


def test_embedded_pngs_share_one_picture_s_pixels(folders):
    deck_folder, _ = folders
    embedded = base64.b64encode(png(4096, 1024, pixels=False)).decode()
    image = f'<image href="data:image/png;base64,{embedded}" width="1" height="1"/>'
    (deck_folder / "four.svg").write_text(svg(image * 4), encoding="utf-8")  # 4096 × 4096 in all
    (deck_folder / "five.svg").write_text(svg(image * 5), encoding="utf-8")
    load_deck(image_deck(deck_folder, "four.svg"))
    assert "embeds PNGs of more than" in refusal(image_deck(deck_folder, "five.svg"))


@pytest.mark.parametrize(
    "body",
    [
        '<filter id="f"><feGaussianBlur stdDeviation="5000"/></filter><rect filter="url(#f)"/>',
        '<defs><filter id="f"><feMorphology radius="900"/></filter></defs>',
    ],
)
def test_an_svg_with_a_filter_is_refused(folders, body):
    deck_folder, _ = folders
    (deck_folder / "p.svg").write_text(svg(body), encoding="utf-8")
    assert "uses an SVG filter" in refusal(image_deck(deck_folder, "p.svg"))


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("photo.jpg", b"\xff\xd8\xff\xe0" + b"\x00" * 100),
        ("p.svg", b"<html><svg></svg></html>"),
        ("p.png", b""),
    ],
)
def test_a_picture_that_is_neither_png_nor_svg_is_refused(folders, name, content):
    deck_folder, _ = folders
    (deck_folder / name).write_bytes(content)
    assert f"'{name}'" in refusal(image_deck(deck_folder, name))


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_as_a_picture_is_refused_without_blocking(folders):
    deck_folder, _ = folders
    os.mkfifo(deck_folder / "p.png")
    assert "FIFO" in refusal(image_deck(deck_folder, "p.png"))


# ------------------------------------------------------------------------------ texts, bullets, slides, steps
@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ('[[slide]]\nkind = "text"\nbody = """\n' + "- b\n" * 100_000 + '"""\n', "at most"),
        ('[[slide]]\nkind = "text"\nbody = """\n' + "- b\n" * (MAX_BODY_LINES + 1) + '"""\n', "bullets"),
        (f'[[slide]]\nkind = "views"\ntext = "{"x" * (MAX_CHARS["text"] + 1)}"\n', "text is"),
        (f'title = "{"t" * (MAX_CHARS["title"] + 1)}"\n[[slide]]\nkind = "views"\n', "title is"),
        (f'[[slide]]\nkind = "views"\nnotes = "{"n" * (MAX_CHARS["notes"] + 1)}"\n', "notes is"),
        (
            f'[[slide]]\nkind = "merges"\ntrain_text = "{"a b " * MAX_CHARS["train_text"]}"\n',
            "train_text is",
        ),
        (
            f'[[slide]]\nkind = "views"\ntokenizers = {["gpt2"] * (MAX_TOKENIZERS + 1)}\n'.replace("'", '"'),
            "at most",
        ),
        ('[[slide]]\nkind = "text"\n' * (MAX_SLIDES + 1), "slides"),
        ('[[slide]]\nkind = "merges"\nmerges = 64\n' * (MAX_STEPS // 65 + 1), "steps"),
    ],
)
def test_a_deck_over_a_limit_is_refused_in_one_line(tmp_path, text, fragment):
    started = time.perf_counter()
    line = refusal(write(tmp_path, text))
    assert fragment in line
    assert time.perf_counter() - started < 10


@pytest.mark.parametrize(
    "value",
    [
        "[" * 200_000 + "]" * 200_000,
        "[" * (MAX_NESTING + 1) + "]" * (MAX_NESTING + 1),
        "{ a = " * 500 + "1" + " }" * 500,
    ],
)
def test_values_nested_too_deep_are_one_line_naming_the_line(tmp_path, value):
    line = refusal(write(tmp_path, f'title = "t"\n\nx = {value}\n[[slide]]\nkind = "text"\n'))
    assert ":3: arrays or tables nested more than" in line


def test_brackets_inside_strings_and_comments_are_not_nesting(tmp_path):
    brackets = "[" * 100
    deck = write(
        tmp_path,
        f'title = "{brackets}"\n# {brackets}\ntext = """\n{brackets}\n"""\n[[slide]]\nkind = "text"\n',
    )
    assert load_deck(deck).title == brackets


@pytest.mark.parametrize("kind", ['["merges"]', "{ name = 1 }", "3", "true"])
def test_a_kind_that_is_not_a_string_names_the_file_and_line(tmp_path, kind):
    line = refusal(write(tmp_path, f'title = "t"\n\n[[slide]]\nkind = {kind}\n'))
    assert ":4: slide 1 has" in line and "kind is one of" in line


def _picture_slides(folder: Path, pictures: list[str]) -> Path:
    slides = "".join(f'\n[[slide]]\nkind = "image"\npath = "{name}"\n' for name in pictures)
    return write(folder, f'title = "pictures"\n{slides}')


def test_the_pixels_a_deck_draws_are_counted_on_every_slide_that_shows_a_picture(tmp_path: Path) -> None:
    # Headers claiming the size are enough: the check reads no pixel.
    (tmp_path / "big.png").write_bytes(png(4096, 4096, pixels=False))
    (tmp_path / "screen.png").write_bytes(png(1920, 1080, pixels=False))
    assert len(load_deck(_picture_slides(tmp_path, ["big.png"] * 16)).slides) == 16
    assert len(load_deck(_picture_slides(tmp_path, ["screen.png"] * 125)).slides) == 125
    line = refusal(_picture_slides(tmp_path, ["big.png"] * 16 + ["screen.png"]))
    assert "slide 17" in line and f"{MAX_DRAWN_PIXELS:,} picture pixels" in line
    # Sixteen different pictures cost what one shown sixteen times costs.
    for i in range(17):
        (tmp_path / f"p{i}.png").write_bytes(png(4096, 4096, pixels=False))
    assert "slide 17" in refusal(_picture_slides(tmp_path, [f"p{i}.png" for i in range(17)]))
