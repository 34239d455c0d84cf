"""Where a text can be cut so that encoding the two sides apart gives exactly the whole encoding.

Live editors re-encode only a window around an edit and streaming encoders emit what lies before
a cut; both rely on these rules. For the named GPT-2 and cl100k patterns a chunk boundary always
lies before a space that follows a non-space, and after a lone newline between two non-spaces;
the chunking on each side depends on nothing across the cut (the tests check every cut).
"""

from __future__ import annotations

import regex

from .pretokenize import NAMED_PATTERNS
from .tokenizer import Tokenizer

SAFE_CUT_PATTERN = r"(?<=\S) |(?<=\S\n)(?=\S)"
_FORWARD = regex.compile(SAFE_CUT_PATTERN)
_BACKWARD = regex.compile(r"(?r)" + SAFE_CUT_PATTERN)


def cut_mode(tokenizer: Tokenizer) -> str:
    """How texts may be cut for this tokenizer: ``"space"`` (named patterns), ``"any"`` or ``"none"``.

    ``"any"``: no merges and no chunking rule (the byte tokenizer), so every position is a token
    boundary. ``"none"``: a custom pattern or whole-document BPE, so only the whole text is exact.
    A special token containing a space could straddle a cut, so it also means ``"none"``.
    """
    specials = tokenizer.special_tokens
    pre = tokenizer.pretokenizer
    if not tokenizer.is_bpe and pre.pattern is None and not specials:
        return "any"
    if any(" " in s or "\n" in s for s in specials):
        return "none"
    if pre.name in NAMED_PATTERNS and pre.pattern is not None and pre.pattern == NAMED_PATTERNS[pre.name]:
        return "space"
    return "none"


def last_cut_before(text: str, pos: int) -> int:
    """The last safe cut at or before ``pos`` (0 when there is none)."""
    m = _BACKWARD.search(text, 0, pos)
    return m.start() if m else 0


def first_cut_after(text: str, pos: int) -> int:
    """The first safe cut at or after ``pos`` (the end of the text when there is none)."""
    if pos > len(text):
        return len(text)
    m = _FORWARD.search(text, pos)
    return m.start() if m else len(text)
