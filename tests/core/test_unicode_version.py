"""Chunks of tiktoken-encoded tokenizers are tiktoken's, whatever Unicode Python's ``regex`` knows.

``regex`` follows a newer Unicode than tiktoken's Rust regex engine. A code point assigned only in
the newer version (U+0C5C, a Telugu letter in Unicode 17) is a letter to ``regex`` and unassigned to
tiktoken, so "\\u0C5C's" is cut differently. tokviz's chunks (the views' chunk numbers, the
pre-tokenizer panel, replay) for gpt2, cl100k, o200k and .tiktoken files therefore use the
property classes tiktoken's engine has, found by probing tiktoken itself over all code points.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import regex
import tiktoken

from tests.memory_use import module_cache
from tokviz.core import train_bpe
from tokviz.core.bpe.tokenizer import Tokenizer
from tokviz.core.formats.registry import load_tokenizer
from tokviz.core.io.recovery import WHOLE_PIECE_PATTERN
from tokviz.core.io.resources import resource_path
from tokviz.core.pretok.pretokenize import CL100K_PATTERN, GPT2_PATTERN, O200K_PATTERN, resolve_pretokenizer
from tokviz.core.pretok.unicode_reference import differing_code_points, reference_members, reference_pattern

PATTERNS = {"gpt2": GPT2_PATTERN, "cl100k": CL100K_PATTERN, "o200k": O200K_PATTERN}
NAMES = list(PATTERNS)
ALL_CODE_POINTS = [c for c in range(0x110000) if not 0xD800 <= c < 0xE000]


def _probe_text(code_points: list[int]) -> str:
    """Each code point in the brief's shapes: before a contraction, doubled, after a letter."""
    return "".join(f"{chr(c)}'s {chr(c)}{chr(c)} x{chr(c)}\n" for c in code_points)


def _oracle(name: str, oracles: dict[str, tiktoken.Encoding]) -> tiktoken.Encoding:
    return oracles[name]


@pytest.fixture(scope="module")
def oracles(
    gpt2_tiktoken: tiktoken.Encoding, cl100k_tiktoken: tiktoken.Encoding, o200k_tiktoken: tiktoken.Encoding
) -> dict[str, tiktoken.Encoding]:
    return {"gpt2": gpt2_tiktoken, "cl100k": cl100k_tiktoken, "o200k": o200k_tiktoken}


_WHOLE: dict[str, tiktoken.Encoding] = module_cache()


def _chunk_ids(tok: Tokenizer, oracle: tiktoken.Encoding, text: str) -> list[int]:
    """The ids of ``text`` when each of tokviz's chunks is merged alone (with the oracle's ranks)."""
    whole = _WHOLE.get(oracle.name)
    if whole is None:
        whole = _WHOLE[oracle.name] = tiktoken.Encoding(
            "whole", pat_str=WHOLE_PIECE_PATTERN, mergeable_ranks=oracle._mergeable_ranks, special_tokens={}
        )
    out: list[int] = []
    for chunk in tok.pretokenizer.split(text):
        out.extend(whole.encode_ordinary(chunk))
    return out


def test_the_reference_unicode_version_is_found_by_probing_tiktoken() -> None:
    letters = reference_members(r"\p{L}")
    unassigned = reference_members(r"\p{Cn}")
    assert letters is not None and unassigned is not None
    # tiktoken knows Unicode 16.0 (or newer): its new letters (Cyrillic Tje, Garay) are letters.
    assert {0x1C89, 0x10D4A} <= letters
    differing = {ord(c) for c in differing_code_points(O200K_PATTERN)}
    if not differing:
        pytest.skip("this regex module knows the same Unicode as tiktoken")
    # With tiktoken 0.14 and regex 2026: the letters Unicode 17.0 adds are unassigned to tiktoken ...
    if 0x0C5C in differing:
        assert 0x0C5C in unassigned and 0x0C5C not in letters
        assert bool(regex.match(r"\p{L}", "\u0c5c"))  # regex's newer Unicode
    # ... and what differs is almost only code points tiktoken does not know yet
    # (U+0295 moved from Lo to Ll in Unicode 17).
    assert len(differing - unassigned) <= 5


@pytest.mark.parametrize("name", NAMES)
def test_the_minimal_example_chunks_as_tiktoken_does(
    name: str, oracles: dict[str, tiktoken.Encoding]
) -> None:
    tok = load_tokenizer(name)
    oracle = _oracle(name, oracles)
    text = "\u0c5c's x\u0c5c \u0295's"
    assert tok.encode(text) == oracle.encode_ordinary(text)
    assert _chunk_ids(tok, oracle, text) == oracle.encode_ordinary(text)
    # The plain pattern under regex's own Unicode would cut it otherwise (when their Unicode differs).
    plain = resolve_pretokenizer(name)
    if "\u0c5c" in differing_code_points(PATTERNS[name]):
        assert plain.split(text) != tok.pretokenizer.split(text)


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_chunks_equal_tiktoken_on_every_differing_code_point_and_a_dense_sample(
    name: str, oracles: dict[str, tiktoken.Encoding]
) -> None:
    tok = load_tokenizer(name)
    oracle = _oracle(name, oracles)
    differing = sorted(ord(c) for c in differing_code_points(PATTERNS[name]))
    sample = sorted(set(differing) | set(ALL_CODE_POINTS[::97]))
    text = _probe_text(sample)
    assert _chunk_ids(tok, oracle, text) == oracle.encode_ordinary(text)
    # Spans: each token lies inside the chunk it is numbered with.
    line = _probe_text(differing[:200])
    chunks = tok.pretokenizer.spans(line)
    for span in tok.encode_spans(line):
        start, end = chunks[span.chunk]
        assert start <= span.start and span.end <= end, span


@pytest.mark.slow
@pytest.mark.long_pole
@pytest.mark.parametrize("name", NAMES)
def test_chunks_equal_tiktoken_on_every_code_point(name: str, oracles: dict[str, tiktoken.Encoding]) -> None:
    tok = load_tokenizer(name)
    oracle = _oracle(name, oracles)
    for i in range(0, len(ALL_CODE_POINTS), 65536):
        text = _probe_text(ALL_CODE_POINTS[i : i + 65536])
        assert _chunk_ids(tok, oracle, text) == oracle.encode_ordinary(text), hex(ALL_CODE_POINTS[i])


def test_replay_with_all_merges_reaches_tiktokens_ids() -> None:
    tok = load_tokenizer("gpt2")
    text = "x\u0c5c's \u0c5c\u0c5c y\u0295's"
    assert tok.encode_with_merges(text, tok.merge_count) == tok.encode_ordinary(text)


def test_a_tiktoken_file_with_its_own_pattern_is_bound_too(
    tmp_path: Path, gpt2_tiktoken: tiktoken.Encoding
) -> None:
    path = tmp_path / "ranks.tiktoken"
    path.write_bytes(resource_path("encodings", "r50k_base.tiktoken").read_bytes())
    pattern = r"\p{L}+|\p{N}+|[^\p{L}\p{N}]"
    tok = load_tokenizer(path, pattern=pattern)
    oracle = tiktoken.Encoding(
        "o", pat_str=pattern, mergeable_ranks=gpt2_tiktoken._mergeable_ranks, special_tokens={}
    )
    text = _probe_text(sorted(ord(c) for c in differing_code_points(pattern))[:300])
    assert tok.encode(text) == oracle.encode_ordinary(text)
    assert _chunk_ids(tok, oracle, text) == oracle.encode_ordinary(text)


def test_reference_pattern_rewrites_only_what_depends_on_unicode() -> None:
    assert reference_pattern(r"'s|\s+|[a-z]+|\\p{L}") == r"'s|\s+|[a-z]+|\\p{L}"
    negated = regex.compile(reference_pattern(r"[^\s\p{L}]"))
    letter = regex.compile(reference_pattern(r"\p{L}"))
    assert negated.fullmatch("\u0c5c") and not letter.fullmatch("\u0c5c")  # not a letter to tiktoken
    assert letter.fullmatch("a") and not negated.fullmatch("a")
    assert letter.fullmatch("\u0295")  # a letter in both versions (Lo, then Ll)


def test_trained_models_keep_regexs_own_unicode() -> None:
    trained = train_bpe(text="the cat's hat " * 20, vocab_size=270, pretokenizer="gpt2").tokenizer("t")
    assert trained.pretokenizer.split("\u0c5c's") == resolve_pretokenizer("gpt2").split("\u0c5c's")


def test_a_bound_pretokenizer_survives_pickling() -> None:
    import pickle

    pre = load_tokenizer("gpt2").pretokenizer
    copy = pickle.loads(pickle.dumps(pre))
    assert copy == pre and copy.split("x\u0c5c's") == pre.split("x\u0c5c's") == ["x", "\u0c5c'", "s"]
