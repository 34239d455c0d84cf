"""``tokviz info``: what a tokenizer is made of."""

from __future__ import annotations

import json

import pytest
import tiktoken

from .helpers import run


def test_info_describes_a_tokenizer(
    capsys: pytest.CaptureFixture[str], gpt2_tiktoken: tiktoken.Encoding
) -> None:
    code, out, _ = run(capsys, "info", "gpt2", "--format", "json")

    assert code == 0
    assert json.loads(out) == {
        "name": "GPT-2",
        "vocab_size": 50257,  # the id space (highest id + 1), V of V x d
        "distinct_tokens": 50257,
        "merges": 50000,
        "special_tokens": {"<|endoftext|>": 50256},
        "special_tokens_in_text": True,  # tiktoken's allowed_special="all": the text <|endoftext|> is one id
        "pretokenizer": "gpt2",
        # tiktoken's own published pattern for GPT-2 (its Encoding keeps it as _pat_str).
        "pattern": gpt2_tiktoken._pat_str,
        "assumptions": [],
        "warnings": [],
    }
    assert "vocab size:     256" in run(capsys, "info", "bytes")[1]
