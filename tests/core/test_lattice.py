"""The segmentation lattice of unigram models and sampled segmentations, against the libraries.

Unigram and SentencePiece-BPE models are the ``.model`` files in ``tests/data/real`` (made by
sentencepiece) and models trained here by ``SentencePieceTrainer`` (byte fallback, user-defined
symbols). Every figure is checked against the library called directly (``NBestEncodeAsPieces``,
``encode``, ``encode(enable_sampling=True)`` in a fresh process), and the lattice against a slow
enumeration that looks every substring of the text up in the vocabulary.
"""

from __future__ import annotations

import io
import math
import random
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator, Sequence
from functools import cache
from pathlib import Path

import pytest
import sentencepiece as spm
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer as LibraryTokenizer
from tokenizers import decoders, models, normalizers, pre_tokenizers, trainers

from tests.multilingual import corpus_lines
from tokviz.core.analysis.lattice import (
    MAX_LATTICE_CHARS,
    MAX_NBEST,
    Lattice,
    LatticePiece,
    lattice_problem,
    sample_segmentations,
    sampling_problem,
    segment_lattice,
)
from tokviz.core.bpe.tokenizer import Tokenizer
from tokviz.core.errors import InvalidArgument, ReplayUnavailable
from tokviz.core.formats.registry import load_tokenizer
from tokviz.core.formats.sentencepiece_file import SentencePieceTokenizer, sentencepiece_from_bytes
from tokviz.core.training.train import train_bpe

from ..cli.helpers import child_env

REAL = Path(__file__).resolve().parents[1] / "data" / "real"
UNIGRAM_EN = REAL / "botchan_en_unigram_1000.model"
UNIGRAM_JA = REAL / "kyoto_ja_unigram_8000.model"
BPE_EN = REAL / "botchan_en_bpe_1000.model"
TEXTS = {
    UNIGRAM_EN: ["Hello world, internationalization!", "  two  spaces and a tab\t.", "I'm 42 😀 naïve"],
    UNIGRAM_JA: ["日本の首都は東京です。", "吾輩は猫である。名前はまだ無い。", "カタカナ and ASCII 😀"],
}
USER_SYMBOLS = ["<|endoftext|>", "[CLS]"]


@cache
def trained(kind: str, byte_fallback: bool) -> bytes:
    """A small model trained by the library itself, with user-defined symbols."""
    out = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(corpus_lines(800)),
        model_writer=out,
        vocab_size=800,
        model_type=kind,
        byte_fallback=byte_fallback,
        user_defined_symbols=USER_SYMBOLS,
        character_coverage=0.99,
        hard_vocab_limit=False,
        minloglevel=2,
    )
    return out.getvalue()


def opened(path: Path) -> SentencePieceTokenizer:
    tok = load_tokenizer(path)
    assert isinstance(tok, SentencePieceTokenizer)
    return tok


def every_match(tok: SentencePieceTokenizer, text: str) -> set[tuple[int, int, str, int]]:
    """The lattice by its definition: every substring that is a normal or user-defined piece, and
    an unknown piece for each character that no one-character piece covers."""
    sp = tok.sp
    kinds = {
        i: sp.is_unknown(i) or sp.is_control(i) or sp.is_unused(i) or sp.is_byte(i) for i in range(len(sp))
    }
    found = set()
    for start in range(len(text)):
        for end in range(start + 1, len(text) + 1):
            piece_id = sp.piece_to_id(text[start:end])
            if sp.id_to_piece(piece_id) == text[start:end] and not kinds[piece_id]:
                found.add((start, end, text[start:end], piece_id))
        if not any(s == start and e == start + 1 for s, e, _, _ in found):
            found.add((start, start + 1, text[start], sp.unk_id()))
    return found


def all_paths(pieces: Sequence[LatticePiece], length: int) -> Iterator[list[LatticePiece]]:
    """Every segmentation the lattice allows, by brute force (short texts only)."""
    starting: dict[int, list[LatticePiece]] = {}
    for node in pieces:
        starting.setdefault(node.start, []).append(node)

    def walk(pos: int) -> Iterator[list[LatticePiece]]:
        if pos == length:
            yield []
            return
        for node in starting.get(pos, []):
            for rest in walk(node.end):
                yield [node, *rest]

    return walk(0)


def check_against_library(tok: SentencePieceTokenizer, text: str, nbest: int = 5) -> Lattice:
    sp = tok.sp
    lattice = segment_lattice(tok, text, nbest=nbest)
    assert lattice.text == sp.normalize(text)
    assert {(p.start, p.end, p.piece, p.id) for p in lattice.pieces} == every_match(tok, lattice.text)
    assert list(lattice.best.ids) == sp.encode(text) and list(lattice.best.pieces) == sp.encode(
        text, out_type=str
    )
    assert [list(s.pieces) for s in lattice.nbest] == sp.nbest_encode_as_pieces(
        text, nbest_size=max(2, nbest)
    )[:nbest]
    assert [list(s.ids) for s in lattice.nbest] == sp.nbest_encode_as_ids(text, nbest_size=max(2, nbest))[
        :nbest
    ]
    assert lattice.best.score == pytest.approx(lattice.nbest[0].score, abs=1e-4)
    path = [lattice.pieces[i] for i in lattice.best_path]
    assert "".join(lattice.text[p.start : p.end] for p in path) == lattice.text
    assert sum(p.log_prob for p in path) == pytest.approx(lattice.best.score, abs=1e-3)
    return lattice


@pytest.mark.parametrize("path", [UNIGRAM_EN, UNIGRAM_JA], ids=["en", "ja"])
def test_the_lattice_and_its_best_paths_are_the_librarys(path: Path) -> None:
    tok = opened(path)
    for text in TEXTS[path]:
        check_against_library(tok, text)


def test_the_n_best_are_the_best_of_every_segmentation_enumerated() -> None:
    tok = opened(UNIGRAM_EN)
    lattice = check_against_library(tok, "Hello, world", nbest=8)
    scores = sorted(
        (sum(p.log_prob for p in path) for path in all_paths(lattice.pieces, len(lattice.text))), reverse=True
    )
    assert [s.score for s in lattice.nbest] == pytest.approx(scores[:8], abs=1e-3)


def test_user_defined_symbols_and_byte_fallback_as_the_library_handles_them() -> None:
    for byte_fallback in (False, True):
        tok = sentencepiece_from_bytes(trained("unigram", byte_fallback), "trained.model")
        text = "a <|endoftext|> [CLS] b 😀𝔘 ☃ end"
        lattice = check_against_library(tok, text)
        ids = set(lattice.best.ids)
        assert tok.sp.piece_to_id("<|endoftext|>") in ids and tok.sp.piece_to_id("[CLS]") in ids
        if byte_fallback:
            assert "<0xE2>" in lattice.best.pieces and tok.sp.unk_id() not in ids
        else:
            assert tok.sp.unk_id() in ids
        unknown = [p for p in lattice.pieces if p.id == tok.sp.unk_id()]
        assert unknown and all(p.end - p.start == 1 for p in unknown)


def test_unigram_samples_follow_the_librarys_distribution_and_repeat_with_their_seed() -> None:
    tok = opened(UNIGRAM_EN)
    text = "the tokenizer"
    lattice = segment_lattice(tok, text)
    alpha = 0.3
    paths = list(all_paths(lattice.pieces, len(lattice.text)))
    log_z = math.log(sum(math.exp(alpha * sum(p.log_prob for p in path)) for path in paths))
    by_ids = {tuple(p.id for p in path): alpha * sum(p.log_prob for p in path) - log_z for path in paths}
    samples = sample_segmentations(tok, text, count=1000, seed=3, alpha=alpha)
    assert samples == sample_segmentations(tok, text, count=1000, seed=3, alpha=alpha)
    assert samples != sample_segmentations(tok, text, count=1000, seed=4, alpha=alpha)
    seen = Counter(s.ids for s in samples)
    for ids, times in seen.most_common(3):  # the likeliest come as often as their probability says
        assert times / 1000 == pytest.approx(math.exp(by_ids[ids]), abs=0.05)
    library = [
        tuple(tok.sp.encode(text, enable_sampling=True, alpha=alpha, nbest_size=-1)) for _ in range(200)
    ]
    assert set(library) <= set(by_ids) and set(seen) <= set(by_ids)
    assert all(tok.decode(list(s.ids)) == text for s in samples)


def test_a_sharp_sample_is_the_best_path_spelled_as_the_library_spells_it() -> None:
    for byte_fallback in (False, True):
        tok = sentencepiece_from_bytes(trained("unigram", byte_fallback), "trained.model")
        text = "a <|endoftext|> b ☃☃ end"
        (sample,) = sample_segmentations(tok, text, count=1, seed=1, alpha=200.0)
        assert (list(sample.pieces), list(sample.ids)) == (
            tok.sp.encode(text, out_type=str),
            tok.sp.encode(text),
        )


# ---------------------------------------------------------------------------------------- SentencePiece BPE-dropout
def bpe_models() -> list[SentencePieceTokenizer]:
    """The real botchan BPE model and BPE models trained here with user-defined symbols, with and
    without byte fallback."""
    return [
        opened(BPE_EN),
        sentencepiece_from_bytes(trained("bpe", False), "bpe.model"),
        sentencepiece_from_bytes(trained("bpe", True), "bpe-bytes.model"),
    ]


def the_librarys(tok: SentencePieceTokenizer, text: str) -> tuple[list[str], list[int]]:
    return tok.sp.encode(text, out_type=str), tok.sp.encode(text)


def assert_sentencepiece_bpe_dropout(tok: SentencePieceTokenizer, text: str) -> None:
    """Dropout 0 is the library's ``encode``; dropout 1 leaves every symbol (a character, a
    user-defined piece, an unknown character spelled as the library spells it) unmerged; every
    sample decodes to what the library decodes."""
    sp = tok.sp
    (none,) = sample_segmentations(tok, text, count=1, seed=1, dropout=0.0)
    assert (list(none.pieces), list(none.ids)) == the_librarys(tok, text)
    (every,) = sample_segmentations(tok, text, count=1, seed=1, dropout=1.0)
    marked = sp.normalize(text)
    user = [p for p in tok.matched_in_text() if p in marked]
    singles = [
        p
        for p, i in zip(every.pieces, every.ids)
        if len(p) > 1 and p not in user and not sp.is_byte(i) and not sp.is_unknown(i)
    ]
    assert singles == []
    half = sample_segmentations(tok, text, count=4, seed=2, dropout=0.5)
    decoded = sp.decode(sp.encode(text))
    assert all(sp.decode(list(s.ids)) == decoded for s in [every, *half])
    assert all(len(s.ids) >= len(none.ids) for s in [every, *half])


@pytest.mark.oracle
def test_sentencepiece_bpe_dropout_0_is_the_librarys_encode_on_many_texts() -> None:
    texts = [line[:300] for line in corpus_lines(600)]
    texts += ["a <|endoftext|> [CLS] b 😀𝔘 ☃☃ end", "unbelievable reassignment", "ﬁ １２ x\u3000y"]
    for tok in bpe_models():
        for text in texts:
            if tok.sp.normalize(text):
                (sample,) = sample_segmentations(tok, text, count=1, seed=5, dropout=0.0)
                assert (list(sample.pieces), list(sample.ids)) == the_librarys(tok, text), text


MIXED = st.lists(
    st.one_of(
        st.sampled_from([*"abcdefxyzAZ019 .,'-\t\n", "  ", "the", "ing", "tion", *USER_SYMBOLS, "<|end"]),
        st.sampled_from(
            [*"éßøжщλΩשعदไ日本語한", "e\u0301", "ﬁ", "１", "\u3000", "😀", "👩\u200d💻", "🇫🇷", "𝔘"]
        ),
        st.characters(codec="utf-8", exclude_categories=["Cs"]),
    ),
    min_size=1,
    max_size=30,
).map("".join)


@pytest.mark.oracle
@settings(max_examples=120, deadline=None)
@given(text=MIXED)
def test_sentencepiece_bpe_dropout_on_mixed_scripts_emoji_and_spaces(text: str) -> None:
    for tok in bpe_models():
        if tok.sp.normalize(text):
            assert_sentencepiece_bpe_dropout(tok, text)


def test_an_unused_piece_is_never_made_but_spelled_as_the_pieces_it_was_made_of() -> None:
    pb = pytest.importorskip("sentencepiece.sentencepiece_model_pb2")
    proto = pb.ModelProto()
    proto.ParseFromString(BPE_EN.read_bytes())
    text = "Hello world, the tokenizer merges the pieces of the text"
    common = Counter(p for p in spm.SentencePieceProcessor(model_file=str(BPE_EN)).encode(text, out_type=str))
    unused = {p for p, _ in common.most_common(4)} | {"▁t", "he"}
    for piece in proto.pieces:
        if piece.piece in unused:
            piece.type = pb.ModelProto.SentencePiece.UNUSED
    tok = sentencepiece_from_bytes(proto.SerializeToString(), "unused.model")
    pieces, ids = the_librarys(tok, text)
    assert not unused & set(pieces)
    assert_sentencepiece_bpe_dropout(tok, text)
    for sample in sample_segmentations(tok, text, count=20, seed=3, dropout=0.2):
        assert not unused & set(sample.pieces) and not any(tok.sp.is_unused(i) for i in sample.ids)


def test_sentencepiece_bpe_samples_repeat_with_their_seed_in_another_process(tmp_path: Path) -> None:
    text = "unbelievable reassignment"
    tok = opened(BPE_EN)
    samples = sample_segmentations(tok, text, count=20, seed=1, dropout=0.3)
    assert samples == sample_segmentations(tok, text, count=20, seed=1, dropout=0.3)
    assert samples != sample_segmentations(tok, text, count=20, seed=2, dropout=0.3)
    assert len({s.ids for s in samples}) > 5
    with pytest.raises(ReplayUnavailable, match="not by byte-level merges"):
        tok.encode_with_dropout(text, 0.1, random.Random(1))  # its merges go by score, in the lattice module
    probe = (
        "from tokviz.core.analysis.lattice import sample_segmentations\n"
        "from tokviz.core.formats.registry import load_tokenizer\n"
        f"tok = load_tokenizer({str(BPE_EN)!r})\n"
        f"for s in sample_segmentations(tok, {text!r}, count=20, seed=1, dropout=0.3):\n"
        "    print(*s.ids)\n"
    )
    child = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=tmp_path,
        env=child_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert child.returncode == 0, child.stderr
    assert child.stdout.splitlines() == [" ".join(map(str, s.ids)) for s in samples]


def test_sentencepiece_bpe_dropout_skips_each_merge_with_its_probability() -> None:
    tok = opened(BPE_EN)
    assert tok.sp.normalize("a") == "▁a" and tok.sp.encode("a", out_type=str) == ["▁a"]  # one merge due
    for p in (0.1, 0.5, 0.9):
        samples = sample_segmentations(tok, "a", count=1000, seed=7, dropout=p)
        share = sum(s.pieces == ("▁", "a") for s in samples) / 1000
        assert share == pytest.approx(p, abs=0.05)
    unmerged = [
        sum(
            len(s.ids) == len("▁unbelievable")
            for s in sample_segmentations(tok, "unbelievable", count=500, seed=1, dropout=p)
        )
        for p in (0.0, 0.2, 0.5, 0.8, 1.0)
    ]
    assert unmerged[0] == 0 and unmerged[-1] == 500 and unmerged == sorted(unmerged)
    lengths = [
        sum(len(s.ids) for s in sample_segmentations(tok, "unbelievable", count=500, seed=1, dropout=p))
        for p in (0.0, 0.2, 0.5, 0.8, 1.0)
    ]
    assert lengths == sorted(lengths) and len(set(lengths)) == 5


def test_sentencepiece_bpe_dropout_follows_the_librarys_own_sampling() -> None:
    tok = opened(BPE_EN)
    text, p, n = "the tokens", 0.3, 4000
    ours = Counter(
        s.pieces
        for seed in range(4)
        for s in sample_segmentations(tok, text, count=1000, seed=seed, dropout=p)
    )
    library = Counter(
        tuple(tok.sp.encode(text, out_type=str, enable_sampling=True, alpha=p, nbest_size=-1))
        for _ in range(n)
    )
    assert len(ours) > 5
    for pieces in set(ours) | set(library):  # each outcome as often (within 4 standard deviations)
        assert ours[pieces] / n == pytest.approx(library[pieces] / n, abs=0.04), pieces


def test_a_samples_score_is_its_log_probability_under_the_smoothed_distribution() -> None:
    tok = opened(UNIGRAM_EN)
    text = "the tokenizer"
    lattice = segment_lattice(tok, text)
    alpha = 0.3
    paths = list(all_paths(lattice.pieces, len(lattice.text)))
    log_z = math.log(sum(math.exp(alpha * sum(p.log_prob for p in path)) for path in paths))
    by_ids = {tuple(p.id for p in path): alpha * sum(p.log_prob for p in path) - log_z for path in paths}
    samples = sample_segmentations(tok, text, count=20, seed=3, alpha=alpha)
    for sample in samples:
        assert sample.score == pytest.approx(by_ids[sample.ids], abs=1e-6)
    assert math.fsum(math.exp(s) for s in by_ids.values()) == pytest.approx(1.0)


def test_tokviz_bpe_dropout(english_text: str) -> None:
    trained_bpe = train_bpe(text=english_text[:60_000], vocab_size=700, special_tokens=["<|endoftext|>"])
    tok = trained_bpe.tokenizer("english")
    text = "Hello world<|endoftext|> internationalization, naïve 😀 code()"
    none = sample_segmentations(tok, text, count=3, seed=1, dropout=0.0)
    assert all(list(s.ids) == tok.encode(text) for s in none)
    every = sample_segmentations(tok, text, count=2, seed=1, dropout=1.0)
    special = tok.special_tokens["<|endoftext|>"]
    assert all(len(tok.vocab[i]) == 1 for s in every for i in s.ids if i != special)
    assert len(every[0].ids) == len(text.replace("<|endoftext|>", "x").encode("utf-8"))
    half = sample_segmentations(tok, text, count=5, seed=11, dropout=0.3)
    assert half == sample_segmentations(tok, text, count=5, seed=11, dropout=0.3)
    assert half != sample_segmentations(tok, text, count=5, seed=12, dropout=0.3)
    assert all(tok.decode(list(s.ids)) == text for s in half)
    assert any(len(s.ids) > len(tok.encode(text)) for s in half)
    assert all(s.score == 0.0 for s in half)


def test_models_without_a_lattice_say_why_in_one_line() -> None:
    assert lattice_problem(opened(UNIGRAM_EN)) is None
    for tok in (
        opened(BPE_EN),
        load_tokenizer("gpt2"),
        sentencepiece_from_bytes(trained("bpe", True), "b.model"),
    ):
        problem = lattice_problem(tok)
        assert problem == "a BPE model has no lattice: it merges greedily; try dropout"
        assert sampling_problem(tok) is None
        with pytest.raises(InvalidArgument, match="no lattice"):
            segment_lattice(tok, "text")
    assert lattice_problem(Tokenizer({i: bytes([i]) for i in range(256)}, [], name="bytes")) == (
        "bytes has no lattice: it has no vocabulary pieces to choose between"
    )
    assert sampling_problem(Tokenizer({i: bytes([i]) for i in range(256)}, [], name="bytes")) == (
        "bytes has no lattice: nothing to sample"
    )


def test_bad_requests_are_one_line() -> None:
    uni, bpe = opened(UNIGRAM_EN), opened(BPE_EN)
    cases = [
        (lambda: segment_lattice(uni, ""), "empty"),
        (lambda: segment_lattice(uni, "x", nbest=0), "from 1 to"),
        (lambda: segment_lattice(uni, "x", nbest=MAX_NBEST + 1), "from 1 to"),
        (lambda: sample_segmentations(uni, "x", count=0, seed=1), "number of samples"),
        (lambda: sample_segmentations(uni, "x", count=1, seed=-1), "seed"),
        (lambda: sample_segmentations(uni, "x", count=1, seed=1, alpha=-0.5), "alpha"),
        (lambda: sample_segmentations(uni, "x", count=1, seed=1, dropout=0.1), "not dropout"),
        (lambda: sample_segmentations(bpe, "x", count=1, seed=1, alpha=0.1), "not alpha"),
        (lambda: sample_segmentations(bpe, "x", count=1, seed=1, dropout=1.5), "from 0 to 1"),
        (lambda: sample_segmentations(bpe, "x", count=1, seed=1, alpha=0.1, dropout=0.1), "not both"),
    ]
    for call, words in cases:
        with pytest.raises(InvalidArgument, match=words) as info:
            call()
        assert "\n" not in str(info.value)


def test_a_long_text_is_cut_and_says_so() -> None:
    tok = opened(UNIGRAM_EN)
    text = "the cat sat on the mat. " * 100
    lattice = segment_lattice(tok, text, nbest=2)
    assert lattice.note == f"only the first {MAX_LATTICE_CHARS:,} of {len(text):,} characters are segmented"
    assert list(lattice.best.ids) == tok.sp.encode(text[:MAX_LATTICE_CHARS])
    assert segment_lattice(tok, "short").note is None


# ---------------------------------------------------------------------------------------- tokenizer.json
def library_unigram(vocab: list[tuple[str, float]], unk_id: int) -> LibraryTokenizer:
    """A ``tokenizers`` Unigram model over ``vocab``, words marked and split as SentencePiece marks them."""
    hf = LibraryTokenizer(models.Unigram(vocab, unk_id=unk_id, byte_fallback=False))
    hf.normalizer = normalizers.NFKC()
    hf.pre_tokenizer = pre_tokenizers.Metaspace()
    hf.decoder = decoders.Metaspace()
    return hf


def test_a_tokenizer_json_unigram_has_the_lattice_and_n_best_of_the_same_sentencepiece_model(
    tmp_path: Path,
) -> None:
    sp = spm.SentencePieceProcessor(model_file=str(UNIGRAM_EN))
    hf = library_unigram([(sp.id_to_piece(i), sp.get_score(i)) for i in range(len(sp))], sp.unk_id())
    (tmp_path / "botchan").mkdir()
    hf.save(str(tmp_path / "botchan" / "tokenizer.json"))
    tok = load_tokenizer(tmp_path / "botchan" / "tokenizer.json")
    assert lattice_problem(tok) is None
    text = "Hello world, internationalization 😀"
    lattice = segment_lattice(tok, text, nbest=6)
    spm_lattice = segment_lattice(opened(UNIGRAM_EN), text, nbest=6)
    assert lattice.text == spm_lattice.text
    assert [(p.start, p.end, p.piece, p.id) for p in lattice.pieces] == [
        (p.start, p.end, p.piece, p.id) for p in spm_lattice.pieces
    ]
    assert [p.log_prob for p in lattice.pieces] == pytest.approx([p.log_prob for p in spm_lattice.pieces])
    assert [s.pieces for s in lattice.nbest] == [s.pieces for s in spm_lattice.nbest]
    assert [s.score for s in lattice.nbest] == pytest.approx([s.score for s in spm_lattice.nbest], abs=1e-3)
    assert list(lattice.best.ids) == hf.encode(text).ids and lattice.best_path == spm_lattice.best_path


def test_a_trained_tokenizer_json_unigram_lattice_is_the_librarys() -> None:
    hf = LibraryTokenizer(models.Unigram())
    hf.normalizer = normalizers.NFKC()
    hf.pre_tokenizer = pre_tokenizers.Metaspace()
    hf.decoder = decoders.Metaspace()
    trainer = trainers.UnigramTrainer(
        vocab_size=600, unk_token="<unk>", special_tokens=["<unk>", "<|endoftext|>"]
    )
    hf.train_from_iterator(corpus_lines(800), trainer)
    tok = load_tokenizer_json(hf)
    vocab = hf.get_vocab()
    for line in corpus_lines(40)[::4]:
        text = line[:120]
        lattice = segment_lattice(tok, text, nbest=3)
        assert list(lattice.best.ids) == hf.encode(text).ids
        expected = set()
        base = 0
        for word, _ in hf.pre_tokenizer.pre_tokenize_str(hf.normalizer.normalize_str(text)):
            for start in range(len(word)):
                ends = [end for end in range(start + 1, len(word) + 1) if word[start:end] in vocab]
                expected |= {(base + start, base + end) for end in ends}
                if start + 1 not in ends:
                    expected.add((base + start, base + start + 1))
            base += len(word)
        assert {(p.start, p.end) for p in lattice.pieces} == expected
    short = segment_lattice(tok, "a cat sat", nbest=10)
    scores = sorted(
        (sum(p.log_prob for p in path) for path in all_paths(short.pieces, len(short.text))), reverse=True
    )
    assert [s.score for s in short.nbest] == pytest.approx(scores[:10])
    samples = sample_segmentations(tok, "the tokenizer <|endoftext|> again", count=20, seed=2, alpha=0.2)
    assert samples == sample_segmentations(
        tok, "the tokenizer <|endoftext|> again", count=20, seed=2, alpha=0.2
    )
    assert all(vocab["<|endoftext|>"] in s.ids for s in samples)
    assert len({s.ids for s in samples}) > 1


def load_tokenizer_json(hf: LibraryTokenizer) -> Tokenizer:
    from tokviz.core.formats.hf_engine import build_hf_tokenizer

    return build_hf_tokenizer(hf, "trained-unigram")


def test_a_tokenizer_json_bpe_samples_dropout_over_its_merges_where_replay_is_exact() -> None:
    from tokviz.core.formats.hf_engine import build_hf_tokenizer

    def trained_bpe(normalizer: normalizers.Normalizer | None) -> LibraryTokenizer:
        hf = LibraryTokenizer(models.BPE())
        if normalizer is not None:
            hf.normalizer = normalizer
        hf.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        hf.decoder = decoders.ByteLevel()
        trainer = trainers.BpeTrainer(vocab_size=600, initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
        hf.train_from_iterator(corpus_lines(400), trainer)
        return hf

    hf = trained_bpe(None)
    tok = build_hf_tokenizer(hf, "hf-bpe")
    text = "the tokenizer merges greedily, 42 times"
    assert lattice_problem(tok) == "a BPE model has no lattice: it merges greedily; try dropout"
    none = sample_segmentations(tok, text, count=2, seed=1, dropout=0.0)
    assert all(list(s.ids) == hf.encode(text).ids for s in none)
    some = sample_segmentations(tok, text, count=8, seed=1, dropout=0.5)
    assert all(hf.decode(list(s.ids)) == text for s in some)
    assert any(len(s.ids) > len(hf.encode(text).ids) for s in some)
    # A normalizer tokviz replays (NFKC) is run first, so dropout samples the library's own merges.
    nfkc = trained_bpe(normalizers.NFKC())
    normalized = build_hf_tokenizer(nfkc, "hf-nfkc")
    wide = "ｔｈｅ tokenizer merges ﬁve times"
    assert sampling_problem(normalized) is None
    plain = sample_segmentations(normalized, wide, count=2, seed=1, dropout=0.0)
    assert all(list(s.ids) == nfkc.encode(wide).ids for s in plain)


def test_a_tokenizer_json_unigram_with_byte_fallback_spells_unknown_characters_in_bytes() -> None:
    sp = spm.SentencePieceProcessor(model_proto=trained("unigram", True))
    vocab = [(sp.id_to_piece(i), sp.get_score(i)) for i in range(len(sp))]
    hf = LibraryTokenizer(models.Unigram(vocab, unk_id=sp.unk_id(), byte_fallback=True))
    hf.pre_tokenizer = pre_tokenizers.Metaspace()
    tok = load_tokenizer_json(hf)
    text = "snow ☃☃ and 𝔘"
    lattice = segment_lattice(tok, text, nbest=3)
    assert list(lattice.best.ids) == hf.encode(text).ids
    assert "<0xE2>" in lattice.best.pieces and sp.unk_id() not in lattice.best.ids
    samples = sample_segmentations(tok, text, count=10, seed=4, alpha=0.5)
    assert all("<0xE2>" in s.pieces for s in samples)
