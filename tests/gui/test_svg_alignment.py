"""Token-view SVGs line up outside tokviz: each token's text starts in its own box, and in rsvg-convert
(Pango, as Inkscape and ImageMagick draw SVG) the glyphs stay inside their boxes and the headers read
as Qt draws them ("18 tokens · 2.22 bytes/token", not "1 8 tokens · 2 . 2 2").
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from xml.etree import ElementTree

import numpy as np
import pytest
from PySide6.QtCore import QPoint
from PySide6.QtGui import QImage

from tokviz.cli import main
from tokviz.gui.drawing.images import render_image, svg_bytes
from tokviz.gui.drawing.strips import StripSheet, strip_sheet
from tokviz.gui.text.display import plain_text

from .reach import exporter

pytestmark = [
    pytest.mark.gui,
    pytest.mark.qt_log_ignore(
        "This plugin does not support propagateSizeHints", "This plugin does not support raise"
    ),
]

TEXT = "Hello, 🌍! 你好! The cat in the hat."
SVG = "{http://www.w3.org/2000/svg}"
CAPTION = re.compile(r"\s*\d[\d,]* tokens? · \d+\.\d\d bytes/token")
RSVG = shutil.which("rsvg-convert")
needs_rsvg = pytest.mark.skipif(
    RSVG is None, reason="rsvg-convert is not installed (Debian: librsvg2-bin; .ci/run installs it)"
)
# rsvg-convert and the PNG export are compared at this many pixels per logical pixel.
ZOOM = 2


@dataclass(frozen=True)
class Rect:
    x: float
    y: float
    w: float
    h: float

    def contains(self, x: float, y: float, slack: float = 0.0) -> bool:
        return (
            self.x - slack <= x < self.x + self.w + slack and self.y - slack <= y <= self.y + self.h + slack
        )


@dataclass(frozen=True)
class TextRun:
    x: float
    y: float
    text: str
    families: str


def token_boxes(sheet: StripSheet) -> list[tuple[int, int, Rect, str]]:
    """(view number, token, box in sheet pixels, the token's shown text) for every box of every strip."""
    out = []
    for n, view in enumerate(sheet.views):
        at = view.viewport().mapTo(sheet, QPoint(0, 0))
        units = view.document().toPlainText().encode("utf-16-le", "surrogatepass")
        for box in view.visible_boxes():
            a, b = int(view.box_start[box.token]), int(view.box_end[box.token])
            text = plain_text(units[2 * a : 2 * b].decode("utf-16-le", "surrogatepass"))
            out.append((n, box.token, Rect(box.x + at.x(), box.y + at.y(), box.w, box.h), text))
    return out


def view_areas(sheet: StripSheet) -> list[Rect]:
    return [
        Rect(*(lambda p, s: (p.x(), p.y(), s.width(), s.height()))(v.mapTo(sheet, QPoint(0, 0)), v.size()))
        for v in sheet.views
    ]


def text_runs(svg: bytes) -> list[TextRun]:
    """Every text element with its position in drawing pixels (Qt puts texts in translated groups)."""
    runs = []

    def walk(node: ElementTree.Element, dx: float, dy: float) -> None:
        transform = node.get("transform", "")
        if transform:
            a, b, c, d, e, f = (float(v) for v in re.findall(r"-?[\d.]+(?:e-?\d+)?", transform))
            assert (a, b, c, d) == (1, 0, 0, 1), transform  # token views are drawn unscaled
            dx, dy = dx + e, dy + f
        if node.tag == SVG + "text":
            runs.append(
                TextRun(
                    float(node.get("x")) + dx,
                    float(node.get("y")) + dy,
                    node.text or "",
                    node.get("font-family"),
                )
            )
        for child in node:
            walk(child, dx, dy)

    walk(ElementTree.fromstring(svg), 0.0, 0.0)
    return runs


def check_texts_start_in_their_own_boxes(sheet: StripSheet, svg: bytes) -> None:
    """Each text run inside a strip starts in a box, and the runs in a token's boxes spell that token."""
    boxes = token_boxes(sheet)
    areas = view_areas(sheet)
    spelled: dict[tuple[int, int], str] = {}
    for run in text_runs(svg):
        if not any(a.contains(run.x, run.y) for a in areas):
            continue
        # The file rounds to 6 digits: a run at a box's left edge may read a hair left of it.
        home = [(r.x, n, t) for n, t, r, _ in boxes if r.contains(run.x + 0.01, run.y)]
        assert home, f"{run.text!r} starts at ({run.x:.1f}, {run.y:.1f}), outside every token box"
        _, *key = max(home)
        key = tuple(key)
        spelled[key] = spelled.get(key, "") + run.text
    expected = {(n, t): "".join(text.split()) for n, t, _, text in boxes if text.strip()}
    assert {k: "".join(v.split()) for k, v in spelled.items()} == expected


def rsvg_png(svg: bytes, tmp_path: Path, name: str) -> QImage:
    src, png = tmp_path / f"{name}.svg", tmp_path / f"{name}.rsvg.png"
    src.write_bytes(svg)
    subprocess.run([RSVG, "-z", str(ZOOM), str(src), "-o", str(png)], check=True, timeout=60)
    image = QImage(str(png))
    assert not image.isNull()
    return image


def ink(image: QImage) -> np.ndarray:
    """Where the text colour (near black on the light theme's pale boxes) is, as a bool array."""
    image = image.convertToFormat(QImage.Format.Format_RGB32)
    h, w = image.height(), image.width()
    pixels = np.frombuffer(image.constBits(), np.uint8).reshape(h, image.bytesPerLine() // 4, 4)[:, :w, :3]
    return pixels.max(axis=2) < 110


def stray_ink(sheet: StripSheet, image: QImage) -> float:
    """How far (logical pixels) the text's ink reaches outside the token boxes in the strips; 0 if not."""
    dark = ink(image)
    inside = np.zeros_like(dark)
    for _, _, r, _ in token_boxes(sheet):
        x0, y0 = int(np.floor((r.x - 1) * ZOOM)), int(np.floor((r.y - 1) * ZOOM))
        inside[
            max(y0, 0) : int(np.ceil((r.y + r.h + 1) * ZOOM)),
            max(x0, 0) : int(np.ceil((r.x + r.w + 1) * ZOOM)),
        ] = True
    worst = 0.0
    boxes = [r for _, _, r, _ in token_boxes(sheet)]
    for area in view_areas(sheet):
        y0, y1 = int(area.y * ZOOM), int((area.y + area.h) * ZOOM)
        x0, x1 = int(area.x * ZOOM), int((area.x + area.w) * ZOOM)
        ys, xs = np.nonzero(dark[y0:y1, x0:x1] & ~inside[y0:y1, x0:x1])
        for y, x in zip((ys + y0) / ZOOM, (xs + x0) / ZOOM):
            row = [r for r in boxes if r.y <= y <= r.y + r.h] or boxes
            worst = max(worst, min(max(r.x - x, x - (r.x + r.w), 0.0) for r in row))
    return worst


def ink_columns(image: QImage, rect: Rect) -> tuple[float, float] | None:
    """Leftmost and rightmost ink inside ``rect`` (logical pixels), or None."""
    dark = ink(image)
    y0, y1 = int(rect.y * ZOOM), int((rect.y + rect.h) * ZOOM)
    x0, x1 = int(rect.x * ZOOM), int((rect.x + rect.w) * ZOOM)
    cols = np.nonzero(dark[y0:y1, x0:x1].any(axis=0))[0]
    if not cols.size:
        return None
    return (cols[0] + x0) / ZOOM, (cols[-1] + x0) / ZOOM


def check_rsvg_lines_up_with_the_png(sheet: StripSheet, svg: bytes, tmp_path: Path, name: str) -> None:
    drawn = rsvg_png(svg, tmp_path, name)
    png = render_image(sheet, ZOOM)
    assert (drawn.width(), drawn.height()) == (png.width(), png.height())
    assert stray_ink(sheet, drawn) == 0.0, "rsvg-convert draws glyphs outside their token boxes"
    # Where a box's letters are in rsvg-convert's picture is where they are in the PNG export.
    for _, token, box, text in token_boxes(sheet):
        # The box as painted (a pixel in from its neighbours, whose glyphs may touch the boundary).
        rect = Rect(box.x + 1, box.y, box.w - 2, box.h)
        ours, theirs = ink_columns(png, rect), ink_columns(drawn, rect)
        assert (ours is None) == (theirs is None), (token, text)
        if ours is not None and theirs is not None:
            assert abs(ours[0] - theirs[0]) <= 2 and abs(ours[1] - theirs[1]) <= 2, (text, ours, theirs)
    # Headers: the same width of ink as Qt's (digits set apart in an emoji font made them a third wider).
    for caption in sheet.captions:
        at = caption.mapTo(sheet, QPoint(0, 0))
        band = Rect(at.x(), at.y(), caption.width(), caption.height())
        ours, theirs = ink_columns(png, band), ink_columns(drawn, band)
        assert ours is not None and theirs is not None
        assert abs((theirs[1] - theirs[0]) - (ours[1] - ours[0])) <= 3, (caption.text(), ours, theirs)


def check_headers_are_plain_runs(svg: bytes) -> None:
    runs = text_runs(svg)
    captions = [r.text for r in runs if "bytes/token" in r.text]
    assert captions and all(CAPTION.fullmatch(c) for c in captions), captions
    for run in runs:
        # Emoji fonts hold digits too; a reader told to try them first spaces "15" as "1 5".
        if not re.search("[\U0001f000-\U0001faff]", run.text):
            assert "emoji" not in run.families.lower(), (run.text, run.families)


@pytest.fixture
def sheet(gpt2, cl100k):
    made = strip_sheet(TEXT, [("GPT-2", gpt2), ("cl100k", cl100k)])
    yield made
    made.hide()
    made.deleteLater()


def test_each_tokens_text_is_its_own_run_in_its_own_box(sheet):
    svg = svg_bytes(sheet)

    check_texts_start_in_their_own_boxes(sheet, svg)
    check_headers_are_plain_runs(svg)
    # One run per token (a line is no longer one run that any other font would spread across boxes).
    in_views = [r for r in text_runs(svg) if any(a.contains(r.x, r.y) for a in view_areas(sheet))]
    assert len(in_views) >= sum(1 for *_, text in token_boxes(sheet) if text.strip())


def test_the_screen_still_draws_a_line_as_the_document_lays_it_out(sheet):
    """Per-token runs are for vector files: the PNG export is the view's own painting."""
    png = render_image(sheet, 1)
    assert ink_columns(png, view_areas(sheet)[0]) is not None


@pytest.mark.slow
@needs_rsvg
def test_rsvg_convert_keeps_the_glyphs_in_their_boxes(sheet, tmp_path):
    check_rsvg_lines_up_with_the_png(sheet, svg_bytes(sheet), tmp_path, "strips")


@pytest.mark.slow
@needs_rsvg
def test_tokviz_render_svg_lines_up_in_rsvg_convert(capsys, tmp_path, sheet):
    out = tmp_path / "x.svg"
    code = main(["render", "--text", TEXT, "-o", str(out)])
    capsys.readouterr()
    assert code == 0
    svg = out.read_bytes()

    check_headers_are_plain_runs(svg)
    # The command draws the same sheet as strip_sheet (GPT-2 and cl100k by default).
    check_texts_start_in_their_own_boxes(sheet, svg)
    check_rsvg_lines_up_with_the_png(sheet, svg, tmp_path, "render")


@needs_rsvg
def test_the_windows_view_export_lines_up_in_rsvg_convert(make_window, tmp_path):
    window = make_window(text=TEXT)
    target = exporter(window).target("view:1")
    written = exporter(window).write(target, tmp_path / "view.svg")
    svg = written.read_bytes()

    check_headers_are_plain_runs(svg)
    with target.picture() as sheet:
        check_texts_start_in_their_own_boxes(sheet, svg)
        check_rsvg_lines_up_with_the_png(sheet, svg, tmp_path, "view")


def line_extents(image: QImage) -> list[tuple[int, int, float, float]]:
    """Each line of text (rows with ink, between rows without): top, bottom, leftmost and rightmost ink."""
    dark = ink(image)
    rows = dark.any(axis=1)
    out = []
    y = 0
    while y < len(rows):
        if not rows[y]:
            y += 1
            continue
        top = y
        while y < len(rows) and rows[y]:
            y += 1
        cols = np.nonzero(dark[top:y].any(axis=0))[0]
        out.append((top, y, cols[0] / ZOOM, cols[-1] / ZOOM))
    return out


@needs_rsvg
def test_tokviz_replay_render_svg_reads_as_its_png_in_rsvg_convert(capsys, tmp_path):
    """The merge table's numbers and sentences keep Qt's spacing ("1.79 bytes per token", not "1 . 7 9")."""
    args = ["replay", "--text", "the cat in the hat, the cat in the hat 2024", "--merges", "6", "--render"]
    assert main([*args, str(tmp_path / "merges.svg")]) == 0
    assert main([*args, str(tmp_path / "merges.png"), "--scale", str(ZOOM)]) == 0
    capsys.readouterr()
    svg = (tmp_path / "merges.svg").read_bytes()
    for run in text_runs(svg):
        assert "emoji" not in run.families.lower(), (run.text, run.families)

    ours = line_extents(QImage(str(tmp_path / "merges.png")))
    theirs = line_extents(rsvg_png(svg, tmp_path, "merges"))
    assert len(ours) == len(theirs) > 10
    for a, b in zip(ours, theirs):
        assert abs(a[2] - b[2]) <= 2 and abs(a[3] - b[3]) <= 2, (a, b)


def test_rsvg_convert_draws_an_emoji_within_its_own_advance(tmp_path, gpt2):
    """An emoji font's glyphs are wider than the advance Qt gives them: in an SVG reader the globe of
    "🌍!" must not cover the "!" after it (in the strips and in the quoted text under them)."""
    from tokviz.core.bpe.lecture_tokenizers import CharacterTokenizer

    made = strip_sheet("Hello, 🌍! 你好!", [("characters", CharacterTokenizer()), ("GPT-2", gpt2)])
    try:
        svg = svg_bytes(made)
    finally:
        made.hide()
        made.deleteLater()
    text_element = re.compile(rb"<text\b[^>]*>[^<]*</text>")
    emoji_only = text_element.sub(lambda m: m.group(0) if "🌍".encode() in m.group(0) else b"", svg)
    no_text = text_element.sub(b"", svg)
    with_emoji, without = (
        ink_of(rsvg_png(emoji_only, tmp_path, "emoji")),
        ink_of(rsvg_png(no_text, tmp_path, "none")),
    )
    runs = text_runs(svg)
    globes = [r for r in runs if "🌍" in r.text]
    assert len(globes) == 2
    drawn = (with_emoji != without).any(axis=2)
    for globe in globes:
        after = min(r.x for r in runs if abs(r.y - globe.y) < 0.5 and r.x > globe.x + 0.5)
        band = drawn[int((globe.y - 30) * ZOOM) : int((globe.y + 8) * ZOOM), :]
        cols = np.nonzero(band.any(axis=0))[0] / ZOOM
        reach = cols[(cols >= globe.x - 2) & (cols < globe.x + 60)].max()
        assert reach <= after + 0.5, (globe, after, reach)


def ink_of(image: QImage) -> np.ndarray:
    image = image.convertToFormat(QImage.Format.Format_RGB32)
    h, w = image.height(), image.width()
    return (
        np.frombuffer(image.constBits(), np.uint8).reshape(h, image.bytesPerLine() // 4, 4)[:, :w, :3].copy()
    )
