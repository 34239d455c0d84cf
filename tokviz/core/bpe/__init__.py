"""Byte-level BPE encoding: the tokenizer, rank rules, merges, streaming decode, the lecture's naive tokenizers."""
