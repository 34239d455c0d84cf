"""``tokviz encode``: ids, visible tokens and JSON spans, from text or a file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import tiktoken

from ..texts import HELLO
from .helpers import run


def test_bytes_tokenizer_gives_one_id_per_byte(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "encode", "--tokenizer", "bytes", "--text", "Hi 🌍") == (
        0,
        "72 105 32 240 159 140 141\n",
        "",
    )


def test_gpt2_is_the_default_and_matches_tiktoken(
    capsys: pytest.CaptureFixture[str], gpt2_tiktoken: tiktoken.Encoding
) -> None:
    code, out, _ = run(capsys, "encode", "--text", HELLO)

    ids = [int(i) for i in out.split()]
    assert code == 0
    assert len(ids) == 12
    assert ids == gpt2_tiktoken.encode(HELLO)


def test_tokens_format_shows_visible_pieces(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "encode", "--text", HELLO, "--format", "tokens")

    assert code == 0
    assert out == "Hello|,|·<F0 9F>|<8C>|<8D>|!|·|<E4 BD>|<A0>|<E5 A5>|<BD>|!\n"


def test_json_format_places_every_token_on_the_text(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "encode", "--text", HELLO, "--format", "json")

    tokens = json.loads(out)
    assert code == 0
    assert tokens[0] == {"id": 15496, "bytes": "48656c6c6f", "text": "Hello", "start": 0, "end": 5}
    # The globe is split over three tokens; each one covers the whole emoji and has no text of its own.
    globe = [t for t in tokens if t["start"] <= 7 < t["end"]]
    assert [t["bytes"] for t in globe] == ["20f09f", "8c", "8d"]
    assert [t["text"] for t in globe] == [None, None, None]
    assert bytes.fromhex("".join(t["bytes"] for t in tokens)).decode("utf-8") == HELLO


def test_special_tokens_can_be_added_on_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "encode", "--text", "a<|endoftext|>b<|mine|>", "--special-token", "<|mine|>")

    assert code == 0
    assert out.split() == ["64", "50256", "65", "50257"]


def test_encode_reads_a_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "hi.txt"
    path.write_text("Hi 🌍", encoding="utf-8")

    assert run(capsys, "encode", "--tokenizer", "bytes", str(path))[1] == "72 105 32 240 159 140 141\n"
