"""Token bytes as people read them: control bytes are labelled like other bytes, never drawn as tofu."""

from __future__ import annotations

from tokviz.core.pretok.bytes_ import printable_token


def test_control_bytes_are_labelled_in_hex():
    assert [printable_token(bytes([b])) for b in range(8)] == [f"<0{b}>" for b in range(8)]
    assert printable_token(b"\x1b[0m") == "<1B>[0m"
    assert printable_token(b"\x7f") == "<7F>"
    assert printable_token("\u0085".encode()) == "<C2 85>"  # a C1 control: its two UTF-8 bytes


def test_whitespace_keeps_its_glyphs_and_neighbouring_controls_share_a_label():
    assert printable_token(b" a\tb\n") == "·a→b↵"
    assert printable_token(b"\x00\x01") == "<00 01>"
    assert printable_token(b"\x00\xf0\x9f") == "<00 F0 9F>"
    assert printable_token(b"\n", whitespace=False) == "\n"
