"""One rule for special-token text in every encoder: :func:`reading_specials` and its note."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import tiktoken
from tokenizers import Tokenizer as Library

from tokviz.core.bpe.specials_text import reading_specials, specials_note
from tokviz.core.errors import InvalidArgument
from tokviz.core.formats.registry import load_tokenizer

from .made_by_others import hf_trained

TEXT = "a<|endoftext|>b <|endoftext|>\n<|endoftext|>" * 3


def test_the_text_view_encodes_as_tiktokens_encode_ordinary(gpt2_tiktoken: tiktoken.Encoding) -> None:
    gpt2 = load_tokenizer("gpt2")
    plain = reading_specials(gpt2, "text")

    assert plain.encode(TEXT) == gpt2_tiktoken.encode_ordinary(TEXT)
    assert [s.id for s in plain.encode_spans(TEXT)] == gpt2_tiktoken.encode_ordinary(TEXT)
    assert list(plain.encode_iterable(TEXT[i : i + 5] for i in range(0, len(TEXT), 5))) == plain.encode(TEXT)
    assert reading_specials(gpt2, "special").encode(TEXT) == gpt2_tiktoken.encode(TEXT, allowed_special="all")
    assert reading_specials(gpt2, "text") is plain  # one view per tokenizer
    assert plain.decode([50256]) == "<|endoftext|>"


def test_a_tokenizers_library_file_reads_specials_as_text_like_the_library(tmp_path: Path) -> None:
    trained = hf_trained("the cat sat on the mat " * 50)
    path = tmp_path / "tokenizer.json"
    trained.save(str(path))
    plain_library = Library.from_file(str(path))
    plain_library.encode_special_tokens = True

    tok = load_tokenizer(path)
    plain = reading_specials(tok, "text")

    assert tok.encode(TEXT) == trained.encode(TEXT, add_special_tokens=False).ids
    assert plain.encode(TEXT) == plain_library.encode(TEXT, add_special_tokens=False).ids
    assert [s.id for s in plain.encode_spans(TEXT)] == plain.encode(TEXT)


def test_a_format_that_never_parses_specials_keeps_doing_so_and_says_so(tmp_path: Path) -> None:
    from .test_tekken import tekken_doc

    path = tmp_path / "tekken.json"
    path.write_text(json.dumps(tekken_doc(n_special=30)), encoding="utf-8")
    tok = load_tokenizer(path)

    assert reading_specials(tok, "special") is tok
    assert "read as plain text by" in specials_note("special", [tok])
    assert specials_note("special", [load_tokenizer("gpt2")]) == "special tokens in text: parsed as specials"
    assert specials_note("text", [tok]) == "special tokens in text: read as plain text"


def test_an_unknown_setting_is_refused() -> None:
    with pytest.raises(InvalidArgument, match="'special' or 'text'"):
        reading_specials(load_tokenizer("gpt2"), "both")


def test_the_text_view_shares_its_tokenizers_merge_tables() -> None:
    from tokviz.core.training.train import train_bpe

    tok = train_bpe(
        text="the cat sat on the mat " * 40, vocab_size=280, special_tokens=["<|endoftext|>"]
    ).tokenizer("t")
    plain = reading_specials(tok, "text")
    assert plain.merge_rank_of_id is tok.merge_rank_of_id
    assert plain.encode_with_merges("the cat<|endoftext|>", 3) != tok.encode_with_merges(
        "the cat<|endoftext|>", 3
    )
    assert plain.encode("the cat<|endoftext|>") == tok.encode_ordinary("the cat<|endoftext|>")


def test_sentencepiece_reads_tokviz_added_specials_as_text_in_the_text_view() -> None:
    from .real_files import DATA

    tok = load_tokenizer(DATA / "botchan_en_bpe_1000.model", special_tokens=["<|endoftext|>"])
    text = "I am<|endoftext|>here"
    plain = reading_specials(tok, "text")
    assert tok.special_tokens["<|endoftext|>"] in tok.encode(text)
    assert tok.special_tokens["<|endoftext|>"] not in plain.encode(text)
