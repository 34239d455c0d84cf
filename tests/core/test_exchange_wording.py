"""The captions read well on a slide: plurals take an apostrophe alone, and the attention caption
names each input once and leaves out costs that round to nothing."""

from __future__ import annotations

from tokviz.core.analysis.exchange import ExchangeTable, attention_caption, embedding_caption
from tokviz.core.analysis.metrics import TextMetrics


def test_the_embedding_caption_says_characters_not_characters_s():
    metrics = (
        (TextMetrics(bytes=20, code_points=13, tokens=13, bytes_per_token=20 / 13, unknown=0),),
        (TextMetrics(bytes=20, code_points=13, tokens=12, bytes_per_token=20 / 12, unknown=0),),
    )
    table = ExchangeTable(
        inputs=("Editor text",),
        tokenizers=("characters", "GPT-2"),
        metrics=tuple(zip(*metrics)),
        vocab_sizes=(1_114_112, 50_257),
    )

    text = embedding_caption(table, 768)

    assert "characters' embedding table" in text and "characters's" not in text
    assert "GPT-2's" in text


def _metrics(tokens: int) -> TextMetrics:
    return TextMetrics(bytes=100, code_points=100, tokens=tokens, bytes_per_token=100 / tokens, unknown=0)


def test_the_attention_caption_names_each_input_once_and_skips_costs_of_one():
    table = ExchangeTable(
        inputs=("Chinese", "English prose"),
        tokenizers=("o200k", "cl100k", "GPT-2"),
        metrics=(
            (_metrics(40), _metrics(59), _metrics(105)),
            (_metrics(20), _metrics(20), _metrics(21)),
        ),
        vocab_sizes=(200_019, 100_277, 50_257),
    )

    assert attention_caption(table) == (
        "Against the tokenizer that needs the fewest tokens for each input, dense attention costs "
        "cl100k up to 2.2× and GPT-2 up to 6.9× (on Chinese)."
    )
