"""The HF export is checked with ``tokenizers`` before anything is written.

Patterns Oniguruma reads otherwise (``\\h``, scoped ``(?s:...)`` / ``(?m:...)``) or that can match
the empty string (``x*``, ``a*``) are refused with the reason; any other difference is caught by
encoding a hard sample with both libraries. A refused export leaves no file behind.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tokenizers import Tokenizer as HFTokenizer

from tokviz.core.bpe.tokenizer import Tokenizer
from tokviz.core.errors import ExportError
from tokviz.core.formats import export_hf, hf_verify, load_hf
from tokviz.core.formats.hf_json import hf_file_bytes

from .made_by_others import hf_trained, hf_vocab_and_merges


@pytest.fixture(scope="module")
def base(english_text: str) -> tuple[dict[int, bytes], list[tuple[bytes, bytes]]]:
    """A vocabulary and merges learned by Hugging Face ``tokenizers`` (ids made 0-based for bytes)."""
    tk = hf_trained(english_text[:60_000], vocab_size=500, specials=())
    return hf_vocab_and_merges(tk)


def _with_pattern(base: tuple[dict[int, bytes], list[tuple[bytes, bytes]]], pattern: str) -> Tokenizer:
    vocab, merges = base
    return Tokenizer(vocab, merges, {"<|endoftext|>": max(vocab) + 1}, pattern, name="t")


@pytest.mark.parametrize(
    ("pattern", "reason"),
    [
        ("x*", "can match the empty string"),
        ("a*", "can match the empty string"),
        (r"\w*|\s", "can match the empty string"),
        (r"\h+|\S+|\v", r"\h means a hex digit in Oniguruma"),
        (r"[\h]+|\S+", r"\h means a hex digit in Oniguruma"),
        (r"\w+|(?s:.)", "has no (?s) flag and refuses it (undefined group option)"),
        (r"(?m:.)|\w+", "(?m) means dot-all in Oniguruma"),
    ],
)
def test_patterns_hf_reads_otherwise_are_refused_and_nothing_is_written(
    tmp_path: Path, base: tuple[dict[int, bytes], list[tuple[bytes, bytes]]], pattern: str, reason: str
) -> None:
    tok = _with_pattern(base, pattern)
    target = tmp_path / "tokenizer.json"
    with pytest.raises(ExportError, match="cannot write tokenizer.json") as info:
        export_hf(tok, target)
    assert reason in str(info.value)
    assert "\n" not in str(info.value)
    assert not target.exists()
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "pattern",
    [
        "gpt2",
        "cl100k",
        "none",
        r"\p{L}+|\p{N}+|\s+|[^\s\p{L}\p{N}]+",
        r" ?\w+| ?[^\w\s]+|\s+",
        r"(?i:the)|\w+|\W",
        r"\d{1,3}|\D",
    ],
)
def test_expressible_patterns_export_and_encode_identically(
    tmp_path: Path,
    base: tuple[dict[int, bytes], list[tuple[bytes, bytes]]],
    pattern: str,
    varied_text: str,
    english_text: str,
) -> None:
    tok = _with_pattern(base, pattern)
    target = export_hf(tok, tmp_path / "tokenizer.json")
    hf = HFTokenizer.from_file(str(target))
    for text in (varied_text, english_text[:5000], *hf_verify.HARD_SAMPLE):
        assert hf.encode(text, add_special_tokens=False).ids == tok.encode(text)
    assert load_hf(target).encode(varied_text) == tok.encode(varied_text)


def test_the_encoding_check_catches_what_the_pattern_rules_miss(
    base: tuple[dict[int, bytes], list[tuple[bytes, bytes]]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without the pattern rules, loading with ``tokenizers`` and comparing ids still refuses."""
    monkeypatch.setattr(hf_verify, "pattern_problem", lambda pre: None)
    with pytest.raises(ExportError, match="Hugging Face tokenizers would encode it differently"):
        hf_file_bytes(_with_pattern(base, r"\h+|\S+|\v"))
    with pytest.raises(ExportError, match="Hugging Face tokenizers cannot load it .*undefined group option"):
        hf_file_bytes(_with_pattern(base, r"\w+|(?s:.)"))
    with pytest.raises(ExportError, match="Hugging Face tokenizers would encode it differently"):
        hf_file_bytes(_with_pattern(base, "x*"))


def test_a_training_sample_is_compared_too(
    base: tuple[dict[int, bytes], list[tuple[bytes, bytes]]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Text the hard sample lacks (here: none at all) is still checked when the caller passes it."""
    monkeypatch.setattr(hf_verify, "HARD_SAMPLE", ())
    monkeypatch.setattr(hf_verify, "pattern_problem", lambda pre: None)
    monkeypatch.setattr(hf_verify, "_vocabulary_text", lambda tok: "")
    tok = _with_pattern(base, r"\h+|\S+|\s")
    hf_file_bytes(tok)  # nothing to compare on: passes
    with pytest.raises(ExportError, match="would encode it differently"):
        hf_file_bytes(tok, sample=["each defined because added faced"])  # HF: \h+ takes "eac", "def"


def test_the_written_file_is_what_was_verified(
    tmp_path: Path, base: tuple[dict[int, bytes], list[tuple[bytes, bytes]]]
) -> None:
    tok = _with_pattern(base, r"\p{L}+|\p{N}+|\s+|[^\s\p{L}\p{N}]+")
    data = hf_file_bytes(tok)
    target = export_hf(tok, tmp_path / "tokenizer.json")
    assert json.loads(target.read_bytes()) == json.loads(data)
