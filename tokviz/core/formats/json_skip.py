"""Where a JSON array or object ends, found with array operations and without building it.

A model file may list its merges (millions of them) before the vocabulary that bounds them.
Reading such a list item by item only to find where it ends costs seconds for a list that is
refused the moment the vocabulary is known; :func:`bracket_end` finds the end at the speed of
numpy's array operations, a block of the text at a time, in memory bounded by the block.
"""

from __future__ import annotations

BLOCK_CHARS = 2**18
"""The characters looked at in one step (a few MB of arrays)."""

_BACKSLASH, _QUOTE = ord("\\"), ord('"')
_OPENERS, _CLOSERS = (ord("["), ord("{")), (ord("]"), ord("}"))


def bracket_end(text: str, start: int, block_chars: int = BLOCK_CHARS) -> int | None:
    """The position just after the array or object whose ``[`` or ``{`` is at ``start``, or
    ``None`` when the text ends first (``block_chars``: the characters looked at in one step).

    Brackets inside strings are passed over (a quote after an odd run of backslashes is part of
    its string). Nothing else is checked: the caller reads the value exactly once it needs it,
    and for valid JSON the end found here is the end that reading finds.
    """
    import numpy as np

    depth = 0  # brackets open before the block
    quotes = 0  # parity of the quotes that open or close a string before the block
    backslashes = 0  # the run of backslashes that ends the previous block
    pos = start
    while pos < len(text):
        block = text[pos : pos + block_chars]
        if block.isascii():
            codes = np.frombuffer(block.encode("ascii"), dtype=np.uint8)
        else:
            codes = np.frombuffer(block.encode("utf-32-le", "surrogatepass"), dtype="<u4")
        at = np.arange(len(codes))
        is_backslash = codes == _BACKSLASH
        # Backslashes in the run ending at each position (the previous block's run continues).
        run = at - np.maximum.accumulate(np.where(is_backslash, -1 - backslashes, at))
        before = np.concatenate(([backslashes], run[:-1]))
        parity = (np.cumsum((codes == _QUOTE) & (before % 2 == 0)) + quotes) % 2
        outside = parity == 0
        opens = ((codes == _OPENERS[0]) | (codes == _OPENERS[1])) & outside
        closes = ((codes == _CLOSERS[0]) | (codes == _CLOSERS[1])) & outside
        level = depth + np.cumsum(opens.astype(np.int64) - closes)
        ends = np.flatnonzero(closes & (level == 0))
        if ends.size:
            return pos + int(ends[0]) + 1
        depth, quotes, backslashes = int(level[-1]), int(parity[-1]), int(run[-1])
        pos += len(codes)
    return None
