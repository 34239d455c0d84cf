"""The emoji font's glyphs and their texts, and a PDF's text layer given back the texts of its emoji."""

from __future__ import annotations

import zlib
from functools import cache

from tokviz.core.io import pdf_text, sfnt
from tokviz.core.io.resources import resource_path


@cache
def emoji_font() -> bytes:
    return resource_path("fonts", "NotoEmoji[wght].ttf").read_bytes()


def test_each_glyph_writes_its_code_point_or_the_sequence_a_ligature_makes_it_from() -> None:
    font = emoji_font()
    texts, cmap = sfnt.glyph_texts(font), sfnt.character_map(font)
    assert texts[cmap[0x1F30D]] == "🌍"
    assert texts[cmap[0x1F44D]] == "👍"
    written = set(texts.values())
    assert {"🇩🇪", "👨\u200d👩\u200d👧"} <= written  # a flag and a family joined by ZWJ
    assert not any(0xE000 <= ord(c) <= 0xF8FF or ord(c) >= 0xF0000 for text in written for c in text)


def test_the_print_copy_gives_every_glyph_a_private_code_and_keeps_every_other_one() -> None:
    font = emoji_font()
    copy = sfnt.with_private_codes(font)
    before, after = sfnt.character_map(font), sfnt.character_map(copy)
    count = sfnt.glyph_count(font)
    assert {c: g for c, g in after.items() if not 0xE000 < c < 0xE000 + count} == before
    assert all(after[0xE000 + g] == g for g in range(1, count))
    assert 0xE000 not in after  # .notdef has none


def test_the_print_copy_drops_only_the_ligatures_that_swallow_a_character() -> None:
    font = emoji_font()
    copy = sfnt.without_absorbing_ligatures(font)
    cmap = sfnt.character_map(font)
    thumb, tone = cmap[0x1F44D], cmap[0x1F3FD]
    before = list(sfnt.ligature_substitutions(sfnt.table_bytes(font, "GSUB")))
    after = list(sfnt.ligature_substitutions(sfnt.table_bytes(copy, "GSUB")))
    assert (thumb, [thumb, tone]) in before and (thumb, [thumb, tone]) not in after
    assert [(o, p) for o, p in before if p[0] != o or len(p) == 1] == [
        (o, p) for o, p in after if p[0] != o or len(p) == 1
    ]


def test_the_print_copy_has_no_variations_and_keeps_its_name() -> None:
    copy = sfnt.without_variations(emoji_font())
    assert not set(sfnt.VARIATION_TABLES) & set(sfnt.tables(copy))
    assert sfnt.postscript_name(copy) == sfnt.postscript_name(emoji_font()) == "NotoEmoji-Regular"


def _pdf(objects: dict[int, bytes]) -> bytes:
    out = bytearray(b"%PDF-1.4\n")
    offsets = {}
    for number, body in sorted(objects.items()):
        offsets[number] = len(out)
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    size = max(objects) + 1
    out += b"xref\n0 %d\n0000000000 65535 f \n" % size
    out += b"".join(b"%010d 00000 n \n" % offsets[n] for n in range(1, size))
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (size, xref)
    return bytes(out)


def _stream(data: bytes) -> bytes:
    return b"<< /Length %d >>\nstream\n" % len(data) + data + b"\nendstream"


def _type0(name: bytes, descendant: int, tounicode: int) -> bytes:
    return b"<< /Type /Font /Subtype /Type0 /BaseFont /%s /Encoding /Identity-H /DescendantFonts [%d 0 R] /ToUnicode %d 0 R >>" % (
        name, descendant, tounicode,
    )  # fmt: skip


def test_restore_text_gives_the_emoji_font_s_private_codes_their_texts_and_leaves_other_fonts_alone() -> None:
    font = emoji_font()
    name, texts = sfnt.postscript_name(font), sfnt.glyph_texts(font)
    globe, thumb = sfnt.character_map(font)[0x1F30D], sfnt.character_map(font)[0x1F44D]
    qt_map = pdf_text.tounicode_cmap({1: chr(0xE000 + globe), 2: "A", 3: chr(0xE000 + thumb)})
    pdf = _pdf({
        1: b"<< /Type /Catalog >>",
        2: _type0(b"QBBAAA+" + name.encode(), 5, 6),  # with a subset tag, as Qt names it
        3: _type0(name.encode(), 5, 7),
        4: _type0(b"DejaVuSans", 8, 9),  # another font using the same private code stays as it is
        5: b"<< /Type /Font /Subtype /CIDFontType2 /BaseFont /%s >>" % name.encode(),
        6: _stream(qt_map),
        7: _stream(zlib.compress(qt_map)).replace(b"<< /Length", b"<< /Filter /FlateDecode /Length"),
        8: b"<< /Type /Font /Subtype /CIDFontType2 /BaseFont /DejaVuSans >>",
        9: _stream(qt_map),
    })  # fmt: skip
    restored = pdf_text.restore_text(pdf, name, texts)
    assert restored.startswith(pdf)  # an incremental update: what was written stays
    table = pdf_text.xref_table(restored)
    assert table is not None
    offsets, _last = table

    def codes(number: int) -> dict[int, str]:
        _body, stream = pdf_text.read_object(restored, offsets[number])
        assert stream is not None
        return pdf_text.cmap_codes(stream.decode("latin-1"))

    assert codes(6) == codes(7) == {1: "🌍", 2: "A", 3: "👍"}
    assert codes(9) == {1: chr(0xE000 + globe), 2: "A", 3: chr(0xE000 + thumb)}
    assert pdf_text.restore_text(restored, name, texts) == restored  # nothing left to restore


def test_a_pdf_without_a_classic_cross_reference_table_is_returned_as_it_is() -> None:
    odd = b"%PDF-1.5\n1 0 obj\n<< >>\nendobj\nstartxref\n9\n%%EOF\n"
    assert pdf_text.restore_text(odd, "NotoEmoji-Regular", {1: "x"}) == odd
