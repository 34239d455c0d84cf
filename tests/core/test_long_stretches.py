"""Long stretches: no encoder is ever handed a pre-token longer than the bound, and everything else
encodes exactly as tiktoken does.

tiktoken merges a pre-token in one native call whose memory grows with it (a 200 MB line asked for
6.4 GB and aborted the process). The bound is shrunk here to a few characters so that ordinary
short texts exercise every path: tokviz must cut each longer pre-token into the pieces training
counts, and leave every text without one exactly as tiktoken encodes it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from unittest import mock

import pytest
import tiktoken
from hypothesis import given, settings
from hypothesis import strategies as st

from tokviz.core import train_bpe
from tokviz.core.bpe import native_bpe, tokenizer
from tokviz.core.formats.registry import builtin_tokenizer
from tokviz.core.pretok import pretokenize, stretches
from tokviz.core.pretok.pretokenize import LONGEST_PRETOKEN, reference_bound, resolve_pretokenizer
from tokviz.core.pretok.stretches import CutCount, PartCutter, PieceMemo, counting_cuts, space_windows

SMALL = 6
# Words, runs of one letter, digits, punctuation and spaces, newlines and non-ASCII letters:
# every kind of pre-token the published patterns make, long and short.
texts = st.lists(
    st.sampled_from(list("ab 1-.\n\t\r'éA你") + ["  ", "aaaaaaaaaaaaa", "--------", "1234567890"]),
    max_size=30,
).map("".join)


@contextlib.contextmanager
def shrunk_bound() -> Iterator[int]:
    """The pre-token bound shrunk to :data:`SMALL` characters everywhere it is read."""
    with contextlib.ExitStack() as stack:
        for module in (pretokenize, stretches, native_bpe):
            stack.enter_context(mock.patch.object(module, "LONGEST_PRETOKEN", SMALL))
        yield SMALL


@pytest.fixture
def small_bound() -> Iterator[int]:
    with shrunk_bound() as bound:
        yield bound


@pytest.fixture(scope="module")
def published(
    gpt2_tiktoken: tiktoken.Encoding, cl100k_tiktoken: tiktoken.Encoding, o200k_tiktoken: tiktoken.Encoding
) -> dict[str, tiktoken.Encoding]:
    """tiktoken's own encodings of the published patterns, the reference."""
    return {"gpt2": gpt2_tiktoken, "cl100k": cl100k_tiktoken, "o200k": o200k_tiktoken}


def bounded_reference(encoding: tiktoken.Encoding, name: str, text: str) -> list[int]:
    """tiktoken's ids with each pre-token longer than :data:`SMALL` merged in pieces of that length."""
    out: list[int] = []
    for chunk in reference_bound(resolve_pretokenizer(name)).split(text):
        for i in range(0, len(chunk), SMALL):
            out += encoding._encode_single_piece(chunk[i : i + SMALL].encode("utf-8"))
    return out


@pytest.mark.parametrize("name", ["gpt2", "cl100k", "o200k"])
@settings(max_examples=150, deadline=None)
@given(text=texts)
def test_long_pretokens_are_merged_in_pieces_and_the_rest_exactly(
    published: dict[str, tiktoken.Encoding], name: str, text: str
) -> None:
    with shrunk_bound():
        tok = builtin_tokenizer(name)
        expected = bounded_reference(published[name], name, text)
        assert tok.encode_ordinary(text) == expected
        pretokens = reference_bound(tok.pretokenizer).split(text)
        if all(len(p) <= SMALL for p in pretokens):
            assert expected == published[name].encode_ordinary(text)


@pytest.mark.parametrize("name", ["gpt2", "cl100k", "o200k"])
def test_tiktoken_never_sees_a_pretoken_longer_than_the_bound(
    name: str, small_bound: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    tok = builtin_tokenizer(name)
    pre = reference_bound(tok.pretokenizer)
    longest: list[int] = []
    whole, single = tiktoken.Encoding.encode_ordinary, tiktoken.Encoding._encode_single_piece

    def watched_whole(encoding: tiktoken.Encoding, text: str) -> list[int]:
        longest.append(max((len(p) for p in pre.split(text)), default=0))
        return whole(encoding, text)

    def watched_single(encoding: tiktoken.Encoding, data: bytes) -> list[int]:
        longest.append(len(data.decode("utf-8")))
        return single(encoding, data)

    monkeypatch.setattr(tiktoken.Encoding, "encode_ordinary", watched_whole)
    monkeypatch.setattr(tiktoken.Encoding, "_encode_single_piece", watched_single)
    text = ("word " * 3 + "x" * 40 + " " * 30 + "7" * 25 + "-" * 17 + " tail\n") * 4

    with counting_cuts() as cuts:
        ids = tok.encode(text)

    assert tok.decode(ids) == text
    assert longest and max(longest) <= small_bound
    assert cuts.pretokens >= 4


def test_a_trained_model_and_a_none_model_cut_their_long_pretokens_alike(small_bound: int) -> None:
    for pretokenizer in ("gpt2", "none", r"\w+|\W"):
        tok = train_bpe(
            text="aaaa abab abab aaaa " * 20, vocab_size=262, pretokenizer=pretokenizer
        ).tokenizer()
        text = "ab" * 60 + " " + "a" * 130  # longer than the chunks the Python encoder keeps whole

        with counting_cuts() as cuts:
            ids = tok.encode(text)

        assert tok.decode(ids) == text
        assert cuts.pretokens >= 1
        # Every merge through the Python encoder (the replay's): the same pieces, the same ids.
        assert tok.encode_with_merges(text, tok.merge_count) == ids


def test_space_windows_tile_the_text_and_mark_only_long_stretches() -> None:
    long_run = "x" * (LONGEST_PRETOKEN + 10)
    text = "a few words " * 10_000 + long_run + " more words here" * 3

    windows = list(space_windows(text))

    assert "".join(text[s:e] for s, e, _ in windows) == text
    assert [exact for _, _, exact in windows].count(False) == 1
    [(start, end)] = [(s, e) for s, e, exact in windows if not exact]
    assert long_run in text[start:end]
    assert end - start < len(long_run) + 20


@settings(max_examples=200, deadline=None)
@given(
    pieces=st.lists(st.text(alphabet="ab <>|", max_size=30), max_size=12),
    part_size=st.integers(1, 20),
    longest=st.integers(1, 25),
)
def test_a_part_cutter_gives_back_the_text_in_bounded_parts(
    pieces: list[str], part_size: int, longest: int
) -> None:
    def rule(buffer: str) -> int:
        return max(buffer.rfind("|", 0, len(buffer) - 1), 0)

    count = CutCount()
    parts = list(PartCutter(rule, part_size, longest, 1, count).parts(pieces))

    assert "".join(parts) == "".join(pieces)
    assert all(p for p in parts)
    forced = [p for p in parts if "|" not in p[1:] and len(p) == longest]
    assert count.stretches <= len(parts)
    assert len(forced) >= count.stretches
    assert all(len(p) <= max(longest, part_size) + 2 * 30 for p in parts)


def test_a_repeated_long_piece_is_merged_once() -> None:
    memo = PieceMemo()
    merged: list[str] = []

    def merge(piece: str) -> list[int]:
        merged.append(piece)
        return [len(piece)]

    ids = [memo.ids(p, merge) for p in ["ab" * 10, "ba" * 10, "ab" * 10] * 50]

    assert merged == ["ab" * 10, "ba" * 10]
    assert ids[:3] == [[20], [20], [20]]
    for k in range(PieceMemo.SIZE):
        memo.ids(str(k), merge)
    memo.ids("ab" * 10, merge)
    assert merged[-1] == "ab" * 10  # forgotten after SIZE others: memory stays a few pieces


def test_encoding_blocks_cuts_a_line_without_safe_places_and_counts_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(tokenizer, "LONGEST_ENCODED_PART", 1000)
    tok = builtin_tokenizer("gpt2")
    line = "ab" * 2600

    with counting_cuts() as cuts:
        blocks = list(tok.encode_blocks([line[:3000], line[3000:]], 100))

    assert "".join(text for text, _ in blocks) == line
    assert max(len(text) for text, _ in blocks) == 1000
    assert cuts.stretches == 5
    note = cuts.note(1000)
    assert note is not None and "5 stretches" in note and "cut every 1,000 characters" in note


def test_nested_counts_each_see_the_cuts_made_inside_them() -> None:
    text = "q" * (LONGEST_PRETOKEN * 2 + 5)
    tok = builtin_tokenizer("cl100k")
    with counting_cuts() as outer:
        with counting_cuts() as inner:
            tok.encode(text)
        tok.encode(text)
    assert (inner.pretokens, outer.pretokens) == (1, 2)
    assert CutCount().note() is None
