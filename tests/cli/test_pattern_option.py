"""``--pattern`` and ``--special-token TEXT[=ID]``: saying what a rank file cannot hold.

A ``.tiktoken`` file has no pre-tokenizer pattern and no special tokens. Without them tokviz uses
GPT-2's pattern and says so (``tokviz info``: "pre-tokenizer assumed: GPT-2"); with them the file
encodes as tiktoken does when given the same pattern and specials.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import tiktoken
from tiktoken.load import load_tiktoken_bpe

from tokviz.cli.options import parse_special_token
from tokviz.core import train_bpe
from tokviz.core.formats import export_tiktoken
from tokviz.core.pretok.pretokenize import CL100K_PATTERN

from .helpers import assert_one_line_error, run

TEXT = "Hello<|im_start|>world, it's 2024!\n  naïve café<|endoftext|>"


@pytest.fixture(scope="module")
def rank_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small trained vocabulary as a bare rank file: no sidecar, not one of OpenAI's."""
    tok = train_bpe(
        text="Hello world, it's a naïve café. " * 40, vocab_size=300, pretokenizer="cl100k"
    ).tokenizer("s")
    path = tmp_path_factory.mktemp("ranks") / "small.tiktoken"
    export_tiktoken(tok, path)
    return path


def _oracle(path: Path, pattern: str, specials: dict[str, int]) -> tiktoken.Encoding:
    return tiktoken.Encoding(
        "o", pat_str=pattern, mergeable_ranks=load_tiktoken_bpe(str(path)), special_tokens=specials
    )


def test_info_says_what_it_assumed(capsys: pytest.CaptureFixture[str], rank_file: Path) -> None:
    code, out, _ = run(capsys, "info", str(rank_file))
    assert code == 0
    assert "pre-tokenizer assumed: GPT-2" in out
    assert "special tokens: none known" in out
    assert "pre-tokenizer:  gpt2" not in out  # the guess is not stated as a fact
    code, out, _ = run(capsys, "info", str(rank_file), "--format", "json")
    assert json.loads(out)["assumptions"] == ["pre-tokenizer assumed: GPT-2", "special tokens: none known"]


def test_info_with_the_pattern_and_specials_assumes_nothing(
    capsys: pytest.CaptureFixture[str], rank_file: Path
) -> None:
    code, out, _ = run(
        capsys,
        "info",
        str(rank_file),
        "--pattern",
        "cl100k",
        "--special-token",
        "<|endoftext|>=300",
        "--format",
        "json",
    )
    assert code == 0
    info = json.loads(out)
    assert info["assumptions"] == []
    assert info["pretokenizer"] == "cl100k"
    assert info["special_tokens"] == {"<|endoftext|>": 300}


def test_encode_with_a_pattern_and_specials_equals_tiktoken(
    capsys: pytest.CaptureFixture[str], rank_file: Path
) -> None:
    code, out, _ = run(
        capsys,
        "encode",
        "--tokenizer",
        str(rank_file),
        "--pattern",
        CL100K_PATTERN,
        "--special-token",
        "<|endoftext|>=300",
        "--special-token",
        "<|im_start|>",
        "--text",
        TEXT,
    )
    assert code == 0
    oracle = _oracle(rank_file, CL100K_PATTERN, {"<|endoftext|>": 300, "<|im_start|>": 301})
    assert [int(x) for x in out.split()] == oracle.encode(TEXT, allowed_special="all")


def test_a_custom_regex_pattern(capsys: pytest.CaptureFixture[str], rank_file: Path) -> None:
    pattern = r"\p{L}+|\s+|[^\s\p{L}]+"
    code, out, _ = run(
        capsys, "encode", "--tokenizer", str(rank_file), "--pattern", pattern, "--text", "naïve café x"
    )
    assert code == 0
    assert [int(x) for x in out.split()] == _oracle(rank_file, pattern, {}).encode_ordinary("naïve café x")


@pytest.mark.parametrize("command", ["compare", "render", "replay"])
def test_the_other_commands_take_the_options(
    capsys: pytest.CaptureFixture[str], rank_file: Path, command: str, tmp_path: Path
) -> None:
    argv = {
        "compare": ["compare", "--text", TEXT, "--tokenizer", str(rank_file), "--format", "json"],
        "render": ["render", "--text", TEXT, "--tokenizer", str(rank_file), "-o", str(tmp_path / "x.svg")],
        "replay": [
            "replay",
            "--text",
            TEXT,
            "--tokenizer",
            str(rank_file),
            "--merges",
            "3",
            "--format",
            "json",
        ],
    }[command]
    code, _, err = run(capsys, *argv, "--pattern", "cl100k", "--special-token", "<|im_start|>=301")
    assert code == 0, err


def test_a_bad_pattern_is_one_line(capsys: pytest.CaptureFixture[str], rank_file: Path) -> None:
    code, _, err = run(
        capsys, "encode", "--tokenizer", str(rank_file), "--pattern", "(unclosed", "--text", "x"
    )
    assert code == 1
    assert_one_line_error(err, "regex")


def test_a_special_token_on_an_ordinary_rank_is_one_line(
    capsys: pytest.CaptureFixture[str], rank_file: Path
) -> None:
    code, _, err = run(
        capsys, "encode", "--tokenizer", str(rank_file), "--special-token", "<|x|>=5", "--text", "x"
    )
    assert code == 1
    assert_one_line_error(err, "small.tiktoken", "id 5, an ordinary rank")


def test_a_built_in_keeps_its_pattern(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "encode", "--tokenizer", "gpt2", "--special-token", "<|x|>=5", "--text", "x")
    assert code != 0
    assert "built in" in err and "Traceback" not in err
    code, out, _ = run(
        capsys, "encode", "--tokenizer", "gpt2", "--special-token", "<|x|>", "--text", "a<|x|>"
    )
    assert code == 0 and out.split()[-1] == "50257"


@pytest.mark.parametrize(
    ("value", "parsed"),
    [
        ("<|endoftext|>=50256", ("<|endoftext|>", 50256)),
        ("<|endoftext|>", ("<|endoftext|>", None)),
        ("a=b", ("a=b", None)),
        ("=5", ("=5", None)),
        ("x==7", ("x=", 7)),
    ],
)
def test_special_token_values(value: str, parsed: tuple[str, int | None]) -> None:
    assert parse_special_token(value) == parsed
