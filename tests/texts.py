"""The lecture's worked examples, spelled once for every test that uses them."""

# Mixed scripts: an emoji GPT-2 splits over three ids, and Chinese (GPT-2: 12 tokens, cl100k: 10).
HELLO = "Hello, 🌍! 你好!"
# The BPE walk-through: three merges take it from 18 tokens to 16, 14, 12.
CAT = "the cat in the hat"
