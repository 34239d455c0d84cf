"""How the commands print: token labels, short decimals and plain aligned tables."""

from __future__ import annotations

import json
from collections.abc import Sequence

from tokviz.core.bytes_ import printable_token


def token_label(data: bytes) -> str:
    """Token bytes as visible text: ``printable_token`` glyphs, hex for bytes that are not characters."""
    return printable_token(data, whitespace=True)


def bracket_label(data: bytes) -> str:
    """Token bytes for ``[..]`` lists: spaces stay spaces, control characters are escaped."""
    text = printable_token(data, whitespace=False)
    return text.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")


def quoted_label(data: bytes) -> str:
    """Token bytes in quotes, JSON-escaped, with ``<F0 9F>`` hex for bytes that are not characters."""
    return json.dumps(printable_token(data, whitespace=False), ensure_ascii=False)


def text_or_hex(data: bytes) -> str:
    """The bytes as a string when they are valid UTF-8, else as hex digits (JSON output)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.hex()


def format_ratio(value: float | None, digits: int = 2) -> str:
    """A short decimal: 1.5, 3.25, 12 (no trailing zeros); '-' for None."""
    if value is None:
        return "-"
    text = f"{value:.{digits}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def render_table(headers: Sequence[str], rows: Sequence[Sequence[str]], right: Sequence[bool]) -> str:
    """Plain aligned columns; ``right`` marks the numeric columns."""
    widths = [len(h) for h in headers]
    for row in rows:
        widths = [max(w, len(c)) for w, c in zip(widths, row)]

    def line(cells: Sequence[str]) -> str:
        parts = [c.rjust(w) if r else c.ljust(w) for c, w, r in zip(cells, widths, right)]
        return "  ".join(parts).rstrip()

    return "\n".join([line(headers), *(line(r) for r in rows)])
