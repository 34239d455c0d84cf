"""A deck's checked pictures made ready to draw on a slide: PNGs decoded, SVGs drawn as vectors.

The core (:mod:`tokviz.core.lecture.deck_assets`) read and checked the bytes; nothing here reads a
file. A picture Qt cannot decode is drawn as an empty frame, and what libpng says about it is
dropped instead of reaching the terminal.
"""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QRectF
from PySide6.QtGui import QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

from tokviz.core.formats.native_stderr import native_stderr_held
from tokviz.core.lecture.deck_assets import PictureData


class Undecodable(Exception):
    """Qt could not decode a checked picture (what libpng said about it is dropped)."""


class Drawable:
    """A checked picture ready to draw: a PNG decoded from its bytes, an SVG drawn as vectors (never
    rasterised at the size it claims); the core checked the bytes, so nothing here reads a file."""

    def __init__(self, width: float, height: float, image: QImage | None, svg: QSvgRenderer | None) -> None:
        self.width, self.height = width, height
        self.image, self.svg = image, svg

    @classmethod
    def of(cls, picture: PictureData) -> Drawable | None:
        """The picture ready to draw, or None when Qt cannot decode it."""
        if picture.kind == "png":
            try:
                # libpng writes its errors (a damaged or cut-off file) to descriptor 2 itself, past
                # Qt's message handler: held, and dropped when the picture cannot be decoded.
                with native_stderr_held():
                    image = QImage.fromData(picture.data)  # checked to start as a PNG
                    if image.isNull():
                        raise Undecodable
            except Undecodable:
                return None
            return cls(image.width(), image.height(), image, None)
        svg = QSvgRenderer(QByteArray(picture.data))
        if not svg.isValid():
            return None
        box = svg.viewBoxF()
        size = svg.defaultSize()
        width, height = (size.width(), size.height()) if not size.isEmpty() else (box.width(), box.height())
        if not (width > 0 and height > 0):
            width = height = 1.0
        return cls(width, height, None, svg)

    def draw(self, painter: QPainter, target: QRectF) -> None:
        if self.image is not None:
            painter.drawImage(target, self.image)
        elif self.svg is not None:
            self.svg.render(painter, target)
