"""Every command that opens tokenizers says what tokviz assumed about them, and takes ``--pattern``.

A vocab.json + merges.txt folder without a config does not say how it cuts text: tokviz reads it
with GPT-2's pattern, and ``eval``, ``compare``, ``usage`` and ``encode`` each print that on
standard error (``eval`` and ``usage`` also in their JSON). A folder whose config names
``Qwen2Tokenizer`` is counted as ``AutoTokenizer`` counts it, so ``eval`` ranks it on its real
counts.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.core.test_transformers_classes import NFC_TEXTS, saved_folder, write_pair
from tests.multilingual import corpus_lines

from .helpers import run

NOTE = "pre-tokenizer assumed: GPT-2"
TEXT = "\n".join(NFC_TEXTS + corpus_lines(200, seed=41)) + "\n"


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A bare pair (no config), the same pair saved by transformers as Qwen2's, and a text file."""
    root = tmp_path_factory.mktemp("notes")
    bare = write_pair(root / "bare")
    qwen = saved_folder(bare, "Qwen2Tokenizer", root / "qwen", with_tokenizer_json=False)
    text = root / "held-out.txt"
    text.write_text(TEXT, encoding="utf-8")
    return {"bare": bare, "qwen": qwen, "text": text}


@pytest.mark.parametrize(
    "command",
    [
        ["eval", "{text}", "--tokenizer", "{bare}", "--tokenizer", "gpt2"],
        ["eval", "{text}", "--tokenizer", "{bare}", "--format", "csv"],
        ["compare", "{text}", "--tokenizer", "{bare}", "--tokenizer", "gpt2"],
        ["compare", "{text}", "--tokenizer", "{bare}", "--format", "json"],
        ["usage", "{text}", "--tokenizer", "{bare}", "--top", "2"],
        ["encode", "--text", "café 12345", "--tokenizer", "{bare}", "--format", "tokens"],
        ["encode", "--text", "café 12345", "--tokenizer", "{bare}"],
        ["info", "{bare}"],
    ],
    ids=lambda c: " ".join(c[:1] + c[-2:]),
)
def test_each_command_says_the_pattern_was_assumed(
    capsys: pytest.CaptureFixture[str], folders: dict[str, Path], command: list[str]
) -> None:
    argv = [part.format(**{k: str(v) for k, v in folders.items()}) for part in command]
    code, out, err = run(capsys, *argv)
    assert code == 0 and NOTE in out + err
    # With the pattern given nothing is assumed, and nothing is said.
    code, out, err = run(capsys, *argv, "--pattern", "gpt2")
    assert code == 0 and NOTE not in out + err


def test_json_carries_the_assumptions(capsys: pytest.CaptureFixture[str], folders: dict[str, Path]) -> None:
    bare, text = str(folders["bare"]), str(folders["text"])
    _, out, _ = run(
        capsys, "eval", text, "--tokenizer", bare, "--tokenizer", "gpt2", "--format", "json", "-q"
    )
    assert json.loads(out)["assumptions"] == {"bare": [NOTE], "GPT-2": []}
    _, out, _ = run(capsys, "usage", text, "--tokenizer", bare, "--format", "json", "--top", "1")
    assert json.loads(out)[0]["assumptions"] == [NOTE]
    _, out, _ = run(capsys, "compare", text, "--tokenizer", bare, "--tokenizer", "gpt2", "--format", "json")
    assert [row["assumptions"] for row in json.loads(out)] == [[NOTE], []]


def test_eval_counts_a_qwen2_folder_as_autotokenizer_does(
    capsys: pytest.CaptureFixture[str], folders: dict[str, Path]
) -> None:
    transformers = pytest.importorskip("transformers")
    auto = transformers.AutoTokenizer.from_pretrained(str(folders["qwen"]))
    expected = len(auto(TEXT, add_special_tokens=False)["input_ids"])
    code, out, err = run(
        capsys, "eval", str(folders["text"]), "--tokenizer", str(folders["qwen"]), "--format", "json"
    )
    assert code == 0 and NOTE not in err
    assert json.loads(out)["rows"][-1]["tokens"] == expected


def test_eval_and_usage_take_a_pattern(capsys: pytest.CaptureFixture[str], folders: dict[str, Path]) -> None:
    bare, text = str(folders["bare"]), str(folders["text"])
    for command, tokens in (
        ("eval", lambda doc: doc["rows"][-1]["tokens"]),
        ("usage", lambda doc: doc[0]["tokens"]),
    ):
        counts = set()
        for pattern in ("gpt2", "cl100k"):
            _, out, _ = run(
                capsys, command, text, "--tokenizer", bare, "--format", "json", "--pattern", pattern
            )
            counts.add(tokens(json.loads(out)))
        assert len(counts) == 2, command  # the pattern took effect


def test_sweep_says_the_pattern_was_a_guess_in_its_table_json_and_on_stderr(
    capsys: pytest.CaptureFixture[str], folders: dict[str, Path]
) -> None:
    bare, text = str(folders["bare"]), str(folders["text"])
    code, out, err = run(capsys, "sweep", bare, text, "-q")
    assert code == 0
    assert f"assumed: {NOTE} (the sizes and the knee rest on that guess)" in out
    code, out, err = run(capsys, "sweep", bare, text, "--format", "json")
    assert json.loads(out)["assumptions"] == [NOTE] and NOTE in err
    code, out, err = run(capsys, "sweep", bare, text, "--format", "json", "--pattern", "gpt2")
    assert json.loads(out)["assumptions"] == [] and NOTE not in err


def test_audit_says_the_guess_first_and_qualifies_what_rests_on_it(
    capsys: pytest.CaptureFixture[str], folders: dict[str, Path]
) -> None:
    bare = str(folders["bare"])
    code, out, err = run(capsys, "audit", bare)
    assert code == 0 and NOTE in err
    head = out.splitlines()[:3]
    assert head[1] == f"assumed: {NOTE} (the classes below rest on that guess)"
    assert "unreachable (with the assumed pre-tokenizer)" in out
    code, out, _ = run(capsys, "audit", bare, "--format", "json")
    assert json.loads(out)["assumptions"] == [NOTE]
    code, out, _ = run(capsys, "audit", bare, "--pattern", "gpt2")
    assert "assumed" not in out


def test_info_says_the_whisper_special_tokens_were_assumed(capsys: pytest.CaptureFixture[str]) -> None:
    rank_file = Path(__file__).resolve().parents[1] / "data" / "real" / "multilingual.tiktoken"
    code, out, _ = run(capsys, "info", str(rank_file))
    assert code == 0
    assert "assumed:        special tokens: Whisper large-v3's (100 languages" in out
