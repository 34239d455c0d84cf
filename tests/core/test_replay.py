"""Replay: the text at step k equals encoding with the first k merges, and only events matter."""

from __future__ import annotations

from tokviz.core import load_tokenizer, train_bpe
from tokviz.core.training.replay import ReplayTrace, replay_tokenizer, replay_training

from ..texts import CAT, CAT_MERGES, CAT_TOKEN_COUNTS, CAT_TRAINING

DEMO = "Hello, 🌍! 你好!"


def test_the_lecture_demo_replays_the_seed_table():
    tok = train_bpe(text=CAT, **CAT_TRAINING).tokenizer()
    trace = ReplayTrace(tok, CAT)
    assert [trace.token_count(k) for k in range(4)] == CAT_TOKEN_COUNTS
    assert [(e.left, e.right, e.new_id, e.count) for e in trace.events] == [m[:4] for m in CAT_MERGES]
    assert [e.step for e in trace.events] == [1, 2, 3]
    assert [(e.left_id, e.right_id) for e in trace.events] == [(116, 104), (256, 101), (257, 32)]
    at3 = trace.spans_at(3)
    assert [s.bytes for s in at3][:2] == [b"the ", b"c"]
    assert [s.id for s in at3 if s.id == trace.new_id_at(3)] == [258, 258]


def test_with_the_gpt2_pretokenizer_chunks_never_merge_across_boundaries():
    text = "the cat in the hat"
    tok = train_bpe(text=text, vocab_size=259, pretokenizer="gpt2", tie_break="first-seen").tokenizer()
    assert (b"the", b" ") not in tok.merges
    assert all(b" " not in right for _, right in tok.merges)  # a space only ever starts a chunk


def test_step_k_equals_encoding_with_k_merges(english_text):
    text = english_text[:3000]
    tok = train_bpe(text=english_text[:40_000], vocab_size=800).tokenizer()
    trace = ReplayTrace(tok, text)
    for k in [0, 1, 5, 50, 200, 543, 544]:
        ids = tok.encode_with_merges(text, k)
        assert trace.ids_at(k) == ids
        assert trace.token_count(k) == len(ids)
    assert trace.ids_at(tok.merge_count) == tok.encode(text)


def test_gpt2_replay_reaches_tiktoken_and_skips_merges_that_do_not_change_the_text(gpt2_tiktoken):
    text = "Hello, 🌍! 你好! The quick brown fox."
    tok = load_tokenizer("gpt2")
    trace = ReplayTrace(tok, text)
    assert trace.ids_at(trace.total_steps) == gpt2_tiktoken.encode(text)
    assert trace.final_tokens == len(gpt2_tiktoken.encode(text))
    assert len(trace.events) < len(text.encode())  # at most one event per byte, out of 50,000 merges
    last = trace.events[-1].step
    assert trace.ids_at(last) == trace.ids_at(trace.total_steps)
    assert trace.next_event(0) == trace.events[0].step
    assert (
        not trace.changes_text(trace.events[0].step + 1) or trace.events[1].step == trace.events[0].step + 1
    )


def test_replay_of_a_trained_tokenizer_matches_encoding_with_k_merges(english_text):
    tok = train_bpe(text=english_text[:20_000], vocab_size=600, special_tokens=["<|eot|>"]).tokenizer()
    text = english_text[20_000:22_000] + "<|eot|>" + DEMO

    replay = replay_tokenizer(tok, text, None)

    assert replay.initial_tokens == len(tok.encode_with_merges(text, 0))
    for step in replay.steps[::37] + replay.steps[-1:]:
        assert step.tokens_after == len(tok.encode_with_merges(text, step.step)), step.step
    assert replay.final == [tok.id_bytes(i) for i in tok.encode(text)]


def test_a_replay_stops_after_the_merges_asked_for(english_text):
    tok = train_bpe(text=english_text[:20_000], vocab_size=600).tokenizer()
    text = english_text[20_000:21_000]

    replay = replay_tokenizer(tok, text, 100)
    full = replay_tokenizer(tok, text, None)

    assert [s.step for s in replay.steps] == list(range(1, 101))
    assert replay.steps == full.steps[:100]
    assert replay.final == [tok.id_bytes(i) for i in tok.encode_with_merges(text, 100)]
    assert replay.vocab_size == 356
    assert replay_tokenizer(tok, text, 10**6).steps == full.steps


def test_replaying_a_tokenizer_and_training_on_the_text_give_the_same_step_type():
    trained = replay_training("the cat in the hat", 3, "none", "first-seen")
    tok = train_bpe(
        text="the cat in the hat", vocab_size=259, pretokenizer="none", tie_break="first-seen"
    ).tokenizer()
    replayed = replay_tokenizer(tok, "the cat in the hat", None)

    # Same merges, same sizes; training counts pairs in the text, a replay counts applications.
    assert [(s.step, s.left, s.right, s.new_id, s.tokens_after) for s in trained.steps] == [
        (s.step, s.left, s.right, s.new_id, s.tokens_after) for s in replayed.steps
    ]
    assert [s.ties for s in trained.steps] == [4, 3, 2]
    assert [s.ties for s in replayed.steps] == [0, 0, 0]
    assert trained.final == replayed.final
    assert (trained.initial_tokens, trained.text_bytes, trained.vocab_size) == (18, 18, 259)
