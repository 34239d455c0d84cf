"""A deck as a handout: a PDF with one page per slide (or per step), and each slide as PNG or SVG.

Pages are painted by the same :class:`~tokviz.gui.lecture.paint.SlideLayout` as the screen, so the
handout matches what was projected; the PDF keeps its text as text (``pdftotext`` reads it).
On paper (``paper="a4"`` or ``"letter"``) each page holds the slide across its width and the
speaker notes under it, without the presenter's key reminders
(:func:`tokviz.core.lecture.printed.printed_notes`); long notes run on to the next page.
Files land together or not at all (:func:`tokviz.core.io.outputs.write_outputs`).
"""

from __future__ import annotations

import multiprocessing
import os
import tempfile
from collections.abc import Iterator, Sequence
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QMarginsF, QPointF, QRectF, QSize, QSizeF
from PySide6.QtGui import (
    QColor,
    QFontMetricsF,
    QImage,
    QImageWriter,
    QPageLayout,
    QPageSize,
    QPainter,
    QPdfWriter,
    QPen,
)
from PySide6.QtSvg import QSvgGenerator

from tokviz.core.errors import ExportError
from tokviz.core.io.outputs import Output, write_outputs
from tokviz.core.io.procpool import stop_pool, worker_pool
from tokviz.core.lecture.deck import Deck, deck_files
from tokviz.core.lecture.printed import printed_notes
from tokviz.core.lecture.slides import slide_content
from tokviz.gui.drawing.sheet import ensure_app
from tokviz.gui.lecture.paint import SlideLayout, canvas_size
from tokviz.gui.lecture.presenter import reflow
from tokviz.gui.style.fonts import (
    emoji_fall_back_by_family,
    family_fallback_for_emoji,
    printed_fonts,
    printed_text,
    sans_font,
)
from tokviz.gui.style.theme import token_colors

PDF_DPI = 72  # one logical canvas pixel is one PDF point: text keeps its sizes
PAPERS = {"a4": QPageSize.PageSizeId.A4, "letter": QPageSize.PageSizeId.Letter}
"""The paper sizes a handout with notes is printed on."""
PAPER_MARGIN = 42.0  # points: about 15 mm
NOTES_SIZE = 11.0  # points: the notes' text, as a printed page's body text


def layouts(
    deck: Deck, *, per_step: bool = False, aspect: float = 16 / 9, dark: bool = False
) -> Iterator[tuple[int, int, SlideLayout]]:
    """``(slide number, step, layout)`` for every slide of ``deck`` (and each step of it with
    ``per_step``). A slide whose long table would shrink under a legible size comes as several
    layouts, a page of rows each (``layout.part`` of ``layout.parts``), as the screen shows it."""
    colors = token_colors(dark)
    size = canvas_size(aspect)
    total = len(deck.slides)
    for number, slide in enumerate(deck.slides, 1):
        steps = range(slide.steps) if per_step else [slide.steps - 1]
        for step in steps:
            content = slide_content(slide, deck, step)
            footer = f"{deck.title} · {number} / {total}" if deck.title else f"{number} / {total}"
            first = SlideLayout(content, size, colors, footer, paged=True)
            yield number, step, first
            for part in range(1, first.parts):
                yield number, step, SlideLayout(content, size, colors, footer, paged=True, part=part)


def pdf_bytes(
    deck: Deck,
    *,
    per_step: bool = False,
    aspect: float = 16 / 9,
    dark: bool = False,
    paper: str | None = None,
) -> bytes:
    """The handout as PDF bytes: a page per slide (or step), the page the canvas's shape; on
    ``paper`` (a key of :data:`PAPERS`), portrait pages with each slide's notes under it.

    Emoji reach the PDF as text only where Qt lets the fonts' families choose their font
    (:func:`~tokviz.gui.style.fonts.family_fallback_for_emoji`, before the application starts); a
    process that did not (the window, whose screen keeps colour emoji) has the pages painted in a
    fresh process that does.
    """
    if paper is not None and paper not in PAPERS:
        raise ExportError(f"a handout is printed on {' or '.join(PAPERS)}, not {paper}")
    if emoji_fall_back_by_family():
        return _paint_pdf(deck, per_step, aspect, dark, paper)
    pool = worker_pool(1, multiprocessing.get_context("spawn"))
    finished = False
    try:
        data = pool.submit(_paint_pdf_in_fresh_process, deck, per_step, aspect, dark, paper).result()
        finished = True
        return data
    except BrokenProcessPool as exc:
        raise ExportError("the process painting the handout ended before it was done") from exc
    finally:
        stop_pool(pool, finished)


def _paint_pdf_in_fresh_process(
    deck: Deck, per_step: bool, aspect: float, dark: bool, paper: str | None
) -> bytes:
    """:func:`_paint_pdf` in a worker process whose Qt has laid out no text yet."""
    family_fallback_for_emoji()
    ensure_app()
    return _paint_pdf(deck, per_step, aspect, dark, paper)


def _paint_pdf(deck: Deck, per_step: bool, aspect: float, dark: bool, paper: str | None) -> bytes:
    """Paint the handout's pages into a PDF, emoji in the bundled outline font, and give its bytes."""
    size = canvas_size(aspect)
    with tempfile.TemporaryDirectory(prefix="tokviz-handout-") as folder, printed_fonts():
        path = os.path.join(folder, "handout.pdf")
        writer = QPdfWriter(path)
        writer.setResolution(PDF_DPI)
        writer.setTitle(deck.title or "tokviz lecture")
        writer.setCreator("tokviz")
        if paper is None:
            page = QPageSize(QSizeF(size.width(), size.height()), QPageSize.Unit.Point, "slide")
        else:
            page = QPageSize(PAPERS[paper])
        writer.setPageLayout(QPageLayout(page, QPageLayout.Orientation.Portrait, QMarginsF(0, 0, 0, 0)))
        painter = QPainter(writer)
        try:
            pages = _PaperPages(writer, painter, deck) if paper is not None else None
            for i, (number, _step, layout) in enumerate(
                layouts(deck, per_step=per_step, aspect=aspect, dark=dark)
            ):
                if i:
                    writer.newPage()
                if pages is None:
                    layout.paint(painter)
                else:
                    pages.slide(number, layout)
                layout.release()  # its pictures now, not when the cycle collector next runs
        finally:
            painter.end()
        return printed_text(Path(path).read_bytes())


class _PaperPages:
    """Portrait pages: the slide across the top, framed, its notes under it and a page footer."""

    def __init__(self, writer: QPdfWriter, painter: QPainter, deck: Deck) -> None:
        self.writer, self.painter, self.deck = writer, painter, deck
        rect = writer.pageLayout().fullRectPoints()
        self.width, self.height = float(rect.width()), float(rect.height())
        self.font = sans_font(NOTES_SIZE)
        self.font.setPixelSize(round(NOTES_SIZE))
        self.metrics = QFontMetricsF(self.font)

    def slide(self, number: int, layout: SlideLayout) -> None:
        """Paint slide ``number`` and its notes (under its last page of rows), going on to more
        pages while the notes need them."""
        p, m = self.painter, PAPER_MARGIN
        inner = self.width - 2 * m
        ratio = inner / layout.size.width()
        p.save()
        p.translate(m, m)
        p.scale(ratio, ratio)
        layout.paint(p)
        p.restore()
        box = QRectF(m, m, inner, layout.size.height() * ratio)
        p.setPen(QPen(QColor("#9e9e9e"), 0.75))
        p.drawRect(box)
        y = box.bottom() + 2 * NOTES_SIZE
        line_h = self.metrics.lineSpacing() * 1.15
        p.setFont(self.font)
        p.setPen(QColor("#1f1f1f"))
        self._footer(number)
        notes = printed_notes(layout.content.notes) if layout.part == layout.parts - 1 else ""
        for line in self._lines(notes, inner):
            if y + line_h > self.height - m:
                self.writer.newPage()
                self._footer(number)
                y = m
                p.setFont(self.font)
                p.setPen(QColor("#1f1f1f"))
            if line:
                p.drawText(QPointF(m, y + self.metrics.ascent()), line)
            y += line_h

    def _footer(self, number: int) -> None:
        p = self.painter
        p.setFont(self.font)
        p.setPen(QColor("#5f5f5f"))
        total = len(self.deck.slides)
        label = (
            f"{self.deck.title} · slide {number} / {total}"
            if self.deck.title
            else f"slide {number} / {total}"
        )
        p.drawText(QPointF(PAPER_MARGIN, self.height - PAPER_MARGIN / 2), label)

    def _lines(self, notes: str, width: float) -> list[str]:
        """The notes wrapped to ``width``: paragraphs apart by a blank line, indented lines kept whole."""
        out: list[str] = []
        for paragraph in reflow(notes).split("\n\n") if notes else []:
            if out:
                out.append("")
            for source in paragraph.splitlines():
                indent = source[: len(source) - len(source.lstrip())]
                line = indent
                for word in source.split():
                    candidate = f"{line} {word}" if line.strip() else indent + word
                    if line.strip() and self.metrics.horizontalAdvance(candidate) > width:
                        out.append(line)
                        line = indent + word
                    else:
                        line = candidate
                out.append(line)
        return out


def png_bytes(layout: SlideLayout, scale: float = 2.0) -> bytes:
    """One slide as a PNG at ``scale`` pixels per canvas pixel."""
    image = QImage(
        QSize(round(layout.size.width() * scale), round(layout.size.height() * scale)),
        QImage.Format.Format_RGB32,
    )
    painter = QPainter(image)
    painter.scale(scale, scale)
    layout.paint(painter)
    painter.end()
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    QImageWriter(buffer, QByteArray(b"png")).write(image)
    return bytes(buffer.data().data())


def svg_bytes(layout: SlideLayout) -> bytes:
    """One slide as SVG (text as text)."""
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    generator = QSvgGenerator()
    generator.setOutputDevice(buffer)
    generator.setSize(QSize(round(layout.size.width()), round(layout.size.height())))
    generator.setViewBox(QRectF(0, 0, layout.size.width(), layout.size.height()))
    generator.setTitle(layout.content.title)
    painter = QPainter(generator)
    layout.paint(painter)
    painter.end()
    return bytes(buffer.data().data())


def write_pdf(
    deck: Deck, path: str | Path, *, per_step: bool = False, aspect: float = 16 / 9, dark: bool = False,
    inputs: Sequence[Path] = (), paper: str | None = None,
) -> Path:  # fmt: skip
    """Write the handout PDF (all or nothing; never over one of ``inputs``, the deck's own files);
    on ``paper``, with each slide's notes under it."""
    data = pdf_bytes(deck, per_step=per_step, aspect=aspect, dark=dark, paper=paper)
    write_outputs([(Output.file(path, "the handout"), data)], inputs or deck_files(deck))
    return Path(path)


def write_slides(
    deck: Deck, folder: str | Path, *, fmt: str = "png", per_step: bool = False, aspect: float = 16 / 9,
    dark: bool = False, scale: float = 2.0, inputs: Sequence[Path] = (),
) -> list[Path]:  # fmt: skip
    """Write every slide (or step) as ``slide-01.png``… into ``folder`` (all together or none; never
    over one of ``inputs``, the deck's own files); a slide in pages of rows as ``slide-11-page1.png``…"""
    if fmt not in ("png", "svg"):
        raise ExportError(f"slides are written as png or svg, not {fmt}")
    files: dict[str, bytes] = {}
    for number, step, layout in layouts(deck, per_step=per_step, aspect=aspect, dark=dark):
        several = per_step and deck.slides[number - 1].steps > 1
        name = f"slide-{number:02d}-{step + 1}" if several else f"slide-{number:02d}"
        name += f"-page{layout.part + 1}.{fmt}" if layout.parts > 1 else f".{fmt}"
        files[name] = png_bytes(layout, scale) if fmt == "png" else svg_bytes(layout)
        layout.release()
    write_outputs(
        [(Output.folder(folder, "the slide folder", list(files)), files)], inputs or deck_files(deck)
    )
    return [Path(folder) / name for name in files]
