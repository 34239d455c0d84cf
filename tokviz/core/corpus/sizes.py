"""How big a corpus is, said truthfully: the bytes of its text and, where they differ, of its files.

Bytes per token divide the input's bytes: the text's UTF-8 after decompression, with an invalid
byte read as U+FFFD counted as the one byte it was in the file (not as the three bytes of U+FFFD).
Files compressed with gzip, bzip2 or xz are smaller on disk than their text, so a size taken from
disk would call 67.2 MB of text "55.98 MB"; :func:`text_and_file_size` says both.
"""

from __future__ import annotations

from collections.abc import Callable


def megabytes_2(n: int) -> str:
    """``67.20 MB``: a size in megabytes (10^6 bytes) with two decimals."""
    return f"{n / 1e6:,.2f} MB"


def text_and_file_size(
    text_bytes: int | None, file_bytes: int, size: Callable[[int], str] = megabytes_2
) -> str:
    """``67.20 MB of text (55.98 MB compressed)``, or ``67.20 MB of text`` when the two agree.

    ``text_bytes`` is None when it was not measured (a count table written before it was
    recorded): the size on disk is then all there is to say, and it is said as such.
    """
    if text_bytes is None:
        return f"{size(file_bytes)} on disk"
    said = f"{size(text_bytes)} of text"
    if file_bytes == text_bytes:
        return said
    kind = "compressed" if file_bytes < text_bytes else "on disk"
    return f"{said} ({size(file_bytes)} {kind})"
