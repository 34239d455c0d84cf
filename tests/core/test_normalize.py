"""Normalizers: HF ``tokenizers``' semantics, spans on the typed text, and the same normalization
carried into tokenizer.json and a SentencePiece rule file."""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

import pytest
import sentencepiece as spm
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer as HFTokenizer

from tokviz.core.errors import InvalidArgument
from tokviz.core.pretok.normalize import NORMALIZER_STEPS, Normalizer, parse_normalizer

SPECS = [
    "nfc",
    "nfkc",
    "lowercase",
    "strip-accents",
    "nfc+lowercase",
    "nfkc+lowercase",
    "lowercase+strip-accents",
    "nfkc+lowercase+strip-accents",
]
# Texts a normalizer changes: a ligature, full-width digits, a decomposed accent, a dotted capital
# I (two characters once lowercased), a sigma at a word's end, a Hangul syllable in jamo.
TRICKY = "ﬁne １２３ cafe\u0301 İstanbul ΟΔΟΣ \u1100\u1161\u11a8 Ａ\u0308 ½ ㎏"


def library(normalizer: Normalizer) -> HFTokenizer:
    """A tokenizers Tokenizer whose normalizer is read from ``hf_json()``, as a tokenizer.json holds it."""
    doc = {
        "version": "1.0",
        "normalizer": normalizer.hf_json(),
        "model": {"type": "WordLevel", "vocab": {"x": 0}, "unk_token": "x"},
    }
    return HFTokenizer.from_str(json.dumps(doc))


def test_specs_name_steps_in_one_canonical_order() -> None:
    assert parse_normalizer("none") == Normalizer(())
    assert parse_normalizer("strip-accents+NFKC + lowercase").steps == ("nfkc", "lowercase", "strip-accents")
    assert parse_normalizer("lowercase+nfc").name == "nfc+lowercase"
    assert Normalizer(()).name == "none"
    for spec in SPECS:
        assert parse_normalizer(parse_normalizer(spec).name) == parse_normalizer(spec)


@pytest.mark.parametrize("spec", ["nfd", "nfc+nfkc", "lower", "nfc++x"])
def test_an_unknown_spec_is_refused_in_one_line(spec: str) -> None:
    with pytest.raises(InvalidArgument) as info:
        parse_normalizer(spec)
    assert "\n" not in str(info.value)


def test_steps_out_of_order_are_refused() -> None:
    with pytest.raises(InvalidArgument, match="order"):
        Normalizer(("lowercase", "nfc"))


def test_what_each_step_does() -> None:
    assert parse_normalizer("nfkc")("ﬁ １２ ½") == "fi 12 1⁄2"
    assert parse_normalizer("nfc")("cafe\u0301 ﬁ") == "café ﬁ"
    # Per character, as HF lowercases: no final sigma; the dotted I keeps its dot as a mark.
    assert parse_normalizer("lowercase")("ΟΔΟΣ İ") == "οδοσ i\u0307"
    assert parse_normalizer("strip-accents")("café Ångström") == "cafe Angstrom"
    assert parse_normalizer("lowercase+strip-accents")("İSTANBUL") == "istanbul"
    assert parse_normalizer("none")(TRICKY) == TRICKY


def test_hf_json_is_what_tokenizer_json_holds() -> None:
    assert Normalizer(()).hf_json() is None
    assert parse_normalizer("nfc").hf_json() == {"type": "NFC"}
    assert parse_normalizer("nfkc+strip-accents").hf_json() == {
        "type": "Sequence",
        "normalizers": [{"type": "NFKC"}, {"type": "NFD"}, {"type": "StripAccents"}],
    }
    for spec in SPECS:
        n = parse_normalizer(spec)
        assert Normalizer.from_hf_json(n.hf_json()) == n
    assert Normalizer.from_hf_json(None) == Normalizer(())
    assert Normalizer.from_hf_json({"type": "Replace", "pattern": {"String": " "}, "content": "▁"}) is None
    # BERT's order (accents stripped before lowercasing) is another normalizer, not read as ours.
    bert_order = [{"type": "NFD"}, {"type": "StripAccents"}, {"type": "Lowercase"}]
    assert Normalizer.from_hf_json({"type": "Sequence", "normalizers": bert_order}) is None


@pytest.mark.parametrize("spec", SPECS)
def test_tokenizers_normalizes_tricky_text_as_we_do(spec: str) -> None:
    n = parse_normalizer(spec)
    assert library(n).normalizer.normalize_str(TRICKY) == n(TRICKY)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spec=st.sampled_from(SPECS), text=st.text())
def test_tokenizers_normalizes_any_text_as_we_do(spec: str, text: str) -> None:
    n = parse_normalizer(spec)
    assert library(n).normalizer.normalize_str(text) == n(text)


# Characters on which Python 3.11's Unicode tables (14.0) and tokenizers' disagree: a compatibility
# mapping newer than the library's NFKC (U+32FF), a mark newer than its StripAccents (U+0898), a
# capital that only a newer Unicode has and lowercases (U+1C89), and a composition newer than its
# NFC (U+11935 U+11930).
NEWER = "\u32ff a\u0898 \U0001d400\u1c89 \U00011935\U00011930"


@pytest.mark.parametrize("spec", SPECS)
def test_where_unicode_versions_differ_the_library_decides(spec: str) -> None:
    n = parse_normalizer(spec)
    assert n.library_decides(NEWER) and not n.library_decides(TRICKY)
    assert n(NEWER) == library(n).normalizer.normalize_str(NEWER)
    assert n(NEWER + TRICKY) == library(n).normalizer.normalize_str(NEWER + TRICKY)


@pytest.mark.parametrize("spec", SPECS)
def test_aligned_points_each_character_at_the_typed_one(spec: str) -> None:
    n = parse_normalizer(spec)
    out, origin = n.aligned(TRICKY)
    assert out == n(TRICKY)
    assert len(origin) == len(out)


def test_aligned_examples() -> None:
    # The ligature gives two characters, both from it; full-width digits map one to one.
    assert parse_normalizer("nfkc").aligned("aﬁ１２") == ("afi12", [0, 1, 1, 2, 3])
    # A decomposed accent composes into one character from the letter it follows.
    assert parse_normalizer("nfc").aligned("xe\u0301y") == ("xéy", [0, 1, 3])
    # Lowercasing the dotted capital I makes two characters from it.
    assert parse_normalizer("lowercase").aligned("İz") == ("i\u0307z", [0, 0, 1])
    # Stripped marks leave no character; what remains points at its letter.
    assert parse_normalizer("strip-accents").aligned("çé!") == ("ce!", [0, 1, 2])
    assert parse_normalizer("nfc").aligned("\u1100\u1161\u11a8.") == ("각.", [0, 3])


@settings(max_examples=300, deadline=None)
@given(spec=st.sampled_from(SPECS), text=st.text())
def test_aligned_text_is_the_normalized_text_and_origins_climb(spec: str, text: str) -> None:
    n = parse_normalizer(spec)
    out, origin = n.aligned(text)
    assert out == n(text)
    assert len(origin) == len(out)
    assert all(0 <= i < len(text) for i in origin)
    assert origin == sorted(origin)


@settings(max_examples=200, deadline=None)
@given(spec=st.sampled_from(SPECS), text=st.text(st.characters(codec="utf-8")))
def test_each_piece_aligned_to_a_character_normalizes_alone_to_its_characters(spec: str, text: str) -> None:
    """Cutting the typed text at the characters ``origin`` names cuts the normalized text at the
    same places: every token boundary that falls between pieces falls on the typed text too."""
    n = parse_normalizer(spec)
    out, origin = n.aligned(text)
    starts = sorted(set(origin))
    for k, a in enumerate(starts):
        b = starts[k + 1] if k + 1 < len(starts) else len(text)
        got = "".join(c for c, i in zip(out, origin, strict=True) if i == a)
        assert n(text[a:b]) == got


def spm_normalized(tmp_path: Path, normalizer: Normalizer, corpus: list[str]) -> spm.SentencePieceProcessor:
    """A tiny SentencePiece model trained with the normalizer's rule file, whitespace left alone."""
    rules = tmp_path / "rules.tsv"
    tsv = normalizer.spm_rules_tsv()
    assert tsv is not None
    rules.write_text(tsv, encoding="utf-8")
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(corpus),
        model_prefix=str(tmp_path / "m"),
        vocab_size=60,
        character_coverage=1.0,
        normalization_rule_tsv=str(rules),
        add_dummy_prefix=False,
        remove_extra_whitespaces=False,
        minloglevel=2,
    )
    return spm.SentencePieceProcessor(model_file=str(tmp_path / "m.model"))


SPM_TEXTS = [
    "Größe der Straße, café CAFÉ naïve",
    "cafe\u0301 Ångström İstanbul ΟΔΟΣ",
    "ﬁne １２３ ½ ㎏ Ａ\u0308",
    "ệ e\u0323\u0302 \u1ecb \u1100\u1161\u11a8 각",
    "  spaces  kept  ",
]


@pytest.mark.parametrize(
    "spec",
    [
        "nfc",
        "lowercase",
        "strip-accents",
        pytest.param("nfkc", marks=pytest.mark.slow),
        pytest.param("nfc+lowercase+strip-accents", marks=pytest.mark.slow),
    ],
)
def test_a_sentencepiece_model_trained_with_the_rules_normalizes_as_we_do(tmp_path: Path, spec: str) -> None:
    n = parse_normalizer(spec)
    assert n.spm_rule_name() == "user_defined"
    processor = spm_normalized(tmp_path, n, SPM_TEXTS * 20 + [f"line {i}" for i in range(100)])
    for text in SPM_TEXTS:
        for form in (text, unicodedata.normalize("NFC", text), unicodedata.normalize("NFD", text)):
            assert processor.normalize(form) == n(form).replace(" ", "\u2581"), form


@given(st.text(st.characters(exclude_categories=()), min_size=1, max_size=16))
def test_a_short_text_is_given_to_the_library_when_the_same_text_in_a_long_one_would_be(text: str) -> None:
    """A few characters are looked up one by one, a longer text all at once: the answers agree."""
    n = parse_normalizer("nfkc+lowercase")
    padded = text + "\u00e9" * 32  # é: Python and the library agree on it
    assert n.library_decides(text) == n.library_decides(padded)


def test_no_normalizer_is_sentencepiece_identity() -> None:
    assert Normalizer(()).spm_rules_tsv() is None
    assert Normalizer(()).spm_rule_name() == "identity"


def test_every_step_is_named() -> None:
    assert {Normalizer((s,)).name for s in NORMALIZER_STEPS} == set(NORMALIZER_STEPS)


@pytest.mark.slow
@pytest.mark.parametrize("spec", SPECS)
def test_every_code_point_normalizes_as_tokenizers_does(spec: str) -> None:
    """Every assigned code point, in runs of consecutive ones (so marks meet letters, jamo meet
    jamo) and each after an "a" (a letter a mark may compose with). Nearly every run is normalized
    by Python's tables, so this compares them, not the library with itself."""
    n = parse_normalizer(spec)
    hf = library(n).normalizer
    codes = [c for c in range(0x110000) if not 0xD800 <= c < 0xE000 and unicodedata.category(chr(c)) != "Cn"]
    by_python = 0
    runs = range(0, len(codes), 512)
    for k in runs:
        run = "".join(map(chr, codes[k : k + 512]))
        paired = "".join("a" + c + " " for c in run)
        for text in (run, paired):
            assert n(text) == hf.normalize_str(text), f"U+{codes[k]:04X}.."
            by_python += not n.library_decides(text)
    assert by_python > 0.9 * 2 * len(runs)
