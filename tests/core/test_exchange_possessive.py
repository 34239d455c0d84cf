"""The vocabulary caption's English: a tokenizer named with a plural takes an apostrophe alone."""

from __future__ import annotations

from tokviz.core.exchange import ExchangeTable, embedding_caption
from tokviz.core.metrics import TextMetrics


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
