"""The vocabulary audit: every id decoded, re-encoded and put in one class, for every kind of tokenizer."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import tiktoken

from tests.core.test_hf_engine import unigram, wordpiece
from tokviz.core.analysis.audit import CLASSES, audit_vocabulary, classify
from tokviz.core.analysis.usage import count_tokens
from tokviz.core.bpe.tokenizer import Tokenizer
from tokviz.core.errors import Cancelled, InvalidArgument
from tokviz.core.formats.hf_engine import HFTokenizer
from tokviz.core.formats.registry import load_tokenizer
from tokviz.core.formats.sentencepiece_file import sentencepiece_from_file

REAL = Path(__file__).resolve().parent.parent / "data" / "real"
BYTES = {b: bytes([b]) for b in range(256)}


def tiny_bpe() -> Tokenizer:
    """Merges b+c, then a+b, then ab+c: "abc" always becomes a, bc first, so the third merge's
    token is never made; plus a token that is the first byte of "é" and a special token."""
    vocab = dict(BYTES)
    vocab |= {256: b"bc", 257: b"ab", 258: b"abc", 259: b"\xc3\xa9"}
    merges = [(b"b", b"c"), (b"a", b"b"), (b"ab", b"c"), (b"\xc3", b"\xa9")]
    return Tokenizer(vocab, merges, {"<|end|>": 260}, pretokenizer="none", name="tiny")


def test_each_class_is_found_on_a_hand_built_bpe() -> None:
    tok = tiny_bpe()
    audit = audit_vocabulary(tok)
    assert audit.class_of(256) == "ok"  # "bc" encodes as itself
    assert audit.class_of(258) == "unreachable"  # "abc" encodes as a, bc: its merge never fires
    assert audit.class_of(0xC3) == "partial_utf8"  # the byte C3 alone is half a character
    assert audit.class_of(259) == "ok"  # "é" whole
    assert audit.class_of(260) == "special"
    counts = audit.class_counts()
    assert list(counts) == list(CLASSES)
    assert counts["unreachable"] == 1 and counts["special"] == 1
    assert counts["partial_utf8"] == 128  # the bytes 80-FF
    assert sum(counts.values()) == tok.vocab_size


def test_partial_utf8_counts_of_gpt2_match_a_plain_loop_over_tiktoken(
    gpt2_tiktoken: tiktoken.Encoding,
) -> None:
    enc = gpt2_tiktoken
    expected = 0
    for i in range(enc.n_vocab):
        if enc.decode_single_token_bytes(i).decode(errors="replace") in enc.special_tokens_set:
            continue
        try:
            enc.decode_single_token_bytes(i).decode("utf-8")
        except UnicodeDecodeError:
            expected += 1
    counts = audit_vocabulary(load_tokenizer("gpt2")).class_counts()
    assert counts["partial_utf8"] == expected == 344
    assert counts["special"] == 1
    assert counts["unreachable"] == counts["sequence_only"] == 0


def test_o200k_has_tokens_only_a_sequence_makes_and_tokens_nothing_makes() -> None:
    tok = load_tokenizer("o200k")
    ids = [tok.encode(" I")[0], 3413, 99494]  # " I", " I'" and " 亚洲AV"
    audit = audit_vocabulary(tok, ids=ids)
    assert tok.vocab[3413] == b" I'"  # the pattern always splits it: " I" then "'"
    assert [audit.class_of(i) for i in ids] == ["ok", "unreachable", "sequence_only"]


def test_wordpiece_continuations_are_only_in_a_sequence() -> None:
    lib = wordpiece()
    tok = HFTokenizer(lib, json.loads(lib.to_str()), "wp")
    audit = audit_vocabulary(tok)
    continuation = lib.token_to_id("##s")
    assert audit.class_of(continuation) == "sequence_only"
    assert audit.class_of(lib.token_to_id("[CLS]")) == "special"
    assert audit.class_counts()["ok"] > 0


def test_unigram_and_sentencepiece_models_are_audited_through_the_same_interface() -> None:
    lib = unigram()
    hf = HFTokenizer(lib, json.loads(lib.to_str()), "uni")
    sp = sentencepiece_from_file(REAL / "botchan_en_bpe_1000.model")
    for tok in (hf, sp):
        counts = audit_vocabulary(tok).class_counts()
        assert sum(counts.values()) == tok.vocab_size
        assert counts["ok"] > 0 and counts["special"] >= 3
    assert classify(sp, sp.unk_id) == CLASSES.index("special")


def test_a_sentencepiece_word_piece_is_ok_through_the_librarys_own_decoding() -> None:
    mistral = sentencepiece_from_file(REAL / "mistral-tokenizer.model.v1")
    the = mistral.sp.piece_to_id("\u2581the")
    assert mistral.encode_ordinary(" the") != [the]  # " the" reads as "▁▁the": no
    assert mistral.decode([the]) == "the" and mistral.encode_ordinary("the") == [the]
    assert CLASSES[classify(mistral, the)] == "ok"
    inside = mistral.sp.piece_to_id("ing")  # a piece without ▁ only follows a letter
    assert CLASSES[classify(mistral, inside)] == "sequence_only"


def test_unused_on_the_corpus_comes_from_a_count() -> None:
    tok = tiny_bpe()
    counts = count_tokens(tok, ["bcbc a"])
    audit = audit_vocabulary(tok, counts.counts)
    unused = set(audit.unused_ids.tolist())
    assert 256 not in unused and ord("a") not in unused
    assert 258 in unused and 260 in unused
    assert audit.count_of(256) == 2


def test_progress_is_reported_and_cancel_stops() -> None:
    tok = load_tokenizer("gpt2")
    seen: list[tuple[int, int]] = []
    audit_vocabulary(tok, progress=lambda done, total: seen.append((done, total)))
    assert seen[-1] == (tok.vocab_size, tok.vocab_size)
    assert len(seen) > 5
    with pytest.raises(Cancelled):
        audit_vocabulary(tok, cancel=lambda: True)


def test_an_id_outside_the_vocabulary_is_named() -> None:
    with pytest.raises(InvalidArgument, match="99999"):
        audit_vocabulary(tiny_bpe(), ids=[1, 99999])
    with pytest.raises(InvalidArgument, match="unknown token class"):
        audit_vocabulary(tiny_bpe()).ids_of("broken")


def test_the_result_shows_as_an_html_table_in_a_notebook() -> None:
    audit = audit_vocabulary(tiny_bpe())
    html = audit.to_html()
    assert getattr(audit, "_repr_html_")() == html  # noqa: B009 - the hook Jupyter calls
    assert "<table" in html and "unreachable" in html and "partial UTF-8" in html
    assert np.array_equal(audit_vocabulary(tiny_bpe()).ids_of("unreachable"), [258])


def test_library_tokenizers_encode_a_block_of_texts_in_one_call_with_the_same_ids() -> None:
    lib = wordpiece()
    hf = HFTokenizer(lib, json.loads(lib.to_str()), "wp")
    sp = sentencepiece_from_file(REAL / "botchan_en_unigram_1000.model")
    texts = ["the cat", "", "##s", "a\ud800b", " sat on the mat"]
    for tok in (hf, sp):
        assert tok.encode_ordinary_batch(texts) == [tok.encode_ordinary(t) for t in texts]
