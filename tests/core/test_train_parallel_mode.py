"""``train_iter(parallel=...)``: when pre-tokens are counted in worker processes.

A GUI counts a custom pattern in processes even for a small corpus, so that cancel can terminate
them in the middle of a regex call; the result must not depend on where the counting ran.
"""

from __future__ import annotations

import threading

import pytest

from tokviz.core.errors import Cancelled, InvalidArgument
from tokviz.core.training.train import PARALLEL_MODES, train_iter

CUSTOM = r"\w+|\s+|[^\w\s]+"


def _run(text: str, pretokenizer: str, parallel: str, workers: int | None = None):
    gen = train_iter(
        text=text,
        vocab_size=300,
        pretokenizer=pretokenizer,
        parallel=parallel,
        workers=workers,
        tie_break="first-seen",
    )
    while True:
        try:
            next(gen)
        except StopIteration as stop:
            return stop.value


@pytest.mark.slow
@pytest.mark.parametrize("pretokenizer", [CUSTOM, "gpt2", "none"])
@pytest.mark.parametrize("workers", [1, 2])
def test_counting_in_processes_gives_the_same_merges(english_text, pretokenizer, workers):
    text = english_text[:20_000]
    here = _run(text, pretokenizer, "never")
    there = _run(text, pretokenizer, "always", workers)
    assert there.merges == here.merges and there.vocab == here.vocab
    assert _run(text, pretokenizer, "auto").merges == here.merges


def test_an_unknown_mode_is_refused_at_the_call():
    assert PARALLEL_MODES == ("auto", "always", "never")
    with pytest.raises(InvalidArgument, match="parallel= must be one of auto, always, never"):
        train_iter(text="the cat", vocab_size=300, parallel="sometimes")


def test_a_cancelled_run_in_processes_raises_cancelled():
    flag = threading.Event()
    flag.set()
    gen = train_iter(
        text="the cat " * 100, vocab_size=300, pretokenizer=CUSTOM, parallel="always", cancel=flag
    )
    with pytest.raises(Cancelled):
        list(gen)
