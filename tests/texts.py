"""The lecture's worked examples and their expected results, spelled once for every test that uses them."""

from typing import NamedTuple

# Mixed scripts: an emoji GPT-2 splits over three ids, and Chinese (GPT-2: 12 tokens, cl100k: 10).
HELLO = "Hello, 🌍! 你好!"
# The BPE walk-through: trained on itself with no pre-tokenizer and first-seen ties, three merges
# take it from 18 tokens to 16, 14, 12.
CAT = "the cat in the hat"
CAT_TRAINING = {"vocab_size": 259, "pretokenizer": "none", "tie_break": "first-seen"}


class LectureMerge(NamedTuple):
    """One row of the lecture's merge table."""

    left: bytes
    right: bytes
    new_id: int
    count: int  # how often the pair occurs when it is merged
    tokens_after: int  # the text's length in tokens after this merge


CAT_START_TOKENS = 18
CAT_MERGES = [
    LectureMerge(b"t", b"h", 256, 2, 16),
    LectureMerge(b"th", b"e", 257, 2, 14),
    LectureMerge(b"the", b" ", 258, 2, 12),
]
# The token count at each step of the replay: before any merge, then after each.
CAT_TOKEN_COUNTS = [CAT_START_TOKENS] + [merge.tokens_after for merge in CAT_MERGES]
# The same table as plain tuples, (left, right, new id, times the pair occurs, tokens after it),
# the merged pairs alone, and CAT after the three merges, token by token.
CAT_TABLE = [tuple(merge) for merge in CAT_MERGES]
CAT_PAIRS = [(merge.left, merge.right) for merge in CAT_MERGES]
CAT_TOKENS = [b"the ", b"c", b"a", b"t", b" ", b"i", b"n", b" ", b"the ", b"h", b"a", b"t"]
