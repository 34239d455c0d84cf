"""The lecture's worked examples and their expected results, spelled once for every test that uses them."""

# Mixed scripts: an emoji GPT-2 splits over three ids, and Chinese (GPT-2: 12 tokens, cl100k: 10).
HELLO = "Hello, 🌍! 你好!"
# The BPE walk-through: three merges take it from 18 tokens to 16, 14, 12.
CAT = "the cat in the hat"

# The lecture's table: what training on CAT learns with no pre-tokenizer, ties going to the pair
# seen first, one row a merge: (left, right, new id, times the pair occurs, tokens after it).
CAT_TABLE = [
    (b"t", b"h", 256, 2, 16),
    (b"th", b"e", 257, 2, 14),
    (b"the", b" ", 258, 2, 12),
]
CAT_MERGES = [(left, right) for left, right, *_ in CAT_TABLE]
# CAT's token count at steps 0 to 3: its 18 bytes, then the count after each merge.
CAT_TOKEN_COUNTS = [len(CAT.encode()), *(after for *_, after in CAT_TABLE)]
# CAT after the three merges, token by token.
CAT_TOKENS = [b"the ", b"c", b"a", b"t", b" ", b"i", b"n", b" ", b"the ", b"h", b"a", b"t"]
