"""``--specials-in-text special|text``: one rule for every command that encodes, checked against tiktoken.

``special`` (the default) is tiktoken's ``encode(text, allowed_special="all")``; ``text`` is its
``encode_ordinary(text)``. ``usage`` and ``eval`` count the same folder to the same total.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
import tiktoken

from .helpers import run

TEXT = "Hello world<|endoftext|>The cat sat.<|endoftext|> x <|endofprompt|>end"
MODES = ("special", "text")
ENCODINGS = (("gpt2", "gpt2_tiktoken"), ("cl100k", "cl100k_tiktoken"))


def reference(encoding: tiktoken.Encoding, text: str, mode: str) -> list[int]:
    if mode == "special":
        return encoding.encode(text, allowed_special="all")
    return encoding.encode_ordinary(text)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "sub").mkdir()
    (tmp_path / "a.txt").write_text(TEXT + "\n", encoding="utf-8")
    (tmp_path / "sub" / "b.py").write_text(
        "def f(x):\n    return x  # <|endoftext|>\n" * 50, encoding="utf-8"
    )
    return tmp_path


def _folder_text(folder: Path) -> list[str]:
    return [p.read_text(encoding="utf-8") for p in sorted(folder.rglob("*.*"))]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("name", "fixture"), ENCODINGS)
def test_encode_gives_tiktokens_ids_for_either_setting(
    capsys: pytest.CaptureFixture[str], request: pytest.FixtureRequest, name: str, fixture: str, mode: str
) -> None:
    encoding = request.getfixturevalue(fixture)
    code, out, _ = run(capsys, "encode", "--tokenizer", name, "--text", TEXT, "--specials-in-text", mode)
    assert code == 0
    assert [int(i) for i in out.split()] == reference(encoding, TEXT, mode)


def test_the_default_parses_specials(
    capsys: pytest.CaptureFixture[str], gpt2_tiktoken: tiktoken.Encoding
) -> None:
    _, out, _ = run(capsys, "encode", "--tokenizer", "gpt2", "--text", TEXT)
    assert [int(i) for i in out.split()] == gpt2_tiktoken.encode(TEXT, allowed_special="all")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("name", "fixture"), ENCODINGS)
def test_usage_eval_and_compare_count_what_tiktoken_encodes(
    capsys: pytest.CaptureFixture[str],
    request: pytest.FixtureRequest,
    folder: Path,
    name: str,
    fixture: str,
    mode: str,
) -> None:
    encoding = request.getfixturevalue(fixture)
    expected = sum(len(reference(encoding, t, mode)) for t in _folder_text(folder))
    flags = ("--tokenizer", name, "--format", "json", "--specials-in-text", mode)

    _, out, _ = run(capsys, "usage", str(folder), *flags)
    usage = json.loads(out)[0]
    _, out, _ = run(capsys, "eval", str(folder), *flags)
    evaluation = json.loads(out)
    _, out, _ = run(capsys, "compare", str(folder), *flags)
    compared = json.loads(out)[0]

    assert usage["tokens"] == evaluation["rows"][0]["tokens"] == compared["tokens"] == expected
    assert usage["specials_in_text"] == evaluation["specials_in_text"] == compared["specials_in_text"] == mode


@pytest.mark.parametrize("mode", MODES)
def test_compare_on_a_text_follows_the_setting(
    capsys: pytest.CaptureFixture[str], cl100k_tiktoken: tiktoken.Encoding, mode: str
) -> None:
    _, out, _ = run(
        capsys,
        "compare",
        "--text",
        TEXT,
        "--tokenizer",
        "cl100k",
        "--format",
        "csv",
        "--specials-in-text",
        mode,
    )
    row = next(csv.DictReader(io.StringIO(out)))
    assert int(row["tokens"]) == len(reference(cl100k_tiktoken, TEXT, mode))
    assert row["specials_in_text"] == mode


@pytest.mark.parametrize(
    ("mode", "note"),
    [
        ("special", "special tokens in text: parsed as specials"),
        ("text", "special tokens in text: read as plain text"),
    ],
)
def test_every_table_says_how_special_token_text_was_read(
    capsys: pytest.CaptureFixture[str], folder: Path, mode: str, note: str
) -> None:
    commands = [
        ("eval", str(folder)),
        ("usage", str(folder), "--top", "3"),
        ("compare", "--text", TEXT),
        ("replay", "--text", TEXT, "--merges", "3"),
    ]
    for command in commands:
        code, out, _ = run(capsys, *command, "--tokenizer", "gpt2", "--specials-in-text", mode)
        assert code == 0, command
        assert note in out.splitlines(), command


def test_usage_csv_rows_carry_the_setting(capsys: pytest.CaptureFixture[str], folder: Path) -> None:
    _, out, _ = run(
        capsys, "usage", str(folder), "--tokenizer", "gpt2", "--format", "csv", "--specials-in-text", "text"
    )
    rows = list(csv.DictReader(io.StringIO(out)))
    assert {r["specials_in_text"] for r in rows} == {"text"}
    endoftext = next(r for r in rows if r["id"] == "50256")
    assert endoftext["count"] == "0"


def test_replay_of_a_tokenizer_follows_the_setting(
    capsys: pytest.CaptureFixture[str], gpt2_tiktoken: tiktoken.Encoding
) -> None:
    for mode in MODES:
        _, out, _ = run(
            capsys,
            "replay",
            "--text",
            TEXT,
            "--tokenizer",
            "gpt2",
            "--format",
            "json",
            "--specials-in-text",
            mode,
        )
        assert json.loads(out)[-1]["tokens"] == len(reference(gpt2_tiktoken, TEXT, mode))


def test_an_unloadable_tokenizer_is_reported_and_the_rest_evaluated(
    capsys: pytest.CaptureFixture[str], folder: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    from tests.core.test_older_hf_files import wordpiece_without_type

    models = tmp_path_factory.mktemp("models")
    bert_shaped = wordpiece_without_type(models / "bert")
    broken = models / "broken" / "tokenizer.json"
    broken.parent.mkdir()
    broken.write_text('{"model": {"type": "BPE", "vocab": 3}}', encoding="utf-8")

    code, out, err = run(
        capsys,
        "eval",
        str(folder),
        "--tokenizer",
        "gpt2",
        "--tokenizer",
        str(broken),
        "--tokenizer",
        str(bert_shaped),
        "--format",
        "json",
    )

    assert code == 1
    assert [r["tokenizer"] for r in json.loads(out)["rows"]] == ["GPT-2", "bert"]
    failures = [line for line in err.splitlines() if line.startswith("tokviz: error:")]
    assert len(failures) == 1 and f"cannot load {broken}" in failures[0]


def test_info_lists_every_token_the_encoder_reads_whole(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from tests.core.made_by_others import hf_trained

    # A converted file (from GGUF, say) whose <|endoftext|> is an added token not marked special.
    doc = json.loads(hf_trained("the cat sat on the mat " * 50).to_str())
    for token in doc["added_tokens"]:
        token["special"] = False
    (tmp_path / "tokenizer.json").write_text(json.dumps(doc), encoding="utf-8")
    endoftext = next(t["id"] for t in doc["added_tokens"] if t["content"] == "<|endoftext|>")

    _, out, _ = run(capsys, "encode", "--tokenizer", str(tmp_path), "--text", "a<|endoftext|>b")
    assert str(endoftext) in out.split()
    _, out, _ = run(capsys, "info", str(tmp_path))
    assert f"<|endoftext|> ({endoftext})" in out
    _, out, _ = run(capsys, "info", str(tmp_path), "--format", "json")
    assert json.loads(out)["added_tokens_in_text"] == {"<|endoftext|>": endoftext}
