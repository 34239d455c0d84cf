"""The trainer: the lecture's worked example, the tie rules, and equality with the slow reference."""

from __future__ import annotations

import threading

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tokviz.core import Cancelled, CorpusError, PretokenizerError, VocabSizeError, train_bpe, train_iter
from tokviz.core import train as train_module

from .reference import reference_train

PRETOKENIZERS = ["none", "gpt2", "cl100k", r"\w+|\s+|[^\w\s]+"]
TIE_RULES = ["lexicographic", "first-seen"]


def test_the_cat_in_the_hat_reproduces_the_lecture_table():
    result = train_bpe("the cat in the hat", 259, pretokenizer="none", tie_break="first-seen")

    assert [(h.left, h.right, h.new_id, h.count) for h in result.history] == [
        (b"t", b"h", 256, 2),
        (b"th", b"e", 257, 2),
        (b"the", b" ", 258, 2),
    ]
    assert result.initial_tokens == 18
    assert [h.tokens_after for h in result.history] == [16, 14, 12]
    assert len(result.vocab) == 259
    assert result.vocab[258] == b"the "


def test_lecture_merges_encode_new_text():
    tok = train_bpe("the cat in the hat", 259, pretokenizer="none", tie_break="first-seen").tokenizer()

    ids = tok.encode("the cat in the hat")
    assert [tok.id_bytes(i) for i in ids] == [
        b"the ", b"c", b"a", b"t", b" ", b"i", b"n", b" ", b"the ", b"h", b"a", b"t"
    ]  # fmt: skip
    assert len(b"the cat in the hat") / len(ids) == 1.5
    assert len(tok.encode("the quick brown fox")) == 16
    assert tok.decode([258]) == "the "


def test_lexicographic_rule_prefers_the_greatest_byte_pair():
    # Every pair occurs once; the greatest (left, right) by bytes is (t, ' ')... in "ab ta": (t, a)
    result = train_bpe("ab ta", 257, pretokenizer="none", tie_break="lexicographic")
    assert result.merges == [(b"t", b"a")]
    assert result.history[0].ties == 4


def test_first_seen_rule_prefers_the_earliest_pair():
    result = train_bpe("ab ta", 257, pretokenizer="none", tie_break="first-seen")
    assert result.merges == [(b"a", b"b")]


def test_overlapping_pairs_are_counted_but_merged_left_to_right():
    result = train_bpe("aaa", 257, pretokenizer="none")
    assert result.history[0].count == 2  # both (a, a) pairs are counted
    assert result.history[0].tokens_after == 2  # but "aaa" becomes [aa][a]
    assert result.tokenizer().encode("aaa") == [256, 97]


def test_special_tokens_cut_documents_and_are_not_counted():
    text = "ab<|endoftext|>ab<|endoftext|>ba"
    result = train_bpe(text, 258, special_tokens=["<|endoftext|>"], pretokenizer="none")
    # No merge may join b with < or > with a: the specials are not text.
    assert all(b"<" not in left + right for left, right in result.merges)
    assert result.merges[0] == (b"a", b"b")
    assert result.vocab[257] == b"<|endoftext|>"
    assert result.initial_tokens == 6


def test_training_stops_when_nothing_is_left_to_merge():
    result = train_bpe("abc", 1000, pretokenizer="none")
    assert len(result.merges) == 2
    assert len(result.vocab) == 258


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    text=st.text(alphabet=st.sampled_from(list("aab  c\n\t'sé🌍你x1.")), max_size=120),
    extra=st.integers(min_value=0, max_value=40),
    pretokenizer=st.sampled_from(PRETOKENIZERS),
    tie_break=st.sampled_from(TIE_RULES),
    specials=st.sampled_from([[], ["<|endoftext|>"], ["x", "xx"]]),
)
def test_fast_trainer_equals_the_slow_reference(text, extra, pretokenizer, tie_break, specials):
    vocab_size = 256 + len(specials) + extra
    docs = [text.replace("1", "<|endoftext|>")]
    try:
        result = train_bpe(docs[0], vocab_size, specials, pretokenizer, tie_break)
    except CorpusError:
        assert not "".join(docs).replace("<|endoftext|>", "").replace("x", "")
        return
    vocab, merges, counts = reference_train(docs, vocab_size, specials, pretokenizer, tie_break)
    assert result.merges == merges
    assert [h.count for h in result.history] == counts
    assert result.vocab == vocab


@pytest.mark.parametrize("tie_break", TIE_RULES)
@pytest.mark.parametrize("pretokenizer", PRETOKENIZERS)
def test_fast_trainer_equals_reference_on_real_text(english_text, pretokenizer, tie_break):
    text = english_text[:2500]
    result = train_bpe(text, 256 + 60, pretokenizer=pretokenizer, tie_break=tie_break)
    vocab, merges, counts = reference_train([text], 256 + 60, [], pretokenizer, tie_break)
    assert result.merges == merges
    assert [h.count for h in result.history] == counts


def test_token_counts_in_history_match_reencoding(english_text):
    text = english_text[:3000]
    result = train_bpe(text, 300, pretokenizer="gpt2")
    tok = result.tokenizer()
    for record in result.history[::7]:
        assert len(tok.encode_with_merges(text, record.step)) == record.tokens_after


def test_files_are_separate_documents(tmp_path):
    (tmp_path / "a.txt").write_text("xy", encoding="utf-8")
    (tmp_path / "b.txt").write_text("zw", encoding="utf-8")
    result = train_bpe(tmp_path, 260, pretokenizer="none")
    # "yz" would appear only if the files were glued together.
    assert (b"y", b"z") not in result.merges
    assert result.corpus_bytes == 4


def test_parallel_counting_equals_serial(tmp_path, monkeypatch, english_text):
    for i in range(6):
        (tmp_path / f"part{i}.txt").write_text(english_text[i * 5000 : (i + 1) * 5000] * 3, encoding="utf-8")
    serial = train_bpe(tmp_path, 400, workers=1, tie_break="first-seen")
    monkeypatch.setattr(train_module, "PARALLEL_THRESHOLD", 0)
    monkeypatch.setattr(train_module, "PART_SIZE", 4096)
    parallel = train_bpe(tmp_path, 400, workers=2, tie_break="first-seen")
    assert parallel.merges == serial.merges
    assert [h.count for h in parallel.history] == [h.count for h in serial.history]


def test_progress_reports_phases_in_order(english_text):
    reports = []
    train_bpe(english_text[:20000], 400, progress=reports.append)
    phases = [r.phase for r in reports]
    order = ["reading", "pre-tokenizing", "merging", "done"]
    assert [p for p in order if p in phases] == order
    assert phases == sorted(phases, key=order.index)
    merged = [m for r in reports for m in r.merges]
    assert [m.step for m in merged] == list(range(1, 145))


def test_cancel_stops_training_in_every_phase(english_text):
    for phase in ("reading", "pre-tokenizing", "merging"):
        cancel = threading.Event()

        def on_progress(p, phase=phase, cancel=cancel):
            if p.phase == phase:
                cancel.set()

        with pytest.raises(Cancelled):
            train_bpe(english_text * 3, 2000, progress=on_progress, cancel=cancel)


def test_cancel_flag_may_be_a_callable():
    gen = train_iter("some text " * 100, 300, cancel=lambda: True)
    with pytest.raises(Cancelled):
        list(gen)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"vocab_size": 255}, VocabSizeError, "at least 256"),
        ({"vocab_size": 256, "special_tokens": ["<s>"]}, VocabSizeError, "at least 257"),
        ({"pretokenizer": "(unclosed"}, PretokenizerError, "invalid pre-tokenizer regex"),
        ({"source": ""}, CorpusError, "empty"),
        ({"source": "<s><s>", "special_tokens": ["<s>"]}, CorpusError, "empty"),
    ],
)
def test_bad_settings_give_clear_errors(kwargs, error, message):
    args = {"source": "hello world", "vocab_size": 300, **kwargs}
    with pytest.raises(error, match=message):
        train_bpe(**args)


def test_invalid_utf8_names_the_file_and_offset(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"hello world\n" * 10 + b"\xff\xfe oops")
    with pytest.raises(CorpusError) as info:
        train_bpe(bad, 300)
    assert info.value.offset == 120
    assert "bad.txt" in str(info.value) and "120" in str(info.value)
    # The user may continue with replacement characters instead.
    result = train_bpe(bad, 300, errors="replace")
    assert result.corpus_bytes == bad.stat().st_size


def test_invalid_utf8_offset_across_read_blocks(tmp_path, monkeypatch):
    from tokviz.core import corpus

    monkeypatch.setattr(corpus, "BLOCK_SIZE", 7)
    bad = tmp_path / "bad.txt"
    bad.write_bytes("héllo wörld ".encode() * 5 + b"ab\xc3")
    with pytest.raises(CorpusError) as info:
        train_bpe(bad, 300)
    assert info.value.offset == len("héllo wörld ".encode()) * 5 + 2


def test_missing_file_is_a_corpus_error(tmp_path):
    with pytest.raises(CorpusError, match="not found"):
        train_bpe([tmp_path / "nope.txt"], 300)
