"""Every custom pre-tokenizer regex is bounded: a catastrophic pattern is a one-line error, not a hang.

``(a|a)+$`` on forty a's then a ``b`` tries 2**40 ways before it fails. It is caught when the
pattern is resolved (a trial on short hostile texts) and, should a pattern slip past the trial,
when it runs (a time limit that grows with the text). Wall-clock numbers here are only generous
safety nets; the assertions are about what is raised and said.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from tokviz.core import Tokenizer, TokvizError, resolve_pretokenizer, train_bpe, validate_pattern
from tokviz.core.formats.registry import load_tokenizer
from tokviz.core.io.pool_internals import PoolInternals
from tokviz.core.io.procpool import process_alive, stop_pool, worker_pool
from tokviz.core.pretok import pretokenize
from tokviz.core.pretok.pretokenize import PatternTimeoutError, shorten_pattern, time_limit

CATASTROPHIC = r"(a|a)+$"
HOSTILE_TEXT = "a" * 40 + "b"
# Far above the trial's 0.25 s and a short run's limit, far below "hangs".
SAFETY = 20.0


def _one_line(message: str) -> bool:
    return "\n" not in message and len(message) < 300


@pytest.fixture
def no_trial(monkeypatch: pytest.MonkeyPatch) -> None:
    """Skip the up-front trial, so a pattern reaches the per-run limit (kept short here)."""
    monkeypatch.setattr(pretokenize, "_trial_texts", lambda pattern: [])
    monkeypatch.setattr(pretokenize, "PATTERN_TIME_BASE", 0.3)
    pretokenize._checked_pattern.cache_clear()
    yield
    pretokenize._checked_pattern.cache_clear()


def test_a_catastrophic_pattern_is_refused_when_resolved() -> None:
    started = time.monotonic()
    with pytest.raises(PatternTimeoutError) as info:
        resolve_pretokenizer(CATASTROPHIC)
    assert time.monotonic() - started < SAFETY
    message = str(info.value)
    assert isinstance(info.value, TokvizError)
    assert _one_line(message)
    assert "'(a|a)+$'" in message and "takes too long" in message and "catastrophic backtracking" in message


def test_the_as_you_type_check_says_the_same() -> None:
    message = validate_pattern(CATASTROPHIC)
    assert message is not None and "takes too long" in message
    # Patterns built from the pattern's own characters are tried too, not only letters.
    assert "takes too long" in (validate_pattern(r"(?:x|x)+y") or "")
    assert "takes too long" in (validate_pattern(r"(?:;|;)+\d") or "")


def test_ordinary_patterns_pass_the_trial() -> None:
    for pattern in (r"\w+|\S", r"\s+(?!\S)|\S+", r"\p{L}+|\p{N}{1,3}|[^\s\p{L}\p{N}]+|\s+", r"(?i)[a-z]+|."):
        assert validate_pattern(pattern) is None, pattern


def test_a_pattern_that_slips_past_the_trial_stops_at_its_time_limit(no_trial: None) -> None:
    pre = resolve_pretokenizer(CATASTROPHIC)
    started = time.monotonic()
    with pytest.raises(PatternTimeoutError) as info:
        pre.split(HOSTILE_TEXT)
    assert time.monotonic() - started < SAFETY
    assert _one_line(str(info.value))
    assert "'(a|a)+$'" in str(info.value) and "takes too long" in str(info.value)
    with pytest.raises(PatternTimeoutError):
        pre.spans(HOSTILE_TEXT)


def test_a_tokenizer_with_such_a_pattern_stops_encoding(no_trial: None) -> None:
    tok = Tokenizer({i: bytes([i]) for i in range(256)}, [], pretokenizer=CATASTROPHIC)
    with pytest.raises(PatternTimeoutError):
        tok.encode(HOSTILE_TEXT)


@pytest.mark.slow
def test_the_limit_grows_with_the_text_so_long_legitimate_texts_never_reach_it() -> None:
    assert time_limit(1_000_000) > time_limit(1_000) >= pretokenize.PATTERN_TIME_BASE
    text = "the cat in the hat, 123 times! " * 40_000  # 1.2 MB
    pre = resolve_pretokenizer(r"\w+|[^\w\s]+|\s+")
    assert "".join(pre.split(text)) == text


def test_the_named_patterns_are_not_bounded() -> None:
    # GPT-2's and cl100k's patterns are linear: they keep their fast paths with no limit.
    assert not resolve_pretokenizer("gpt2").bounded
    assert not resolve_pretokenizer("cl100k").bounded
    assert resolve_pretokenizer(r"\w+").bounded


def test_messages_shorten_long_patterns_to_one_line() -> None:
    shown = shorten_pattern("a\nb" + "x" * 100)
    assert "\n" not in shown and shown.startswith("'a\\nb") and shown.endswith("\u2026'")
    assert len(shown) <= 42


def test_training_refuses_the_pattern_before_reading_the_corpus() -> None:
    started = time.monotonic()
    with pytest.raises(PatternTimeoutError):
        train_bpe(text=HOSTILE_TEXT, vocab_size=300, pretokenizer=CATASTROPHIC)
    assert time.monotonic() - started < SAFETY


def test_a_model_file_with_the_pattern_is_refused_when_loaded(tmp_path: Path) -> None:
    model = train_bpe(text="the cat in the hat " * 20, vocab_size=270, pretokenizer=r"\w+|\S")
    from tokviz.core.formats import save_model

    path = tmp_path / "hostile.json"
    save_model(path, model.tokenizer("hostile"))
    data = json.loads(path.read_text(encoding="utf-8"))
    data["pretokenizer"] = CATASTROPHIC
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(TokvizError) as info:
        load_tokenizer(str(path))
    assert _one_line(str(info.value)) and "takes too long" in str(info.value)


def test_an_hf_split_pattern_is_bounded_by_the_library(tmp_path: Path) -> None:
    """A tokenizer.json runs its Split in Oniguruma (the tokenizers library encodes it), whose retry
    limit stops the pattern: encoding the hostile text fails fast, in one line."""
    doc = {
        "version": "1.0",
        "added_tokens": [],
        "normalizer": None,
        "pre_tokenizer": {
            "type": "Sequence",
            "pretokenizers": [
                {
                    "type": "Split",
                    "pattern": {"Regex": CATASTROPHIC},
                    "behavior": "Isolated",
                    "invert": False,
                },
                {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False},
            ],
        },
        "post_processor": None,
        "decoder": None,
        "model": {"type": "WordLevel", "vocab": {"[UNK]": 0, "a": 1}, "unk_token": "[UNK]"},
    }
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    tok = load_tokenizer(path)
    start = time.monotonic()
    with pytest.raises(TokvizError) as info:
        tok.encode(HOSTILE_TEXT * 4)
    assert time.monotonic() - start < SAFETY
    assert _one_line(str(info.value)) and "retry-limit" in str(info.value)


def _busy(seconds: float) -> int:
    """A worker's task that runs for ``seconds`` (a part with a slow pattern)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass
    return os.getpid()


def test_a_stopped_pool_leaves_no_worker_running() -> None:
    import multiprocessing

    pool = worker_pool(2, multiprocessing.get_context("forkserver"))
    futures = [pool.submit(_busy, 60.0) for _ in range(4)]
    deadline = time.monotonic() + SAFETY
    while len(workers := PoolInternals.of(pool).processes) < 2 or not all(p.is_alive() for p in workers):
        assert time.monotonic() < deadline
        time.sleep(0.05)
    stop_pool(pool, finished=False)
    assert not any(p.is_alive() for p in workers)
    assert not any(process_alive(p.pid) for p in workers if p.pid is not None)
    # Queued parts are cancelled, running ones fail (the pool is broken): none is left waiting.
    deadline = time.monotonic() + SAFETY
    while not all(f.done() for f in futures):
        assert time.monotonic() < deadline, "a part is still waiting for a result"
        time.sleep(0.05)


# Passes the trial (its runs of one character are harmless) but tries 2**30 ways on "ab" * 30 + "c".
TWO_CHARACTER_TRAP = r"(?:ab|ab)+$|\w+|\s+|."


def test_a_counting_process_stuck_in_a_pattern_is_stopped_by_its_parent(tmp_path: Path, monkeypatch) -> None:
    # The workers run the pattern unbounded (at full speed); the parent keeps the limit per part.
    monkeypatch.setattr(pretokenize, "PATTERN_TIME_BASE", 0.5)
    monkeypatch.setattr(pretokenize, "PATTERN_TIME_PER_CHAR", 1e-7)
    assert validate_pattern(TWO_CHARACTER_TRAP) is None
    path = tmp_path / "big.txt"
    path.write_text("ab" * 30 + "c\n" + "the cat in the hat\n" * 250_000, encoding="utf-8")  # 4.75 MB
    started = time.monotonic()
    with pytest.raises(PatternTimeoutError) as info:
        train_bpe(files=[path], vocab_size=300, pretokenizer=TWO_CHARACTER_TRAP, workers=2)
    assert time.monotonic() - started < SAFETY
    assert _one_line(str(info.value)) and "takes too long" in str(info.value)


def test_the_same_pattern_is_stopped_in_process_too(monkeypatch) -> None:
    monkeypatch.setattr(pretokenize, "PATTERN_TIME_BASE", 0.3)
    with pytest.raises(PatternTimeoutError):
        train_bpe(text="ab" * 30 + "c the cat", vocab_size=300, pretokenizer=TWO_CHARACTER_TRAP)


def _big_result(n: int) -> bytes:
    """A worker's task whose result takes a while to send (tens of milliseconds through the pipe)."""
    return b"x" * n


@pytest.mark.slow
def test_a_worker_stopped_while_sending_its_result_does_not_hang_the_pool() -> None:
    # Terminated halfway through a result, a worker leaves half a message in the result pipe; the
    # pool's manager thread must still end (the interpreter joins it at exit: Ctrl+C used to hang).
    import multiprocessing

    for delay in (0.05, 0.1, 0.2):
        pool = worker_pool(2, multiprocessing.get_context("forkserver"))
        futures = [pool.submit(_big_result, 64 << 20) for _ in range(8)]
        futures[0].result(timeout=SAFETY)  # the workers run and results are flowing
        time.sleep(delay)
        manager = pool._executor_manager_thread
        stop_pool(pool, finished=False)
        assert manager is not None
        manager.join(SAFETY)
        assert not manager.is_alive(), "the pool's manager thread hangs on a half-sent result"
