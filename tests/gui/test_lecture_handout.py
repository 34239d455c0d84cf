"""The handout as a reader gets it: a PDF whose pages are the slides (text a PDF reader can search and
copy, pictures that look like the projected slide), read back with poppler's pdftotext and pdftoppm."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage

from tokviz.core.lecture.deck import default_deck, parse_deck
from tokviz.gui.lecture import handout as handout_module
from tokviz.gui.lecture.handout import layouts, png_bytes, write_pdf, write_slides

pytestmark = [pytest.mark.gui]

DECK = default_deck()
SMALL = (320, 180)


def poppler(tool: str) -> str:
    path = shutil.which(tool)
    if path is None:
        pytest.skip(f"{tool} is not installed (apt-get install poppler-utils)")
    return path


@pytest.fixture(scope="module")
def handout(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("handout") / "handout.pdf"
    write_pdf(DECK, path, per_step=True)
    return path


def page_text(pdf: Path, page: int) -> str:
    out = subprocess.run(
        [poppler("pdftotext"), "-f", str(page), "-l", str(page), "-layout", str(pdf), "-"],
        capture_output=True, text=True, check=True, timeout=60,
    ).stdout  # fmt: skip
    return " ".join(out.split())


def page_count(pdf: Path) -> int:
    info = subprocess.run([poppler("pdfinfo"), str(pdf)], capture_output=True, text=True, check=True).stdout
    return int(re.search(r"^Pages:\s+(\d+)", info, re.M).group(1))


def small(image: QImage) -> QImage:
    return image.scaled(
        *SMALL, Qt.AspectRatioMode.IgnoreAspectRatio, Qt.TransformationMode.SmoothTransformation
    )


def difference(a: QImage, b: QImage) -> float:
    """Mean lightness difference (0-255) of two pictures at the same small size."""
    return sum(
        abs(a.pixelColor(x, y).lightness() - b.pixelColor(x, y).lightness())
        for x in range(0, SMALL[0], 2)
        for y in range(0, SMALL[1], 2)
    ) / ((SMALL[0] // 2) * (SMALL[1] // 2))


def test_the_per_step_handout_has_a_page_for_every_slide_and_merge_step(handout):
    assert page_count(handout) == sum(slide.steps for slide in DECK.slides) == 23


def test_each_page_s_text_holds_its_slide_title_and_the_figures_it_states(handout):
    pages = [page_text(handout, n) for n in range(1, page_count(handout) + 1)]
    for (_number, _step, layout), text in zip(layouts(DECK, per_step=True), pages):
        assert layout.content.title in text
    anatomy, bytes_, merges_done, learned, exchange = pages[1], pages[3], pages[8], pages[9], pages[11]
    assert "U+1F30D" in anatomy and "F0 9F 8C 8D" in anatomy
    assert "13 20 characters bytes" in bytes_ and "bytes: 20 tokens" in bytes_
    assert "18 → 16 → 14 → 12 1.5 tokens bytes per token" in merges_done
    assert "19 16 1.1875 bytes tokens bytes per token" in learned
    assert "13 20 12 1.67 characters bytes GPT-2 tokens" in exchange and "GPT-2 20 12 1.67" in exchange
    for step, page in zip(range(4), pages[5:9]):
        assert " → ".join(["18", "16", "14", "12"][: step + 1]) in page


def test_a_rendered_page_looks_like_the_slide_painted_for_the_screen(handout, tmp_path):
    pictures = {}
    for page in (2, 9, 12):
        prefix = tmp_path / f"page{page}"
        subprocess.run(
            [poppler("pdftoppm"), "-png", "-r", "36", "-f", str(page), "-l", str(page), "-singlefile",
             str(handout), str(prefix)],
            check=True, timeout=60,
        )  # fmt: skip
        pictures[page] = small(QImage(str(prefix.with_suffix(".png"))))
    painted = {}
    for i, (_n, _s, layout) in enumerate(layouts(DECK, per_step=True), 1):
        if i in pictures:
            painted[i] = small(QImage.fromData(png_bytes(layout, 0.5)))
    for page, picture in pictures.items():
        assert difference(picture, painted[page]) < 4, page  # the same picture, up to anti-aliasing
    assert difference(pictures[2], painted[9]) > 8  # the check tells different slides apart


@pytest.fixture(scope="module")
def a4(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("a4") / "a4.pdf"
    write_pdf(DECK, path, paper="a4")
    return path


def test_a4_pages_hold_each_slide_with_its_notes_and_no_key_hints(a4):
    info = subprocess.run([poppler("pdfinfo"), str(a4)], capture_output=True, text=True, check=True).stdout
    assert "595 x 842 pts (A4)" in info and page_count(a4) == len(DECK.slides)
    regex_page = page_text(a4, 12)
    assert "GPT-2's regular expression" in regex_page and "31373 and 23748" in regex_page  # the notes
    for number in range(1, len(DECK.slides) + 1):
        text = page_text(a4, number)
        assert f"slide {number} / {len(DECK.slides)}" in text
        assert not re.search(r"Keys:|\bEnter\b|Ctrl\+|press E\b", text), number


def test_a_letter_handout_is_letter_sized(tmp_path):
    deck = parse_deck('title = "t"\n[[slide]]\nkind = "text"\nbody = "x"\nnotes = "said aloud"\n')
    path = write_pdf(deck, tmp_path / "letter.pdf", paper="letter")
    info = subprocess.run([poppler("pdfinfo"), str(path)], capture_output=True, text=True, check=True).stdout
    assert "612 x 792 pts (letter)" in info and "said aloud" in page_text(path, 1)


def test_long_notes_run_on_to_the_next_page(tmp_path):
    notes = "\n\n".join(
        f"Paragraph {n} of the notes, long enough to need a line of its own." for n in range(80)
    )
    deck = parse_deck(f'[[slide]]\nkind = "text"\nbody = "x"\nnotes = """{notes}"""\n')
    path = write_pdf(deck, tmp_path / "long.pdf", paper="a4")
    assert page_count(path) > 1
    assert "Paragraph 0 " in page_text(path, 1) and "Paragraph 79 " in page_text(path, page_count(path))


EMOJI = ["🌍", "👍🏽", "🇩🇪", "👨\u200d👩\u200d👧"]  # a code point, a skin tone, a flag, a ZWJ sequence


@pytest.mark.parametrize("paper", [None, "a4"])
def test_emoji_are_text_in_the_pdf_drawn_by_the_bundled_outline_font(tmp_path, paper):
    line = " ".join(EMOJI)
    deck = parse_deck(
        f'[[slide]]\nkind = "text"\ntitle = "Globe 🌍 in a title"\nbody = "Emoji: {line}"\n'
        f'notes = "Said aloud: {line}"\n'
    )
    path = write_pdf(deck, tmp_path / "emoji.pdf", paper=paper)
    text = page_text(path, 1)
    assert "Globe 🌍 in a title" in text and f"Emoji: {line}" in text
    assert (f"Said aloud: {line}" in text) == (paper is not None)
    fonts = subprocess.run(
        [poppler("pdffonts"), str(path)], capture_output=True, text=True, check=True
    ).stdout
    assert "NotoEmoji" in fonts  # drawn as glyphs of the outline font ...
    images = subprocess.run(
        [poppler("pdfimages"), "-list", str(path)], capture_output=True, text=True, check=True
    )
    assert len(images.stdout.splitlines()) == 2  # ... not as colour pictures: only pdfimages' header


def test_a_process_that_keeps_colour_emoji_on_screen_paints_the_pdf_in_a_fresh_one(tmp_path, monkeypatch):
    # The window's Qt sets emoji in colour (its emoji segmenter on), which a PDF cannot hold as text.
    monkeypatch.setattr(handout_module, "emoji_fall_back_by_family", lambda: False)
    deck = parse_deck('[[slide]]\nkind = "text"\ntitle = "t"\nbody = "Hi 🌍 👍🏽"\n')
    path = write_pdf(deck, tmp_path / "window.pdf", paper="letter")
    assert "Hi 🌍 👍🏽" in page_text(path, 1)


LONG_STREAM = parse_deck(
    'title = "t"\n[[slide]]\nkind = "stream"\ntitle = "Streaming"\nnotes = "said aloud"\n'
    'text = "The quick brown fox jumps over the lazy dog; 你好世界, 🌍 and numbers 12345 too!!"\n'
)


def test_a_long_table_goes_on_over_further_pages_in_print_instead_of_shrinking(tmp_path):
    pages = list(layouts(LONG_STREAM, aspect=4 / 3))
    assert len(pages) > 1 and [layout.part for _n, _s, layout in pages] == list(range(len(pages)))
    assert all(layout.legible and not layout.clipped() for _n, _s, layout in pages)
    path = write_pdf(LONG_STREAM, tmp_path / "stream.pdf", aspect=4 / 3, paper="a4")
    assert page_count(path) == len(pages)
    assert "said aloud" not in page_text(path, 1) and "said aloud" in page_text(path, len(pages))
    assert "rows 1–" in page_text(path, 1) and "more on the next page" in page_text(path, 1)


def test_a_long_table_s_pages_are_pictures_of_their_own(tmp_path):
    written = write_slides(LONG_STREAM, tmp_path / "slides", aspect=4 / 3, scale=0.5)
    assert [path.name for path in written] == [f"slide-01-page{k}.png" for k in range(1, len(written) + 1)]
    assert len(written) > 1
