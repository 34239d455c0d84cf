"""Put back the text of glyphs a PDF's text layer lost: the private code points of a font set by
:func:`tokviz.core.io.sfnt.with_private_codes` become the texts its glyphs write.

Qt's PDF writer maps each embedded glyph to one BMP code point (the font's ``ToUnicode`` map), so
an emoji beyond the BMP or made by a ligature has no text; drawn in a font that also maps
``base + glyph`` to every glyph, each such glyph carries its private code instead, and here each
one becomes the glyph's text (🌍, 👋, 🇩🇪, a family joined by ZWJ). The PDF is changed by an
incremental update: the new ``ToUnicode`` streams and a cross-reference section are appended, the
bytes before them stay as the writer wrote them. Only classic cross-reference tables are read (what
Qt writes); a PDF in another form is returned unchanged.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Iterator, Mapping

from .sfnt import PRIVATE_BASE, PRIVATE_END

_OBJECT = re.compile(rb"(\d+)\s+(\d+)\s+obj\b")
_REF = r"(\d+)\s+0\s+R"
_HEX = re.compile(rb"<([0-9A-Fa-f]*)>")


def xref_table(pdf: bytes) -> tuple[dict[int, int], int] | None:
    """``({object: offset}, offset of the last xref)``, following ``/Prev``; None if not a classic table."""
    found = re.search(rb"startxref\s+(\d+)\s+%%EOF\s*$", pdf)
    if found is None:
        return None
    last = at = int(found.group(1))
    offsets: dict[int, int] = {}
    seen: set[int] = set()
    while at not in seen:
        seen.add(at)
        if not pdf.startswith(b"xref", at):
            return None
        pos = at + 4
        while True:
            header = re.compile(rb"\s*(\d+)\s+(\d+)\s*\r?\n").match(pdf, pos)
            if header is None:
                break
            first, count = int(header.group(1)), int(header.group(2))
            pos = header.end()
            for i in range(count):
                entry = pdf[pos : pos + 20]
                if entry[17:18] == b"n":
                    offsets.setdefault(first + i, int(entry[:10]))
                pos += 20
        trailer = pdf[pos : pdf.find(b">>", pos) + 2]
        prev = re.search(rb"/Prev\s+(\d+)", trailer)
        if prev is None:
            break
        at = int(prev.group(1))
    return offsets, last


def read_object(pdf: bytes, offset: int) -> tuple[bytes, bytes | None]:
    """An object's dictionary text and, if it is a stream, its raw (still encoded) data."""
    head = _OBJECT.match(pdf, offset)
    if head is None:
        raise ValueError(f"no object at byte {offset}")
    start = head.end()
    stream = pdf.find(b"stream", start)
    end = pdf.find(b"endobj", start)
    if stream == -1 or stream > end:
        return pdf[start:end], None
    body = pdf[start:stream]
    length = re.search(rb"/Length\s+(\d+)(\s+0\s+R)?", body)
    data_at = stream + len(b"stream") + (2 if pdf[stream + 6 : stream + 8] == b"\r\n" else 1)
    if length is None or length.group(2):
        return body, pdf[data_at : pdf.find(b"endstream", data_at)].rstrip(b"\r\n")
    return body, pdf[data_at : data_at + int(length.group(1))]


def cmap_codes(cmap: str) -> dict[int, str]:
    """``{code: text}`` of a ToUnicode CMap's bfchar and bfrange sections."""
    out: dict[int, str] = {}

    def text(hexa: str) -> str:
        return bytes.fromhex(hexa).decode("utf-16-be", errors="surrogatepass")

    for section in re.findall(r"beginbfchar(.*?)endbfchar", cmap, re.S):
        for code, value in re.findall(r"<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]*)>", section):
            out[int(code, 16)] = text(value)
    for section in re.findall(r"beginbfrange(.*?)endbfrange", cmap, re.S):
        for low, high, rest in re.findall(
            r"<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>\s*(\[[^\]]*\]|<[0-9A-Fa-f]*>)", section
        ):
            first, last = int(low, 16), int(high, 16)
            if rest.startswith("["):
                for i, value in enumerate(re.findall(r"<([0-9A-Fa-f]*)>", rest)):
                    out[first + i] = text(value)
            else:
                start = int(rest[1:-1] or "0", 16)
                width = max(4, len(rest) - 2)
                for i in range(last - first + 1):
                    out[first + i] = text(f"{start + i:0{width}X}")
    return out


def _utf16_hex(text: str) -> str:
    return text.encode("utf-16-be", errors="surrogatepass").hex().upper()


def tounicode_cmap(codes: Mapping[int, str]) -> bytes:
    """A ToUnicode CMap (two-byte codes, as for an Identity-H font) giving each code its text."""
    lines = [
        "/CIDInit /ProcSet findresource begin",
        "12 dict begin",
        "begincmap",
        "/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def",
        "/CMapName /Adobe-Identity-UCS def",
        "/CMapType 2 def",
        "1 begincodespacerange",
        "<0000> <FFFF>",
        "endcodespacerange",
    ]
    items = sorted((code, text) for code, text in codes.items() if text)
    for i in range(0, len(items), 100):
        chunk = items[i : i + 100]
        lines.append(f"{len(chunk)} beginbfchar")
        lines.extend(f"<{code:04X}> <{_utf16_hex(text)}>" for code, text in chunk)
        lines.append("endbfchar")
    lines += ["endcmap", "CMapName currentdict /CMap defineresource pop", "end", "end", ""]
    return "\n".join(lines).encode("ascii")


def _fonts(pdf: bytes, offsets: Mapping[int, int], name: str) -> Iterator[int]:
    """The ToUnicode object of every Type0 font whose /BaseFont is ``name`` (with or without a subset tag)."""
    for offset in offsets.values():
        body, stream = read_object(pdf, offset)
        if stream is not None or b"/Type0" not in body:
            continue
        base = re.search(rb"/BaseFont\s*/([^\s/<>\[\]()]*)", body)
        if base is None or base.group(1).decode("latin-1").split("+", 1)[-1] != name:
            continue
        found = re.search(rb"/ToUnicode\s+" + _REF.encode(), body)
        if found is not None:
            yield int(found.group(1))


def _restored(text: str, texts: Mapping[int, str], base: int) -> str:
    """The text of a private code ``base + glyph``; any other text as it is."""
    if len(text) == 1 and base <= ord(text) <= PRIVATE_END:
        return texts.get(ord(text) - base, text)
    return text


def restore_text(pdf: bytes, name: str, texts: Mapping[int, str], base: int = PRIVATE_BASE) -> bytes:
    """``pdf`` with the private codes ``base + glyph`` in the ToUnicode maps of the font whose
    PostScript name is ``name`` replaced by ``texts[glyph]`` (codes with no text are left as they are)."""
    table = xref_table(pdf)
    if table is None:
        return pdf
    offsets, last_xref = table
    replaced: dict[int, bytes] = {}
    for number in sorted(set(_fonts(pdf, offsets, name))):
        if number not in offsets:
            continue
        body, stream = read_object(pdf, offsets[number])
        if stream is None:
            continue
        raw = zlib.decompress(stream) if b"/FlateDecode" in body else stream
        codes = cmap_codes(raw.decode("latin-1"))
        changed = {code: _restored(text, texts, base) for code, text in codes.items()}
        if changed != codes:
            replaced[number] = tounicode_cmap(changed)
    if not replaced:
        return pdf
    out = bytearray(pdf if pdf.endswith(b"\n") else pdf + b"\n")
    written: dict[int, int] = {}
    for number, cmap in replaced.items():
        written[number] = len(out)
        out += b"%d 0 obj\n<< /Length %d >>\nstream\n" % (number, len(cmap)) + cmap + b"\nendstream\nendobj\n"
    xref_at = len(out)
    out += b"xref\n"
    for number, offset in sorted(written.items()):
        out += b"%d 1\n%010d 00000 n \n" % (number, offset)
    trailer = pdf[pdf.rfind(b"trailer") :]
    keep = b" ".join(
        m.group(0)
        for m in re.finditer(
            rb"/(?:Size\s+\d+|Root\s+\d+\s+0\s+R|Info\s+\d+\s+0\s+R|ID\s*\[[^\]]*\])", trailer
        )
    )
    out += b"trailer\n<< %s /Prev %d >>\nstartxref\n%d\n%%%%EOF\n" % (keep, last_xref, xref_at)
    return bytes(out)
