"""Every tokenizer.json the ``tokenizers`` library reads loads in tokviz with the library's ids.

The files are real-shaped: tiny models trained here by the library itself (byte-level BPE with
NFC/NFKC/lowercase normalizers, Split pre-tokenizers of every behaviour, a prefix space, added
tokens special and not, byte fallback as in Llama 2, ``ignore_merges``, a vocabulary missing some
bytes, WordPiece as in BERT, Unigram as in T5, WordLevel), saved as ``tokenizer.json`` and loaded
through :func:`tokviz.core.formats.registry.load_tokenizer`. Their ids are compared with the library's on
the multilingual corpus and on hypothesis text; spans, surface bytes and replay are checked too.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from tokenizers import AddedToken, Regex, decoders, models, normalizers, pre_tokenizers, processors, trainers
from tokenizers import Tokenizer as Library

from tests.memory_use import module_cache
from tests.multilingual import corpus_lines, corpus_sample
from tests.strategies import hard_text, replace_lone_surrogates, text_with_lone_surrogates
from tokviz.core.bpe.tokenizer import Tokenizer
from tokviz.core.errors import InvalidArgument, ReplayUnavailable, TokenizerLoadError
from tokviz.core.formats import load_warnings
from tokviz.core.formats.hf_engine import HFTokenizer
from tokviz.core.formats.registry import load_tokenizer
from tokviz.core.training.replay import ReplayTrace, replay_tokenizer

SPECIALS = ("<|endoftext|>", "<|im_start|>")
TRAINING = corpus_lines(1500, seed=7)
# Held-out lines (another seed) plus the corpus's own first lines: every script, emoji, space kind.
CHECK = corpus_lines(600, seed=8)[120:] + corpus_lines(120)


# ---------------------------------------------------------------------------- models, as files
def byte_level_bpe(
    normalizer: Any = None,
    split: str | None = None,
    invert: bool = False,
    prefix_space: bool = False,
    added: tuple[str, ...] = ("ü",),
    vocab_size: int = 700,
) -> Library:
    """A GPT-2-style byte-level BPE trained on the corpus, optionally with a normalizer or a Split."""
    tk = Library(models.BPE())
    tk.normalizer = normalizer
    if split is None:
        tk.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=prefix_space)
    else:
        pattern = Regex(r"\s+")  # the behaviour decides where the spaces go (or that they go)
        tk.pre_tokenizer = pre_tokenizers.Sequence(
            [
                pre_tokenizers.Split(pattern, behavior=split, invert=invert),
                pre_tokenizers.ByteLevel(add_prefix_space=prefix_space, use_regex=False),
            ]
        )
    tk.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=list(SPECIALS),
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tk.train_from_iterator(TRAINING, trainer)
    tk.add_tokens([AddedToken(a, special=False) for a in added])
    return tk


def with_model_changes(tk: Library, **changes: Any) -> Library:
    """``tk`` re-read after editing its model's JSON (``ignore_merges``, a smaller vocabulary)."""
    doc = json.loads(tk.to_str())
    doc["model"].update(changes)
    return Library.from_str(json.dumps(doc))


def missing_bytes_bpe(utf8_too: bool = True) -> tuple[Library, list[int]]:
    """A byte-level BPE whose vocabulary lacks C0, C1, F5-FF (never in UTF-8) and, with ``utf8_too``,
    two bytes UTF-8 uses."""
    from tokviz.core.pretok.bytes_ import bytes_to_gpt2_str

    tk = byte_level_bpe(added=())
    doc = json.loads(tk.to_str())
    used = "".join(a + b for a, b in doc["model"]["merges"])
    occurring = [b for b in (0x7F, 0xBF, 0x9B) if bytes_to_gpt2_str(bytes([b])) not in used][
        : 2 if utf8_too else 0
    ]
    dropped = [0xC0, 0xC1, *range(0xF5, 0x100), *occurring]
    for b in dropped:
        del doc["model"]["vocab"][bytes_to_gpt2_str(bytes([b]))]
    return Library.from_str(json.dumps(doc)), occurring


def suffix_bpe() -> Library:
    """CLIP's layout: a byte-level BPE whose word-final pieces end in ``</w>``."""
    tk = Library(models.BPE(end_of_word_suffix="</w>"))
    tk.normalizer = normalizers.Lowercase()
    tk.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tk.decoder = decoders.BPEDecoder(suffix="</w>")
    trainer = trainers.BpeTrainer(
        vocab_size=700,
        end_of_word_suffix="</w>",
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tk.train_from_iterator(TRAINING, trainer)
    return tk


def byte_fallback_bpe() -> Library:
    """Llama 2's layout: ``▁`` for spaces by normalizers, no pre-tokenizer, ``<0xNN>`` byte fallback."""
    tk = Library(models.BPE(unk_token="<unk>", byte_fallback=True, fuse_unk=True))
    tk.normalizer = normalizers.Sequence([normalizers.Prepend("▁"), normalizers.Replace(" ", "▁")])
    tk.decoder = decoders.Sequence(
        [decoders.Replace("▁", " "), decoders.ByteFallback(), decoders.Fuse(), decoders.Strip(" ", 1, 0)]
    )
    trainer = trainers.BpeTrainer(
        vocab_size=900, limit_alphabet=150, special_tokens=["<unk>", "<s>", "</s>"], show_progress=False
    )
    tk.train_from_iterator(TRAINING[:600], trainer)
    doc = json.loads(tk.to_str())
    trained = doc["model"]["vocab"]
    vocab = {"<unk>": 0, "<s>": 1, "</s>": 2} | {f"<0x{b:02X}>": 3 + b for b in range(256)}
    for token, _ in sorted(trained.items(), key=lambda item: item[1]):
        vocab.setdefault(token, len(vocab))
    doc["model"]["vocab"] = vocab
    doc["added_tokens"] = [t | {"id": vocab[t["content"]]} for t in doc["added_tokens"]]
    doc["post_processor"] = {
        "type": "TemplateProcessing",
        "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
        "pair": [{"Sequence": {"id": "A", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}}],
        "special_tokens": {"<s>": {"id": "<s>", "ids": [1], "tokens": ["<s>"]}},
    }
    return Library.from_str(json.dumps(doc))


def wordpiece() -> Library:
    """BERT's layout: lowercasing normalizer, BERT pre-tokenizer, ``##`` pieces, [CLS] ... [SEP]."""
    tk = Library(models.WordPiece(unk_token="[UNK]"))
    tk.normalizer = normalizers.BertNormalizer(lowercase=True)
    tk.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tk.decoder = decoders.WordPiece()
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    trainer = trainers.WordPieceTrainer(vocab_size=800, special_tokens=specials, show_progress=False)
    tk.train_from_iterator(TRAINING, trainer)
    tk.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        special_tokens=[("[CLS]", tk.token_to_id("[CLS]")), ("[SEP]", tk.token_to_id("[SEP]"))],
    )
    return tk


def unigram() -> Library:
    """T5's layout: NFKC, Metaspace ``▁``, a Unigram model with an unknown token."""
    tk = Library(models.Unigram())
    tk.normalizer = normalizers.NFKC()
    tk.pre_tokenizer = pre_tokenizers.Metaspace()
    tk.decoder = decoders.Metaspace()
    trainer = trainers.UnigramTrainer(
        vocab_size=1500, special_tokens=["<pad>", "</s>", "<unk>"], unk_token="<unk>", show_progress=False
    )
    # The library's Unigram trainer panics on long whitespace runs ("likelihood is NAN"): train without.
    tk.train_from_iterator([line for line in TRAINING if not re.search(r"\s{3,}", line)], trainer)
    return tk


def wordlevel() -> Library:
    """A word-level vocabulary: whitespace pre-tokenizer, one id per word, [UNK] for the rest."""
    tk = Library(models.WordLevel(unk_token="[UNK]"))
    tk.pre_tokenizer = pre_tokenizers.Whitespace()
    trainer = trainers.WordLevelTrainer(vocab_size=500, special_tokens=["[UNK]"], show_progress=False)
    tk.train_from_iterator(TRAINING, trainer)
    return tk


MODELS: dict[str, Callable[[], Library]] = {
    "byte-level BPE": byte_level_bpe,
    "NFC": lambda: byte_level_bpe(normalizers.NFC()),
    "NFKC": lambda: byte_level_bpe(normalizers.NFKC()),
    "NFKD": lambda: byte_level_bpe(normalizers.NFKD()),
    "lowercase": lambda: byte_level_bpe(normalizers.Lowercase()),
    "prefix space": lambda: byte_level_bpe(prefix_space=True),
    "ignore_merges": lambda: with_model_changes(byte_level_bpe(), ignore_merges=True),
    "missing bytes": lambda: missing_bytes_bpe()[0],
    "byte fallback": byte_fallback_bpe,
    "end_of_word_suffix": suffix_bpe,
    "WordPiece": wordpiece,
    "Unigram": unigram,
    "WordLevel": wordlevel,
    **{
        f"Split {b}": (lambda b=b: byte_level_bpe(split=b))
        for b in ("removed", "isolated", "merged_with_previous", "merged_with_next", "contiguous")
    },
    "Split inverted": lambda: byte_level_bpe(split="isolated", invert=True),
}

_built: dict[str, Library] = module_cache()


def library(kind: str) -> Library:
    """The library's tokenizer of one kind (trained once per test run)."""
    if kind not in _built:
        _built[kind] = MODELS[kind]()
    return _built[kind]


def saved(kind: str, folder: Path) -> tuple[Library, Tokenizer]:
    """Save one kind as ``tokenizer.json`` and load it with tokviz; both tokenizers are returned."""
    folder.mkdir(parents=True, exist_ok=True)
    library(kind).save(str(folder / "tokenizer.json"))
    # The reference is the file as the library reads it back: a Unigram model fresh from training
    # can differ from its own saved file on a rare tie.
    return Library.from_file(str(folder / "tokenizer.json")), load_tokenizer(folder / "tokenizer.json")


def reference_ids(tk: Library, text: str) -> list[int] | None:
    """The library's ids, or None where the library itself fails (a Unigram model can panic)."""
    try:
        return list(tk.encode(text, add_special_tokens=False).ids)
    except BaseException as exc:  # a Rust panic is a BaseException
        if isinstance(exc, KeyboardInterrupt):
            raise
        return None


def reference_ids_of(tk: Library, texts: list[str]) -> list[list[int] | None]:
    """:func:`reference_ids` of each text: one ``encode_batch`` call, text by text if the batch fails."""
    try:
        return [list(e.ids) for e in tk.encode_batch(texts, add_special_tokens=False)]
    except BaseException as exc:  # a Rust panic in one text fails the whole batch
        if isinstance(exc, KeyboardInterrupt):
            raise
        return [reference_ids(tk, text) for text in texts]


def gives(tok: Tokenizer, text: str, expected: list[int] | None) -> bool:
    """tokviz gives ``expected``, or refuses in one line (InvalidArgument) where the library failed (None)."""
    if expected is None:
        with pytest.raises(InvalidArgument, match="the tokenizers library cannot encode this text"):
            tok.encode(text)
        return True
    return tok.encode(text) == expected


def same_ids(tok: Tokenizer, tk: Library, text: str) -> bool:
    """tokviz gives the library's ids, or refuses in one line (InvalidArgument) where the library fails."""
    return gives(tok, text, reference_ids(tk, text))


# ---------------------------------------------------------------------------- ids
@pytest.mark.slow
@pytest.mark.parametrize("kind", sorted(MODELS))
def test_ids_equal_the_library_on_multilingual_text(tmp_path: Path, kind: str) -> None:
    tk, tok = saved(kind, tmp_path)
    assert isinstance(tok, HFTokenizer)
    for line in CHECK:
        assert same_ids(tok, tk, line), (kind, line)
    assert same_ids(tok, tk, "\n".join(CHECK[:200]))


@pytest.mark.slow
@pytest.mark.parametrize("kind", sorted(MODELS))
def test_ids_equal_the_library_on_every_kind_of_corpus_line(tmp_path: Path, kind: str) -> None:
    """Every line of :func:`corpus_sample` (the 30,000 corpus lines that bring a piece, a neighbour
    or a case not met before, and the longest): the lines left out only repeat what these hold."""
    tk, tok = saved(kind, tmp_path)
    lines = corpus_sample()
    differ = [
        line
        for line, ids in zip(lines, reference_ids_of(tk, lines), strict=True)
        if not gives(tok, line, ids)
    ]
    assert not differ, (kind, len(differ), differ[:3])


@pytest.mark.slow
@pytest.mark.parametrize(
    "kind", ["byte-level BPE", "NFKC", "Split merged_with_next", "byte fallback", "WordPiece", "Unigram"]
)
@settings(max_examples=40)  # six models: 240 texts in all
@given(text=hard_text(max_pieces=12, max_run=40, specials=SPECIALS))
def test_ids_and_spans_follow_the_library_on_hard_text(
    loaded: Callable[[str], tuple[Library, Tokenizer]], kind: str, text: str
) -> None:
    tk, tok = loaded(kind)
    assert same_ids(tok, tk, text)
    if reference_ids(tk, text) is None:
        return
    spans = tok.encode_spans(text)
    assert [s.id for s in spans] == tok.encode(text)
    starts = [s.start for s in spans]
    assert starts == sorted(starts)
    assert all(0 <= s.start <= s.end <= len(text) for s in spans)
    chunks = [s.chunk for s in spans]
    assert chunks == sorted(chunks)


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], tuple[Library, Tokenizer]]:
    """:func:`saved` once per kind and module, for hypothesis tests (which cannot take ``tmp_path``)."""
    cache: dict[str, tuple[Library, Tokenizer]] = {}

    def get(kind: str) -> tuple[Library, Tokenizer]:
        if kind not in cache:
            cache[kind] = saved(kind, tmp_path_factory.mktemp("hf"))
        return cache[kind]

    return get


def test_added_tokens_special_and_not(tmp_path: Path) -> None:
    """``ü`` (added, not special) is matched before BPE as the library does; specials are specials."""
    tk, tok = saved("byte-level BPE", tmp_path)
    text = "Führer<|im_start|>hi<|endoftext|>"
    ids = tok.encode(text)
    assert ids == reference_ids(tk, text)
    assert tk.token_to_id("ü") in ids
    assert tok.special_tokens == {s: tk.token_to_id(s) for s in SPECIALS}
    assert not tok.is_special(tk.token_to_id("ü")) and tok.is_special(tk.token_to_id("<|endoftext|>"))
    # Plain text: the special-token strings are text, the added character still matches.
    plain = tok.encode_ordinary(text)
    assert tk.token_to_id("<|endoftext|>") not in plain and tk.token_to_id("ü") in plain
    assert tok.decode(plain) == text
    assert [(s, e) for s, e, added in tok.segments(text) if added] == [(1, 2), (6, 18), (20, 33)]


def test_lone_surrogates_read_as_replacement_characters(tmp_path: Path) -> None:
    tk, tok = saved("NFKC", tmp_path)
    text = "a\ud800b \udfff😀"
    assert tok.encode(text) == reference_ids(tk, replace_lone_surrogates(text))
    assert [s.id for s in tok.encode_spans(text)] == tok.encode(text)


@settings(max_examples=50)
@given(text=text_with_lone_surrogates())
def test_lone_surrogates_everywhere(loaded: Callable[[str], tuple[Library, Tokenizer]], text: str) -> None:
    tok = loaded("byte-level BPE")[1]
    assert tok.encode(text) == tok.encode(replace_lone_surrogates(text))
    assert tok.encode_ordinary(text) == tok.encode_ordinary(replace_lone_surrogates(text))


@pytest.mark.parametrize("kind", ["byte-level BPE", "prefix space", "byte fallback", "Unigram", "WordPiece"])
def test_streaming_equals_encoding_the_whole_text(tmp_path: Path, kind: str) -> None:
    tk, tok = saved(kind, tmp_path)
    separator = next(iter(tok.special_tokens))
    text = separator.join(line for line in CHECK[:300] if reference_ids(tk, line) is not None)
    pieces = [text[i : i + 97] for i in range(0, len(text), 97)]
    assert list(tok.encode_iterable(pieces, block=500)) == reference_ids(tk, text)


def test_extra_special_tokens_are_added_to_the_library(tmp_path: Path) -> None:
    _tk, tok = saved("WordPiece", tmp_path)
    more = tok.with_special_tokens(["<|user|>"])
    assert isinstance(more, HFTokenizer)
    ids = more.encode("hello <|user|> world")
    assert more.special_tokens["<|user|>"] in ids and more.vocab_size == tok.vocab_size + 1


def test_truncation_and_padding_in_the_file_do_not_cut_the_text(tmp_path: Path) -> None:
    tk = Library.from_str(library("WordPiece").to_str())
    tk.enable_truncation(max_length=8)
    tk.enable_padding(length=8)
    tk.save(str(tmp_path / "tokenizer.json"))
    tok = load_tokenizer(tmp_path / "tokenizer.json")
    text = " ".join(CHECK[:5])
    plain = Library.from_file(str(tmp_path / "tokenizer.json"))
    plain.no_truncation()
    plain.no_padding()
    assert tok.encode(text) == plain.encode(text, add_special_tokens=False).ids
    assert len(tok.encode(text)) > 8


# ---------------------------------------------------------------------------- spans and bytes
def test_spans_point_into_the_original_text_when_a_normalizer_changes_it(tmp_path: Path) -> None:
    _tk, tok = saved("NFKC", tmp_path)
    text = "ﬁne ① ｆｕｌｌ cafe\u0301"
    spans = tok.encode_spans(text)
    assert [s.id for s in spans] == tok.encode(text)
    assert (spans[0].start, spans[0].end) == (0, 1)  # "fi" came from the ligature, one character
    assert all(0 <= s.start < s.end <= len(text) for s in spans)
    f = text.index("ｆ")
    region = [s for s in spans if s.end > f and s.start < f + 4]  # "ｆｕｌｌ" became "full"
    assert b"full" in b"".join(s.bytes for s in region) and region[-1].end == f + 4


def test_a_token_holding_part_of_a_character_covers_the_whole_character(tmp_path: Path) -> None:
    _tk, tok = saved("byte fallback", tmp_path)
    text = "ok 🦜"  # a parrot: unseen in training, so four <0xNN> byte tokens
    spans = tok.encode_spans(text)
    parrot = [s for s in spans if s.partial]
    assert len(parrot) == 4 and {(s.start, s.end) for s in parrot} == {(3, 4)}
    assert b"".join(s.bytes for s in parrot) == "🦜".encode()


def test_surface_bytes_of_each_kind(tmp_path: Path) -> None:
    """``Ġ`` is a space, ``▁`` a space, ``##`` is dropped, ``<0xE4>`` is the byte E4."""
    bpe = saved("byte-level BPE", tmp_path / "a")[1]
    ids = {b: bpe.hf.token_to_id(_gpt2(b)) for b in range(256)}
    assert all(bpe.id_bytes(i) == bytes([b]) for b, i in ids.items() if i not in bpe.added_ids)
    assert (
        bpe.id_bytes(ids[0xFC]) == "ü".encode()
    )  # also the added token "ü": its text wins (FC is never UTF-8)
    wp = saved("WordPiece", tmp_path / "b")[1]
    piece = next(t for t in wp.hf.get_vocab() if t.startswith("##") and len(t) > 3)
    assert wp.id_bytes(wp.hf.token_to_id(piece)) == piece[2:].encode()
    uni = saved("Unigram", tmp_path / "c")[1]
    word = next(t for t in uni.hf.get_vocab() if t.startswith("▁") and len(t) > 2)
    assert uni.id_bytes(uni.hf.token_to_id(word)) == (" " + word[1:]).encode()
    fb = saved("byte fallback", tmp_path / "d")[1]
    assert fb.id_bytes(fb.hf.token_to_id("<0xE4>")) == b"\xe4"
    assert fb.template == ("<s>", "$A")


def _gpt2(b: int) -> str:
    from tokviz.core.pretok.bytes_ import bytes_to_gpt2_str

    return bytes_to_gpt2_str(bytes([b]))


def test_decode_uses_the_library_decoder_where_bytes_alone_lose_spaces(tmp_path: Path) -> None:
    tk, tok = saved("WordPiece", tmp_path)
    ids = tok.encode("Hello world, tokenizers!")
    assert tok.decode(ids) == tk.decode(ids, skip_special_tokens=False) == "hello world, tokenizers!"
    assert tok.template == ("[CLS]", "$A", "[SEP]")
    bpe = saved("byte-level BPE", tmp_path / "bpe")[1]
    assert bpe.decode(bpe.encode("naïve 😀 text")) == "naïve 😀 text"


def test_a_vocabulary_missing_bytes_loads_and_says_which(tmp_path: Path) -> None:
    tk, occurring = missing_bytes_bpe()
    tk.save(str(tmp_path / "tokenizer.json"))
    tok = load_tokenizer(tmp_path / "tokenizer.json")
    text = "a\x7fb ok \u07ff\u00bf end"
    assert tok.encode(text) == reference_ids(tk, text)
    (warning,) = load_warnings(tok)
    assert " ".join(f"{b:02X}" for b in sorted(occurring)) in warning and "C0" not in warning
    assert "drops them" in warning
    assert tok.replay_note is not None and "no token for the bytes" in tok.replay_note


def test_bytes_utf8_never_uses_may_be_missing_and_replay_stays_exact(tmp_path: Path) -> None:
    tk, _ = missing_bytes_bpe(utf8_too=False)
    tk.save(str(tmp_path / "tokenizer.json"))
    tok = load_tokenizer(tmp_path / "tokenizer.json")
    assert load_warnings(tok) == () and tok.replay_note is None
    text = CHECK[7] + " 😀 中文"
    assert replay_tokenizer(tok, text, None).final == [tok.id_bytes(i) for i in reference_ids(tk, text) or []]


# ---------------------------------------------------------------------------- merges and replay
def test_byte_level_bpe_replays_exactly_with_the_library_chunks(tmp_path: Path) -> None:
    tk, tok = saved("byte-level BPE", tmp_path)
    assert tok.replay_note is None and tok.pretokenizer.name == "gpt2"
    text = "Führer<|endoftext|> hello  world, 中文 😀 " + CHECK[3]
    replay = replay_tokenizer(tok, text, None)
    assert [tok.vocab[i] for i in reference_ids(tk, text)] == replay.final
    assert tok.encode_with_merges(text, tok.merge_count) == reference_ids(tk, text)
    trace = ReplayTrace(tok, text)
    assert trace.ids_at(trace.total_steps) == reference_ids(tk, text)
    merged = tk.token_to_id("".join(json.loads(tk.to_str())["model"]["merges"][5]))
    assert tok.merge_rank_of_id[merged] == 5 and tok.id_of_merge(5) == merged


@pytest.mark.parametrize(
    ("kind", "reason"),
    [
        ("NFKD", "NFKD normalizer is not one tokviz replays"),
        ("byte fallback", "normalizer"),
        ("ignore_merges", "ignore_merges"),
        ("prefix space", "adds a space"),
        ("Split removed", "removes text"),
        ("WordPiece", "a WordPiece vocabulary has no merge prefixes"),
        ("Unigram", "a Unigram vocabulary has no merge prefixes"),
    ],
)
def test_replay_says_why_it_cannot_be_exact(tmp_path: Path, kind: str, reason: str) -> None:
    _tk, tok = saved(kind, tmp_path)
    assert tok.replay_note is not None and reason in tok.replay_note
    with pytest.raises(ReplayUnavailable, match=reason):
        ReplayTrace(tok, "some text")
    with pytest.raises(ReplayUnavailable, match=reason):
        tok.encode_with_merges("some text", 3)


def test_bpe_merges_and_parents_come_from_the_file(tmp_path: Path) -> None:
    tk, tok = saved("byte fallback", tmp_path)
    merges = json.loads(tk.to_str())["model"]["merges"]
    assert tok.merge_count == len(merges) and tok.is_bpe
    left, right = merges[0]
    made = tk.token_to_id(left + right)
    assert tok.parents_of_id[made] == (tk.token_to_id(left), tk.token_to_id(right))
    assert tok.merges[0] == (tok.id_bytes(tk.token_to_id(left)), tok.id_bytes(tk.token_to_id(right)))


# ---------------------------------------------------------------------------- refusals
def test_a_file_the_library_refuses_is_refused_in_one_line(tmp_path: Path) -> None:
    doc = json.loads(library("WordLevel").to_str())
    doc["pre_tokenizer"] = {
        "type": "Split",
        "pattern": {"Regex": "("},
        "behavior": "Isolated",
        "invert": False,
    }
    (tmp_path / "tokenizer.json").write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(
        TokenizerLoadError, match="tokenizer.json: the tokenizers library cannot read it"
    ) as info:
        load_tokenizer(tmp_path / "tokenizer.json")
    assert "\n" not in str(info.value)


def test_a_split_regex_that_backtracks_without_end_fails_in_one_line(tmp_path: Path) -> None:
    """Oniguruma stops a catastrophic pattern at its retry limit; tokviz says so instead of crashing."""
    doc = json.loads(library("WordLevel").to_str())
    doc["pre_tokenizer"] = {
        "type": "Split",
        "pattern": {"Regex": "(a|a)+$"},
        "behavior": "Isolated",
        "invert": False,
    }
    (tmp_path / "tokenizer.json").write_text(json.dumps(doc), encoding="utf-8")
    tok = load_tokenizer(tmp_path / "tokenizer.json")
    assert tok.encode("aaaa b") == Library.from_str(json.dumps(doc)).encode("aaaa b").ids
    with pytest.raises(InvalidArgument, match="cannot encode this text: Onig: .*retry-limit") as info:
        tok.encode("a" * 60 + "b")
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("pattern", ["gpt2", "cl100k"])
def test_the_two_sides_of_a_safe_cut_encode_like_the_whole_text(tmp_path: Path, pattern: str) -> None:
    """GPT-2 and cl100k chunking keep tokviz's safe cuts, so the editor re-encodes only a window."""
    from tokviz.core.bpe.cuts import cut_mode
    from tokviz.core.formats import export_hf
    from tokviz.core.pretok.pretokenize import last_cut_before
    from tokviz.core.training.train import train_bpe

    trained = train_bpe(text="\n".join(TRAINING[:300]), vocab_size=400, pretokenizer=pattern).tokenizer("t")
    export_hf(trained, tmp_path / "tokenizer.json")
    tok = load_tokenizer(tmp_path / "tokenizer.json")
    assert cut_mode(tok) == "space" and tok.pretokenizer.name == pattern
    text = " ".join(CHECK[:40])
    for at in range(1, len(text), 53):
        cut = last_cut_before(text, at)
        assert tok.encode(text[:cut]) + tok.encode(text[cut:]) == tok.encode(text), cut


@pytest.mark.oracle
def test_a_gpt2_style_file_streams_in_blocks_cut_at_spaces(tmp_path: Path) -> None:
    from tokviz.cli import main

    assert main(["export", "gpt2", "--to", "hf", "-o", str(tmp_path / "gpt2")]) == 0
    tok = load_tokenizer(tmp_path / "gpt2" / "tokenizer.json")
    tk = Library.from_file(str(tmp_path / "gpt2" / "tokenizer.json"))
    text = "\n".join(CHECK[:200])

    blocks = list(tok.encode_blocks([text[i : i + 97] for i in range(0, len(text), 97)], 500))

    assert tok.declared_cut_mode is None  # GPT-2's regex on the raw text: a space is a safe cut
    assert len(blocks) > 10
    assert [i for _, ids in blocks for i in ids] == reference_ids(tk, text)
