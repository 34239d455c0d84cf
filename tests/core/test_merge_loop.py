"""The compiled merge loop against the pure-Python one, its oracle: the same merges, vocabulary and
history (counts, tokens after, ties and tied pairs), step for step, on every kind of corpus."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import replace
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tokviz.core.bpe.merges import MergeStep
from tokviz.core.errors import Cancelled
from tokviz.core.training.counts import count_corpus, train_from_counts
from tokviz.core.training.mergeloop import PURE_ENV, PureLoop, compiled_module, loop_name, new_loop
from tokviz.core.training.train import TIE_RULES, TrainResult, train_bpe, train_iter

from ..merge_loop import build_in_checkout
from ..strategies import HARD_SAMPLE, hard_text
from ..texts import CAT, CAT_MERGES, CAT_TRAINING

SPECIALS = ["<|endoftext|>", "<|pad|>"]
# Trains twice, once on each loop, checks the results agree and returns one.
Both = Callable[[Callable[[], TrainResult]], TrainResult]


@pytest.fixture(scope="module")
def compiled() -> ModuleType:
    """The compiled loop's module. CI must have it; elsewhere a machine without a working C
    compiler (or Python's headers) skips these tests, saying why."""
    why = build_in_checkout()
    module = compiled_module()
    if module is None:
        message = f"the compiled merge loop is not built: {why or 'it does not import'}"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return module


@pytest.fixture
def both(compiled: ModuleType, monkeypatch: pytest.MonkeyPatch) -> Both:
    """Run a training with the pure loop and with the compiled one; assert they agree; return one."""

    def train_twice(train: Callable[[], TrainResult]) -> TrainResult:
        monkeypatch.setenv(PURE_ENV, "1")
        assert loop_name().startswith("pure Python")
        pure = train()
        monkeypatch.delenv(PURE_ENV)
        assert loop_name() == "compiled"
        fast = train()
        assert_same(pure, fast)
        return fast

    return train_twice


def assert_same(pure: TrainResult, fast: TrainResult) -> None:
    assert fast.merges == pure.merges
    assert fast.vocab == pure.vocab
    assert fast.history == pure.history  # counts, tokens after, ties and tied pairs of every step
    assert fast.stop_reason == pure.stop_reason
    assert fast.initial_tokens == pure.initial_tokens


def drain(loop: Any, limit: int) -> list[MergeStep]:
    """Every merge of ``loop`` up to ``limit``, one batch after another."""
    out: list[MergeStep] = []
    while len(out) < limit and not loop.exhausted:
        out.extend(loop.run(limit - len(out), 0.0))
    return out


@pytest.mark.parametrize("tie_break", TIE_RULES)
def test_the_lecture_example_trains_the_same_on_both_loops(both: Both, tie_break: str) -> None:
    result = both(lambda: train_bpe(text=CAT, vocab_size=259, pretokenizer="none", tie_break=tie_break))
    if tie_break == CAT_TRAINING["tie_break"]:
        assert [(m.left, m.right) for m in result.history] == [(m.left, m.right) for m in CAT_MERGES]


@pytest.mark.parametrize("tie_break", TIE_RULES)
@pytest.mark.parametrize("pretokenizer", ["gpt2", "cl100k", "none"])
def test_real_text_trains_the_same_on_both_loops(
    both: Both, english_text: str, pretokenizer: str, tie_break: str
) -> None:
    text = english_text[:40_000]
    result = both(
        lambda: train_bpe(text=text, vocab_size=900, pretokenizer=pretokenizer, tie_break=tie_break)
    )
    assert any(m.ties > 1 for m in result.history)


@pytest.mark.oracle
@pytest.mark.parametrize("tie_break", TIE_RULES)
def test_hard_text_with_specials_trains_the_same_until_no_pair_is_left(both: Both, tie_break: str) -> None:
    text = HARD_SAMPLE + "<|endoftext|>" + HARD_SAMPLE[::-1] + "<|pad|>aaaa" * 50
    result = both(lambda: train_bpe(text=text, vocab_size=5000, special_tokens=SPECIALS, tie_break=tie_break))
    assert result.stop_reason is not None  # ran out of pairs: both loops stop at the same step


@pytest.mark.parametrize("tie_break", TIE_RULES)
def test_a_count_table_trains_the_same_on_both_loops(both: Both, english_text: str, tie_break: str) -> None:
    table = count_corpus(text=english_text[:60_000] * 3, special_tokens=SPECIALS, workers=1)
    assert max(table.counts.values()) > 1  # weighted words
    both(lambda: train_from_counts(table, 1200, tie_break))


@pytest.mark.parametrize("tie_break", TIE_RULES)
def test_a_long_run_of_one_byte_merges_the_same(both: Both, tie_break: str) -> None:
    """Overlapping pairs (``aaaa``): merged left to right, with the vectorized merges of the pure loop."""
    text = "a" * 5001 + " " + "ab" * 3000 + "b" * 777
    both(lambda: train_bpe(text=text, vocab_size=300, pretokenizer="none", tie_break=tie_break))


def test_counts_past_64_bits_train_with_the_pure_loop(compiled: ModuleType) -> None:
    """The compiled loop keeps counts in 64 bits; a table whose counts could pass that gets the pure one."""
    words = [b"ab", b"abc", b"bc"]
    freqs = [2**62, 2**62, 5]
    assert isinstance(new_loop(words, freqs, "lexicographic"), PureLoop)
    first = drain(new_loop(words, freqs, "lexicographic"), 10)[0]
    tokens = 2 * 2**62 + 3 * 2**62 + 2 * 5
    assert (first.left, first.right, first.count, first.tokens_after) == (b"a", b"b", 2**63, tokens - 2**63)


word_lists = st.lists(
    st.tuples(
        st.one_of(
            st.binary(min_size=1, max_size=12),  # any bytes
            st.binary(min_size=1, max_size=6).map(lambda b: b * 9),  # repeats
            st.builds(
                lambda c, n: bytes([c]) * n, st.integers(0, 255), st.integers(2, 300)
            ),  # runs of one byte
            st.text("ab", min_size=1, max_size=20).map(str.encode),  # few symbols: many ties
        ),
        st.integers(1, 5),
    ),
    min_size=1,
    max_size=40,
)


@pytest.mark.oracle
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(words=word_lists, tie_break=st.sampled_from(TIE_RULES), batch=st.sampled_from([1, 7, 10_000]))
def test_random_words_give_the_same_merge_records(
    compiled: ModuleType, words: list[tuple[bytes, int]], tie_break: str, batch: int
) -> None:
    """The loops themselves on random byte strings with random counts, to the last pair, in any batch size."""
    encoded = [w for w, _ in words]
    freqs = [f for _, f in words]
    pure = drain(PureLoop(encoded, freqs, tie_break), 100_000)
    loop = compiled.Loop(encoded, freqs, tie_break == "first-seen", MergeStep)
    fast: list[MergeStep] = []
    while not loop.exhausted:
        fast.extend(loop.run(batch, 10.0))
    assert fast == pure


# ``both`` sets the loop for each training it runs, so sharing it between examples is safe.
@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(text=hard_text(specials=SPECIALS), tie_break=st.sampled_from(TIE_RULES))
def test_random_text_with_specials_trains_the_same(both: Both, text: str, tie_break: str) -> None:
    both(lambda: train_bpe(text=text + "x", vocab_size=400, special_tokens=SPECIALS, tie_break=tie_break))


def test_a_long_merge_calls_check_and_stops_when_it_raises(compiled: ModuleType) -> None:
    """100,000 sites of one pair: the compiled loop asks ``check`` between blocks of sites."""
    calls: list[int] = []

    def check() -> None:
        calls.append(1)
        if len(calls) == 2:
            raise Cancelled("training was cancelled")

    loop = compiled.Loop([b"ab" * 100_000], [1], False, MergeStep)
    with pytest.raises(Cancelled):
        loop.run(1, 10.0, check)
    assert len(calls) == 2


def test_cancel_between_merges_stops_the_compiled_loop(
    compiled: ModuleType, english_text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cancel set after the fifth merge is reported leaves exactly five merges made."""
    monkeypatch.delenv(PURE_ENV, raising=False)
    merged: list[MergeStep] = []
    cancelled = False

    def cancel() -> bool:
        return cancelled

    gen = train_iter(text=english_text[:20_000], vocab_size=400, cancel=cancel, workers=1, report_every=0)
    with pytest.raises(Cancelled):
        for p in gen:
            merged.extend(p.merges)
            if len(merged) == 5:
                cancelled = True
    assert [m.step for m in merged] == [1, 2, 3, 4, 5]


@pytest.mark.parametrize("tie_break", TIE_RULES)
def test_without_tie_recording_the_compiled_loop_makes_the_same_merges(
    compiled: ModuleType, english_text: str, tie_break: str
) -> None:
    """What the benchmarks compare against: the same merges, counts and tokens after, no ties kept."""
    table = count_corpus(text=english_text[:30_000], workers=1)
    words = [w.encode("utf-8") for w in table.counts]
    freqs = list(table.counts.values())
    first_seen = tie_break == "first-seen"
    kept = compiled.Loop(words, freqs, first_seen, MergeStep).run(600, 1e9)
    bare = compiled.Loop(words, freqs, first_seen, MergeStep, False).run(600, 1e9)
    assert [replace(step, ties=0, tied=()) for step in kept] == bare
    assert any(step.ties > 1 for step in kept)
