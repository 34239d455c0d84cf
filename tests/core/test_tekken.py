"""Mistral's tekken files open with mistral-common's ids: special ids first, then the ranks.

The real file (an excerpt of mistral-common's ``tekken_240911.json``) is checked against tiktoken as
mistral-common builds it in ``tests/core/test_real_files.py``; these tests cover what only the
format says: ids shifted past the special tokens, special tokens that text never produces, the
names of the legacy special tokens, and clear refusals.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from tests.core.real_files import DATA
from tokviz.core.errors import TokenizerLoadError
from tokviz.core.formats.registry import load_tokenizer
from tokviz.core.formats.tekken_file import FILLER, LEGACY_SPECIALS

REAL = DATA / "tekken_240911_first5000.json"


def tekken_doc(version: str = "v3", n_special: int = 50, specials: list[str] | None = None) -> dict:
    """A small tekken file: the 256 bytes, then 'th', 'the' and ' the', with ``n_special`` special ids."""
    tokens = [bytes([b]) for b in range(256)] + [b"th", b"the", b" the"]
    doc: dict = {
        "config": {
            "pattern": r"""[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+""",
            "num_vocab_tokens": len(tokens),
            "default_vocab_size": len(tokens) + n_special,
            "default_num_special_tokens": n_special,
            "version": version,
        },
        "vocab": [
            {"rank": r, "token_bytes": base64.b64encode(t).decode(), "token_str": t.decode("latin-1")}
            for r, t in enumerate(tokens)
        ],
    }
    if specials is not None:
        doc["special_tokens"] = [
            {"rank": k, "token_str": s, "is_control": True} for k, s in enumerate(specials)
        ]
    return doc


def write(tmp_path: Path, doc: dict, name: str = "tekken.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def test_ids_are_ranks_after_the_special_tokens(tmp_path: Path) -> None:
    tokenizer = load_tokenizer(write(tmp_path, tekken_doc(n_special=50)))

    assert tokenizer.encode("the") == [256 + 1 + 50]
    assert tokenizer.encode(" the th") == [256 + 2 + 50, 32 + 50, 256 + 50]
    assert tokenizer.vocab_size == 259 + 50
    assert tokenizer.decode(tokenizer.encode("the other")) == "the other"


def test_special_tokens_decode_but_text_never_becomes_them(tmp_path: Path) -> None:
    tokenizer = load_tokenizer(write(tmp_path, tekken_doc(n_special=30)))

    assert list(tokenizer.special_tokens)[:3] == ["<unk>", "<s>", "</s>"]
    assert tokenizer.special_tokens["[INST]"] == 3 and tokenizer.is_special(3)
    assert tokenizer.special_tokens[FILLER.format(id=29)] == 29, (
        "unnamed ids are named as mistral-common names them"
    )
    assert tokenizer.decode([1, 3]) == "<s>[INST]"
    assert 3 not in tokenizer.encode("[INST] the"), "mistral-common reads [INST] in text as plain text"
    assert tokenizer.encode("[INST]") == tokenizer.encode_ordinary("[INST]")


def test_a_newer_file_names_its_own_special_tokens(tmp_path: Path) -> None:
    tokenizer = load_tokenizer(write(tmp_path, tekken_doc("v13", 4, ["<unk>", "<s>", "</s>", "[THINK]"])))
    assert tokenizer.special_tokens == {"<unk>": 0, "<s>": 1, "</s>": 2, "[THINK]": 3}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda d: d.update(special_tokens=None) or d["config"].update(version="v13"),
            "must list its special_tokens",
        ),
        (lambda d: d["vocab"][300 - 44].update(token_bytes="not base64!"), "not base64"),
        (lambda d: d["vocab"][5].update(rank=6), "vocab entry 5 must be"),
        (lambda d: d["vocab"][65].update(token_bytes="QkI="), "rank 65 must be the single byte 41"),
        (lambda d: d["vocab"][258].update(token_bytes="dGg="), "the same bytes"),
        (lambda d: d["config"].update(default_vocab_size=10**6), "the vocab list has 259"),
        (lambda d: d["config"].update(default_num_special_tokens="1000"), "whole number"),
        (
            lambda d: d.update(
                special_tokens=[{"rank": 0, "token_str": "<s>"}, {"rank": 1, "token_str": "<s>"}]
            ),
            "listed twice",
        ),
    ],
)
def test_a_broken_file_is_refused_in_one_line(tmp_path: Path, change, message: str) -> None:
    doc = tekken_doc(specials=None)
    change(doc)
    if doc.get("special_tokens", "") is None:
        del doc["special_tokens"]
    with pytest.raises(TokenizerLoadError, match=message) as info:
        load_tokenizer(write(tmp_path, doc, "tekken_broken.json"))
    assert str(info.value).startswith("tekken_broken.json:") and "\n" not in str(info.value)


def test_the_real_excerpt_keeps_mistral_commons_legacy_names_and_ids() -> None:
    tokenizer = load_tokenizer(REAL)

    assert tokenizer.name == "tekken_240911_first5000"
    assert [tokenizer.special_tokens[s] for s in LEGACY_SPECIALS] == list(range(len(LEGACY_SPECIALS)))
    assert tokenizer.vocab_size == 6000
    # As mistral-common 1.13.1 gives them: Tekkenizer.from_file(REAL).encode(text, bos=False, eos=False).
    assert tokenizer.encode("Hello, the world") == [1072, 5525, 1044, 1278, 4304]


def test_tokviz_info_says_the_special_tokens_are_ids_only(capsys) -> None:
    from tokviz.cli import main

    assert main(["info", str(REAL)]) == 0
    out = capsys.readouterr().out
    assert "special tokens (ids only: text never becomes them): 1,000: <unk> (0), <s> (1)" in out
    assert "vocab size:     6000" in out and "merges:         4744" in out
