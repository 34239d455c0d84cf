"""Slow, obviously-correct BPE kept as an oracle: recount every pair each merge, as in the lecture.

It shares no code with tokviz. Pre-tokenization is the published pattern strings (below, written out
as facts, and checked against tiktoken's own definitions in test_train.py) run through ``regex``;
special tokens are cut with the standard library's ``re``, longest first. So a bug in tokviz's
pre-tokenizer, its ASCII fast path or its special-token splitter makes the trainer disagree here.
"""

from __future__ import annotations

import re

import regex

# GPT-2's pattern (tiktoken's r50k_base / gpt2, in the possessive form tiktoken publishes).
GPT2_PATTERN = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s"""
# cl100k_base's pattern.
CL100K_PATTERN = r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
PUBLISHED_PATTERNS = {"gpt2": GPT2_PATTERN, "cl100k": CL100K_PATTERN}


def reference_pretokenize(text: str, pretokenizer: str) -> list[str]:
    """Chunks of ``text``: ``none`` keeps it whole; a pattern's matches, with unmatched text as chunks too."""
    if not text:
        return []
    if pretokenizer == "none":
        return [text]
    pattern = regex.compile(PUBLISHED_PATTERNS.get(pretokenizer, pretokenizer))
    chunks: list[str] = []
    done = 0
    for m in pattern.finditer(text):
        if m.end() == m.start():
            continue  # an empty match cuts nothing
        if m.start() > done:
            chunks.append(text[done : m.start()])
        chunks.append(m.group())
        done = m.end()
    if done < len(text):
        chunks.append(text[done:])
    return chunks


def reference_split_specials(text: str, specials: list[str]) -> list[tuple[str, bool]]:
    """``(piece, is_special)`` in order; at each place the longest special token that matches wins."""
    names = sorted({s for s in specials if s}, key=len, reverse=True)
    if not names:
        return [(text, False)] if text else []
    parts = re.split("(" + "|".join(map(re.escape, names)) + ")", text)
    # re.split with one group alternates text, special, text, ...: odd indices are the specials.
    return [(part, i % 2 == 1) for i, part in enumerate(parts) if part]


def reference_documents(text: str, specials: list[str]) -> list[str]:
    """The text between special tokens (the specials themselves are not text)."""
    return [part for part, special in reference_split_specials(text, specials) if not special]


def reference_chunks(documents: list[str], specials: list[str], pretokenizer: str) -> list[list[int]]:
    """The corpus as the lecture sees it: one byte list per pre-token chunk, in corpus order."""
    chunks: list[list[int]] = []
    for doc in documents:
        for part in reference_documents(doc, specials):
            for chunk in reference_pretokenize(part, pretokenizer):
                chunks.append(list(chunk.encode("utf-8")))
    return chunks


def replace_pair(seq: list[int], pair: tuple[int, int], new_id: int) -> list[int]:
    """Replace non-overlapping occurrences of ``pair`` left to right."""
    out: list[int] = []
    i = 0
    while i < len(seq):
        if i + 1 < len(seq) and (seq[i], seq[i + 1]) == pair:
            out.append(new_id)
            i += 2
        else:
            out.append(seq[i])
            i += 1
    return out


def reference_train(
    documents: list[str],
    vocab_size: int,
    specials: list[str] | None = None,
    pretokenizer: str = "gpt2",
    tie_break: str = "lexicographic",
) -> tuple[dict[int, bytes], list[tuple[bytes, bytes]], list[int]]:
    """Return (vocab, merges, counts of the merged pairs)."""
    specials = specials or []
    chunks = reference_chunks(documents, specials, pretokenizer)
    vocab = {i: bytes([i]) for i in range(256)}
    merges: list[tuple[bytes, bytes]] = []
    merged_counts: list[int] = []
    for step in range(vocab_size - 256 - len(specials)):
        counts: dict[tuple[int, int], int] = {}
        for chunk in chunks:
            for pair in zip(chunk, chunk[1:]):
                counts[pair] = counts.get(pair, 0) + 1
        if not counts:
            break
        if tie_break == "first-seen":
            best = max(counts, key=lambda p: counts[p])  # max keeps the first seen among equals
        else:
            best = max(counts, key=lambda p: (counts[p], vocab[p[0]], vocab[p[1]], -p[0], -p[1]))
        new_id = 256 + step
        vocab[new_id] = vocab[best[0]] + vocab[best[1]]
        merges.append((vocab[best[0]], vocab[best[1]]))
        merged_counts.append(counts[best])
        chunks = [replace_pair(c, best, new_id) for c in chunks]
    for s in specials:
        vocab[len(vocab)] = s.encode("utf-8")
    return vocab, merges, merged_counts


def reference_encode(
    text: str, merges: list[tuple[bytes, bytes]], pretokenizer: str, specials: list[str] | None = None
) -> list[bytes]:
    """Encode by replaying every merge in order over each chunk (the lecture's encoder), as bytes.

    A special token stays whole: it is one token whose bytes are its UTF-8.
    """
    out: list[bytes] = []
    for piece, special in reference_split_specials(text, specials or []):
        if special:
            out.append(piece.encode("utf-8"))
            continue
        for chunk in reference_pretokenize(piece, pretokenizer):
            parts = [bytes([b]) for b in chunk.encode("utf-8")]
            for left, right in merges:
                i = 0
                merged: list[bytes] = []
                while i < len(parts):
                    if i + 1 < len(parts) and parts[i] == left and parts[i + 1] == right:
                        merged.append(left + right)
                        i += 2
                    else:
                        merged.append(parts[i])
                        i += 1
                parts = merged
            out.extend(parts)
    return out
