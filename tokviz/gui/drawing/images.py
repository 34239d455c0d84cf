"""Slide-ready images of any part of the window: PNG at 1x/2x/3x, SVG for vector panels, the clipboard.

A widget is drawn with ``QWidget.render`` into a QImage whose device pixel ratio is the scale, so
layout stays in logical pixels while text and shapes are rasterised at full resolution: a 2x
export is twice as many pixels, not a blown-up 1x picture. Panels drawn only with QPainter
shapes and text (token views, the chart) also go to SVG through ``QSvgGenerator``, where text
stays text. A widget that knows how to draw itself for export (the chart canvas, which must not
hand its bitmap cache to a vector file) provides ``render_image(scale)`` and ``svg_bytes()``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, cast

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QPoint, QRect, QSize, Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QGuiApplication,
    QImage,
    QImageWriter,
    QPainter,
    QPalette,
    QRegion,
)
from PySide6.QtWidgets import QWidget

from tokviz.core.errors import ExportError
from tokviz.core.io.atomic import atomic_write_bytes
from tokviz.gui.widgets.token_view import TokenView

if TYPE_CHECKING:
    from tokviz.gui.widgets.token_panel import TokenPanel

# A dynamic property a panel sets to say it draws only shapes and text (so SVG is offered for it).
VECTOR_PROPERTY = "tokvizVectorExport"
_RENDER_FLAGS = QWidget.RenderFlag.DrawWindowBackground | QWidget.RenderFlag.DrawChildren
_SVG_SIZE = re.compile(rb'<svg width="[^"]*" height="[^"]*"')
# A text element (whose font list depends on its text), or a font list elsewhere (on a group).
_SVG_FONTS = re.compile(rb'<text\b[^>]*>[^<]*</text>|font-family="([^"]*)"')
_FONT_LIST = re.compile(rb'font-family="([^"]*)"')
# Pictographs and the emoji variation selector: text that needs an emoji font.
_EMOJI = re.compile("[\u2600-\u27bf\u2b00-\u2bff\ufe0f\U0001f000-\U0001faff]")
# Text made of emoji only (with joiners, skin tones, tags): drawn at EMOJI_SCALE of its size.
_EMOJI_ONLY = re.compile(
    "[\u2600-\u27bf\u2b00-\u2bff\ufe0f\u200d\U0001f000-\U0001faff\U000e0020-\U000e007f]+"
)
_FONT_SIZE = re.compile(rb'font-size="([0-9.]+)"')
EMOJI_SCALE = 0.85


def _background(widget: QWidget) -> QColor:
    return widget.palette().color(widget.backgroundRole())


def check_scale(scale: float) -> None:
    """Refuse scales no slide needs (and that would make huge or empty images)."""
    if not 0.25 <= scale <= 8:
        raise ExportError(f"scale must be between 0.25 and 8, got {scale}")


def blank_image(size: QSize, scale: float, background: QColor) -> tuple[QImage, QPainter]:
    """An image of ``size`` logical pixels at ``scale`` filled with ``background``, and a painter on it.

    The device pixel ratio is the scale, so text and shapes are rasterised at full resolution.
    The caller paints and then ends the painter.
    """
    check_scale(scale)
    # An opaque background needs no alpha channel: the PNG is smaller and every viewer shows it alike.
    opaque = background.alpha() == 255
    image = QImage(
        max(1, round(size.width() * scale)),
        max(1, round(size.height() * scale)),
        QImage.Format.Format_RGB32 if opaque else QImage.Format.Format_ARGB32_Premultiplied,
    )
    image.setDevicePixelRatio(scale)
    image.fill(background)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
    painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
    return image, painter


def render_image(widget: QWidget, scale: float = 1.0) -> QImage:
    """The widget as it looks now, ``scale`` device pixels per logical pixel (crisp text at 2x and 3x).

    A widget that draws itself for export (the chart canvas) provides ``render_image(scale)``.
    """
    check_scale(scale)
    own = getattr(widget, "render_image", None)
    if callable(own):
        return own(scale)
    image, painter = blank_image(widget.size(), scale, _background(widget))
    widget.render(painter, QPoint(0, 0), QRegion(), _RENDER_FLAGS)
    painter.end()
    return image


def png_bytes(image: QImage) -> bytes:
    """PNG data of an image."""
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    writer = QImageWriter(buffer, QByteArray(b"png"))
    ok = writer.write(image)
    buffer.close()
    if not ok:
        raise ExportError(f"Qt could not encode the image as PNG ({writer.errorString()})")
    return bytes(data.data())


def svg_drawing(
    size: QSize,
    dpi: float,
    background: QColor,
    paint: Callable[[QPainter], None],
    title: str = "tokviz",
    description: str = "Exported from tokviz",
) -> bytes:
    """An SVG drawing of ``size`` pixels made by ``paint``: shapes stay shapes and text stays text.

    Qt writes font sizes as points at the generator's resolution (72 dpi unless told), so the
    screen's ``dpi`` is used or text comes out a quarter smaller than the boxes drawn around it.
    The root element gets its size in pixels (Qt writes millimetres at 72 dpi), which is what
    slide programs and browsers expect; font lists end in a generic CSS family.
    """
    from PySide6.QtSvg import QSvgGenerator

    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    generator = QSvgGenerator()
    generator.setOutputDevice(buffer)
    generator.setSize(size)
    generator.setViewBox(QRect(QPoint(0, 0), size))
    generator.setResolution(round(dpi))
    generator.setTitle(title)
    generator.setDescription(description)
    painter = QPainter(generator)
    painter.fillRect(QRect(QPoint(0, 0), size), background)
    paint(painter)
    painter.end()
    buffer.close()
    svg = _SVG_FONTS.sub(_fonts_for_readers, bytes(data.data()))
    return _SVG_SIZE.sub(f'<svg width="{size.width()}" height="{size.height()}"'.encode(), svg, count=1)


def svg_bytes(widget: QWidget, title: str = "tokviz") -> bytes:
    """The widget as an SVG drawing (a widget that draws its own SVG provides ``svg_bytes()``)."""
    own = getattr(widget, "svg_bytes", None)
    if callable(own):
        return own()

    def paint(painter: QPainter) -> None:
        panels = _token_panels(widget)
        if panels:
            _paint_token_panels(widget, panels, painter)
        else:
            widget.render(painter, QPoint(0, 0), QRegion(), _RENDER_FLAGS)

    return svg_drawing(widget.size(), widget.logicalDpiY(), _background(widget), paint, title)


def _fonts_for_readers(match: re.Match[bytes]) -> bytes:
    """A text element or group with a font list any SVG reader draws as Qt did (see :func:`_css_families`).

    Emoji fonts are named only on text that has emoji in it: they also hold digits (for keycaps),
    and Pango (rsvg-convert, Inkscape) then sets the digits of "15 tokens · 5.73" apart in them.
    Other characters missing from the listed fonts still find a fallback font in every reader.
    """
    if match.group(1) is not None:
        return _css_families(match, emoji=False)
    element = match.group(0)
    text = element[element.index(b">") + 1 : element.rindex(b"<")].decode("utf-8", errors="replace")
    emoji = _EMOJI.search(text) is not None
    element = _FONT_LIST.sub(lambda m: _css_families(m, emoji=emoji), element)
    if text.strip() and _EMOJI_ONLY.fullmatch(text.strip()):
        # Colour emoji fonts draw a glyph wider than the advance Qt laid it out with (1.15 em
        # against 1): at full size a reader's emoji covers the character after it.
        element = _FONT_SIZE.sub(lambda m: b'font-size="%.4f"' % (float(m.group(1)) * EMOJI_SCALE), element)
    return element


def _css_families(match: re.Match[bytes], emoji: bool = True) -> bytes:
    """Qt's family list as a CSS list ending in a generic family, so any SVG reader finds a similar font.

    Qt writes ``A,B,C`` and its own alias ``Sans Serif``, which is a font name nowhere else.
    With ``emoji`` the colour emoji fonts come first (as Qt picks them for pictographs), without it
    they are left out.
    """
    families = [f.strip() for f in match.group(1).decode("utf-8").split(",") if f.strip()]
    emoji_fonts = [f for f in families if "emoji" in f.lower()]
    families = (emoji_fonts if emoji else []) + [f for f in families if f not in emoji_fonts]
    families = [{"sans serif": "sans-serif", "monospace": "monospace"}.get(f.lower(), f) for f in families]
    generic = "monospace" if any("mono" in f.lower() for f in families) else "sans-serif"
    if generic not in families:
        families.append(generic)
    return b'font-family="' + ", ".join(families).encode("utf-8") + b'"'


def _token_panels(widget: QWidget) -> list[TokenPanel]:
    """The token panels a view export is made of (the widget itself, or those in the views' splitter).

    Panels are found by their object name: importing the panel class here would load the tokenizer
    models into every ``tokviz render``, which draws through this module.
    """
    if widget.objectName() == "tokenPanel":
        return [cast("TokenPanel", widget)]
    if widget.objectName() == "viewsSplitter":
        return [cast("TokenPanel", w) for w in widget.findChildren(QWidget, "tokenPanel") if w.isVisible()]
    return []


def _paint_token_panels(root: QWidget, panels: list[TokenPanel], painter: QPainter) -> None:
    """Token panels for a vector file: each header as text, each view drawn by its own painter.

    Styles draw combo boxes from cached bitmaps; a drawing meant for slides needs the tokenizer's
    name as text rather than a picture of a picker.
    """
    for panel in panels:
        picker, stats, view = panel.picker, panel.stats, panel.view
        origin = picker.mapTo(root, QPoint(0, 0))
        font = QFont(panel.font())
        font.setBold(True)
        painter.setFont(font)
        painter.setPen(panel.palette().color(QPalette.ColorRole.WindowText))
        name_rect = QRect(origin.x() + 4, origin.y(), picker.width(), picker.height())
        painter.drawText(
            name_rect, Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft, picker.currentText()
        )
        painter.setFont(panel.font())
        at = stats.mapTo(root, QPoint(0, 0))
        painter.drawText(
            QRect(at, stats.size()), Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft, stats.text()
        )
        view.render(painter, view.mapTo(root, QPoint(0, 0)), QRegion(), _RENDER_FLAGS)


def write_image(widget: QWidget, path: str | Path, scale: float = 1.0, title: str = "tokviz") -> Path:
    """Write the widget to ``path``: PNG at ``scale`` or SVG, chosen by the extension (atomically)."""
    out = Path(path)
    suffix = out.suffix.lower()
    if suffix == ".png":
        data = png_bytes(render_image(widget, scale))
    elif suffix == ".svg":
        data = svg_bytes(widget, title)
    else:
        raise ExportError(f"{out.name}: images are written as .png or .svg")
    atomic_write_bytes(out, data)
    return out


def copy_image(widget: QWidget, scale: float = 2.0) -> QImage:
    """Put the widget's picture on the clipboard (at ``scale``); returns the image."""
    image = render_image(widget, scale)
    QGuiApplication.clipboard().setImage(image)
    return image


def is_vector(widget: QWidget) -> bool:
    """Whether the widget can be exported as SVG without losing sharpness.

    True for token views and their panels, the chart (it draws its own SVG) and panels that set
    the ``tokvizVectorExport`` property; plots with bitmap caches (the merge timeline) are not.
    """
    if callable(getattr(widget, "svg_bytes", None)) or widget.property(VECTOR_PROPERTY) is True:
        return True
    # Token views, their panels and the views' splitter hold only views, pickers and labels.
    return isinstance(widget, TokenView) or widget.objectName() in ("tokenPanel", "viewsSplitter")
