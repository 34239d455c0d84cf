"""Streaming decode holds back exactly the bytes of an unfinished character."""

from __future__ import annotations

from hypothesis import given

from tokviz.core import StreamingDecoder, Tokenizer
from tokviz.core.bpe.stream import naive_decode_each
from tokviz.core.pretok.bytes_ import hex_bytes, incomplete_tail_length, printable_token

from ..strategies import hard_text

BYTES = Tokenizer({i: bytes([i]) for i in range(256)}, [], pretokenizer="none", name="bytes")


def test_emoji_is_printed_only_when_complete():
    decoder = StreamingDecoder(BYTES)
    out = [(decoder.push(i), decoder.pending) for i in BYTES.encode("Hi 🌍")]
    assert out == [
        ("H", b""),
        ("i", b""),
        (" ", b""),
        ("", b"\xf0"),
        ("", b"\xf0\x9f"),
        ("", b"\xf0\x9f\x8c"),
        ("🌍", b""),
    ]
    assert decoder.flush() == ""


def test_naive_decoder_prints_replacement_characters():
    assert naive_decode_each(BYTES, 240) == "\ufffd"


def test_flush_replaces_an_unfinished_tail():
    decoder = StreamingDecoder(BYTES)
    assert decoder.push(0xE4) == ""
    assert decoder.flush() == "\ufffd"
    assert decoder.pending == b""


@given(hard_text())
def test_streaming_output_joins_to_the_text(text):
    decoder = StreamingDecoder(BYTES)
    pieces = [decoder.push(i) for i in BYTES.encode(text)]
    assert "".join(pieces) + decoder.flush() == text
    assert all("\ufffd" not in p for p in pieces) or "\ufffd" in text


def test_incomplete_tail_length_only_counts_real_starts():
    assert incomplete_tail_length("🌍".encode()[:3]) == 3
    assert incomplete_tail_length("é".encode()) == 0
    assert incomplete_tail_length(b"a\x8c") == 0  # a stray continuation byte is not a start


def test_printable_forms():
    assert hex_bytes("🌍".encode()) == "F0 9F 8C 8D"
    assert printable_token(b" the\n") == "·the↵"
    assert printable_token(b"\xf0\x9f") == "<F0 9F>"
    assert printable_token("é".encode() + b"\xe4") == "é<E4>"
