"""Regex dialects: Python ``regex`` patterns as Oniguruma (Hugging Face ``tokenizers``) reads them.

Used when writing a ``tokenizer.json`` (:mod:`.hf_json`) and when naming the Split pattern of one
that was read (:mod:`.hf_engine`).
"""

from __future__ import annotations

import regex

from ..errors import ExportError, TokenizerLoadError
from ..pretok.regex_scan import scan_pattern

__all__ = ["from_oniguruma", "to_oniguruma"]


def to_oniguruma(pattern: str) -> str:
    """Rewrite a Python ``regex`` pattern for Oniguruma (HF tokenizers) with the same matches.

    Python's ``$`` (end, or before a final newline) is Oniguruma's ``\\Z``; Python's ``\\Z`` is
    Oniguruma's ``\\z``. Oniguruma reads ``X{n,m}+`` as a repeat, not a possessive interval;
    at the end of a top-level alternative possessiveness changes nothing, so the ``+`` is dropped
    there and refused anywhere else.
    """
    if regex.compile(pattern).flags & regex.MULTILINE:
        raise ExportError("cannot write tokenizer.json: the pre-tokenizer regex uses the multiline flag")
    pieces = scan_pattern(pattern)
    out: list[str] = []
    for k, (kind, piece, _depth) in enumerate(pieces):
        if kind == "esc" and piece == "\\Z":
            out.append("\\z")
        elif kind == "char" and piece == "$":
            out.append("\\Z")
        elif kind == "char" and piece == "+" and k > 0 and pieces[k - 1][0] == "interval":
            after = pieces[k + 1] if k + 1 < len(pieces) else None
            if after is not None and not (after[:2] == ("char", "|") and after[2] == 0):
                raise ExportError(
                    f"cannot write tokenizer.json: Oniguruma reads the possessive {pieces[k - 1][1]}+ "
                    "as a repeat; write the pattern without that +"
                )
        else:
            out.append(piece)
    return "".join(out)


def from_oniguruma(pattern: str) -> str:
    """The inverse of :func:`to_oniguruma` for the anchors: ``\\z`` -> ``\\Z``, ``\\Z`` -> ``$``,
    Oniguruma's line-end ``$`` -> ``(?m:$)``. ``X{n,m}+`` (a repeat there) is refused."""
    out: list[str] = []
    pieces = scan_pattern(pattern)
    for k, (kind, piece, _depth) in enumerate(pieces):
        if kind == "esc" and piece == "\\z":
            out.append("\\Z")
        elif kind == "esc" and piece == "\\Z":
            out.append("$")
        elif kind == "char" and piece == "$":
            out.append("(?m:$)")
        elif kind == "char" and piece == "+" and k > 0 and pieces[k - 1][0] == "interval":
            raise TokenizerLoadError(
                f"the Split regex uses {pieces[k - 1][1]}+, which Oniguruma reads as a repeat; "
                "tokviz cannot match it"
            )
        else:
            out.append(piece)
    return "".join(out)
