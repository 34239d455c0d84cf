"""o200k_base (GPT-4o's encoding) ships beside GPT-2 and cl100k and encodes exactly as tiktoken does.

The oracle is tiktoken's own definition of o200k_base (pattern and special tokens from
``tiktoken_ext.openai_public``) over the bundled rank file, built without the network.
"""

from __future__ import annotations

import dataclasses
import hashlib
from pathlib import Path

import pytest
import regex
import tiktoken
import tiktoken_ext.openai_public as public
from hypothesis import given
from hypothesis import strategies as st

from tests.multilingual import SPECIAL_STRINGS, corpus_lines
from tokviz.core.errors import TokenizerLoadError
from tokviz.core.formats import encodings
from tokviz.core.formats.registry import BUILTIN_TOKENIZERS, builtin_tokenizer, is_builtin, load_tokenizer
from tokviz.core.io.resources import resource_path
from tokviz.core.pretok.pretokenize import O200K_PATTERN

from ..cli.helpers import run

PUBLISHED_SHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"


def test_the_bundled_file_is_the_published_one() -> None:
    data = resource_path("encodings", "o200k_base.tiktoken").read_bytes()
    assert hashlib.sha256(data).hexdigest() == PUBLISHED_SHA256
    # tiktoken's own loader checks this very hash for o200k_base.
    assert PUBLISHED_SHA256 in Path(public.__file__).read_text(encoding="utf-8")
    shared = Path(__file__).resolve().parents[3] / "shared" / "encodings" / "SHA256SUMS"
    if shared.exists():
        assert f"{PUBLISHED_SHA256}  o200k_base.tiktoken" in shared.read_text(encoding="ascii")


@pytest.mark.slow
def test_pattern_and_specials_are_tiktokens(o200k_tiktoken: tiktoken.Encoding) -> None:
    tok = load_tokenizer("o200k")
    assert tok.pretokenizer.pattern == O200K_PATTERN == o200k_tiktoken._pat_str
    assert (
        tok.special_tokens
        == o200k_tiktoken._special_tokens
        == {"<|endoftext|>": 199999, "<|endofprompt|>": 200018}
    )
    # 199,998 ranks and two specials; the ids between them (199998, 200000-200017) are unused.
    assert tok.vocab_size == 199998 + 2
    assert max(tok.vocab) + 1 == o200k_tiktoken.n_vocab
    assert tok.assumptions == ()


@pytest.mark.parametrize("alias", ["o200k", "o200k_base", "gpt-4o", "GPT-4o", " O200K "])
def test_aliases_name_one_shared_tokenizer(alias: str) -> None:
    assert is_builtin(alias)
    assert load_tokenizer(alias) is builtin_tokenizer("o200k")
    assert "o200k" in BUILTIN_TOKENIZERS


def test_ids_equal_tiktoken_on_the_multilingual_corpus(o200k_tiktoken: tiktoken.Encoding) -> None:
    tok = load_tokenizer("gpt-4o")
    for line in corpus_lines(3000):
        assert tok.encode(line) == o200k_tiktoken.encode(line, allowed_special="all"), line
        assert tok.encode_ordinary(line) == o200k_tiktoken.encode_ordinary(line), line


@pytest.mark.slow
def test_ids_equal_tiktoken_on_the_whole_corpus(o200k_tiktoken: tiktoken.Encoding) -> None:
    tok = load_tokenizer("o200k")
    lines = corpus_lines()
    assert len(lines) >= 30_000
    assert [tok.encode(x) for x in lines] == o200k_tiktoken.encode_batch(lines, allowed_special="all")


def test_special_tokens_are_one_id_each(o200k_tiktoken: tiktoken.Encoding) -> None:
    tok = load_tokenizer("o200k")
    text = "Hi<|endoftext|>there<|endofprompt|>" + "".join(SPECIAL_STRINGS)
    assert tok.encode(text) == o200k_tiktoken.encode(text, allowed_special="all")
    assert tok.encode("<|endoftext|>") == [199999]
    assert tok.is_special(200018) and tok.id_bytes(200018) == b"<|endofprompt|>"


def test_spans_place_every_token_on_the_text() -> None:
    tok = load_tokenizer("o200k")
    text = "GPT-4o's tokens: 日本語 🌍👩‍👩‍👧 مرحبا\n\n  x/y?\n/z"
    spans = tok.encode_spans(text)
    assert [s.id for s in spans] == tok.encode(text)
    assert b"".join(s.bytes for s in spans) == text.encode("utf-8")
    assert tok.decode(tok.encode(text)) == text
    # The "?\n/" chunk: o200k's punctuation run takes a newline and a slash after it.
    chunks = [text[s:e] for s, e in tok.pretokenizer.spans(text)]
    assert "?\n/" in chunks


def test_a_swapped_file_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    real = encodings.BUNDLED["o200k_base"]
    wrong = dataclasses.replace(real, sha256="0" * 64)
    monkeypatch.setitem(encodings.BUNDLED, "o200k_base", wrong)
    encodings._load_ranks.cache_clear()
    try:
        with pytest.raises(TokenizerLoadError, match="does not match its published SHA-256"):
            encodings.load_bundled_ranks("o200k")
    finally:
        encodings._load_ranks.cache_clear()


@pytest.mark.slow
def test_a_copy_of_the_file_opens_with_its_pattern_and_specials(tmp_path: Path) -> None:
    copy = tmp_path / "my-o200k.tiktoken"
    copy.write_bytes(resource_path("encodings", "o200k_base.tiktoken").read_bytes())
    tok = load_tokenizer(copy)
    assert tok.pretokenizer.name == "o200k" and tok.assumptions == ()
    assert tok.special_tokens == builtin_tokenizer("o200k").special_tokens
    assert tok.encode("x\u0c5c's<|endoftext|>") == builtin_tokenizer("o200k").encode("x\u0c5c's<|endoftext|>")


def test_the_command_line_knows_o200k(
    capsys: pytest.CaptureFixture[str], o200k_tiktoken: tiktoken.Encoding
) -> None:
    code, out, _ = run(capsys, "encode", "--tokenizer", "o200k", "--text", "Hello, GPT-4o! 你好")
    assert code == 0
    assert [int(x) for x in out.split()] == o200k_tiktoken.encode("Hello, GPT-4o! 你好")
    code, out, _ = run(capsys, "info", "gpt-4o")
    assert code == 0 and "<|endofprompt|> (200018)" in out and "pre-tokenizer:  o200k" in out
    code, out, _ = run(
        capsys,
        "compare",
        "--text",
        "Hello world",
        "--tokenizer",
        "gpt2",
        "--tokenizer",
        "o200k",
        "--format",
        "csv",
    )
    assert code == 0 and "o200k" in out


@pytest.mark.slow
def test_merges_are_recovered_and_replay_reaches_the_ids() -> None:
    tok = load_tokenizer("o200k")
    assert len(tok.merges) == 199998 - 256
    text = "The merges of GPT-4o's vocabulary, replayed: 日本語."
    assert tok.encode_with_merges(text, tok.merge_count) == tok.encode_ordinary(text)


@given(text=st.text(alphabet=st.characters(max_codepoint=0x7F), max_size=60))
def test_the_ascii_fast_path_cuts_as_the_full_pattern(text: str) -> None:
    pre = load_tokenizer("o200k").pretokenizer
    assert pre.split(text) == regex.findall(O200K_PATTERN, text)


def test_the_ascii_fast_path_on_contractions_and_slashes() -> None:
    pre = load_tokenizer("o200k").pretokenizer
    text = "I'M HERE, You're there; it's ok/fine?\n/path//x 12345 \r\n\t  end  "
    assert pre.split(text) == regex.findall(O200K_PATTERN, text)
