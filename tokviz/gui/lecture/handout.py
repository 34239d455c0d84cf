"""A deck as a handout: a PDF with one page per slide (or per step), and each slide as PNG or SVG.

Pages are painted by the same :class:`~tokviz.gui.lecture.paint.SlideLayout` as the screen, so the
handout matches what was projected; the PDF keeps its text as text (``pdftotext`` reads it).
Files land together or not at all (:func:`tokviz.core.io.outputs.write_outputs`).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QMarginsF, QRectF, QSize, QSizeF
from PySide6.QtGui import QImage, QImageWriter, QPageLayout, QPageSize, QPainter, QPdfWriter
from PySide6.QtSvg import QSvgGenerator

from tokviz.core.errors import ExportError
from tokviz.core.io.outputs import Output, write_outputs
from tokviz.core.lecture.deck import Deck, deck_files
from tokviz.core.lecture.slides import slide_content
from tokviz.gui.lecture.paint import SlideLayout, canvas_size
from tokviz.gui.style.theme import token_colors

PDF_DPI = 72  # one logical canvas pixel is one PDF point: text keeps its sizes


def layouts(
    deck: Deck, *, per_step: bool = False, aspect: float = 16 / 9, dark: bool = False
) -> Iterator[tuple[int, int, SlideLayout]]:
    """``(slide number, step, layout)`` for every slide of ``deck`` (and each step of it with ``per_step``)."""
    colors = token_colors(dark)
    size = canvas_size(aspect)
    total = len(deck.slides)
    for number, slide in enumerate(deck.slides, 1):
        steps = range(slide.steps) if per_step else [slide.steps - 1]
        for step in steps:
            content = slide_content(slide, deck, step)
            footer = f"{deck.title} · {number} / {total}" if deck.title else f"{number} / {total}"
            yield number, step, SlideLayout(content, size, colors, footer)


def pdf_bytes(deck: Deck, *, per_step: bool = False, aspect: float = 16 / 9, dark: bool = False) -> bytes:
    """The handout as PDF bytes: a page per slide (or step), the page the canvas's shape."""
    size = canvas_size(aspect)
    with tempfile.TemporaryDirectory(prefix="tokviz-handout-") as folder:
        path = os.path.join(folder, "handout.pdf")
        writer = QPdfWriter(path)
        writer.setResolution(PDF_DPI)
        writer.setTitle(deck.title or "tokviz lecture")
        writer.setCreator("tokviz")
        page = QPageSize(QSizeF(size.width(), size.height()), QPageSize.Unit.Point, "slide")
        writer.setPageLayout(QPageLayout(page, QPageLayout.Orientation.Portrait, QMarginsF(0, 0, 0, 0)))
        painter = QPainter(writer)
        try:
            for i, (_n, _step, layout) in enumerate(
                layouts(deck, per_step=per_step, aspect=aspect, dark=dark)
            ):
                if i:
                    writer.newPage()
                layout.paint(painter)
                layout.release()  # its pictures now, not when the cycle collector next runs
        finally:
            painter.end()
        return Path(path).read_bytes()


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
    inputs: Sequence[Path] = (),
) -> Path:  # fmt: skip
    """Write the handout PDF (all or nothing; never over one of ``inputs``, the deck's own files)."""
    data = pdf_bytes(deck, per_step=per_step, aspect=aspect, dark=dark)
    write_outputs([(Output.file(path, "the handout"), data)], inputs or deck_files(deck))
    return Path(path)


def write_slides(
    deck: Deck, folder: str | Path, *, fmt: str = "png", per_step: bool = False, aspect: float = 16 / 9,
    dark: bool = False, scale: float = 2.0, inputs: Sequence[Path] = (),
) -> list[Path]:  # fmt: skip
    """Write every slide (or step) as ``slide-01.png``… into ``folder`` (all together or none; never
    over one of ``inputs``, the deck's own files)."""
    if fmt not in ("png", "svg"):
        raise ExportError(f"slides are written as png or svg, not {fmt}")
    files: dict[str, bytes] = {}
    for number, step, layout in layouts(deck, per_step=per_step, aspect=aspect, dark=dark):
        several = per_step and deck.slides[number - 1].steps > 1
        name = f"slide-{number:02d}-{step + 1}.{fmt}" if several else f"slide-{number:02d}.{fmt}"
        files[name] = png_bytes(layout, scale) if fmt == "png" else svg_bytes(layout)
        layout.release()
    write_outputs(
        [(Output.folder(folder, "the slide folder", list(files)), files)], inputs or deck_files(deck)
    )
    return [Path(folder) / name for name in files]
