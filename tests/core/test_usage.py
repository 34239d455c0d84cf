"""What a vocabulary uses on held-out text, which merges never fire, and how two merge lists differ."""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pytest
import tiktoken

from tokviz.core.analysis.usage import (
    count_files,
    count_tokens,
    diff_merges,
    file_usage,
    step_of_index,
    undertrained_score,
    vocabulary_usage,
)
from tokviz.core.bpe.tokenizer import Tokenizer
from tokviz.core.errors import ArgumentTypeError, Cancelled, CorpusError
from tokviz.core.formats.registry import load_tokenizer
from tokviz.core.training.train import train_bpe


@pytest.fixture(scope="module")
def pair(english_text: str) -> tuple[Tokenizer, Tokenizer]:
    """A small and a large vocabulary trained on the same text: the small one's merges are a prefix."""
    train = english_text[:120_000]
    small = train_bpe(text=train, vocab_size=450, special_tokens=["<|endoftext|>"]).tokenizer("small")
    large = train_bpe(text=train, vocab_size=800, special_tokens=["<|endoftext|>"]).tokenizer("large")
    return small, large


@pytest.fixture(scope="module")
def held_out(english_text: str) -> str:
    return english_text[150_000:190_000]


def test_counts_equal_tiktoken_on_gpt2(held_out: str, gpt2_tiktoken: tiktoken.Encoding) -> None:
    counts = count_tokens(load_tokenizer("gpt2"), [held_out, "hello world"])

    expected = np.bincount(
        gpt2_tiktoken.encode_ordinary(held_out) + gpt2_tiktoken.encode_ordinary("hello world")
    )
    assert counts.tokens == expected.sum()
    assert np.array_equal(counts.counts[: len(expected)], expected)
    assert counts.documents == 2
    assert counts.bytes == len(held_out.encode()) + 11


def test_headline_counts_the_tokens_used_of_the_whole_vocabulary(
    pair: tuple[Tokenizer, Tokenizer], held_out: str
) -> None:
    _, large = pair
    usage = vocabulary_usage(large, [held_out])

    ids = set(large.encode_ordinary(held_out))
    assert usage.used == len(ids)
    assert usage.vocabulary == large.vocab_size == 800  # the size it was trained for, the special token too
    assert usage.headline() == f"{len(ids):,} of 800 tokens used ({round(100 * usage.share)}%)"
    assert set(usage.used_ids.tolist()) == ids
    assert len(usage.used_ids) + len(usage.unused_ids) == usage.vocabulary
    assert large.special_tokens["<|endoftext|>"] in usage.unused_ids  # plain text never produces it


def test_never_applied_merges_equal_an_exact_trace_of_the_encoder(
    pair: tuple[Tokenizer, Tokenizer], held_out: str
) -> None:
    _, large = pair
    firing = vocabulary_usage(large, [held_out]).merge_firing()

    applied: set[int] = set()
    for chunk in large.pretokenizer.split(held_out):
        applied.update(large.trace_chunk(chunk.encode())[1])
    assert firing.never_applied.tolist() == sorted(set(range(large.merge_count)) - applied)
    made_in_output = {large.merge_rank_of_id[i] for i in large.encode_ordinary(held_out) if i >= 256}
    assert firing.never_final.tolist() == sorted(set(range(large.merge_count)) - made_in_output)
    # Every merge never applied is also never final, not the other way round.
    assert set(firing.never_applied) < set(firing.never_final)


def test_undertrained_tokens_are_long_and_rare_longest_unused_first() -> None:
    tok = train_bpe(text="=" * 64 + " the cat " * 50, vocab_size=300, pretokenizer="gpt2").tokenizer()
    usage = vocabulary_usage(tok, ["the cat sat on the mat"])

    top = usage.undertrained(top=3)
    assert top[0].data == b"=" * 64 and top[0].count == 0 and top[0].score == 64
    assert top[0].step == step_of_index(tok.merge_rank_of_id[top[0].id])
    assert [t.score for t in top] == sorted((t.score for t in top), reverse=True)
    assert all(t.data != b" cat" for t in usage.undertrained())  # used and short: not suspicious


def test_undertrained_score_halves_for_a_token_seen_once() -> None:
    assert undertrained_score(16, 0) == 16
    assert undertrained_score(16, 1) == 8
    assert undertrained_score(16, 3) == pytest.approx(16 / 3)


def test_length_histogram_adds_up(pair: tuple[Tokenizer, Tokenizer], held_out: str) -> None:
    _, large = pair
    usage = vocabulary_usage(large, [held_out])
    hist = usage.length_histogram()

    assert hist.vocabulary.sum() == usage.vocabulary - 1  # the special token has no place here
    assert hist.used.sum() == usage.used
    assert hist.occurrences.sum() == usage.counted.tokens
    assert hist.vocabulary[0] == 256  # every single byte
    buckets = hist.buckets(last=4)
    assert [b[0] for b in buckets] == ["1", "2", "3", "4+"]
    assert sum(b[1] for b in buckets) == usage.vocabulary - 1


def test_files_are_counted_like_their_texts(tmp_path: Path, held_out: str) -> None:
    gpt2 = load_tokenizer("gpt2")
    plain = tmp_path / "a.txt"
    plain.write_text(held_out, encoding="utf-8")
    packed = tmp_path / "b.txt.gz"
    packed.write_bytes(gzip.compress(b"second document"))

    from_files = count_files(gpt2, [plain, packed])
    from_texts = count_tokens(gpt2, [held_out, "second document"])
    assert np.array_equal(from_files.counts, from_texts.counts)
    assert (from_files.documents, from_files.bytes) == (2, from_texts.bytes)
    assert file_usage(gpt2, [plain]).used == vocabulary_usage(gpt2, [held_out]).used


def test_a_long_text_is_cut_only_where_chunking_cannot_change(gpt2_tiktoken: tiktoken.Encoding) -> None:
    text = "word  and  more words\n\n" * 150_000  # over a megabyte: counted in parts
    counts = count_tokens(load_tokenizer("gpt2"), [text])
    assert counts.tokens == len(gpt2_tiktoken.encode_ordinary(text))


def test_bad_input_gets_one_clear_error(tmp_path: Path) -> None:
    gpt2 = load_tokenizer("gpt2")
    with pytest.raises(ArgumentTypeError, match=r"\[text\]"):
        count_tokens(gpt2, "just a string")  # the mistake under test
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"ok \xff")
    with pytest.raises(CorpusError, match="not valid UTF-8"):
        count_files(gpt2, [bad])
    with pytest.raises(CorpusError, match="cannot read"):
        count_files(gpt2, [tmp_path / "missing.txt"])
    with pytest.raises(Cancelled):
        count_tokens(gpt2, ["a", "b"], cancel=lambda: True)


def test_diff_of_a_vocabulary_and_its_larger_sibling(pair: tuple[Tokenizer, Tokenizer]) -> None:
    small, large = pair
    diff = diff_merges(small, large, "small", "large")

    assert diff.is_prefix
    assert diff.common_prefix == small.merge_count
    assert diff.summary() == (
        f"the {small.merge_count:,} merges of small are the first {small.merge_count:,} of the "
        f"{large.merge_count:,} of large"
    )
    assert diff.only_a == [] and diff.shifts == []
    assert [s for s, _ in diff.only_b] == list(range(small.merge_count + 1, large.merge_count + 1))
    assert diff.tokens_only_a == []
    assert diff.tokens_only_b[0] == b"".join(large.merges[small.merge_count])


def test_diff_finds_first_divergence_and_step_shifts() -> None:
    a = [(b"a", b"b"), (b"c", b"d"), (b"e", b"f"), (b"x", b"y")]
    b = [(b"a", b"b"), (b"e", b"f"), (b"c", b"d"), (b"g", b"h")]
    diff = diff_merges(a, b)

    assert diff.common_prefix == 1
    assert diff.first_divergence == (2, (b"c", b"d"), (b"e", b"f"))
    assert diff.shared == 3
    assert [(s.pair, s.step_a, s.step_b, s.shift) for s in diff.shifts] == [
        ((b"c", b"d"), 2, 3, 1),
        ((b"e", b"f"), 3, 2, -1),
    ]
    assert diff.only_a == [(4, (b"x", b"y"))] and diff.only_b == [(4, (b"g", b"h"))]
    assert diff.tokens_only_a == [b"xy"] and diff.tokens_only_b == [b"gh"]
    assert "part at step 2" in diff.summary()


@pytest.mark.oracle
def test_gpt2_and_cl100k_part_at_the_first_merge() -> None:
    diff = diff_merges(load_tokenizer("gpt2"), load_tokenizer("cl100k"))
    assert diff.first_divergence is not None and diff.first_divergence[0] == 1
    assert diff.a_merges == 50_000 and diff.b_merges == 100_000
    assert diff.shared + len(diff.only_a) == 50_000


def test_a_vocabulary_without_merges_compares_by_tokens_only() -> None:
    diff = diff_merges(load_tokenizer("gpt2"), load_tokenizer("bytes"), "GPT-2", "bytes")
    assert diff.summary() == "bytes has no merges (not BPE): only the tokens compare"
    assert len(diff.tokens_only_a) == 50_000 and diff.tokens_only_b == []
