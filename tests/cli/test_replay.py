"""``tokviz replay``: the lecture's merge table, JSON records, and a tokenizer's merges on a text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tokviz.core.formats.registry import load_tokenizer

from ..texts import CAT, HELLO
from .helpers import run


def test_replay_reproduces_the_lecture_table(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys,
        "replay",
        "--text",
        CAT,
        "--merges",
        "3",
        "--pretokenizer",
        "none",
        "--tie-break",
        "first-seen",
    )

    assert code == 0
    assert out == (
        "step  merge            new id  bytes   count  tokens\n"
        "   0                                              18\n"
        '   1  "t" + "h"    ->     256  "th"        2      16\n'
        '   2  "th" + "e"   ->     257  "the"       2      14\n'
        '   3  "the" + " "  ->     258  "the "      2      12\n'
        "12 tokens: [the ][c][a][t][ ][i][n][ ][the ][h][a][t]  1.5 bytes per token  vocab size 259\n"
    )


def test_replay_json_has_one_record_per_merge(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys,
        "replay",
        "--text",
        CAT,
        "--merges",
        "3",
        "--pretokenizer",
        "none",
        "--tie-break",
        "first-seen",
        "--format",
        "json",
    )

    assert code == 0
    assert json.loads(out) == [
        {"step": 1, "left": "t", "right": "h", "new_id": 256, "bytes": "th", "count": 2, "tokens": 16},
        {"step": 2, "left": "th", "right": "e", "new_id": 257, "bytes": "the", "count": 2, "tokens": 14},
        {"step": 3, "left": "the", "right": " ", "new_id": 258, "bytes": "the ", "count": 2, "tokens": 12},
    ]


def test_replay_shows_partial_bytes_as_hex_in_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "replay", "--text", "🌍🌍", "--merges", "1", "--format", "json")

    assert code == 0
    assert json.loads(out)[0] == {
        "step": 1, "left": "f0", "right": "9f", "new_id": 256, "bytes": "f09f", "count": 2, "tokens": 6
    }  # fmt: skip


@pytest.mark.slow
def test_replay_of_a_tokenizer_counts_tokens_after_every_merge(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "replay", "--tokenizer", "gpt2", "--text", HELLO, "--format", "json")

    steps = json.loads(out)
    tok = load_tokenizer("gpt2")
    assert code == 0
    assert len(steps) == 50_000
    assert steps[-1]["tokens"] == 12
    assert steps[0] == {
        "step": 1,
        "left": " ",
        "right": "t",
        "new_id": 256,
        "bytes": " t",
        "count": 0,
        "tokens": 20,
    }
    for k in (1, 100, 8327, 8328, 12265, 12266, 15241, 15242, 30_000):
        assert steps[k - 1]["tokens"] == len(tok.encode_with_merges(HELLO, k)), k


@pytest.mark.slow
def test_replay_table_can_skip_merges_that_do_not_change_the_text(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "replay", "--tokenizer", "gpt2", "--text", "the cat", "--only-changes")

    assert code == 0
    assert out == (
        "step  merge            new id  bytes   count  tokens\n"
        "   0                                               7\n"
        '   3  "h" + "e"    ->     258  "he"        1       6\n'
        '  10  "a" + "t"    ->     265  "at"        1       5\n'
        '  14  " " + "c"    ->     269  " c"        1       4\n'
        ' 914  "t" + "he"   ->    1169  "the"       1       3\n'
        '3542  " c" + "at"  ->    3797  " cat"      1       2\n'
        "2 tokens: [the][ cat]  3.5 bytes per token  vocab size 50257\n"
        "special tokens in text: parsed as specials\n"
    )


def test_replay_options_for_training_do_not_mix_with_a_tokenizer(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "replay", "--tokenizer", "gpt2", "--pretokenizer", "none", "--text", "x")

    assert code == 2
    assert "only when training" in err


def test_replay_text_that_names_a_file_is_still_text(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("aaa").write_text("something else entirely", encoding="utf-8")

    code, out, _ = run(capsys, "replay", "--text", "aaa", "--pretokenizer", "none", "--format", "json")

    assert code == 0
    assert [(s["bytes"], s["tokens"]) for s in json.loads(out)] == [("aa", 2), ("aaa", 1)]
