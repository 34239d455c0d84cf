"""Metrics are computed from real encodings: the lecture's worked numbers come out of them."""

from __future__ import annotations

import pytest

from tokviz.core.analysis.metrics import TextMetrics, attention_multiplier, compare_rows, embedding_parameters
from tokviz.core.bpe.tokenizer import Tokenizer

from ..texts import CAT, CAT_PAIRS


@pytest.fixture(scope="module")
def byte_tokenizer() -> Tokenizer:
    return Tokenizer({i: bytes([i]) for i in range(256)}, [], pretokenizer="none", name="bytes")


@pytest.fixture(scope="module")
def the_cat_tokenizer() -> Tokenizer:
    """The lecture's three merges learned from CAT (no pre-tokenizer)."""
    vocab = {i: bytes([i]) for i in range(256)} | {256: b"th", 257: b"the", 258: b"the "}
    return Tokenizer(vocab, CAT_PAIRS, pretokenizer="none", name="the-cat")


def test_the_cat_in_the_hat_is_one_and_a_half_bytes_per_token(the_cat_tokenizer: Tokenizer) -> None:
    m = TextMetrics.of(the_cat_tokenizer, CAT)
    assert (m.bytes, m.code_points, m.tokens) == (18, 18, 12)
    assert m.bytes_per_token == pytest.approx(1.5)


def test_bytes_and_code_points_differ_for_an_emoji(byte_tokenizer: Tokenizer) -> None:
    m = TextMetrics.of(byte_tokenizer, "Hi 🌍")
    assert (m.bytes, m.code_points, m.tokens, m.bytes_per_token) == (7, 4, 7, 1.0)


def test_empty_text_has_no_bytes_per_token(byte_tokenizer: Tokenizer) -> None:
    assert TextMetrics.of(byte_tokenizer, "") == TextMetrics(0, 0, 0, None)


def test_metrics_are_frozen(byte_tokenizer: Tokenizer) -> None:
    m = TextMetrics.of(byte_tokenizer, "abc")
    with pytest.raises(AttributeError):
        m.tokens = 1  # type: ignore[misc]


def test_attention_multiplier_is_the_square_of_the_length_ratio() -> None:
    assert attention_multiplier(1000, 250) == 16.0
    assert attention_multiplier(250, 1000) == 0.0625
    assert attention_multiplier(7, 7) == 1.0


@pytest.mark.parametrize("n_ref", [0, -3])
def test_attention_multiplier_needs_a_positive_reference(n_ref: int) -> None:
    with pytest.raises(ValueError, match="reference token count must be positive"):
        attention_multiplier(10, n_ref)


def test_embedding_table_grows_linearly_with_the_vocabulary() -> None:
    assert embedding_parameters(50257, 768) == 38_597_376
    assert embedding_parameters(2 * 50257, 768) == 2 * embedding_parameters(50257, 768)
    with pytest.raises(ValueError):
        embedding_parameters(-1, 768)


def test_compare_rows_measures_every_input_with_every_tokenizer(
    byte_tokenizer: Tokenizer, the_cat_tokenizer: Tokenizer
) -> None:
    rows = compare_rows({"cat": "the cat in the hat", "globe": "Hi 🌍"}, [byte_tokenizer, the_cat_tokenizer])
    assert [(r["input"], r["tokenizer"]) for r in rows] == [
        ("cat", "bytes"),
        ("cat", "the-cat"),
        ("globe", "bytes"),
        ("globe", "the-cat"),
    ]
    cat_bytes, cat_bpe, globe_bytes, globe_bpe = rows
    assert (cat_bytes["tokens"], cat_bpe["tokens"]) == (18, 12)
    assert cat_bpe["best"] and not cat_bytes["best"]
    assert cat_bpe["attention_multiplier"] == 1.0
    assert cat_bytes["attention_multiplier"] == pytest.approx((18 / 12) ** 2)
    assert cat_bytes["bytes_per_token"] == 1.0 and cat_bpe["bytes_per_token"] == 1.5
    # A tie for fewest tokens: both are best and neither pays a multiplier.
    assert globe_bytes["best"] and globe_bpe["best"]
    assert globe_bytes["attention_multiplier"] == globe_bpe["attention_multiplier"] == 1.0
    assert globe_bytes["bytes"] == 7 and globe_bytes["code_points"] == 4


def test_compare_rows_on_an_empty_input(byte_tokenizer: Tokenizer) -> None:
    (row,) = compare_rows({"empty": ""}, [byte_tokenizer])
    assert row["tokens"] == 0 and row["bytes_per_token"] is None and row["attention_multiplier"] == 1.0
