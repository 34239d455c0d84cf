"""Byte-level helpers: GPT-2's printable byte map, hex display, UTF-8 completeness checks."""

from __future__ import annotations

import unicodedata
from functools import lru_cache


@lru_cache(maxsize=1)
def bytes_to_unicode() -> dict[int, str]:
    """GPT-2's reversible map from each byte to a printable character (used by vocab.json/merges.txt)."""
    printable = (
        list(range(ord("!"), ord("~") + 1))
        + list(range(ord("¡"), ord("¬") + 1))
        + list(range(ord("®"), ord("ÿ") + 1))
    )
    mapping: dict[int, str] = {b: chr(b) for b in printable}
    extra = 0
    for b in range(256):
        if b not in mapping:
            mapping[b] = chr(256 + extra)
            extra += 1
    return dict(sorted(mapping.items()))


@lru_cache(maxsize=1)
def unicode_to_bytes() -> dict[str, int]:
    """Inverse of :func:`bytes_to_unicode`."""
    return {c: b for b, c in bytes_to_unicode().items()}


def bytes_to_gpt2_str(data: bytes) -> str:
    """Encode raw token bytes as GPT-2's printable string form."""
    table = bytes_to_unicode()
    return "".join(table[b] for b in data)


def gpt2_str_to_bytes(text: str) -> bytes:
    """Decode GPT-2's printable string form back to raw bytes; KeyError on a foreign character."""
    table = unicode_to_bytes()
    return bytes(table[c] for c in text)


def hex_bytes(data: bytes) -> str:
    """Space-separated upper-case hex, the way the lecture writes bytes: ``F0 9F 8C 8D``."""
    return " ".join(f"{b:02X}" for b in data)


def utf8_char_len(lead: int) -> int:
    """Length of the UTF-8 sequence a lead byte starts (1 for ASCII and for invalid lead bytes)."""
    if lead < 0xC0:
        return 1
    if lead < 0xE0:
        return 2
    if lead < 0xF0:
        return 3
    if lead < 0xF8:
        return 4
    return 1


def incomplete_tail_length(data: bytes) -> int:
    """Number of trailing bytes that start a UTF-8 character but do not finish it yet.

    A streaming decoder holds exactly these bytes back until more arrive.
    """
    n = len(data)
    # A UTF-8 character is at most 4 bytes, so only the last 3 bytes can be an unfinished start.
    for back in range(1, min(3, n) + 1):
        b = data[n - back]
        if 0x80 <= b < 0xC0:
            continue  # continuation byte: keep looking for the lead byte
        need = utf8_char_len(b)
        if need > back:
            try:
                data[n - back :].decode("utf-8")
            except UnicodeDecodeError as exc:
                if exc.reason == "unexpected end of data":
                    return back
            return 0
        return 0
    return 0


_WHITESPACE_GLYPHS = {" ": "·", "\n": "↵", "\t": "→", "\r": "␍"}


def _character_at(data: bytes, i: int) -> str | None:
    """The character the UTF-8 sequence at ``data[i]`` spells, or None for a byte that spells no
    printable character: part of an incomplete or invalid sequence, or a control other than tab,
    newline and carriage return (fonts draw those as empty boxes)."""
    need = utf8_char_len(data[i])
    piece = data[i : i + need]
    if len(piece) != need:
        return None
    try:
        ch = piece.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if unicodedata.category(ch) == "Cc" and ch not in "\t\n\r":
        return None
    return ch


def printable_token(data: bytes, whitespace: bool = True) -> str:
    """Human-readable form of token bytes: text where valid UTF-8, ``<F0 9F>`` for the rest.

    Control characters (``<00>``, ``<1B>``) are shown as bytes too. With ``whitespace``, spaces,
    newlines and tabs become the glyphs ·, ↵ and →.
    """
    out: list[str] = []
    i = 0
    n = len(data)
    while i < n:
        ch = _character_at(data, i)
        if ch is None:
            # Collect the run of bytes that do not form printable characters.
            j = i + 1
            while j < n and _character_at(data, j) is None:
                j += 1
            out.append("<" + hex_bytes(data[i:j]) + ">")
            i = j
            continue
        out.append(_WHITESPACE_GLYPHS.get(ch, ch) if whitespace else ch)
        i += len(ch.encode("utf-8"))
    return "".join(out)
