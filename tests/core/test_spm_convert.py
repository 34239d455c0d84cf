"""A SentencePiece ``.model`` becomes a tokenizer.json that ``tokenizers`` encodes with the library's ids.

The models are the ones sentencepiece made in ``tests/data/real`` (botchan Unigram and BPE with
NMT-NFKC, kyoto Unigram with NFKC, Mistral v1: BPE, identity, byte fallback) and models trained here
with the options users pick (byte fallback, split digits, user-defined symbols, identity, NFKC and
a custom rule table, no whitespace clean-up). Each is compared with
``SentencePieceProcessor.encode`` on held-out multilingual text and on generated hard text.

Three kinds of text may get other ids, and each export says so in its notes: text that spells a
reserved piece (``<s>``: a special token for tokenizers, plain text for sentencepiece), text whose
rewriting differs (tokenizers applies the rule table one grapheme at a time) and, for Unigram, an
exact tie between two segmentations (sentencepiece breaks it by its float rounding). The tests
check that every text that differs is one of these, found independently of the ids, and that all
other text gets the very same ids.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
import sentencepiece as spm
import tokenizers
from hypothesis import given, settings

from tests.multilingual import corpus_lines
from tests.strategies import hard_text
from tokviz.core.formats.sentencepiece_file import (
    BYTE,
    CONTROL,
    NORMAL,
    UNKNOWN,
    read_model_proto,
)
from tokviz.core.formats.spm_convert import (
    SpmConversionError,
    spm_export_notes,
    spm_export_problem,
    spm_tokenizer_json,
)

REAL = Path(__file__).resolve().parents[1] / "data" / "real"
REAL_MODELS = [
    "botchan_en_unigram_1000.model",
    "botchan_en_bpe_1000.model",
    "kyoto_ja_unigram_8000.model",
    "mistral-tokenizer.model.v1",
]
USER_SYMBOLS = ["<|endoftext|>", "[CLS]", "<tool>"]
TRAINED: dict[str, dict[str, Any]] = {
    "unigram-identity-bytes-digits-symbols": {
        "model_type": "unigram",
        "normalization_rule_name": "identity",
        "byte_fallback": True,
        "split_digits": True,
        "user_defined_symbols": USER_SYMBOLS,
    },
    "bpe-nfkc-bytes-digits-symbols": {
        "model_type": "bpe",
        "normalization_rule_name": "nfkc",
        "byte_fallback": True,
        "split_digits": True,
        "user_defined_symbols": USER_SYMBOLS,
    },
    "unigram-nmt-nfkc-keeps-spaces": {
        "model_type": "unigram",
        "remove_extra_whitespaces": False,
        "allow_whitespace_only_pieces": True,
    },
    "bpe-identity-no-dummy-prefix": {
        "model_type": "bpe",
        "normalization_rule_name": "identity",
        "add_dummy_prefix": False,
        "byte_fallback": True,
    },
    "unigram-custom-rules": {"model_type": "unigram", "rules": True},
}
# A custom rule table: ß -> ss, ligature ﬁ -> fi, full-width digits -> ASCII, U+00A0 -> space.
RULES = (
    "DF\t73 73\nFB01\t66 69\n" + "".join(f"{0xFF10 + d:X}\t{0x30 + d:X}\n" for d in range(10)) + "A0\t20\n"
)
EXTRA_TEXTS = [
    "",
    " ",
    "\u2581",
    "a\u2581",
    "\u2581\u2581x",
    "  leading and trailing  ",
    "tabs\tand\nnewlines\r\nand   runs     of spaces",
    "a" + " " * 40 + "b",
    "digits 1234567890 and 3.14159 and 1,000,000",
    "Straße ﬁne ０１２ 1\u00a02",
    "mixed 日本語 русский العربية 😀👍🏽 👨\u200d👩\u200d👧 end",
    "user symbols <|endoftext|>[CLS]<tool>x <tool> y[CLS]",
]


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """The models above, trained by sentencepiece on multilingual text (each in about a second)."""
    rules = tmp_path_factory.mktemp("rules") / "rules.tsv"
    rules.write_text(RULES, encoding="utf-8")
    lines = corpus_lines(1200)
    out: dict[str, bytes] = {}
    for name, options in TRAINED.items():
        options = dict(options)
        if options.pop("rules", False):
            options["normalization_rule_tsv"] = str(rules)
        model = io.BytesIO()
        spm.SentencePieceTrainer.train(
            sentence_iterator=iter(lines),
            model_writer=model,
            vocab_size=900,
            character_coverage=0.995,
            hard_vocab_limit=False,
            minloglevel=2,
            **options,
        )
        out[name] = model.getvalue()
    return out


def held_out() -> list[str]:
    return corpus_lines(800, seed=23) + EXTRA_TEXTS


class Comparison:
    """A model read by sentencepiece and by tokenizers from the converted file, text by text."""

    def __init__(self, model: bytes) -> None:
        self.sp = spm.SentencePieceProcessor(model_proto=model)
        self.hf = tokenizers.Tokenizer.from_str(spm_tokenizer_json(model))
        proto = read_model_proto(model)
        self.unigram = proto.model_type == "unigram"
        self.reserved = [p.text for p in proto.pieces if p.kind in (CONTROL, UNKNOWN, BYTE)]
        self.unk = [i for i, p in enumerate(proto.pieces) if p.kind == UNKNOWN]
        # What each id adds to a segmentation's score (an unknown piece: the library's penalty).
        lowest = min(p.score for p in proto.pieces if p.kind == NORMAL)
        self.scores = [Fraction(lowest - 10 if p.kind == UNKNOWN else p.score) for p in proto.pieces]

    def hf_ids(self, text: str) -> list[int]:
        return list(self.hf.encode(text, add_special_tokens=False).ids)

    def why_other(self, text: str) -> str | None:
        """Which documented reason makes ``text``'s ids differ, found without comparing ids."""
        if any(r in text for r in self.reserved):
            return "reserved"
        normalizer = self.hf.normalizer
        if normalizer is not None and normalizer.normalize_str(text) != self.sp.normalize(text):
            return "rewriting"
        if self.unigram:
            sp_ids, hf_ids = self.sp.encode(text), self.hf_ids(text)
            if sum(self.scores[i] for i in sp_ids) == sum(self.scores[i] for i in hf_ids):
                return "tie"
        return None

    def check(self, texts: list[str]) -> dict[str, int]:
        """Counts of identical texts and of each documented reason; fails on any other difference."""
        counts = {"identical": 0, "reserved": 0, "rewriting": 0, "tie": 0}
        for text in texts:
            if self.hf_ids(text) == self.sp.encode(text):
                counts["identical"] += 1
                continue
            why = self.why_other(text)
            assert why is not None, (text, self.sp.encode(text, out_type=str), self.hf_ids(text))
            counts[why] += 1
        return counts


def real_models() -> Iterator[tuple[str, bytes]]:
    for name in REAL_MODELS:
        yield name, (REAL / name).read_bytes()


@pytest.mark.parametrize("name", REAL_MODELS)
def test_models_sentencepiece_made_get_its_ids_from_tokenizers(name: str) -> None:
    comparison = Comparison((REAL / name).read_bytes())
    texts = [t for t in held_out() if not any(r in t for r in comparison.reserved)]
    counts = comparison.check(texts)
    assert counts["reserved"] == 0
    # Natural text (NFC) is rewritten alike; only kyoto's digits meet exact Unigram ties (0+00 / 00+0).
    assert counts["rewriting"] <= 1
    assert counts["identical"] >= len(texts) - 5, counts


@pytest.mark.parametrize("name", list(TRAINED))
def test_models_trained_with_each_option_get_the_librarys_ids(name: str, trained: dict[str, bytes]) -> None:
    comparison = Comparison(trained[name])
    counts = comparison.check(held_out())
    # Lines of the corpus that spell <s> or <unk> aside, at most one text in a hundred meets a
    # documented difference.
    assert counts["rewriting"] + counts["tie"] <= 0.01 * counts["identical"], counts


def test_user_defined_symbols_are_matched_whole_as_the_library_does(trained: dict[str, bytes]) -> None:
    for name in ("unigram-identity-bytes-digits-symbols", "bpe-nfkc-bytes-digits-symbols"):
        comparison = Comparison(trained[name])
        text = "x<|endoftext|>y [CLS]<tool> <tool>z<tool>"
        pieces = comparison.hf.encode(text, add_special_tokens=False).tokens
        assert {"<|endoftext|>", "[CLS]", "<tool>"} <= set(pieces)
        assert comparison.hf_ids(text) == comparison.sp.encode(text)
        assert comparison.hf_ids("<tool>ab") == comparison.sp.encode("<tool>ab")
        # Every piece of the BPE model is built whole from its own text: ignore_merges changes nothing.
        assert not any("never built whole" in note for note in spm_export_notes(trained[name]))


@pytest.mark.oracle
def test_the_real_models_decode_as_the_library_does() -> None:
    for _, model in real_models():
        comparison = Comparison(model)
        for text in corpus_lines(200, seed=3):
            ids = comparison.sp.encode(text)
            if not set(ids) & set(comparison.unk):  # the library writes an unknown piece as " ⁇ "
                assert comparison.hf.decode(ids) == comparison.sp.decode(ids)


def test_what_differs_on_rare_text_is_said_in_the_notes() -> None:
    unigram = (REAL / "kyoto_ja_unigram_8000.model").read_bytes()
    notes = spm_export_notes(unigram)
    assert any("reserved piece (<unk>, <s>, </s>)" in n for n in notes)
    assert any("one grapheme at a time" in n for n in notes)
    assert any("score exactly the same" in n for n in notes)
    # Each note is true: a spelled control piece, a compatibility letter with an accent, a tie.
    comparison = Comparison(unigram)
    assert comparison.hf_ids("<s>") == [1] != comparison.sp.encode("<s>")
    assert comparison.why_other("\uff21\u0301") == "rewriting"
    mistral = spm_export_notes((REAL / "mistral-tokenizer.model.v1").read_bytes())
    assert not any("grapheme" in n or "score exactly" in n for n in mistral)


def _edited(model: bytes, edit: str) -> bytes:
    """``model`` with one thing tokenizers cannot express (protobuf's own classes edit it)."""
    pb = pytest.importorskip("sentencepiece.sentencepiece_model_pb2")
    proto = pb.ModelProto()
    proto.ParseFromString(model)
    if edit == "suffix":
        proto.trainer_spec.treat_whitespace_as_suffix = True
    elif edit == "unused":
        proto.pieces[10].type = pb.ModelProto.SentencePiece.UNUSED
    elif edit == "char":
        proto.pieces.add(piece="\u2581zq\u00e6", score=-3.0)
    elif edit == "spaced-symbol":
        proto.pieces.add(piece="a b", score=0.0, type=pb.ModelProto.SentencePiece.USER_DEFINED)
    elif edit == "rewritten-symbol":
        proto.pieces.add(piece="\ufb01x", score=0.0, type=pb.ModelProto.SentencePiece.USER_DEFINED)
    elif edit == "word":
        proto.trainer_spec.model_type = pb.TrainerSpec.WORD
    return bytes(proto.SerializeToString())


@pytest.mark.parametrize(
    ("edit", "reason"),
    [
        ("suffix", "treat_whitespace_as_suffix"),
        ("unused", "unused pieces"),
        ("char", "which is no piece of its own"),
        ("spaced-symbol", "holds a space"),
        ("rewritten-symbol", "the normalizer rewrites the user-defined piece"),
        ("word", "word model has no counterpart"),
    ],
)
def test_what_tokenizers_cannot_express_is_refused_in_one_line(edit: str, reason: str) -> None:
    model = _edited((REAL / "botchan_en_bpe_1000.model").read_bytes(), edit)
    problem = spm_export_problem(model)
    assert problem is not None and reason in problem and "\n" not in problem
    with pytest.raises(SpmConversionError, match=reason):
        spm_tokenizer_json(model)


def test_bytes_that_are_no_model_are_refused() -> None:
    assert "not a SentencePiece model" in (spm_export_problem(b"\xff\xff\xff") or "")
    assert spm_export_problem((REAL / "mistral-tokenizer.model.v1").read_bytes()) is None


@pytest.fixture(scope="module")
def comparisons(trained: dict[str, bytes]) -> list[Comparison]:
    return [Comparison(model) for _, model in real_models()] + [Comparison(m) for m in trained.values()]


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(text=hard_text(specials=USER_SYMBOLS, max_run=300))
def test_any_text_gets_the_librarys_ids_or_a_documented_reason(
    comparisons: list[Comparison], text: str
) -> None:
    for comparison in comparisons:
        if comparison.hf_ids(text) != comparison.sp.encode(text):
            assert comparison.why_other(text) is not None, (text, comparison.sp.encode(text, out_type=str))


def test_the_model_reader_sees_what_protobuf_sees(trained: dict[str, bytes]) -> None:
    pb = pytest.importorskip("sentencepiece.sentencepiece_model_pb2")
    for model in [m for _, m in real_models()] + list(trained.values()):
        ours, theirs = read_model_proto(model), pb.ModelProto()
        theirs.ParseFromString(model)
        assert [(p.text, p.score, p.kind) for p in ours.pieces] == [
            (p.piece, p.score, p.type) for p in theirs.pieces
        ]
        spec, trainer = theirs.normalizer_spec, theirs.trainer_spec
        assert (ours.normalizer.name, ours.normalizer.charsmap) == (spec.name, spec.precompiled_charsmap)
        assert (
            ours.normalizer.add_dummy_prefix,
            ours.normalizer.remove_extra_whitespaces,
            ours.normalizer.escape_whitespaces,
        ) == (spec.add_dummy_prefix, spec.remove_extra_whitespaces, spec.escape_whitespaces)
        assert (ours.unk_id, ours.bos_id, ours.eos_id, ours.pad_id) == (
            trainer.unk_id,
            trainer.bos_id,
            trainer.eos_id,
            trainer.pad_id,
        )
        assert ours.byte_fallback == trainer.byte_fallback
        assert ours.model_type.lower() == pb.TrainerSpec.ModelType.Name(trainer.model_type).lower()
