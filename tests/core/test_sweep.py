"""The vocabulary-size sweep: one pass gives what encoding with every prefix of the merge list gives."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

from tokviz.core import train_bpe
from tokviz.core.analysis.sweep import (
    knee_step,
    prefix_tokenizer,
    readable_stride,
    renyi_of_counts,
    sweep_files,
    sweep_texts,
)
from tokviz.core.bpe.tokenizer import Tokenizer
from tokviz.core.corpus.fileselect import select_files
from tokviz.core.errors import ReplayUnavailable, VocabSizeError

HELD_OUT = ["Hello, 🌍! 你好! <|eot|> the cat", "def f(x):\n    return x ** 2\n"]


@pytest.fixture(scope="module")
def small_model(english_text: str) -> Tokenizer:
    trained = train_bpe(text=english_text[:20_000], vocab_size=700, special_tokens=["<|eot|>"])
    return trained.tokenizer("small")


def independent_prefix(tok: Tokenizer, merges: int) -> Tokenizer:
    """A tokenizer made from scratch of the bytes, the first ``merges`` merges and the specials."""
    kept = {tok.vocab[i] for i in range(256)} | {a + b for a, b in tok.merges[:merges]}
    vocab = dict(enumerate(sorted(kept, key=lambda b: (len(b) > 1, list(tok.vocab.values()).index(b)))))
    return Tokenizer(vocab, tok.merges[:merges], list(tok.special_tokens), tok.pretokenizer)


@pytest.mark.oracle
def test_one_pass_gives_every_prefix_tokenizers_own_counts(small_model, english_text):
    texts = [english_text[30_000:33_000], *HELD_OUT]
    sweep = sweep_texts(small_model, {"held-out": texts})
    curve = sweep.total
    assert sweep.merge_count == small_model.merge_count == 700 - 257
    for k in range(small_model.merge_count + 1):
        prefix = independent_prefix(small_model, k)
        encoded = [prefix.encode(t) for t in texts]
        counts = Counter(i for ids in encoded for i in ids)
        size = 256 + k + 1
        assert curve.steps.tokens[k] == sum(counts.values()), k
        assert curve.steps.used[k] == len(counts), k
        point = curve.point(k)
        assert point.vocab_size == sweep.size_of(k) == prefix.vocab_size == size
        assert point.renyi_efficiency == pytest.approx(renyi_of_counts(counts.values(), size), rel=1e-9)


def test_a_tiktoken_engine_model_sweeps_as_its_python_encoder_replays(english_text):
    tok = train_bpe(text=english_text[:20_000], vocab_size=600).tokenizer("plain")
    text = english_text[40_000:42_000]
    curve = sweep_texts(tok, {"text": [text]}).total
    for k in (0, 1, 17, 200, tok.merge_count):
        assert curve.steps.tokens[k] == len(tok.encode_with_merges(text, k))


def test_renyi_efficiency_is_entropy_of_order_alpha_over_log_vocabulary():
    counts = [50, 30, 20]
    p = np.array(counts) / 100
    expected = math.log((p**2.5).sum()) / (1 - 2.5) / math.log(8)
    assert renyi_of_counts(counts, 8) == pytest.approx(expected)
    assert renyi_of_counts([10] * 8, 8) == pytest.approx(1.0)  # every token equally often


def test_the_knee_is_where_ten_percent_more_vocabulary_stops_buying_one_percent():
    sizes = np.arange(1000, 20_001, 100)
    # Steep until 5,000 (bytes/token rises 5% per 10% more vocabulary), then flat.
    bpt = np.where(sizes <= 5000, (sizes / 1000.0) ** 0.5, 5**0.5 * (sizes / 5000.0) ** 0.01)
    knee = knee_step(sizes, bpt)
    assert knee is not None and 4500 <= sizes[knee] <= 5000
    still_climbing = (sizes / 1000.0) ** 0.5
    assert knee_step(sizes, still_climbing) is None


def test_the_table_shows_round_steps_the_last_one_and_the_knee(small_model, english_text):
    sweep = sweep_texts(small_model, {"prose": [english_text[30_000:40_000]], "code": HELD_OUT})
    steps = sweep.steps_to_show()
    assert steps[0] == 0 and steps[-1] == sweep.merge_count
    assert readable_stride(443) == 50 and set(range(0, 444, 50)) <= set(steps)
    assert sweep.headers()[:2] == ["group", "vocab"]
    rows = sweep.rows()
    assert [r[0] for r in rows].count("all") == len(steps)
    assert {r[0] for r in rows} == {"prose", "code", "all"}
    html = sweep._repr_html_()
    assert html.startswith("<svg") and "<polyline" in html  # the curves, then the table
    assert "<table" in html and "Rényi" in html
    assert sweep.steps_to_show(sizes=[257, 300])[:2] == [0, 300 - 257]


def test_a_prefix_tokenizer_encodes_as_the_first_merges_do(small_model, english_text):
    text = english_text[30_000:32_000] + "<|eot|>"
    prefix = prefix_tokenizer(small_model, 400)
    assert prefix.vocab_size == 400 and prefix.merge_count == 400 - 257
    assert prefix.special_tokens == {"<|eot|>": 399}
    plain = [
        i for i in small_model.encode_with_merges(text, 143) if i != small_model.special_tokens["<|eot|>"]
    ]
    assert prefix.encode(text) == [*plain, 399]


def test_the_size_after_k_merges_is_the_size_of_the_first_k_merges_as_a_tokenizer(small_model):
    for k in (0, 1, 142, small_model.merge_count):
        size = small_model.size_after(k)
        prefix = prefix_tokenizer(small_model, size)
        assert (prefix.merge_count, prefix.vocab_size) == (k, size)
        assert independent_prefix(small_model, k).vocab_size == size


def test_sizes_outside_the_merge_list_are_refused_in_one_line(small_model):
    with pytest.raises(VocabSizeError, match="257 to 700"):
        prefix_tokenizer(small_model, 100)
    with pytest.raises(VocabSizeError):
        prefix_tokenizer(small_model, 701)


def test_a_tokenizer_without_merges_cannot_be_swept():
    from tokviz.core import load_tokenizer

    with pytest.raises(ReplayUnavailable):
        sweep_texts(load_tokenizer("bytes"), {"a": ["x"]})


def test_files_are_swept_per_group_and_empty_files_in_none(tmp_path, small_model):
    (tmp_path / "en.txt").write_text("the cat in the hat " * 20, encoding="utf-8")
    (tmp_path / "de.txt").write_text("die Katze mit dem Hut " * 20, encoding="utf-8")
    (tmp_path / "empty.txt").write_text("", encoding="utf-8")
    selection = select_files([str(tmp_path)])
    sweep = sweep_files(small_model, selection, group_of=lambda f: f.relative[:2])
    assert [c.group for c in sweep.groups] == ["de", "en"] or [c.group for c in sweep.groups] == ["en", "de"]
    assert sweep.empty_files == 1
    assert sweep.total.steps.tokens[0] == sum(c.steps.tokens[0] for c in sweep.groups)
    assert sweep.total.bytes == len("the cat in the hat " * 20) + len("die Katze mit dem Hut " * 20)


def test_text_the_merges_do_not_cover_has_no_knee_not_one_at_zero_merges(small_model, english_text):
    """A script the vocabulary never saw stays near one byte per token at every size: a knee at
    zero merges would read as "saturated", so the sweep says there is none, and why."""
    ethiopic = "ሰላም ለዓለም እንዴት ነህ ዛሬ ጥሩ ቀን ነው " * 200
    sweep = sweep_texts(small_model, {"English": [english_text[:20_000]], "Amharic": [ethiopic]})
    amharic = next(c for c in sweep.curves if c.group == "Amharic")
    assert amharic.flat and amharic.knee() is None
    assert amharic.knee_words(sweep.size_of).startswith("no knee: bytes/token stays near 1.0 (at most 1.")
    english = next(c for c in sweep.curves if c.group == "English")
    assert not english.flat
    knee = english.knee()
    assert english.knee_words(sweep.size_of) == (
        f"{sweep.size_of(knee):,} tokens" if knee is not None else "none within the merge list"
    )
