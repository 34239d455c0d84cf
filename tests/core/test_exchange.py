"""The exchange-rate table: every number of the chart comes from the core's metrics, none is typed in."""

from __future__ import annotations

import csv
import io

import pytest

from tokviz.core.exchange import (
    CSV_FIELDS,
    ExchangeTable,
    attention_caption,
    caption,
    default_reference,
    embedding_caption,
    format_count,
    format_factor,
    measure_rows,
)
from tokviz.core.metrics import TextMetrics, attention_multiplier, compare_rows, embedding_parameters
from tokviz.core.registry import load_tokenizer
from tokviz.core.resources import resource_path
from tokviz.core.tokenizer import Tokenizer

DEMO = "Hello, 🌍! 你好!"
SAMPLES = {
    "English prose": "english.txt",
    "Python source": "python.py",
    "JSON": "data.json",
    "Chinese": "chinese.txt",
    "Digits": "digits.txt",
}


@pytest.fixture(scope="module")
def tokenizers() -> list[Tokenizer]:
    return [load_tokenizer(name) for name in ("bytes", "gpt2", "cl100k")]


@pytest.fixture(scope="module")
def samples() -> dict[str, str]:
    return {
        label: resource_path("samples", name).read_text(encoding="utf-8") for label, name in SAMPLES.items()
    }


@pytest.fixture(scope="module")
def table(samples: dict[str, str], tokenizers: list[Tokenizer]) -> ExchangeTable:
    return ExchangeTable.measure(samples, tokenizers)


def test_every_cell_equals_the_core_metrics(
    table: ExchangeTable, samples: dict[str, str], tokenizers: list[Tokenizer]
) -> None:
    assert table.inputs == tuple(samples)
    assert table.tokenizers == ("bytes", "GPT-2", "cl100k")
    for i, text in enumerate(samples.values()):
        for j, tok in enumerate(tokenizers):
            assert table.metric(i, j) == TextMetrics.of(tok, text)


def test_the_table_agrees_with_compare_rows(
    table: ExchangeTable, samples: dict[str, str], tokenizers: list[Tokenizer]
) -> None:
    rows = compare_rows(samples, tokenizers)
    mine = table.rows()
    assert len(mine) == len(rows)
    for row, ref in zip(mine, rows):
        for key in ("input", "tokenizer", "bytes", "code_points", "tokens", "bytes_per_token", "best"):
            assert row[key] == ref[key], key
        assert row["attention_multiplier"] == pytest.approx(ref["attention_multiplier"], rel=1e-15)
    assert measure_rows(samples, tokenizers) == table


def test_the_byte_tokenizer_is_exactly_one_byte_per_token(table: ExchangeTable) -> None:
    assert table.is_byte_level(0) and not table.is_byte_level(1) and not table.is_byte_level(2)
    assert [table.bytes_per_token(i, 0) for i in range(len(table.inputs))] == [1.0] * len(table.inputs)


def test_gpt2_on_the_lecture_demo_is_20_bytes_over_12_tokens(tokenizers: list[Tokenizer]) -> None:
    demo = ExchangeTable.measure({"demo": DEMO}, tokenizers)

    gpt2 = demo.metric(0, 1)
    assert (gpt2.bytes, gpt2.tokens) == (20, 12)
    assert demo.bytes_per_token(0, 1) == 20 / 12
    assert demo.best(0) == (2,)  # cl100k needs the fewest tokens
    assert demo.attention(0, 1) == attention_multiplier(12, demo.fewest_tokens(0))
    assert demo.attention(0, 0) == (20 / demo.fewest_tokens(0)) ** 2


def test_the_spread_between_inputs_is_computed_from_the_data(table: ExchangeTable) -> None:
    gpt2 = table.tokenizers.index("GPT-2")
    spread = table.spread(gpt2)
    assert spread is not None

    bpts = {label: table.bytes_per_token(i, gpt2) for i, label in enumerate(table.inputs)}
    assert spread.cheapest == max(bpts, key=bpts.__getitem__) == "English prose"
    assert spread.dearest == min(bpts, key=bpts.__getitem__) == "Chinese"
    assert spread.token_ratio == bpts["English prose"] / bpts["Chinese"]
    assert spread.attention == spread.token_ratio**2
    # For the same number of bytes, the token counts are in that ratio; attention goes with its square.
    n_chinese, n_english = 1e6 / bpts["Chinese"], 1e6 / bpts["English prose"]
    assert spread.attention == pytest.approx(attention_multiplier(n_chinese, n_english))  # type: ignore[arg-type]


def test_the_caption_states_the_computed_numbers(table: ExchangeTable) -> None:
    spread = table.spread(table.tokenizers.index("GPT-2"))
    assert spread is not None

    text = caption(table)

    assert text.startswith("With GPT-2, Chinese needs ")
    assert f"{format_factor(spread.token_ratio)}× as many tokens per byte as English prose" in text
    assert f"→ {format_factor(spread.attention)}× the attention compute" in text
    assert (
        f"({spread.dearest_bytes_per_token:.2f} vs {spread.cheapest_bytes_per_token:.2f} bytes/token)" in text
    )


def test_captions_of_the_other_views(table: ExchangeTable) -> None:
    worst_bytes = max(table.attention(i, 0) or 0 for i in range(len(table.inputs)))
    assert f"bytes up to {format_factor(worst_bytes)}×" in attention_caption(table)

    gpt2 = embedding_parameters(table.vocab_sizes[1] or 0, 768)
    cl100k = embedding_parameters(table.vocab_sizes[2] or 0, 768)
    text = embedding_caption(table, 768)
    assert text.startswith("At d = 768, cl100k's embedding table")
    assert f"{format_factor(cl100k / gpt2)}× the size of GPT-2's ({format_count(gpt2)})" in text


def test_one_input_compares_the_tokenizers(tokenizers: list[Tokenizer]) -> None:
    demo = ExchangeTable.measure({"the demo": DEMO}, tokenizers)
    fewest = demo.fewest_tokens(0)

    assert caption(demo) == (
        f"On the demo, cl100k needs the fewest tokens ({fewest}); "
        f"GPT-2 needs {format_factor(12 / fewest)}× as many "
        f"({format_factor(attention_multiplier(12, fewest))}× the attention compute), "
        f"bytes {format_factor(20 / fewest)}× ({format_factor(attention_multiplier(20, fewest))}×)."
    )


def test_an_empty_text_has_no_ratio_and_no_division_by_zero(tokenizers: list[Tokenizer]) -> None:
    empty = ExchangeTable.measure({"editor": ""}, tokenizers)

    assert empty.empty and empty.is_empty(0)
    assert [empty.bytes_per_token(0, j) for j in range(3)] == [None, None, None]
    assert empty.attention(0, 1) is None and empty.best(0) == () and empty.spread(1) is None
    assert empty.overall_bytes_per_token(1) is None
    assert caption(empty).startswith("Nothing to measure yet")
    assert attention_caption(empty) == caption(empty)
    rows = list(csv.DictReader(io.StringIO(empty.to_csv())))
    assert [r["bytes_per_token"] for r in rows] == ["", "", ""]


def test_an_empty_input_among_others_is_skipped(samples: dict[str, str], tokenizers: list[Tokenizer]) -> None:
    mixed = ExchangeTable.measure({"editor": "", **samples}, tokenizers)

    assert not mixed.empty and mixed.is_empty(0)
    assert caption(mixed) == caption(ExchangeTable.measure(samples, tokenizers))


def test_embedding_points_use_v_times_d(table: ExchangeTable) -> None:
    points = {p.tokenizer: p for p in table.embedding_points(768)}

    assert points["GPT-2"].vocab_size == 50257
    assert points["GPT-2"].parameters == embedding_parameters(50257, 768) == 38_597_376
    assert points["bytes"].parameters == 256 * 768
    assert table.embedding_points(1024)[1].parameters == 50257 * 1024


def test_csv_holds_the_numbers_behind_the_chart(table: ExchangeTable) -> None:
    rows = list(csv.DictReader(io.StringIO(table.to_csv(512))))

    assert list(rows[0]) == list(CSV_FIELDS)
    assert len(rows) == len(table.inputs) * len(table.tokenizers)
    chinese_gpt2 = next(r for r in rows if r["input"] == "Chinese" and r["tokenizer"] == "GPT-2")
    i, j = table.inputs.index("Chinese"), 1
    assert float(chinese_gpt2["bytes_per_token"]) == table.bytes_per_token(i, j)
    assert float(chinese_gpt2["attention_multiplier"]) == table.attention(i, j)
    assert int(chinese_gpt2["embedding_parameters"]) == 50257 * 512
    assert chinese_gpt2["best"] == "False"


def test_rows_from_the_command_line_rebuild_the_table(
    samples: dict[str, str], tokenizers: list[Tokenizer], table: ExchangeTable
) -> None:
    rows = compare_rows(samples, tokenizers)

    rebuilt = ExchangeTable.from_rows(rows)

    assert rebuilt.metrics == table.metrics
    assert rebuilt.vocab_sizes == (None, None, None)
    # Without sizes, the byte tokenizer is recognised by one token per byte.
    assert [rebuilt.is_byte_level(j) for j in range(3)] == [True, False, False]
    assert rebuilt.embedding_points() == []
    assert default_reference(rebuilt) == 1


def test_rows_must_cover_every_input_and_tokenizer(
    samples: dict[str, str], tokenizers: list[Tokenizer]
) -> None:
    rows = compare_rows(samples, tokenizers)[:-1]
    with pytest.raises(ValueError, match="every input with every tokenizer"):
        ExchangeTable.from_rows(rows)


def test_measure_can_be_given_a_cache(tokenizers: list[Tokenizer]) -> None:
    calls: list[tuple[str, str]] = []

    def counting(tok: Tokenizer, text: str) -> TextMetrics:
        calls.append((tok.name, text))
        return TextMetrics.of(tok, text)

    ExchangeTable.measure({"a": "abc", "b": "de"}, tokenizers[:2], measure=counting)
    assert calls == [("bytes", "abc"), ("GPT-2", "abc"), ("bytes", "de"), ("GPT-2", "de")]


@pytest.mark.parametrize(
    ("value", "text"), [(1.0, "1.0"), (2.6999, "2.7"), (9.94, "9.9"), (19.04, "19"), (1234.5, "1,234")]
)
def test_factors_read_as_prose(value: float, text: str) -> None:
    assert format_factor(value) == text


@pytest.mark.parametrize(
    ("value", "text"), [(256, "256"), (196_608, "197 k"), (38_597_376, "38.6 M"), (77_000_448, "77 M")]
)
def test_counts_get_a_unit(value: int, text: str) -> None:
    assert format_count(value) == text
