"""The trainer: the lecture's worked example, the tie rules, and equality with the slow reference."""

from __future__ import annotations

import threading
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tokviz.core import Cancelled, CorpusError, PretokenizerError, VocabSizeError, train_bpe, train_iter
from tokviz.core.training import train as train_module

from ..strategies import HARD_SAMPLE, hard_text
from ..texts import CAT, CAT_MERGES, CAT_START_TOKENS, CAT_TOKENS, CAT_TRAINING
from .reference import PUBLISHED_PATTERNS, reference_chunks, reference_train

PRETOKENIZERS = ["none", "gpt2", "cl100k", r"\w+|\s+|[^\w\s]+"]
TIE_RULES = ["lexicographic", "first-seen"]
SPECIAL_SETS = [[], ["<|endoftext|>"], ["x", "xx"], ["<|end", "<|endoftext|>"]]


def test_the_cat_in_the_hat_reproduces_the_lecture_table():
    result = train_bpe(text=CAT, **CAT_TRAINING)

    assert [(h.left, h.right, h.new_id, h.count, h.tokens_after) for h in result.history] == CAT_MERGES
    assert result.initial_tokens == CAT_START_TOKENS
    assert len(result.vocab) == 259
    assert result.vocab[258] == b"the "


def test_lecture_merges_encode_new_text():
    tok = train_bpe(text=CAT, **CAT_TRAINING).tokenizer()

    ids = tok.encode(CAT)
    assert [tok.id_bytes(i) for i in ids] == CAT_TOKENS
    assert len(CAT.encode()) / len(ids) == 1.5
    assert len(tok.encode("the quick brown fox")) == 16
    assert tok.decode([258]) == "the "


def test_lexicographic_rule_prefers_the_greatest_byte_pair():
    # Every pair occurs once; the greatest (left, right) by bytes is (t, ' ')... in "ab ta": (t, a)
    result = train_bpe(text="ab ta", vocab_size=257, pretokenizer="none", tie_break="lexicographic")
    assert result.merges == [(b"t", b"a")]
    assert result.history[0].ties == 4


def test_first_seen_rule_prefers_the_earliest_pair():
    result = train_bpe(text="ab ta", vocab_size=257, pretokenizer="none", tie_break="first-seen")
    assert result.merges == [(b"a", b"b")]


def test_overlapping_pairs_are_counted_but_merged_left_to_right():
    result = train_bpe(text="aaa", vocab_size=257, pretokenizer="none")
    assert result.history[0].count == 2  # both (a, a) pairs are counted
    assert result.history[0].tokens_after == 2  # but "aaa" becomes [aa][a]
    assert result.tokenizer().encode("aaa") == [256, 97]


def test_special_tokens_cut_documents_and_are_not_counted():
    text = "ab<|endoftext|>ab<|endoftext|>ba"
    result = train_bpe(text=text, vocab_size=258, special_tokens=["<|endoftext|>"], pretokenizer="none")
    # No merge may join b with < or > with a: the specials are not text.
    assert all(b"<" not in left + right for left, right in result.merges)
    assert result.merges[0] == (b"a", b"b")
    assert result.vocab[257] == b"<|endoftext|>"
    assert result.initial_tokens == 6


def test_training_stops_when_nothing_is_left_to_merge():
    result = train_bpe(text="abc", vocab_size=1000, pretokenizer="none")
    assert len(result.merges) == 2
    assert len(result.vocab) == 258


def test_the_reference_splits_with_tiktokens_published_patterns(monkeypatch: pytest.MonkeyPatch) -> None:
    """The oracle's pattern strings are facts: they are exactly what tiktoken publishes."""
    import tiktoken_ext.openai_public as public

    monkeypatch.setattr(public, "load_tiktoken_bpe", lambda *args, **kwargs: {})
    assert PUBLISHED_PATTERNS == {
        "gpt2": public.r50k_base()["pat_str"],
        "cl100k": public.cl100k_base()["pat_str"],
    }


@pytest.mark.slow
@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(
    text=hard_text(specials=sorted({s for group in SPECIAL_SETS for s in group})),
    extra=st.integers(min_value=0, max_value=150),
    pretokenizer=st.sampled_from(PRETOKENIZERS),
    tie_break=st.sampled_from(TIE_RULES),
    specials=st.sampled_from(SPECIAL_SETS),
    part_size=st.sampled_from([None, 1, 5, 64]),
)
def test_fast_trainer_equals_the_slow_reference(text, extra, pretokenizer, tie_break, specials, part_size):
    """Equal chunks, merges, counts and vocabulary, also when the corpus is read in tiny parts."""
    vocab_size = 256 + len(specials) + extra
    size = train_module.PART_SIZE if part_size is None else part_size
    chunks = reference_chunks([text], specials, pretokenizer)
    with mock.patch.object(train_module, "PART_SIZE", size):
        if not chunks:
            with pytest.raises(CorpusError, match="empty"):
                train_bpe(
                    text=text,
                    vocab_size=vocab_size,
                    special_tokens=specials,
                    pretokenizer=pretokenizer,
                    tie_break=tie_break,
                    workers=1,
                )
            return
        result = train_bpe(
            text=text,
            vocab_size=vocab_size,
            special_tokens=specials,
            pretokenizer=pretokenizer,
            tie_break=tie_break,
            workers=1,
        )
    # The same pre-tokens: merges alone could hide a chunking bug that no early merge touches.
    assert result.unique_words == len({tuple(c) for c in chunks})
    assert result.initial_tokens == sum(map(len, chunks))
    vocab, merges, counts = reference_train([text], vocab_size, specials, pretokenizer, tie_break)
    assert result.merges == merges
    assert [h.count for h in result.history] == counts
    assert result.vocab == vocab


@pytest.mark.slow
@pytest.mark.parametrize("tie_break", TIE_RULES)
@pytest.mark.parametrize("specials", SPECIAL_SETS, ids=lambda group: "+".join(group) or "no-specials")
@pytest.mark.parametrize("pretokenizer", PRETOKENIZERS)
def test_fast_trainer_equals_reference_on_every_hard_case(pretokenizer, specials, tie_break):
    """Every hard case at least once, with specials, prefixes of specials and a special in a special."""
    text = HARD_SAMPLE + "x<|endoftext|>xx<|end<|endoftext|><|endoftext|>we'll<|end" + HARD_SAMPLE[:200]
    chunks = reference_chunks([text], specials, pretokenizer)
    result = train_bpe(
        text=text,
        vocab_size=256 + len(specials) + 50,
        special_tokens=specials,
        pretokenizer=pretokenizer,
        tie_break=tie_break,
        workers=1,
    )
    vocab, merges, counts = reference_train(
        [text], 256 + len(specials) + 50, specials, pretokenizer, tie_break
    )
    assert result.unique_words == len({tuple(c) for c in chunks})
    assert result.initial_tokens == sum(map(len, chunks))
    assert result.merges == merges
    assert [h.count for h in result.history] == counts
    assert result.vocab == vocab


@pytest.mark.slow
@pytest.mark.parametrize("tie_break", TIE_RULES)
@pytest.mark.parametrize("pretokenizer", PRETOKENIZERS)
def test_fast_trainer_equals_reference_on_real_text(english_text, pretokenizer, tie_break):
    text = english_text[:2500]
    result = train_bpe(text=text, vocab_size=256 + 60, pretokenizer=pretokenizer, tie_break=tie_break)
    vocab, merges, counts = reference_train([text], 256 + 60, [], pretokenizer, tie_break)
    assert result.merges == merges
    assert [h.count for h in result.history] == counts


def test_token_counts_in_history_match_reencoding(english_text):
    text = english_text[:3000]
    result = train_bpe(text=text, vocab_size=300, pretokenizer="gpt2")
    tok = result.tokenizer()
    for record in result.history[::7]:
        assert len(tok.encode_with_merges(text, record.step)) == record.tokens_after


def test_files_are_separate_documents(tmp_path):
    (tmp_path / "a.txt").write_text("xy", encoding="utf-8")
    (tmp_path / "b.txt").write_text("zw", encoding="utf-8")
    result = train_bpe(files=tmp_path, vocab_size=260, pretokenizer="none")
    # "yz" would appear only if the files were glued together.
    assert (b"y", b"z") not in result.merges
    assert result.corpus_bytes == 4


def test_parallel_counting_equals_serial(tmp_path, monkeypatch, english_text):
    for i in range(6):
        (tmp_path / f"part{i}.txt").write_text(english_text[i * 5000 : (i + 1) * 5000] * 3, encoding="utf-8")
    serial = train_bpe(files=tmp_path, vocab_size=400, workers=1, tie_break="first-seen")
    monkeypatch.setattr(train_module, "PARALLEL_THRESHOLD", 0)
    monkeypatch.setattr(train_module, "PART_SIZE", 4096)
    parallel = train_bpe(files=tmp_path, vocab_size=400, workers=2, tie_break="first-seen")
    assert parallel.merges == serial.merges
    assert [h.count for h in parallel.history] == [h.count for h in serial.history]


def test_progress_reports_phases_in_order(english_text):
    reports = []
    train_bpe(text=english_text[:20000], vocab_size=400, progress=reports.append)
    phases = [r.phase for r in reports]
    order = ["reading", "pre-tokenizing", "merging", "done"]
    assert [p for p in order if p in phases] == order
    assert phases == sorted(phases, key=order.index)
    merged = [m for r in reports for m in r.merges]
    assert [m.step for m in merged] == list(range(1, 145))


PHASES = ["reading", "pre-tokenizing", "merging", "done"]


@pytest.mark.parametrize("phase", ["reading", "pre-tokenizing", "merging"])
def test_cancel_is_honoured_in_the_phase_it_was_set_in(english_text, phase):
    """The cancel set when ``phase`` is first reported stops training at the next check, in that phase."""
    reported: list[str] = []
    merges_reported = []
    state = {"set": False, "checks_after_set": 0}

    def cancel() -> bool:
        if state["set"]:
            state["checks_after_set"] += 1
        return state["set"]

    def on_progress(p):
        reported.append(p.phase)
        merges_reported.extend(p.merges)
        if p.phase == phase:
            state["set"] = True

    with pytest.raises(Cancelled):
        train_bpe(text=english_text * 3, vocab_size=2000, progress=on_progress, cancel=cancel, workers=1)
    # No later phase was ever reported: the phase that saw the cancel is the one that stopped.
    assert reported[-1] == phase
    assert [p for p in PHASES if p in reported] == PHASES[: PHASES.index(phase) + 1]
    assert merges_reported == []  # not one merge was made after (or before) the cancel
    assert state["checks_after_set"] == 1  # the very next check raised


def test_cancel_after_the_last_report_changes_nothing(english_text):
    """Once "done" is reported there is nothing left to cancel: the result comes back whole."""
    cancel = threading.Event()
    reported: list[str] = []

    def on_progress(p):
        reported.append(p.phase)
        if p.phase == "done":
            cancel.set()

    result = train_bpe(
        text=english_text[:20000], vocab_size=300, progress=on_progress, cancel=cancel, workers=1
    )
    assert cancel.is_set() and reported[-1] == "done"
    assert len(result.merges) == 300 - 256


def test_cancel_while_pre_tokenizing_stops_before_the_next_part(english_text, monkeypatch):
    """Counted parts are the clock: a cancel set after the first part means exactly one part counted."""
    monkeypatch.setattr(train_module, "PART_SIZE", 4096)
    counted: list[int] = []
    real_count = train_module.count_texts
    monkeypatch.setattr(
        train_module,
        "count_texts",
        lambda parts, *a: counted.append(sum(map(len, parts))) or real_count(parts, *a),
    )
    cancel = threading.Event()
    gen = train_iter(text=english_text[:40_000], vocab_size=300, cancel=cancel, workers=1, report_every=0)
    phases = []
    with pytest.raises(Cancelled):
        for p in gen:
            phases.append(p.phase)
            if p.phase == "pre-tokenizing":
                cancel.set()
    assert phases == ["reading", "pre-tokenizing"]
    assert len(counted) == 1 and counted[0] < 40_000


def test_cancel_while_merging_stops_before_the_next_merge(english_text):
    """A cancel set after the fifth merge is reported leaves exactly five merges made."""
    cancel = threading.Event()
    merged = []
    gen = train_iter(text=english_text[:20_000], vocab_size=400, cancel=cancel, workers=1, report_every=0)
    with pytest.raises(Cancelled):
        for p in gen:
            assert p.phase != "done"
            merged.extend(p.merges)
            if len(merged) == 5:
                cancel.set()
    assert [m.step for m in merged] == [1, 2, 3, 4, 5]


def test_cancel_flag_may_be_a_callable():
    gen = train_iter(text="some text " * 100, vocab_size=300, cancel=lambda: True)
    with pytest.raises(Cancelled):
        list(gen)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"vocab_size": 255}, VocabSizeError, "at least 256"),
        ({"vocab_size": 256, "special_tokens": ["<s>"]}, VocabSizeError, "at least 257"),
        ({"pretokenizer": "(unclosed"}, PretokenizerError, "invalid pre-tokenizer regex"),
        ({"text": ""}, CorpusError, "empty"),
        ({"text": "<s><s>", "special_tokens": ["<s>"]}, CorpusError, "empty"),
    ],
)
def test_bad_settings_give_clear_errors(kwargs, error, message):
    args = {"text": "hello world", "vocab_size": 300, **kwargs}
    with pytest.raises(error, match=message):
        train_bpe(**args)


def test_invalid_utf8_names_the_file_and_offset(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"hello world\n" * 10 + b"\xff\xfe oops")
    with pytest.raises(CorpusError) as info:
        train_bpe(files=bad, vocab_size=300)
    assert info.value.offset == 120
    assert "bad.txt" in str(info.value) and "120" in str(info.value)
    # The user may continue with replacement characters instead.
    result = train_bpe(files=bad, vocab_size=300, errors="replace")
    assert result.corpus_bytes == bad.stat().st_size


def test_invalid_utf8_offset_across_read_blocks(tmp_path, monkeypatch):
    from tokviz.core.corpus import reading as corpus

    monkeypatch.setattr(corpus, "BLOCK_SIZE", 7)
    bad = tmp_path / "bad.txt"
    bad.write_bytes("héllo wörld ".encode() * 5 + b"ab\xc3")
    with pytest.raises(CorpusError) as info:
        train_bpe(files=bad, vocab_size=300)
    assert info.value.offset == len("héllo wörld ".encode()) * 5 + 2


def test_missing_file_is_a_corpus_error(tmp_path):
    with pytest.raises(CorpusError, match="not found"):
        train_bpe(files=[tmp_path / "nope.txt"], vocab_size=300)
