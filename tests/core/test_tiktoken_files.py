""".tiktoken rank files: where their pattern and special tokens come from, and the empty-token line.

A rank file is only ``base64(token) rank`` lines. tokviz takes the pattern and special tokens from
the caller, else from a sidecar ``<file>.tiktoken.json``, else from OpenAI's published files (known
by SHA-256); otherwise it uses GPT-2's pattern and no specials and says so in ``assumptions``.
"""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import pytest
import tiktoken
from hypothesis import given, settings
from hypothesis import strategies as st
from tiktoken.load import load_tiktoken_bpe

from tests.multilingual import corpus_lines
from tokviz.core import train_bpe
from tokviz.core.bpe.tokenizer import Tokenizer
from tokviz.core.errors import TokenizerLoadError
from tokviz.core.formats import export_tiktoken, load_tiktoken_file, parse_tiktoken_file
from tokviz.core.formats.registry import load_tokenizer
from tokviz.core.formats.tiktoken_file import (
    ASSUMED_PATTERN,
    ASSUMED_SPECIALS,
    PUBLISHED_FILES,
    tiktoken_from_data,
)
from tokviz.core.io.resources import resource_path
from tokviz.core.pretok.pretokenize import CL100K_PATTERN

LINES = corpus_lines(400)


@pytest.fixture(scope="module")
def trained() -> Tokenizer:
    """A small byte-level BPE trained on multilingual text (cl100k chunking), ranks = ids."""
    return train_bpe(text="\n".join(corpus_lines(600)), vocab_size=700, pretokenizer="cl100k").tokenizer(
        "small"
    )


@pytest.fixture
def rank_file(tmp_path: Path, trained: Tokenizer) -> Path:
    """The trained vocabulary written as a bare rank file (no sidecar)."""
    path = tmp_path / "small.tiktoken"
    export_tiktoken(trained, path)
    return path


def _oracle(path: Path, pattern: str, specials: dict[str, int]) -> tiktoken.Encoding:
    """tiktoken itself, reading the file with its own loader."""
    return tiktoken.Encoding(
        "oracle", pat_str=pattern, mergeable_ranks=load_tiktoken_bpe(str(path)), special_tokens=specials
    )


def test_an_unknown_file_says_what_was_assumed(rank_file: Path) -> None:
    tok = load_tokenizer(rank_file)
    assert tok.assumptions == ("pre-tokenizer assumed: GPT-2", "special tokens: none known")
    assert (ASSUMED_PATTERN, ASSUMED_SPECIALS) == tok.assumptions
    assert tok.pretokenizer.name == "gpt2" and tok.special_tokens == {}


def test_a_given_pattern_and_specials_are_used_as_tiktoken_would(rank_file: Path) -> None:
    specials = {"<|endoftext|>": 700, "<|im_start|>": 701}
    tok = load_tokenizer(rank_file, pattern=CL100K_PATTERN, special_tokens=specials)
    oracle = _oracle(rank_file, CL100K_PATTERN, specials)
    assert tok.assumptions == ()
    assert tok.pretokenizer.name == "cl100k"
    for line in LINES:
        text = f"<|im_start|>{line}<|endoftext|>"
        assert tok.encode(text) == oracle.encode(text, allowed_special="all"), text


def test_a_custom_regex_is_tiktokens_pattern_too(rank_file: Path) -> None:
    pattern = r"\p{L}+|\p{N}|\s+|[^\s\p{L}\p{N}]+"
    tok = load_tokenizer(rank_file, pattern=pattern)
    oracle = _oracle(rank_file, pattern, {})
    assert tok.assumptions == ("special tokens: none known",)
    for line in LINES:
        assert tok.encode(line) == oracle.encode_ordinary(line)
        assert [s.id for s in tok.encode_spans(line)] == tok.encode(line)


def test_special_tokens_without_ids_take_the_next_free_ones(rank_file: Path) -> None:
    tok = load_tiktoken_file(rank_file, special_tokens=["<|a|>", "<|b|>"])
    assert tok.special_tokens == {"<|a|>": 700, "<|b|>": 701}
    assert tok.assumptions == ("pre-tokenizer assumed: GPT-2",)


def test_a_special_token_on_an_ordinary_rank_is_refused(rank_file: Path) -> None:
    with pytest.raises(
        TokenizerLoadError, match=r"small.tiktoken: special token '<\|x\|>' has id 5, an ordinary rank"
    ):
        load_tokenizer(rank_file, special_tokens={"<|x|>": 5})


def test_the_sidecar_gives_pattern_and_specials(rank_file: Path) -> None:
    sidecar = rank_file.with_name(rank_file.name + ".json")
    sidecar.write_text(
        json.dumps(
            {
                "format": "tokviz-tiktoken-sidecar",
                "version": 1,
                "pattern": CL100K_PATTERN,
                "special_tokens": {"<|endoftext|>": 700},
            }
        ),
        encoding="utf-8",
    )
    tok = load_tokenizer(rank_file)
    assert tok.assumptions == ()
    assert tok.pretokenizer.name == "cl100k" and tok.special_tokens == {"<|endoftext|>": 700}
    # What is given explicitly wins over the sidecar; given specials add to the sidecar's.
    other = load_tokenizer(rank_file, pattern="gpt2", special_tokens=["<|fim|>"])
    assert other.pretokenizer.name == "gpt2"
    assert other.special_tokens == {"<|endoftext|>": 700, "<|fim|>": 701}


def test_an_exported_model_comes_back_with_its_sidecar(tmp_path: Path, trained: Tokenizer) -> None:
    from tokviz.core.formats.exports import write_export

    with_specials = trained.with_special_tokens(["<|endoftext|>"])
    write_export(with_specials, "tiktoken", tmp_path / "out.tiktoken")
    back = load_tokenizer(tmp_path / "out.tiktoken")
    assert back.assumptions == ()
    assert back.pretokenizer.pattern == trained.pretokenizer.pattern
    assert back.special_tokens == with_specials.special_tokens
    for line in LINES[:100]:
        assert back.encode(line + "<|endoftext|>") == with_specials.encode(line + "<|endoftext|>")


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ({"format": "something-else"}, "not a tokviz sidecar"),
        ({"format": "tokviz-tiktoken-sidecar", "version": 7}, "sidecar version 7"),
        ({"format": "tokviz-tiktoken-sidecar", "version": 1, "pattern": 3}, '"pattern" must be'),
        ({"format": "tokviz-tiktoken-sidecar", "version": 1, "special_tokens": {"<s>": -1}}, "needs an id"),
    ],
)
def test_a_broken_sidecar_is_named_not_ignored(rank_file: Path, doc: dict[str, object], message: str) -> None:
    rank_file.with_name(rank_file.name + ".json").write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(TokenizerLoadError, match=message) as info:
        load_tokenizer(rank_file)
    assert "small.tiktoken.json" in str(info.value) and "\n" not in str(info.value)


@pytest.mark.slow
@pytest.mark.parametrize("encoding", ["r50k_base.tiktoken", "cl100k_base.tiktoken", "o200k_base.tiktoken"])
def test_openais_files_are_known_by_their_hash(tmp_path: Path, encoding: str) -> None:
    data = resource_path("encodings", encoding).read_bytes()
    tok = tiktoken_from_data(data, tmp_path / "renamed.tiktoken")
    assert tok.assumptions == ()
    known = next(f for f in PUBLISHED_FILES.values() if f.name == encoding.removesuffix(".tiktoken"))
    assert tok.special_tokens == dict(known.special_tokens)
    assert tok.pretokenizer.name == known.pattern


def test_the_bundled_encodings_agree_with_the_published_table() -> None:
    from tokviz.core.formats.encodings import BUNDLED

    for enc in BUNDLED.values():
        known = PUBLISHED_FILES[enc.sha256]
        assert (known.name, known.pattern, dict(known.special_tokens)) == (
            enc.name,
            enc.pattern,
            dict(enc.special_tokens),
        )


def _whisper_like(tmp_path: Path) -> Path:
    """A rank file shaped like Whisper's multilingual.tiktoken: GPT-2's ranks, then an empty token."""
    lines = resource_path("encodings", "r50k_base.tiktoken").read_bytes().splitlines()[:300]
    path = tmp_path / "multilingual.tiktoken"
    path.write_bytes(b"\n".join([*lines, b"= 300"]) + b"\n")
    return path


def test_an_empty_token_line_is_read_as_tiktoken_reads_it(tmp_path: Path) -> None:
    path = _whisper_like(tmp_path)
    assert parse_tiktoken_file(path.read_bytes(), path.name) == load_tiktoken_bpe(str(path))
    assert load_tiktoken_bpe(str(path))[b""] == 300
    tok = load_tokenizer(path, pattern="gpt2", special_tokens={"<|endoftext|>": 301})
    oracle = tiktoken.Encoding(
        "w",
        pat_str=tok.pretokenizer.pattern or "",
        mergeable_ranks=load_tiktoken_bpe(str(path)),
        special_tokens={"<|endoftext|>": 301},
    )
    for line in LINES:
        assert tok.encode(line) == oracle.encode(line, allowed_special="all")
    assert tok.id_bytes(300) == b"" and tok.decode([300, 301]) == "<|endoftext|>"
    assert 300 not in tok.encode("".join(LINES))  # BPE never makes the empty token
    assert tok.merge_count == 300 - 256  # the empty token is no merge, before recovery ...
    assert len(tok.merges) == 300 - 256  # ... and after


def test_padding_alone_is_the_empty_token_but_no_token_is_refused(tmp_path: Path) -> None:
    base = resource_path("encodings", "r50k_base.tiktoken").read_bytes().splitlines()[:256]
    ok = b"\n".join([*base, b"=== 256"])
    assert parse_tiktoken_file(ok, "x")[b""] == 256
    with pytest.raises(TokenizerLoadError, match="line 257: not a 'base64-token rank' pair"):
        parse_tiktoken_file(b"\n".join([*base, b" 256"]), "x")
    with pytest.raises(TokenizerLoadError, match="already has rank"):
        parse_tiktoken_file(b"\n".join([*base, b"= 256", b"== 257"]), "x")


def _spelled(
    table: dict[bytes, int], crlf: bool, blank_after: int | None, bom: bool, final_newline: bool
) -> bytes:
    """``table`` as a rank file, written in one of the ways files in the wild are."""
    lines = [base64.b64encode(token) + b" %d" % rank for token, rank in table.items()]
    if blank_after is not None:
        lines.insert(min(blank_after, len(lines)), b"")
    end = b"\r\n" if crlf else b"\n"
    data = end.join(lines) + (end if final_newline else b"")
    return (b"\xef\xbb\xbf" if bom else b"") + data


_SINGLE_BYTES = {bytes([b]): b for b in range(256)}


@settings(max_examples=60)
@given(
    extra=st.lists(st.binary(min_size=2, max_size=6), unique=True, max_size=40),
    crlf=st.booleans(),
    blank_after=st.none() | st.integers(0, 300),
    bom=st.booleans(),
    final_newline=st.booleans(),
)
def test_a_table_reads_back_however_its_file_is_spelled(
    extra: list[bytes], crlf: bool, blank_after: int | None, bom: bool, final_newline: bool
) -> None:
    table = _SINGLE_BYTES | {token: 256 + i for i, token in enumerate(extra)}
    data = _spelled(table, crlf, blank_after, bom, final_newline)
    assert parse_tiktoken_file(data, "x") == table
    assert parse_tiktoken_file(data, "x") == plain_reading(data.removeprefix(b"\xef\xbb\xbf"))


def plain_reading(data: bytes) -> dict[bytes, int]:
    """Rank-file bytes read the plain way tiktoken's loader reads them: each non-empty line split at
    whitespace into a base64 token and a rank, nothing checked."""
    return {
        base64.b64decode(token): int(rank)
        for token, rank in (line.split() for line in data.splitlines() if line)
    }


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (b"IQ==  300", "line 258: not a 'base64-token rank' pair"),
        (b"IQ== 300 1", "line 258: not a 'base64-token rank' pair"),
        (b"IQ==\t300", "line 258: not a 'base64-token rank' pair"),
        (b"IQ== 3a0", "line 258: not a 'base64-token rank' pair"),
        (b"IQ== 12345678901", "line 258: not a 'base64-token rank' pair"),
        (b"I!Q= 300", "line 258: the token is not valid base64"),
        (b"IQ= 300", "line 258: the token is not valid base64"),
        (b"IQ== 4294967295", "line 258: rank 4294967295 is larger than 2^31 - 1"),
        (b"YWJj 0", "line 258: rank 0 is already used by"),
        (base64.b64encode(b"a") + b" 300", "line 258: token b'a' already has rank 97"),
    ],
)
def test_a_broken_line_after_good_ones_is_named(line: bytes, message: str) -> None:
    good = _spelled(_SINGLE_BYTES | {b"ab": 256}, crlf=False, blank_after=None, bom=False, final_newline=True)
    with pytest.raises(TokenizerLoadError, match=re.escape(f"x, {message}")):
        parse_tiktoken_file(good + line + b"\n", "x")


def test_a_file_that_is_not_one_line_per_token_is_one_clear_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.tiktoken"
    path.write_bytes(base64.b64encode(b"ab") + b" 1 2\n")
    with pytest.raises(TokenizerLoadError, match=r"bad.tiktoken, line 1: not a 'base64-token rank' pair"):
        load_tokenizer(path)


@pytest.mark.slow
@pytest.mark.parametrize("pattern", ["gpt2", CL100K_PATTERN, r"\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+|\s+"])
def test_ids_equal_tiktoken_on_the_whole_corpus(rank_file: Path, pattern: str) -> None:
    specials = {"<|endoftext|>": 700, "<s>": 701, "</s>": 702}
    tok = load_tokenizer(rank_file, pattern=pattern, special_tokens=specials)
    oracle = _oracle(rank_file, tok.pretokenizer.pattern or "", specials)
    lines = corpus_lines()
    assert len(lines) >= 30_000
    assert [tok.encode(x) for x in lines] == oracle.encode_batch(lines, allowed_special="all")


def test_a_sidecar_of_another_rank_file_is_refused(rank_file: Path) -> None:
    doc = {"format": "tokviz-tiktoken-sidecar", "version": 1, "pattern": "cl100k", "sha256": "0" * 64}
    rank_file.with_name(rank_file.name + ".json").write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(
        TokenizerLoadError, match="small.tiktoken.json belongs to another version of small.tiktoken"
    ):
        load_tokenizer(rank_file)


def test_a_rank_file_without_the_extension_takes_a_pattern_too(tmp_path: Path, rank_file: Path) -> None:
    renamed = tmp_path / "ranks.txt"
    renamed.write_bytes(rank_file.read_bytes())
    assert load_tokenizer(renamed).assumptions == (ASSUMED_PATTERN, ASSUMED_SPECIALS)
    tok = load_tokenizer(renamed, pattern="cl100k", special_tokens={"<|endoftext|>": None})
    assert tok.pretokenizer.name == "cl100k" and tok.special_tokens == {"<|endoftext|>": 700}
    assert tok.assumptions == ()
