"""``tokviz compare``: token counts, bytes per token and attention cost per input and tokenizer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import tiktoken

from ..texts import HELLO
from .helpers import run


def test_compare_defaults_to_bytes_gpt2_and_cl100k(
    capsys: pytest.CaptureFixture[str], cl100k_tiktoken: tiktoken.Encoding
) -> None:
    code, out, _ = run(capsys, "compare", "--text", HELLO, "--format", "json")

    rows = {r["tokenizer"]: r for r in json.loads(out)}
    assert code == 0
    assert list(rows) == ["bytes", "GPT-2", "cl100k"]  # named as the app names them
    # cl100k's count comes from tiktoken itself, not from the row under test.
    assert [rows[n]["tokens"] for n in rows] == [20, 12, len(cl100k_tiktoken.encode(HELLO))]
    best = min(r["tokens"] for r in rows.values())
    for r in rows.values():
        assert r["bytes"] == 20
        assert r["bytes_per_token"] == round(20 / r["tokens"], 3)
        assert r["attention_multiplier"] == round((r["tokens"] / best) ** 2, 3)


def test_compare_table_and_csv(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("hello hello hello", encoding="utf-8")
    b.write_text("你好", encoding="utf-8")

    code, out, _ = run(capsys, "compare", str(a), str(b), "--tokenizer", "bytes", "--tokenizer", "gpt2")
    table = out.splitlines()
    assert code == 0
    assert table[0].split() == ["input", "tokenizer", "bytes", "tokens", "bytes/token", "attention", "x"]
    assert table[1].split()[1:] == ["bytes", "17", "17", "1", "32.11"]
    assert table[2].split()[1:] == ["GPT-2", "17", "3", "5.67", "1", "(best)"]

    code, out, _ = run(capsys, "compare", str(a), "--tokenizer", "gpt2", "--format", "csv")
    assert out.splitlines() == [
        "input,tokenizer,bytes,code_points,tokens,bytes_per_token,attention_multiplier,best,lossy,"
        "vocab_tokens,id_range,embedding_dim,embedding_parameters,specials_in_text",
        f"{a},GPT-2,17,17,3,5.667,1.0,True,False,50257,50257,768,{50257 * 768},special",
    ]
