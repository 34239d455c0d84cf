"""The exchange-rate table: every number of the chart comes from the core's metrics, none is typed in."""

from __future__ import annotations

import csv
import io

import pytest
import tiktoken

from tokviz.core.analysis.exchange import (
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
from tokviz.core.analysis.metrics import TextMetrics, attention_multiplier, compare_rows, embedding_parameters
from tokviz.core.bpe.tokenizer import Tokenizer
from tokviz.core.formats.registry import load_tokenizer
from tokviz.core.io.resources import resource_path

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


# The numbers behind the captions, as literals: (UTF-8 bytes, GPT-2 tokens, cl100k tokens) of each
# bundled sample. test_the_literal_counts_are_tiktokens_counts checks them with tiktoken itself, so
# the captions below are compared with facts, not with the code that writes them.
COUNTS = {
    "English prose": (2169, 513, 497),
    "Python source": (1911, 755, 497),
    "JSON": (2372, 1342, 809),
    "Chinese": (1889, 1351, 768),
    "Digits": (2001, 856, 668),
}
GPT2_VOCAB, CL100K_VOCAB = 50257, 100277
# English: 2169/513 = 4.228 bytes/token; Chinese: 1889/1351 = 1.398; ratio 3.024, squared 9.146.
CAPTION = (
    "With GPT-2, Chinese needs 3.0× as many tokens per byte as English prose "
    "(1.40 vs 4.23 bytes/token) → 9.1× the attention compute, "
    "and a context window fits 3.0× fewer of its bytes."
)


def test_the_literal_counts_are_tiktokens_counts(
    samples: dict[str, str], gpt2_tiktoken: tiktoken.Encoding, cl100k_tiktoken: tiktoken.Encoding
) -> None:
    measured = {
        label: (len(text.encode("utf-8")), len(gpt2_tiktoken.encode(text)), len(cl100k_tiktoken.encode(text)))
        for label, text in samples.items()
    }
    assert measured == COUNTS
    assert (gpt2_tiktoken.n_vocab, cl100k_tiktoken.n_vocab) == (GPT2_VOCAB, CL100K_VOCAB)
    assert [len(gpt2_tiktoken.encode(DEMO)), len(cl100k_tiktoken.encode(DEMO)), len(DEMO.encode())] == [
        12,
        10,
        20,
    ]


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
    assert demo.fewest_tokens(0) == 10
    assert (demo.attention(0, 1), demo.attention(0, 0)) == (pytest.approx(1.44), 4.0)


def test_the_spread_between_inputs_is_computed_from_the_data(table: ExchangeTable) -> None:
    gpt2 = table.tokenizers.index("GPT-2")
    spread = table.spread(gpt2)
    assert spread is not None

    bpts = {label: table.bytes_per_token(i, gpt2) for i, label in enumerate(table.inputs)}
    assert spread.cheapest == max(bpts, key=bpts.__getitem__) == "English prose"
    assert spread.dearest == min(bpts, key=bpts.__getitem__) == "Chinese"
    assert spread.token_ratio == bpts["English prose"] / bpts["Chinese"]
    assert spread.attention == spread.token_ratio**2
    assert spread.token_ratio == pytest.approx((2169 / 513) / (1889 / 1351))
    assert (spread.cheapest_bytes_per_token, spread.dearest_bytes_per_token) == (
        pytest.approx(2169 / 513),
        pytest.approx(1889 / 1351),
    )
    # For the same number of bytes (1889 × 2169), Chinese needs 1351 × 2169 tokens and English prose
    # 513 × 1889: the token counts are in that ratio, and attention goes with its square.
    assert spread.attention == pytest.approx(attention_multiplier(1351 * 2169, 513 * 1889))


def test_the_caption_states_the_computed_numbers(table: ExchangeTable) -> None:
    text = caption(table)

    assert text.startswith("With GPT-2, Chinese needs ")
    assert "3.0× as many tokens per byte as English prose" in text
    assert "→ 9.1× the attention compute" in text
    assert "(1.40 vs 4.23 bytes/token)" in text
    assert text == CAPTION


def test_captions_of_the_other_views(table: ExchangeTable) -> None:
    # Worst attention cost against the fewest tokens: GPT-2 on Chinese (1351/768)² = 3.09;
    # bytes on English prose (2169/497)² = 19.05.
    assert "bytes up to 19×" in attention_caption(table)
    assert attention_caption(table) == (
        "Against the tokenizer that needs the fewest tokens for each input, dense attention costs "
        "GPT-2 up to 3.1× (on Chinese), bytes up to 19× (on English prose)."
    )

    # 100,277 × 768 = 77,012,736 and 50,257 × 768 = 38,597,376 parameters, 2.0× the size; over all
    # inputs 10,342 bytes make 3,239 cl100k tokens (3.19 bytes/token) and 4,817 GPT-2 ones (2.15).
    text = embedding_caption(table, 768)
    assert text.startswith("At d = 768, cl100k's embedding table")
    assert "2.0× the size of GPT-2's (38.6 M)" in text
    assert text == (
        "At d = 768, cl100k's embedding table (77 M parameters) is 2.0× the size of GPT-2's (38.6 M), "
        "for 1.5× the bytes per token over all inputs (3.19 vs 2.15)."
    )


def test_one_input_compares_the_tokenizers(tokenizers: list[Tokenizer]) -> None:
    demo = ExchangeTable.measure({"the demo": DEMO}, tokenizers)

    # 20 bytes: cl100k 10 tokens, GPT-2 12 (1.2×, squared 1.44), bytes 20 (2.0×, squared 4.0).
    assert caption(demo) == (
        "On the demo, cl100k needs the fewest tokens (10); "
        "GPT-2 needs 1.2× as many (1.4× the attention compute), "
        "bytes 2.0× (4.0×)."
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
    assert caption(mixed) == caption(ExchangeTable.measure(samples, tokenizers)) == CAPTION


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
    # Rounded as the command line rounds them: a thousandth of a byte per token, no float noise.
    assert chinese_gpt2["bytes_per_token"] == "1.398"
    assert float(chinese_gpt2["bytes_per_token"]) == pytest.approx(table.bytes_per_token(i, j), abs=5e-4)
    assert float(chinese_gpt2["attention_multiplier"]) == pytest.approx(table.attention(i, j), abs=5e-4)
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


def test_a_tokenizer_that_loses_words_to_unk_is_never_the_best_while_another_keeps_everything():
    from tokviz.core.bpe.lecture_tokenizers import WordTokenizer
    from tokviz.core.formats.registry import builtin_tokenizer

    words = WordTokenizer.from_text("hello there")
    gpt2 = builtin_tokenizer("gpt2")
    table = ExchangeTable.measure(
        {"chinese": "你好世界 hello there"}, [words, gpt2], names=["words", "GPT-2"]
    )

    assert table.metric(0, 0).unknown > 0 and table.tokens(0, 0) < table.tokens(0, 1)
    assert table.best(0) == (1,)
    assert table.fewest_tokens(0) == table.tokens(0, 1)


def test_rows_from_the_cli_keep_their_unknown_count_so_the_plot_marks_lossy_bars():
    rows = [
        {
            "input": "zh",
            "tokenizer": "words",
            "bytes": 80,
            "code_points": 40,
            "tokens": 23,
            "bytes_per_token": 80 / 23,
            "unknown": 5,
        },
        {
            "input": "zh",
            "tokenizer": "GPT-2",
            "bytes": 80,
            "code_points": 40,
            "tokens": 38,
            "bytes_per_token": 80 / 38,
            "unknown": 0,
        },
    ]
    table = ExchangeTable.from_rows(rows)
    assert [table.metric(0, j).unknown for j in range(2)] == [5, 0]
    assert table.best(0) == (1,), "fewer tokens for less text is not the best rate"


def test_csv_quotes_an_input_a_spreadsheet_would_run_as_a_formula(tokenizers: list[Tokenizer]) -> None:
    table = ExchangeTable.measure({"=cmd|calc": "hello", "-a": "hi"}, tokenizers)
    rows = list(csv.DictReader(io.StringIO(table.to_csv())))
    assert {r["input"] for r in rows} == {"'=cmd|calc", "'-a"}
    assert all(not r["bytes"].startswith("'") for r in rows), "numbers are left as they are"
