"""Where a text can be cut so that encoding the two sides apart gives exactly the whole encoding.

Live editors re-encode only a window around an edit and streaming encoders emit what lies before
a cut; both rely on these rules. For the named GPT-2 and cl100k patterns a chunk boundary always
lies before a space that follows a non-space, and after a lone newline between two non-spaces;
the chunking on each side depends on nothing across the cut (the tests check every cut).
"""

from __future__ import annotations

from ..pretok.pretokenize import NAMED_PATTERNS, SAFE_CUT_PATTERN, first_cut_after, last_cut_before
from .tokenizer import Tokenizer

__all__ = ["SAFE_CUT_PATTERN", "cut_mode", "first_cut_after", "last_cut_before"]


def cut_mode(tokenizer: Tokenizer) -> str:
    """How texts may be cut for this tokenizer: ``"space"`` (named patterns), ``"any"`` or ``"none"``.

    ``"any"``: no merges and no chunking rule (the byte tokenizer), so every position is a token
    boundary. ``"none"``: a custom pattern or whole-document BPE, so only the whole text is exact.
    A special token containing a space could straddle a cut, so it also means ``"none"``.
    """
    declared = getattr(tokenizer, "declared_cut_mode", None)
    if declared is not None:  # a tokenizer whose engine chunks text itself says what is safe
        return str(declared)
    specials = tokenizer.special_tokens
    pre = tokenizer.pretokenizer
    if not tokenizer.is_bpe and pre.pattern is None and not specials:
        return "any"
    if any(" " in s or "\n" in s for s in specials):
        return "none"
    if pre.name in NAMED_PATTERNS and pre.pattern is not None and pre.pattern == NAMED_PATTERNS[pre.name]:
        return "space"
    return "none"
