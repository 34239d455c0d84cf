"""The files a deck names beside it: kept inside its folder, and pictures checked before any decoder sees them.

A deck is often someone else's file. Its tokenizer files and pictures are names relative to the
deck's folder; :func:`asset_path` refuses an absolute name, a ``..`` and a symbolic link that
leads out of the folder, so exporting a deck never paints or loads a file from elsewhere.

A picture (:func:`read_picture`) is a regular file of at most :data:`MAX_PICTURE_BYTES`, read once,
and either a PNG whose header states at most :data:`MAX_PICTURE_PIXELS` pixels (read from its
``IHDR`` before anything is decoded: a 20,000 × 20,000 PNG or a header claiming 2³¹ × 2³¹ is one
line, not gigabytes or a decoder's warnings) or an SVG that references nothing outside itself:
no entity declarations, no links but ``#id`` and embedded PNG data (all of them together held to
the pixels of one PNG picture), no ``url()`` to elsewhere and no style sheet imports, and at most
:data:`MAX_SVG_ELEMENTS` elements drawn, counting what each ``<use>`` draws again, and no
filters (a blur costs its radius times its area). Qt's SVG
renderer would otherwise read a local file an ``<image>`` names, decode every embedded PNG, draw
a chain of ``<use>`` or blur for minutes. The checked bytes are what gets drawn (:class:`PictureData`).
"""

from __future__ import annotations

import base64
import binascii
import os
import re
import struct
import xml.parsers.expat
from dataclasses import dataclass
from pathlib import Path, PurePath

from ..errors import TokvizError
from ..io.filekind import ReadProblem, read_regular_file

MAX_PICTURE_BYTES = 8 * 2**20
"""The largest picture file a slide shows."""
MAX_PICTURE_PIXELS = 4096 * 4096
"""The most pixels a PNG picture may have (a slide is 1,600 × 900 canvas pixels, drawn at up to 4×)."""
MAX_SVG_ELEMENTS = 20_000
"""The most elements an SVG picture may have, counting each ``<use>`` as the elements it draws
again (a diagram has hundreds; ten levels of ten ``<use>`` each would draw 10¹⁰)."""

_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_SVG_NAMESPACE_SEPARATOR = " "
_LOCAL_URL = re.compile(r"url\(\s*['\"]?\s*(?!#)", re.IGNORECASE)
_EMBEDDED_PNG = "data:image/png;base64,"


class AssetError(TokvizError):
    """A file a deck names that cannot be used: outside the deck's folder, not a regular file,
    too large, or a picture that is not a bounded PNG or a self-contained SVG (the message says which)."""


@dataclass(frozen=True)
class PictureData:
    """A checked picture: its name in the deck, ``png`` or ``svg``, its bytes, and a PNG's size in pixels."""

    name: str
    kind: str
    data: bytes
    width: int = 0
    height: int = 0


def asset_path(folder: Path, name: str) -> Path:
    """The file ``name`` in the deck's ``folder`` (or below it), links resolved; :class:`AssetError`
    for an absolute name, a ``..`` or a link that leads out of the folder."""
    pure = PurePath(name)
    if not name or pure.is_absolute() or pure.drive or ".." in pure.parts:
        raise AssetError(f"{name!r} is not in the deck's folder; name a file in it (or below it)")
    root = Path(os.path.realpath(folder))
    real = Path(os.path.realpath(folder / pure))
    if not real.is_relative_to(root):
        raise AssetError(f"{name!r} is a link that leads out of the deck's folder")
    return real


def read_picture(folder: Path, name: str) -> PictureData:
    """The picture ``name`` beside a deck, read and checked (:class:`AssetError` saying why not)."""
    path = asset_path(folder, name)
    try:
        data = read_regular_file(path, MAX_PICTURE_BYTES)
    except ReadProblem as exc:
        if exc.reason == "does not exist":
            raise AssetError(f"no picture {name!r} beside the deck") from None
        raise AssetError(f"the picture {name!r} {exc.reason}") from None
    if data.startswith(_PNG_SIGNATURE):
        width, height = png_size(data, name)
        return PictureData(name, "png", data, width, height)
    if _looks_like_svg(data):
        check_svg(data, name)
        return PictureData(name, "svg", data)
    raise AssetError(f"the picture {name!r} is neither a PNG nor an SVG file")


def png_size(data: bytes, name: str) -> tuple[int, int]:
    """A PNG's width and height from its ``IHDR`` header, refused when over :data:`MAX_PICTURE_PIXELS`."""
    if len(data) < 24 or data[12:16] != b"IHDR":
        raise AssetError(f"the picture {name!r} is not a PNG file (no IHDR header)")
    width, height = struct.unpack(">II", data[16:24])
    if width == 0 or height == 0 or width * height > MAX_PICTURE_PIXELS:
        raise AssetError(
            f"the picture {name!r} is {width:,} × {height:,} pixels; a slide's picture has at most "
            f"{MAX_PICTURE_PIXELS:,} (4096 × 4096)"
        )
    return width, height


def _looks_like_svg(data: bytes) -> bool:
    head = data[:4096].lstrip(b"\xef\xbb\xbf \t\r\n")
    return head.startswith(b"<") and b"<svg" in data[:65536]


def check_svg(data: bytes, name: str) -> None:
    """Refuse an SVG that is not well-formed, declares entities, has too many elements, or
    references anything outside itself but embedded PNG data (:class:`AssetError`)."""
    _SvgCheck(name).run(data)


class _SvgCheck:
    """One pass of expat over an SVG, refusing at the first reference to outside the file."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.elements = 0
        self.in_style = 0
        self.pixels = 0  # of the embedded PNGs so far
        # The element tree: each element's children and the id its <use> draws again, by index.
        self.children: list[list[int]] = []
        self.uses: dict[int, str] = {}
        self.ids: dict[str, int] = {}
        self.open: list[int] = []
        parser = xml.parsers.expat.ParserCreate(namespace_separator=_SVG_NAMESPACE_SEPARATOR)
        parser.SetParamEntityParsing(xml.parsers.expat.XML_PARAM_ENTITY_PARSING_NEVER)
        handlers = {
            "EntityDeclHandler": self._entity,
            "ExternalEntityRefHandler": self._external_entity,
            "ProcessingInstructionHandler": self._instruction,
            "StartElementHandler": self._start,
            "EndElementHandler": self._end,
            "CharacterDataHandler": self._text,
        }
        for event, handler in handlers.items():
            setattr(parser, event, handler)
        self.parser = parser

    def run(self, data: bytes) -> None:
        try:
            self.parser.Parse(data, True)
        except xml.parsers.expat.ExpatError as exc:
            raise AssetError(
                f"the picture {self.name!r} is not well-formed SVG "
                f"({xml.parsers.expat.ErrorString(exc.code)}, line {exc.lineno})"
            ) from None
        self._count_drawn()

    def _count_drawn(self) -> None:
        """Refuse an SVG whose ``<use>`` elements draw more than :data:`MAX_SVG_ELEMENTS` elements
        in all, or refer to themselves; each element's count is worked out once, children first."""
        drawn: dict[int, int] = {}
        for root in range(len(self.children)):
            stack, entered = [root], set()
            while stack:
                node = stack[-1]
                if node in drawn:
                    stack.pop()
                    continue
                target = self.ids.get(self.uses.get(node, ""))
                after = [*self.children[node], *([] if target is None else [target])]
                waiting = [n for n in after if n not in drawn]
                if not waiting:
                    drawn[node] = 1 + sum(drawn[n] for n in after)
                    if drawn[node] > MAX_SVG_ELEMENTS:
                        raise AssetError(
                            f"the picture {self.name!r} draws more than {MAX_SVG_ELEMENTS:,} SVG elements "
                            "(counting what each <use> draws again)"
                        )
                    stack.pop()
                    continue
                if node in entered:
                    raise self._refuse("has a <use> that draws itself")
                entered.add(node)
                stack.extend(waiting)

    def _refuse(self, what: str) -> AssetError:
        return AssetError(
            f"the picture {self.name!r} {what}; a deck's SVG may reference only its own parts (#id) "
            "and embedded PNG data"
        )

    def _entity(self, *_args: object) -> None:
        raise self._refuse("declares an XML entity")

    def _external_entity(self, *_args: object) -> int:
        raise self._refuse("refers to an external entity")

    def _instruction(self, target: str, _data: str) -> None:
        if target.lower() == "xml-stylesheet":
            raise self._refuse("links a style sheet")

    def _start(self, tag: str, attributes: dict[str, str]) -> None:
        self.elements += 1
        if self.elements > MAX_SVG_ELEMENTS:
            raise AssetError(f"the picture {self.name!r} has more than {MAX_SVG_ELEMENTS:,} SVG elements")
        local = tag.rsplit(_SVG_NAMESPACE_SEPARATOR, 1)[-1]
        if self.elements == 1 and local != "svg":
            raise AssetError(f"the picture {self.name!r} is XML but not SVG (its root is <{local}>)")
        if local == "style":
            self.in_style += 1
        if local == "filter":
            # A blur's cost grows with its radius times the area it covers, whatever the file's size.
            raise AssetError(
                f"the picture {self.name!r} uses an SVG filter; a deck's SVG draws without filters"
            )
        node = len(self.children)
        self.children.append([])
        if self.open:
            self.children[self.open[-1]].append(node)
        self.open.append(node)
        for key, value in attributes.items():
            attribute = key.rsplit(_SVG_NAMESPACE_SEPARATOR, 1)[-1]
            if attribute == "href":
                self._link(value)
                if local == "use":
                    self.uses[node] = value.strip().removeprefix("#")
            elif attribute == "id":
                self.ids.setdefault(value.strip(), node)
            self._css(value)

    def _end(self, tag: str) -> None:
        self.open.pop()
        if tag.rsplit(_SVG_NAMESPACE_SEPARATOR, 1)[-1] == "style":
            self.in_style -= 1

    def _text(self, text: str) -> None:
        if self.in_style:
            self._css(text)

    def _link(self, value: str) -> None:
        target = value.strip()
        if target.startswith("#"):
            return
        if target.lower().startswith(_EMBEDDED_PNG):
            head = "".join(target[len(_EMBEDDED_PNG) :][:64].split())[:44]
            try:
                png = base64.b64decode(head + "=" * (-len(head) % 4))
            except (binascii.Error, ValueError):
                raise self._refuse("embeds a PNG that is not base64") from None
            if not png.startswith(_PNG_SIGNATURE):
                raise self._refuse("embeds data that is not PNG")
            width, height = png_size(png, f"{self.name} (embedded)")
            self.pixels += width * height
            if self.pixels > MAX_PICTURE_PIXELS:
                raise AssetError(
                    f"the picture {self.name!r} embeds PNGs of more than {MAX_PICTURE_PIXELS:,} pixels "
                    "together, the most one picture may have"
                )
            return
        shown = target if len(target) <= 60 else target[:57] + "..."
        raise self._refuse(f"links {shown!r}")

    def _css(self, text: str) -> None:
        if "@import" in text.lower():
            raise self._refuse("imports a style sheet")
        if _LOCAL_URL.search(text):
            raise self._refuse("refers to a url() outside itself")
