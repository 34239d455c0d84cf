"""What each glyph of a TrueType/OpenType font writes, and a copy of the font whose every glyph also
has a code point of its own in the Basic Multilingual Plane's private use area.

Both serve the text layer of the PDFs tokviz writes: Qt's PDF writer gives each embedded glyph the
text of the first BMP code point that maps to it, so a glyph reached only from beyond the BMP (🌍,
U+1F30D) or only through a ligature (👋🏽, 🇩🇪) gets no text at all. Set in
:func:`with_private_codes`'s copy, every glyph gets the private code ``base + glyph``, and
:func:`glyph_texts` says which text that code stands for (:mod:`tokviz.core.io.pdf_text` puts it
back). Only the tables these need are read: ``cmap``, ``GSUB``, ``name``; nothing is shaped here.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator

from ..errors import TokvizError

PRIVATE_BASE = 0xE000
"""The first private use code point of the BMP; glyph ``g`` gets ``PRIVATE_BASE + g``."""
PRIVATE_END = 0xF8FF


class FontError(TokvizError, ValueError):
    """The font file cannot be read as tokviz needs it (a missing table, a table cut short)."""


def _u16(data: bytes, at: int) -> int:
    return int(struct.unpack_from(">H", data, at)[0])


def _u32(data: bytes, at: int) -> int:
    return int(struct.unpack_from(">I", data, at)[0])


def tables(font: bytes) -> dict[str, tuple[int, int]]:
    """``{tag: (offset, length)}`` of the font's tables (a single font, not a collection)."""
    if len(font) < 12 or font[:4] == b"ttcf":
        raise FontError("not a single TrueType/OpenType font")
    out: dict[str, tuple[int, int]] = {}
    for i in range(_u16(font, 4)):
        tag, _checksum, offset, length = struct.unpack_from(">4sIII", font, 12 + 16 * i)
        if offset + length > len(font):
            raise FontError(f"the font's {tag.decode('latin-1')} table runs past its end")
        out[tag.decode("latin-1")] = (offset, length)
    return out


def table_bytes(font: bytes, tag: str) -> bytes:
    found = tables(font).get(tag)
    if found is None:
        raise FontError(f"the font has no {tag} table")
    offset, length = found
    return font[offset : offset + length]


def _subtable_length(cmap: bytes, at: int) -> int:
    fmt = _u16(cmap, at)
    if fmt in (8, 10, 12, 13):
        return _u32(cmap, at + 4)
    if fmt == 14:
        return _u32(cmap, at + 2)
    return _u16(cmap, at + 2)


def _cmap_subtables(cmap: bytes) -> list[tuple[int, int, int]]:
    """``(platform, encoding, offset)`` of each encoding record."""
    return [struct.unpack_from(">HHI", cmap, 4 + 8 * i) for i in range(_u16(cmap, 2))]


def _format4(cmap: bytes, at: int) -> Iterator[tuple[int, int]]:
    segments = _u16(cmap, at + 6) // 2
    ends, starts = at + 14, at + 16 + 2 * segments
    deltas, ranges = starts + 2 * segments, starts + 4 * segments
    for s in range(segments):
        end, start = _u16(cmap, ends + 2 * s), _u16(cmap, starts + 2 * s)
        delta, offset = _u16(cmap, deltas + 2 * s), _u16(cmap, ranges + 2 * s)
        for code in range(start, min(end, 0xFFFE) + 1):
            if offset == 0:
                glyph = (code + delta) & 0xFFFF
            else:
                glyph = _u16(cmap, ranges + 2 * s + offset + 2 * (code - start))
                glyph = (glyph + delta) & 0xFFFF if glyph else 0
            if glyph:
                yield code, glyph


def _format12_groups(cmap: bytes, at: int) -> list[tuple[int, int, int]]:
    return [struct.unpack_from(">III", cmap, at + 16 + 12 * i) for i in range(_u32(cmap, at + 12))]


def character_map(font: bytes) -> dict[int, int]:
    """``{code point: glyph}`` from the font's Unicode ``cmap`` subtables (formats 4 and 12)."""
    cmap = table_bytes(font, "cmap")
    out: dict[int, int] = {}
    for platform, encoding, offset in _cmap_subtables(cmap):
        if (platform, encoding) not in ((0, 3), (0, 4), (0, 6), (3, 1), (3, 10)):
            continue
        fmt = _u16(cmap, offset)
        if fmt == 4:
            out.update(_format4(cmap, offset))
        elif fmt == 12:
            for start, end, glyph in _format12_groups(cmap, offset):
                out.update((code, glyph + code - start) for code in range(start, end + 1))
    return out


def glyph_count(font: bytes) -> int:
    return _u16(table_bytes(font, "maxp"), 4)


def _coverage(gsub: bytes, at: int) -> list[int]:
    if _u16(gsub, at) == 1:
        return [_u16(gsub, at + 4 + 2 * i) for i in range(_u16(gsub, at + 2))]
    glyphs: list[int] = []
    for i in range(_u16(gsub, at + 2)):
        start, end, _index = struct.unpack_from(">HHH", gsub, at + 4 + 6 * i)
        glyphs.extend(range(start, end + 1))
    return glyphs


def _subtables(gsub: bytes) -> Iterator[tuple[int, int]]:
    """``(lookup type, offset)`` of every subtable of ``GSUB``'s lookups, extensions unwrapped."""
    lookups = _u16(gsub, 8)
    for i in range(_u16(gsub, lookups)):
        lookup = lookups + _u16(gsub, lookups + 2 + 2 * i)
        for j in range(_u16(gsub, lookup + 4)):
            kind, sub = _u16(gsub, lookup), lookup + _u16(gsub, lookup + 6 + 2 * j)
            if kind == 7:  # an extension: the real subtable is further on
                kind, sub = _u16(gsub, sub + 2), sub + _u32(gsub, sub + 4)
            yield kind, sub


def _ligatures(gsub: bytes, sub: int) -> Iterator[tuple[int, list[int]]]:
    """``(offset of the Ligature table, its input glyphs)`` of a ligature subtable."""
    for k, first in enumerate(_coverage(gsub, sub + _u16(gsub, sub + 2))):
        ligatures = sub + _u16(gsub, sub + 6 + 2 * k)
        for m in range(_u16(gsub, ligatures)):
            ligature = ligatures + _u16(gsub, ligatures + 2 + 2 * m)
            rest = [_u16(gsub, ligature + 4 + 2 * n) for n in range(_u16(gsub, ligature + 2) - 1)]
            yield ligature, [first, *rest]


def ligature_substitutions(gsub: bytes) -> Iterator[tuple[int, list[int]]]:
    """``(output glyph, input glyphs)`` of every single substitution and ligature in ``GSUB``."""
    for kind, sub in _subtables(gsub):
        if kind == 1:
            covered = _coverage(gsub, sub + _u16(gsub, sub + 2))
            if _u16(gsub, sub) == 1:
                delta = _u16(gsub, sub + 4)
                yield from (((g + delta) & 0xFFFF, [g]) for g in covered)
            else:
                yield from ((_u16(gsub, sub + 6 + 2 * k), [g]) for k, g in enumerate(covered))
        elif kind == 4:
            yield from ((_u16(gsub, at), parts) for at, parts in _ligatures(gsub, sub))


def without_absorbing_ligatures(font: bytes) -> bytes:
    """A copy of ``font`` in which no ligature gives back its first glyph, swallowing the rest.

    A monochrome emoji font draws 👍🏽 as 👍 that way (it has no skin tones), and a glyph carries one
    text in a PDF: 🏽 would be lost. Such a ligature is made never to match (its other parts become
    glyph 0xFFFF, which no font has), so the modifier stays a glyph, and a text, of its own.
    """
    found = tables(font).get("GSUB")
    if found is None:
        return font
    start = found[0]
    gsub = table_bytes(font, "GSUB")
    out = bytearray(font)
    for kind, sub in _subtables(gsub):
        if kind != 4:
            continue
        for at, parts in _ligatures(gsub, sub):
            if len(parts) > 1 and _u16(gsub, at) == parts[0]:
                for n in range(len(parts) - 1):
                    struct.pack_into(">H", out, start + at + 4 + 2 * n, 0xFFFF)
    return bytes(out)


def _private(code: int) -> bool:
    """Whether ``code`` is a private use code point (a font's own name for a glyph, e.g. a flag's)."""
    return PRIVATE_BASE <= code <= PRIVATE_END or code >= 0xF0000


def glyph_texts(font: bytes) -> dict[int, str]:
    """``{glyph: the text it writes}``: a code point of ``cmap`` (the lowest, when several map to it;
    never a private use one), or the texts of the glyphs a ligature or a single substitution of
    ``GSUB`` makes it from (a ligature giving back its first glyph does not count)."""
    texts: dict[int, str] = {}
    for code, glyph in sorted(character_map(font).items()):
        if not _private(code):
            texts.setdefault(glyph, chr(code))
    table = tables(font)
    if "GSUB" not in table:
        return texts
    substitutions = [
        (out, parts) for out, parts in ligature_substitutions(table_bytes(font, "GSUB")) if parts[0] != out
    ]
    # A ligature's parts may themselves be made by a substitution: go round until nothing is new.
    while True:
        found = {
            out: "".join(texts[g] for g in parts)
            for out, parts in substitutions
            if out not in texts and all(g in texts for g in parts)
        }
        if not found:
            return texts
        texts.update(found)


def with_private_codes(font: bytes, base: int = PRIVATE_BASE) -> bytes:
    """A copy of ``font`` whose format-12 ``cmap`` subtables also map ``base + g`` to glyph ``g``
    (every glyph but .notdef); the rest of the font is unchanged.

    Raises :class:`FontError` when the font has no format-12 subtable, has more glyphs than the private
    use area has code points, or already maps one of those code points.
    """
    count = glyph_count(font)
    if base + count - 1 > PRIVATE_END:
        raise FontError(f"{count} glyphs do not fit in the private use area from U+{base:04X}")
    offset, length = tables(font)["cmap"]
    cmap = font[offset : offset + length]
    records = _cmap_subtables(cmap)
    subtables: dict[int, bytes] = {}
    for _platform, _encoding, at in records:
        if at in subtables:
            continue
        body = cmap[at : at + _subtable_length(cmap, at)]
        if _u16(cmap, at) == 12:
            groups = _format12_groups(cmap, at)
            if any(start <= base + count - 1 and end >= base + 1 for start, end, _g in groups):
                raise FontError(f"the font already maps code points from U+{base + 1:04X}")
            groups = sorted([*groups, (base + 1, base + count - 1, 1)])
            language = _u32(cmap, at + 8)
            body = struct.pack(">HHIII", 12, 0, 16 + 12 * len(groups), language, len(groups))
            body += b"".join(struct.pack(">III", *g) for g in groups)
        subtables[at] = body
    if not any(_u16(body, 0) == 12 for body in subtables.values()):
        raise FontError("the font has no format-12 cmap subtable")
    header = 4 + 8 * len(records)
    placed: dict[int, int] = {}
    out = bytearray()
    for at, body in subtables.items():
        placed[at] = header + len(out)
        out += body
    new_cmap = struct.pack(">HH", 0, len(records))
    new_cmap += b"".join(struct.pack(">HHI", p, e, placed[at]) for p, e, at in records) + out
    return _replace_table(font, "cmap", bytes(new_cmap))


def _replace_table(font: bytes, tag: str, data: bytes) -> bytes:
    """``font`` with table ``tag`` moved to the end of the file and replaced by ``data``."""
    out = bytearray(font)
    out += b"\0" * (-len(out) % 4)
    start = len(out)
    out += data + b"\0" * (-len(data) % 4)
    for i in range(_u16(font, 4)):
        entry = 12 + 16 * i
        if font[entry : entry + 4] == tag.encode("latin-1"):
            padded = data + b"\0" * (-len(data) % 4)
            checksum = sum(struct.unpack(f">{len(padded) // 4}I", padded)) & 0xFFFFFFFF
            struct.pack_into(">III", out, entry + 4, checksum, start, len(data))
    return bytes(out)


VARIATION_TABLES = ("fvar", "gvar", "avar", "cvar", "HVAR", "VVAR", "MVAR", "STAT")


def without_variations(font: bytes) -> bytes:
    """A copy of a variable font that reads as its default instance only: its variation tables are
    renamed (their letters' case swapped: tags no reader knows), so a bold or light face is made from the default
    outlines and keeps the default's PostScript name (a PDF names the font it embeds by it)."""
    out = bytearray(font)
    for i in range(_u16(font, 4)):
        entry = 12 + 16 * i
        tag = font[entry : entry + 4].decode("latin-1")
        if tag in VARIATION_TABLES:
            out[entry : entry + 4] = tag.swapcase().encode("latin-1")
    return bytes(out)


def postscript_name(font: bytes) -> str:
    """The font's PostScript name (``name`` ID 6), as PDF writers name an embedded font."""
    name = table_bytes(font, "name")
    strings = _u16(name, 4)
    for i in range(_u16(name, 2)):
        platform, _encoding, _language, name_id, length, offset = struct.unpack_from(
            ">HHHHHH", name, 6 + 12 * i
        )
        if name_id != 6:
            continue
        raw = name[strings + offset : strings + offset + length]
        return raw.decode("utf-16-be") if platform in (0, 3) else raw.decode("latin-1")
    raise FontError("the font has no PostScript name")
