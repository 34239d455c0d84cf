"""SentencePiece ``.model`` files open through the ``sentencepiece`` package, with its exact ids.

The models are trained here by ``SentencePieceTrainer`` on the multilingual corpus (BPE and
unigram, with and without byte fallback, with user-defined symbols), saved as files, and opened as
a user opens them (``load_tokenizer``).
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
import sentencepiece as spm

from tests.multilingual import corpus_lines
from tokviz.core.errors import InvalidArgument, ReplayUnavailable, TokenizerLoadError
from tokviz.core.formats.registry import load_tokenizer
from tokviz.core.formats.sentencepiece_file import SentencePieceTokenizer, read_model_facts

LINES = corpus_lines(1500)
USER_SYMBOLS = ["<|endoftext|>", "[CLS]"]
KINDS = [("bpe", False), ("bpe", True), ("unigram", False), ("unigram", True)]


def _train(kind: str, byte_fallback: bool) -> bytes:
    out = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(LINES),
        model_writer=out,
        vocab_size=1100,
        model_type=kind,
        byte_fallback=byte_fallback,
        user_defined_symbols=USER_SYMBOLS,
        character_coverage=0.995,
        hard_vocab_limit=False,
        minloglevel=2,
    )
    return out.getvalue()


@pytest.fixture(scope="module", params=KINDS, ids=[f"{k}{'-byte-fallback' if b else ''}" for k, b in KINDS])
def model(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, spm.SentencePieceProcessor]:
    kind, byte_fallback = request.param
    path = tmp_path_factory.mktemp("spm") / f"{kind}{'-bf' if byte_fallback else ''}.model"
    path.write_bytes(_train(kind, byte_fallback))
    return path, spm.SentencePieceProcessor(model_file=str(path))


@pytest.mark.slow
def test_ids_are_the_librarys(model: tuple[Path, spm.SentencePieceProcessor]) -> None:
    path, sp = model
    tok = load_tokenizer(path)
    assert isinstance(tok, SentencePieceTokenizer)
    for line in corpus_lines(3000, seed=5):
        ids = sp.encode(line)  # no BOS or EOS: the library's default
        assert tok.encode(line) == ids, line
        assert tok.encode_ordinary(line) == ids
        assert [s.id for s in tok.encode_spans(line)] == ids
        assert tok.decode(ids) == sp.decode(ids)


@pytest.mark.slow
def test_ids_are_the_librarys_on_the_whole_corpus(model: tuple[Path, spm.SentencePieceProcessor]) -> None:
    path, sp = model
    tok = load_tokenizer(path)
    lines = corpus_lines()
    assert [tok.encode(x) for x in lines] == [sp.encode(x) for x in lines]


def test_what_the_model_is_made_of(model: tuple[Path, spm.SentencePieceProcessor]) -> None:
    path, sp = model
    tok = load_tokenizer(path)
    facts = read_model_facts(path.read_bytes())
    assert tok.vocab_size == sp.get_piece_size() == facts.piece_count
    assert tok.is_bpe == (facts.model_type == "BPE")
    assert tok.merges == [] and tok.merge_rank_of_id == {} and tok.merge_count == 0
    # Control pieces and user-defined symbols are the special tokens.
    assert tok.special_tokens == {
        "<s>": sp.bos_id(),
        "</s>": sp.eos_id(),
        **{s: sp.piece_to_id(s) for s in USER_SYMBOLS},
    }
    assert tok.encode("a<|endoftext|>b").count(sp.piece_to_id("<|endoftext|>")) == 1
    assert tok.encode("<s>") == sp.encode("<s>")  # the library never reads control pieces from text
    assert tok.name == path.stem and tok.assumptions == ()


def test_piece_bytes_show_spaces_and_bytes(model: tuple[Path, spm.SentencePieceProcessor]) -> None:
    path, sp = model
    tok = load_tokenizer(path)
    for i in range(sp.get_piece_size()):
        piece = sp.id_to_piece(i)
        if sp.is_byte(i):
            assert tok.id_bytes(i) == bytes([int(piece[3:5], 16)])
        elif not sp.is_control(i) and not sp.is_unknown(i):
            assert tok.id_bytes(i) == piece.replace("\u2581", " ").encode("utf-8")
    with pytest.raises(Exception, match="not in the vocabulary"):
        tok.id_bytes(sp.get_piece_size())


def test_spans_point_at_the_original_text(model: tuple[Path, spm.SentencePieceProcessor]) -> None:
    path, _ = model
    tok = load_tokenizer(path)
    # Full-width letters (NFKC-normalized), doubled spaces (collapsed), a rare CJK character
    # (byte pieces under byte fallback) and an emoji.
    text = "Ｈｅｌｌｏ  wörld 齉 🌍<|endoftext|>end"
    spans = tok.encode_spans(text)
    for s in spans:
        assert 0 <= s.start <= s.end <= len(text)
    assert [s.start for s in spans] == sorted(s.start for s in spans)
    special = [s for s in spans if s.special]
    assert [(text[s.start : s.end], s.bytes) for s in special] == [("<|endoftext|>", b"<|endoftext|>")]
    cjk = text.index("齉")
    pieces_of_cjk = [s for s in spans if s.start <= cjk < s.end]
    assert pieces_of_cjk, "the character is covered"
    if len(pieces_of_cjk) > 1:  # byte fallback: three byte pieces, each covering the character
        assert all(s.partial and (s.start, s.end) == (cjk, cjk + 1) for s in pieces_of_cjk)
        assert b"".join(s.bytes for s in pieces_of_cjk) == "齉".encode()


def test_replay_is_refused_with_a_reason(model: tuple[Path, spm.SentencePieceProcessor]) -> None:
    path, _ = model
    tok = load_tokenizer(path)
    assert tok.replay_note is not None and tok.replay_note.startswith("SentencePiece")
    assert ("not by byte-level merges" if tok.is_bpe else "has no merges") in tok.replay_note
    with pytest.raises(ReplayUnavailable, match="SentencePiece"):
        tok.encode_with_merges("hello", 3)
    with pytest.raises(ReplayUnavailable):
        tok.encode_spans("hello", max_merges=2)


def test_extra_special_tokens_are_matched_before_the_library(
    model: tuple[Path, spm.SentencePieceProcessor],
) -> None:
    path, sp = model
    tok = load_tokenizer(path, special_tokens=["<|im_start|>"])
    new_id = sp.get_piece_size()
    assert tok.special_tokens["<|im_start|>"] == new_id
    ids = tok.encode("hi<|im_start|>there")
    assert ids == sp.encode("hi") + [new_id] + sp.encode("there")
    assert tok.decode(ids) == sp.decode(sp.encode("hi")) + "<|im_start|>" + sp.decode(sp.encode("there"))
    assert [s.id for s in tok.encode_spans("hi<|im_start|>there")] == ids


def test_a_folder_with_tokenizer_model_is_named_by_the_folder(
    tmp_path: Path, model: tuple[Path, spm.SentencePieceProcessor]
) -> None:
    folder = tmp_path / "llama-like"
    folder.mkdir()
    (folder / "tokenizer.model").write_bytes(model[0].read_bytes())
    assert load_tokenizer(folder).name == "llama-like"
    assert load_tokenizer(folder / "tokenizer.model").name == "llama-like"


@pytest.mark.parametrize(
    "data",
    [b"\n\x05hello", b"\n\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", b"\n\x02\x0a"],
    ids=["truncated", "overlong-varint", "garbage"],
)
def test_a_broken_model_file_is_one_clear_line(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "broken.model"
    path.write_bytes(data)
    with pytest.raises(TokenizerLoadError) as info:
        load_tokenizer(path)
    assert "broken.model" in str(info.value) and "\n" not in str(info.value)


def test_every_public_method_answers(model: tuple[Path, spm.SentencePieceProcessor]) -> None:
    path, sp = model
    tok = load_tokenizer(path)
    text = "Hello wörld, 日本語 <|endoftext|> again"
    ids = sp.encode(text)
    assert list(tok.encode_iterable([text[:7], text[7:]], block=4)) == ids
    assert list(tok.segments(text)) == [(0, len(text), False)]
    assert tok.decode_bytes(ids) == b"".join(tok.id_bytes(i) for i in ids)
    assert tok.is_special(sp.piece_to_id("[CLS]")) and not tok.is_special(ids[0])
    assert tok.vocab_size == len(tok.vocab) and tok.parents_of_id == {}
    with pytest.raises(InvalidArgument, match="no byte-level merges"):
        tok.id_of_merge(0)
    with pytest.raises(InvalidArgument, match="no byte-level merges"):
        tok.parents_of_merge(0)
    with pytest.raises(ReplayUnavailable):
        tok.trace_chunk(b"abc")
    with pytest.raises(InvalidArgument, match="not in the vocabulary"):
        tok.decode([sp.get_piece_size() + 5])
    assert "SentencePieceTokenizer" in repr(tok)


@pytest.mark.parametrize("kind", ["char", "word"])
def test_char_and_word_models_open_too(tmp_path: Path, kind: str) -> None:
    out = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(LINES[:600]),
        model_writer=out,
        vocab_size=1000,
        model_type=kind,
        hard_vocab_limit=False,
        character_coverage=0.995,
        minloglevel=2,
    )
    path = tmp_path / f"{kind}.model"
    path.write_bytes(out.getvalue())
    tok, sp = load_tokenizer(path), spm.SentencePieceProcessor(model_file=str(path))
    assert not tok.is_bpe and f"a {kind} model has no merges" in (tok.replay_note or "")
    for line in corpus_lines(300, seed=9):
        assert tok.encode(line) == sp.encode(line)
