"""Lone surrogates: code points a Python ``str`` can hold (pasted or decoded UTF-16 gone wrong) but UTF-8 cannot.

The defined behaviour is the bundled GPT-2 and cl100k tokenizers' (which is tiktoken's): each lone
surrogate is read as U+FFFD, the replacement character, and nothing else changes. So encoding the text
equals encoding :func:`replace_lone_surrogates` of it, and decoding gives that replaced text back.

Every kind of tokenizer must agree: the byte tokenizer, the bundled GPT-2, cl100k and o200k, tokenizers
trained here, and those loaded from a model file, GPT-2 files, a Hugging Face tokenizer.json, a .tiktoken
file or a SentencePiece .model (the library cannot take a lone surrogate at all; tokviz hands it U+FFFD). (Before this was
defined, only the tiktoken-backed ones did it; the others, and every ``encode_spans``, raised
UnicodeEncodeError.) Training is stricter: a lone surrogate in the corpus is a CorpusError naming its
place, unless the caller asks for ``errors="replace"``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import tiktoken
from hypothesis import HealthCheck, given, settings

from tokviz.core import CorpusError, Tokenizer, load_tokenizer, train_bpe
from tokviz.core.formats import export_gpt2, export_hf, export_tiktoken, save_model

from ..strategies import replace_lone_surrogates, text_with_lone_surrogates

# Lone high and low surrogates, alone, among ASCII, CJK and emoji, next to a special token, and a
# low one before a high one (which is not a pair).
EXAMPLES = [
    "a\ud800b",
    "\udfff",
    "hello \ud83d world",
    "\udc00\ud800",
    "日本\udbff語🌍",
    "x<|endoftext|>\ud800 y",
]
SETTINGS = settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])


def _reads_as_replacement(tok: Tokenizer, text: str) -> None:
    """Every encoder reads ``text`` exactly as the text with U+FFFD for each lone surrogate."""
    expected = replace_lone_surrogates(text)
    assert tok.encode(text) == tok.encode(expected)
    assert tok.encode_ordinary(text) == tok.encode_ordinary(expected)
    half = len(text) // 2
    assert list(tok.encode_iterable([text[:half], text[half:]], block=1)) == tok.encode(expected)
    assert tok.decode(tok.encode(text)) == expected


def _spans_read_as_replacement(tok: Tokenizer, text: str) -> None:
    """The spans of ``text`` are those of the replaced text: same ids, same code-point places."""
    expected = replace_lone_surrogates(text)
    spans = tok.encode_spans(text)
    assert [s.id for s in spans] == tok.encode(text)
    assert spans == tok.encode_spans(expected)


@pytest.fixture(scope="module")
def trained() -> Tokenizer:
    return train_bpe(
        text="the cat in the hat, 日本語 🌍 " * 30, vocab_size=320, special_tokens=["<|endoftext|>"]
    ).tokenizer("tiny")


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory, trained: Tokenizer) -> dict[str, Path]:
    """The trained tokenizer written in every file kind tokviz loads."""
    folder = tmp_path_factory.mktemp("surrogates")
    save_model(folder / "tiny.tokviz.json", trained)
    export_gpt2(trained, folder / "gpt2-files")
    (folder / "hf").mkdir()
    export_hf(trained, folder / "hf" / "tokenizer.json")
    export_tiktoken(trained, folder / "tiny.tiktoken")
    _train_sentencepiece(folder / "tiny.model")
    return {
        "model-file": folder / "tiny.tokviz.json",
        "gpt2-files": folder / "gpt2-files",
        "hf": folder / "hf" / "tokenizer.json",
        "tiktoken": folder / "tiny.tiktoken",
        "sentencepiece": folder / "tiny.model",
    }


def _train_sentencepiece(path: Path) -> None:
    """A lossless SentencePiece model: byte fallback, no normalization, spaces kept as they are."""
    import io

    import sentencepiece as spm

    out = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(["the cat in the hat, 日本語 🌍 <|endoftext|>"] * 50),
        model_writer=out,
        vocab_size=300,
        model_type="bpe",
        byte_fallback=True,
        normalization_rule_name="identity",
        remove_extra_whitespaces=False,
        add_dummy_prefix=False,
        hard_vocab_limit=False,
        minloglevel=2,
    )
    path.write_bytes(out.getvalue())


@pytest.fixture(scope="module")
def oracles(
    gpt2_tiktoken: tiktoken.Encoding, cl100k_tiktoken: tiktoken.Encoding, o200k_tiktoken: tiktoken.Encoding
) -> dict[str, tiktoken.Encoding]:
    return {"gpt2": gpt2_tiktoken, "cl100k": cl100k_tiktoken, "o200k": o200k_tiktoken}


@pytest.mark.parametrize(("name", "replacement_id"), [("gpt2", 4210), ("cl100k", 5809), ("o200k", 3251)])
def test_a_lone_surrogate_is_the_replacement_characters_token(
    name: str, replacement_id: int, oracles: dict[str, tiktoken.Encoding]
) -> None:
    tok = load_tokenizer(name)
    oracle = oracles[name]
    assert tok.vocab[replacement_id] == b"\xef\xbf\xbd"  # U+FFFD in UTF-8, one token in both
    assert tok.encode("a\ud800b") == [tok.encode("a")[0], replacement_id, tok.encode("b")[0]]
    assert tok.encode("a\ud800b") == oracle.encode("a\ufffdb")
    assert tok.decode(tok.encode("a\ud800b")) == "a\ufffdb"


@pytest.mark.slow
@SETTINGS
@given(text=text_with_lone_surrogates())
@pytest.mark.parametrize("name", ["gpt2", "cl100k", "o200k"])
def test_bundled_bpe_tokenizers_read_lone_surrogates_as_u_fffd(
    name: str, text: str, oracles: dict[str, tiktoken.Encoding]
) -> None:
    tok = load_tokenizer(name)
    oracle = oracles[name]
    _reads_as_replacement(tok, text)
    assert tok.encode(text) == oracle.encode(replace_lone_surrogates(text), allowed_special="all")


KINDS = [
    "bytes",
    "gpt2",
    "cl100k",
    "o200k",
    "trained",
    "model-file",
    "gpt2-files",
    "hf",
    "tiktoken",
    "sentencepiece",
]


def _tokenizer(kind: str, trained: Tokenizer, files: dict[str, Path]) -> Tokenizer:
    if kind == "trained":
        return trained
    return load_tokenizer(files[kind]) if kind in files else load_tokenizer(kind)


@pytest.mark.parametrize("kind", KINDS)
def test_every_tokenizer_reads_the_examples_as_u_fffd(
    kind: str, trained: Tokenizer, files: dict[str, Path]
) -> None:
    tok = _tokenizer(kind, trained, files)
    for text in EXAMPLES:
        _reads_as_replacement(tok, text)
        _spans_read_as_replacement(tok, text)


@pytest.mark.slow
@SETTINGS
@given(text=text_with_lone_surrogates())
@pytest.mark.parametrize("kind", KINDS)
def test_every_tokenizer_reads_lone_surrogates_as_u_fffd(
    kind: str, trained: Tokenizer, files: dict[str, Path], text: str
) -> None:
    tok = _tokenizer(kind, trained, files)
    _reads_as_replacement(tok, text)
    _spans_read_as_replacement(tok, text)


def test_the_byte_tokenizer_gives_the_bytes_of_u_fffd() -> None:
    tok = load_tokenizer("bytes")
    for text in EXAMPLES:
        assert tok.encode(text) == list(replace_lone_surrogates(text).encode("utf-8"))
    assert tok.encode("a\ud800b") == [97, 0xEF, 0xBF, 0xBD, 98]


def test_training_on_a_lone_surrogate_names_it_unless_asked_to_replace() -> None:
    text = "the cat\ud800 in the hat " * 4
    with pytest.raises(CorpusError, match=r"lone surrogate U\+D800 at index 7"):
        train_bpe(text=text, vocab_size=270)
    replaced = train_bpe(text=text, vocab_size=270, errors="replace")
    assert replaced.merges == train_bpe(text=replace_lone_surrogates(text), vocab_size=270).merges
