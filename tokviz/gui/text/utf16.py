"""Code points <-> UTF-16 offsets, and the editor's exact text.

Python strings count code points; Qt documents count UTF-16 code units, in which every character
outside the Basic Multilingual Plane (most emoji) takes two units. Token spans from the core are in
code points, so every position handed to Qt goes through here, or colours drift after each emoji.
This module imports no Qt so the arithmetic can be tested anywhere.
"""

from __future__ import annotations

import numpy as np

# Qt keeps a document's blocks apart with U+2029; the text the core sees has a newline there.
PARAGRAPH_SEPARATOR = "\u2029"


def utf16_len(text: str) -> int:
    """Length of ``text`` in UTF-16 code units (what Qt calls its length)."""
    return len(text.encode("utf-16-le")) // 2


def utf16_offsets(text: str) -> np.ndarray:
    """``offsets[i]`` is the UTF-16 offset of code point ``i``; one extra entry holds the total length.

    The array is strictly increasing, so it also converts back with a binary search.
    """
    n = len(text)
    out = np.arange(n + 1, dtype=np.int64)
    if n == 0 or text.isascii():
        return out
    code_points = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32)
    astral = code_points > 0xFFFF
    if astral.any():
        out[1:] += np.cumsum(astral, dtype=np.int64)
    return out


class Utf16Index:
    """Converts positions in one text between code points and UTF-16 units.

    Built once per text version; texts without astral characters take a shortcut where both
    conversions are the identity.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self.length = len(text)
        self._offsets: np.ndarray | None = None
        self._identity = text.isascii() or utf16_len(text) == len(text)

    @property
    def offsets(self) -> np.ndarray:
        """The table of :func:`utf16_offsets`, computed on first use."""
        if self._offsets is None:
            self._offsets = utf16_offsets(self.text)
        return self._offsets

    @property
    def utf16_length(self) -> int:
        """Length of the whole text in UTF-16 units."""
        return self.length if self._identity else int(self.offsets[-1])

    def to_utf16(self, cp: int) -> int:
        """UTF-16 offset of code-point offset ``cp`` (clamped to the text)."""
        cp = min(max(int(cp), 0), self.length)
        return cp if self._identity else int(self.offsets[cp])

    def to_code_point(self, u16: int) -> int:
        """Code-point offset of UTF-16 offset ``u16``; an offset inside a surrogate pair rounds down."""
        if self._identity:
            return min(max(int(u16), 0), self.length)
        offsets = self.offsets
        u16 = min(max(int(u16), 0), int(offsets[-1]))
        return int(np.searchsorted(offsets, u16, side="right")) - 1

    def to_utf16_array(self, cps: np.ndarray) -> np.ndarray:
        """Vectorised :meth:`to_utf16` for an array of code-point offsets."""
        cps = np.asarray(cps, dtype=np.int64)
        return cps.copy() if self._identity else self.offsets[cps]


def plain_text_from_raw(raw: str) -> str:
    """The exact text of a QTextDocument from its ``toRawText()``: block separators become newlines.

    ``toPlainText()`` would also turn no-break spaces into spaces, which changes the tokens.
    """
    return raw.replace(PARAGRAPH_SEPARATOR, "\n")


def normalize_newlines(text: str) -> str:
    """Line endings as the editor stores them: CRLF and lone CR become LF."""
    return text.replace("\r\n", "\n").replace("\r", "\n")
