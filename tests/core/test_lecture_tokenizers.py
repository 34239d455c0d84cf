"""The lecture's characters and words tokenizers: what they encode to and why each one fails.

``characters`` gives every code point its own id (``ord``), so nothing is ever unknown but the
vocabulary is the whole code-point space and sequences are long. ``words`` gives every distinct
word its own id, so a word the corpus never had is lost as ``<unk>``.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tokviz.core import load_tokenizer
from tokviz.core.bpe.lecture_tokenizers import (
    NOT_BPE_NOTE,
    UNK,
    CharacterTokenizer,
    WordTokenizer,
)
from tokviz.core.errors import CorpusError, InvalidArgument
from tokviz.core.formats.registry import BUILTIN_TOKENIZERS, builtin_tokenizer


def test_characters_ids_are_code_points() -> None:
    tok = load_tokenizer("characters")
    assert tok.encode("Hi 🌍 你好") == [72, 105, 32, 0x1F30D, 32, 0x4F60, 0x597D]
    assert tok.decode(tok.encode("Hi 🌍 你好")) == "Hi 🌍 你好"


def test_characters_vocabulary_is_the_whole_code_point_space() -> None:
    tok = builtin_tokenizer("chars")
    assert tok.vocab_size == 1_114_112 == len(tok.vocab)
    assert tok.id_bytes(0x10FFFF) == "\U0010ffff".encode()
    assert 0x110000 not in tok.vocab
    with pytest.raises(InvalidArgument, match="ids 0 to 1114111"):
        tok.id_bytes(0x110000)
    assert not tok.is_bpe and tok.merges == [] and tok.merge_count == 0
    assert tok.replay_note == NOT_BPE_NOTE


def test_characters_read_a_lone_surrogate_as_the_replacement_character() -> None:
    tok = CharacterTokenizer()
    assert tok.encode("a\ud800b") == [97, 0xFFFD, 98]
    spans = tok.encode_spans("a\udfffb")
    assert [(s.id, s.start, s.end) for s in spans] == [(97, 0, 1), (0xFFFD, 1, 2), (98, 2, 3)]


def test_characters_spans_cover_one_code_point_each() -> None:
    spans = CharacterTokenizer().encode_spans("é🌍")
    assert [(s.id, s.start, s.end, s.bytes, s.partial) for s in spans] == [
        (0xE9, 0, 1, b"\xc3\xa9", False),
        (0x1F30D, 1, 2, "🌍".encode(), False),
    ]


def test_characters_with_a_special_token() -> None:
    tok = CharacterTokenizer().with_special_tokens(["<|endoftext|>"])
    assert tok.special_tokens == {"<|endoftext|>": 0x110000}
    assert tok.encode("a<|endoftext|>") == [97, 0x110000]
    assert tok.decode([0x110000]) == "<|endoftext|>"
    assert tok.vocab_size == 1_114_113


@given(st.text())
def test_characters_round_trip_any_text(text: str) -> None:
    tok = CharacterTokenizer()
    ids = tok.encode(text)
    assert len(ids) == len(text)
    assert tok.decode(ids) == "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in text)
    spans = tok.encode_spans(text)
    assert [s.id for s in spans] == ids
    assert [(s.start, s.end) for s in spans] == [(i, i + 1) for i in range(len(text))]


def test_words_vocabulary_from_a_text() -> None:
    tok = WordTokenizer.from_text("the cat sat on the mat. the end")
    # Most frequent first: " " (7 times), "the" (3), then the rest in the order first seen.
    assert tok.id_bytes(0) == b"<unk>" and tok.unk_id == 0
    assert [tok.id_bytes(i) for i in (1, 2, 3)] == [b" ", b"the", b"cat"]
    assert tok.word_count == 8
    assert tok.vocab_size == 9
    assert tok.encode("the mat") == [2, 1, tok.index["mat"]]
    assert tok.decode(tok.encode("the cat sat.")) == "the cat sat."


def test_words_unknown_word_is_lost_as_unk() -> None:
    tok = WordTokenizer.from_text("the cat sat on the mat")
    ids = tok.encode("the dog sat")
    assert ids[2] == tok.unk_id
    assert tok.decode(ids) == f"the {UNK} sat"
    assert tok.unknown_words("the dog sat with a Führer") == ["dog", "with", "a", "Führer"]
    spans = tok.encode_spans("the dog")
    assert [(s.id, s.start, s.end, s.special) for s in spans] == [
        (tok.index["the"], 0, 3, False),
        (tok.index[" "], 3, 4, False),
        (0, 4, 7, True),
    ]


def test_words_pattern_keeps_combining_marks_in_the_word_and_splits_digits() -> None:
    tok = WordTokenizer.from_text("नमस्ते दुनिया, don't")
    assert tok.pretokenizer.split("नमस्ते दुनिया, don't") == ["नमस्ते", " ", "दुनिया", ",", " ", "don", "'", "t"]
    assert tok.pretokenizer.split("pi_2 = 3.14") == ["pi", "_", "2", " ", "=", " ", "3", ".", "1", "4"]


def test_words_max_words_keeps_the_most_frequent() -> None:
    tok = WordTokenizer.from_text("a a a b b c", max_words=3)
    assert set(tok.index) == {"a", " ", "b"}
    assert tok.encode("c") == [tok.unk_id]


def test_words_from_files(tmp_path) -> None:  # noqa: ANN001 - pytest fixture
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("hello world\n", encoding="utf-8")
    tok = WordTokenizer.from_files([corpus])
    assert tok.corpus == "corpus.txt"
    assert tok.unknown_words("hello there") == ["there"]
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"ok \xff")
    with pytest.raises(CorpusError, match="bad.txt is not valid UTF-8"):
        WordTokenizer.from_files([bad])
    with pytest.raises(CorpusError, match="missing.txt"):
        WordTokenizer.from_files([tmp_path / "missing.txt"])


@given(st.text())
def test_words_built_from_a_text_round_trip_it(text: str) -> None:
    tok = WordTokenizer.from_text(text)
    clean = "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in text)
    ids = tok.encode(text)
    assert tok.decode(ids) == clean
    spans = tok.encode_spans(text)
    assert [s.id for s in spans] == ids
    assert "".join(clean[s.start : s.end] for s in spans) == clean
    assert tok.unknown_words(text) == []


def test_both_are_builtins_with_nothing_to_replay() -> None:
    assert {"characters", "words"} <= set(BUILTIN_TOKENIZERS)
    for name in ("characters", "words"):
        tok = load_tokenizer(name)
        assert tok.replay_note == NOT_BPE_NOTE
        assert tok.encode_with_merges("a b", 3) == tok.encode("a b")
        assert tok.merge_rank_of_id == {} and tok.parents_of_id == {}
        assert list(tok.encode_iterable(["the cat ", "sat"])) == tok.encode("the cat sat")


def test_words_may_be_re_encoded_between_space_cuts() -> None:
    from tokviz.core.bpe.cuts import cut_mode

    tok = WordTokenizer.from_text("the cat")
    assert cut_mode(tok) == "space"
    assert cut_mode(tok.with_special_tokens(["<|end of text|>"])) == "none"
    assert cut_mode(CharacterTokenizer()) == "any"


@pytest.mark.parametrize("name", ["characters", "words"])
def test_bad_arguments_are_one_line_errors(name: str) -> None:
    from tokviz.core.errors import TokvizError

    tok = load_tokenizer(name)
    for call in (
        lambda: tok.encode(None),
        lambda: tok.encode(b"bytes"),
        lambda: tok.decode(["x"]),
        lambda: tok.id_bytes(-1),
        lambda: tok.encode_with_merges("a", -1),
        lambda: tok.encode_spans("a", -1),
        lambda: tok.trace_chunk("text"),
        lambda: tok.with_special_tokens("<s>"),
        lambda: tok.id_of_merge(0),
    ):
        with pytest.raises(TokvizError):
            call()
