"""Slow, obviously-correct BPE kept as an oracle: recount every pair each merge, as in the lecture."""

from __future__ import annotations

from tokviz.core.pretokenize import SpecialSplitter, resolve_pretokenizer


def reference_chunks(documents: list[str], specials: list[str], pretokenizer: str) -> list[list[int]]:
    """The corpus as the lecture sees it: one byte list per pre-token chunk, in corpus order."""
    pre = resolve_pretokenizer(pretokenizer)
    splitter = SpecialSplitter(specials)
    chunks: list[list[int]] = []
    for doc in documents:
        for part in splitter.documents(doc):
            for chunk in pre.split(part):
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


def reference_encode(text: str, merges: list[tuple[bytes, bytes]], pretokenizer: str) -> list[bytes]:
    """Encode by replaying every merge in order over each chunk (the lecture's encoder), as bytes."""
    pre = resolve_pretokenizer(pretokenizer)
    out: list[bytes] = []
    for chunk in pre.split(text):
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
