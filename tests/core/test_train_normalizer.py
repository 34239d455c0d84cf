"""Byte-level BPE with a normalizer: trained on normalized text, encoding typed text with spans on
it, recorded in the model file and count tables, exported to tokenizer.json (refused in .tiktoken),
and replayed and swept on tokenizer.json files that normalize (Qwen2's, GPT-NeoX's NFC)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import Regex, decoders, models, normalizers, pre_tokenizers, trainers
from tokenizers import Tokenizer as Library
from transformers import AutoTokenizer

from tokviz.core.analysis.sweep import merge_table, sweep_counts
from tokviz.core.analysis.usage import count_tokens
from tokviz.core.bpe.tokenizer import Tokenizer
from tokviz.core.errors import ExportError, ModelFileError, ReplayUnavailable
from tokviz.core.formats.exports import export_problem, write_export
from tokviz.core.formats.hf_classes import QWEN2_PATTERN
from tokviz.core.formats.hf_json import hf_file_bytes, hf_from_json
from tokviz.core.formats.model_file import load_model, model_file_bytes, model_from_text, save_model
from tokviz.core.formats.registry import load_tokenizer
from tokviz.core.pretok.normalize import parse_normalizer
from tokviz.core.training.counts import (
    CountTableError,
    count_corpus,
    load_table,
    save_table,
    train_source_iter,
)
from tokviz.core.training.replay import ReplayTrace, replay_tokenizer
from tokviz.core.training.train import run_to_end, train_bpe

WORDS = [
    "ﬁne", "ﬂow", "ofﬁce", "１２３", "２０２４", "Ａｂｃ", "½", "㎏", "ℌ", "²", "café", "cafe\u0301",
    "naïve", "İstanbul", "ΟΔΟΣ", "Größe", "the", "data", "office", "fine", "123",
]  # fmt: skip
# NFKC-sensitive held-out text: ligatures, full-width digits and letters, compatibility characters.
HELD_OUT = "ﬁnal ﬂows in the ofﬁce: １２３４５ ＡＢＣ ½ ㎏ ℌ x² — café vs cafe\u0301, İstanbul ΟΔΟΣ"


def corpus_text(lines: int = 1500, seed: int = 7) -> str:
    rng = random.Random(seed)
    return "\n".join(" ".join(rng.choice(WORDS) for _ in range(10)) for _ in range(lines))


@pytest.fixture(scope="module")
def nfkc_model() -> Tokenizer:
    return train_bpe(text=corpus_text(), vocab_size=420, normalizer="nfkc").tokenizer("nfkc-bpe")


def test_training_sees_only_normalized_text() -> None:
    result = train_bpe(text="ﬁ ﬁ ﬁ １ １", vocab_size=270, normalizer="nfkc")
    assert result.normalizer == "nfkc"
    assert result.settings()["normalizer"] == "nfkc"
    learned = {a + b for a, b in result.merges}
    assert b"fi" in learned and "ﬁ".encode() not in b"".join(learned)
    # The same corpus written normalized trains the same merges.
    assert train_bpe(text="fi fi fi 1 1", vocab_size=270).merges == result.merges


def test_training_with_workers_normalizes_as_one_process(tmp_path: Path) -> None:
    corpus = tmp_path / "c.txt"
    corpus.write_text(corpus_text(3000), encoding="utf-8")
    one = train_bpe(files=[corpus], vocab_size=400, normalizer="nfkc+lowercase", workers=1)
    from tokviz.core.training.train import train_iter

    pooled = run_to_end(
        train_iter(files=[corpus], vocab_size=400, normalizer="nfkc+lowercase", workers=2, parallel="always"),
        None,
    )
    assert pooled.merges == one.merges and pooled.normalizer == "nfkc+lowercase"


def test_special_tokens_match_the_typed_text_and_are_not_normalized() -> None:
    result = train_bpe(
        text="ﬁne<|ＥＯＴ|>ﬁne " * 20, vocab_size=280, special_tokens=["<|ＥＯＴ|>"], normalizer="nfkc"
    )
    tok = result.tokenizer()
    ids = tok.encode("ﬁne<|ＥＯＴ|>")
    assert ids[-1] == tok.special_tokens["<|ＥＯＴ|>"]
    assert tok.encode("fine<|EOT|>")[-1] != tok.special_tokens["<|ＥＯＴ|>"]


def test_the_tokenizer_encodes_what_the_normalizer_makes(nfkc_model: Tokenizer) -> None:
    n = parse_normalizer("nfkc")
    assert nfkc_model.encode(HELD_OUT) == nfkc_model.encode(n(HELD_OUT))
    assert nfkc_model.decode(nfkc_model.encode(HELD_OUT)) == n(HELD_OUT)
    assert nfkc_model.encode_with_merges(HELD_OUT, nfkc_model.merge_count) == nfkc_model.encode(HELD_OUT)


def test_spans_lie_on_the_typed_text(nfkc_model: Tokenizer) -> None:
    text = "ﬁne １２３ cafe\u0301"
    spans = nfkc_model.encode_spans(text)
    assert [s.id for s in spans] == nfkc_model.encode(text)
    assert spans[0].start == 0 and spans[-1].end == len(text)
    # Each token covers the typed characters it came from: "fine" the ligature and "ne".
    covered = "".join(text[s.start : s.end] for s in spans)
    assert covered == text
    by_bytes = {s.bytes: text[s.start : s.end] for s in spans}
    assert by_bytes[b"fine"] == "ﬁne"


@settings(max_examples=150, deadline=None)
@given(text=st.text(st.sampled_from("ﬁﬂ１２ＡａbcİıΣσé\u0301\u0308 ½㎏\n")))
def test_spans_climb_cover_whole_characters_and_give_the_ids(text: str) -> None:
    tok = _lower_model()
    spans = tok.encode_spans(text)
    assert [s.id for s in spans] == tok.encode(text)
    assert all(0 <= s.start <= s.end <= len(text) for s in spans)
    assert [s.start for s in spans] == sorted(s.start for s in spans)
    if text:
        assert spans[0].start == 0 and spans[-1].end == len(text)


_LOWER: list[Tokenizer] = []


def _lower_model() -> Tokenizer:
    if not _LOWER:
        _LOWER.append(
            train_bpe(text=corpus_text(400), vocab_size=350, normalizer="nfkc+lowercase").tokenizer()
        )
    return _LOWER[0]


def test_the_model_file_records_the_normalizer(tmp_path: Path, nfkc_model: Tokenizer) -> None:
    path = tmp_path / "m.json"
    save_model(path, nfkc_model)
    assert json.loads(path.read_text(encoding="utf-8"))["normalizer"] == "nfkc"
    loaded = load_model(path).tokenizer
    assert loaded.normalizer == parse_normalizer("nfkc")
    assert loaded.encode(HELD_OUT) == nfkc_model.encode(HELD_OUT)
    plain = train_bpe(text="abc abc", vocab_size=258).tokenizer()
    assert "normalizer" not in json.loads(model_file_bytes(plain))


def test_a_model_file_with_an_unknown_normalizer_is_refused(nfkc_model: Tokenizer) -> None:
    doc = json.loads(model_file_bytes(nfkc_model))
    doc["normalizer"] = "nfd"
    with pytest.raises(ModelFileError, match="unknown normalizer 'nfd'"):
        model_from_text(json.dumps(doc), "m.json")


def test_tokenizer_json_carries_the_normalizer(tmp_path: Path, nfkc_model: Tokenizer) -> None:
    data = hf_file_bytes(nfkc_model)
    assert json.loads(data)["normalizer"] == {"type": "NFKC"}
    library = Library.from_str(data.decode("utf-8"))
    for text in (HELD_OUT, corpus_text(30, seed=99)):
        assert library.encode(text, add_special_tokens=False).ids == nfkc_model.encode(text)


def test_auto_tokenizer_reads_the_folder_with_the_normalizer(tmp_path: Path, nfkc_model: Tokenizer) -> None:
    for kind, folder in (("hf", tmp_path / "hf"), ("gpt2", tmp_path / "gpt2")):
        notes = write_export(nfkc_model, kind, f"{folder}/")
        auto = AutoTokenizer.from_pretrained(folder)
        assert auto.encode(HELD_OUT, add_special_tokens=False) == nfkc_model.encode(HELD_OUT), kind
        if kind == "gpt2":
            assert (folder / "tokenizer.json").exists()
            assert any("cannot hold the nfkc normalizer" in note for note in notes)


def test_a_tiktoken_file_cannot_carry_a_normalizer(tmp_path: Path, nfkc_model: Tokenizer) -> None:
    assert export_problem(nfkc_model, "tiktoken") == "a .tiktoken file cannot carry a normalizer"
    with pytest.raises(ExportError, match="a .tiktoken file cannot carry a normalizer"):
        write_export(nfkc_model, "tiktoken", tmp_path / "m.tiktoken")
    assert not (tmp_path / "m.tiktoken").exists()


def test_count_tables_record_the_normalizer_and_train_the_same_merges(tmp_path: Path) -> None:
    corpus = tmp_path / "c.txt"
    corpus.write_text(corpus_text(800), encoding="utf-8")
    table = count_corpus(files=[corpus], normalizer="nfkc", workers=1)
    assert table.normalizer == "nfkc" and "normalizer nfkc" in table.describe()
    path = tmp_path / "t.parquet"
    save_table(table, path)
    read = load_table(path)
    assert read.normalizer == "nfkc"
    from tokviz.core.training.counts import train_from_counts

    trained = train_from_counts(read, 400)
    direct = train_bpe(files=[corpus], vocab_size=400, normalizer="nfkc", workers=1)
    assert trained.merges == direct.merges and trained.normalizer == "nfkc"
    # Training a table with another normalizer is refused: its pre-tokens are cut already.
    with pytest.raises(CountTableError, match="counted with the normalizer nfkc, not nfc"):
        run_to_end(train_source_iter([str(path)], vocab_size=400, normalizer="nfc"), None)


def test_the_window_path_trains_with_the_normalizer(tmp_path: Path) -> None:
    corpus = tmp_path / "c.txt"
    corpus.write_text(corpus_text(500), encoding="utf-8")
    kept: dict[str, object] = {}
    result = run_to_end(
        train_source_iter([str(corpus)], vocab_size=380, normalizer="nfkc", kept=kept, workers=1), None
    )
    assert result.normalizer == "nfkc" and result.tokenizer().normalizer.name == "nfkc"
    assert result.merges == train_bpe(files=[corpus], vocab_size=380, normalizer="nfkc", workers=1).merges


# ----------------------------------------------------------------------------- files other tools made
def library_trained(normalizer: normalizers.Normalizer, pre: pre_tokenizers.PreTokenizer) -> Library:
    """A byte-level BPE trained by tokenizers with a normalizer, as Qwen2's and GPT-NeoX's files are made."""
    tk = Library(models.BPE())
    tk.normalizer = normalizer
    tk.pre_tokenizer = pre
    tk.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=500,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        special_tokens=["<|endoftext|>"],
        show_progress=False,
    )
    tk.train_from_iterator([corpus_text(1200)], trainer)
    return tk


QWEN2_STYLE = (
    normalizers.NFC(),
    pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(QWEN2_PATTERN), behavior="isolated"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    ),
)
NEOX_STYLE = (normalizers.NFC(), pre_tokenizers.ByteLevel(add_prefix_space=False))


@pytest.mark.parametrize("style", [QWEN2_STYLE, NEOX_STYLE], ids=["qwen2", "neox"])
def test_replay_at_every_merge_ends_at_the_librarys_ids(style: tuple[object, object]) -> None:
    library = library_trained(*style)  # type: ignore[arg-type]
    tok = hf_from_json(json.loads(library.to_str()), name="nfc-file")
    assert tok.replay_note is None and tok.normalizer.name == "nfc"
    text = HELD_OUT + "\n" + corpus_text(20, seed=3) + "<|endoftext|>e\u0301"
    expected = library.encode(text, add_special_tokens=False).ids
    assert tok.encode_with_merges(text, tok.merge_count) == expected
    trace = ReplayTrace(tok, text)
    assert trace.ids_at(tok.merge_count) == expected
    assert trace.token_count(tok.merge_count) == len(expected)
    replay = replay_tokenizer(tok, text, None)
    assert replay.steps[-1].tokens_after == len(expected)
    # Spans of the replay at a middle step lie on the typed text too.
    spans = trace.spans_at(tok.merge_count // 2)
    assert spans[-1].end == len(text)


def test_a_sweep_of_an_nfc_file_counts_every_prefix_from_the_librarys_tokens() -> None:
    library = library_trained(*QWEN2_STYLE)
    tok = hf_from_json(json.loads(library.to_str()), name="qwen2-style")
    text = corpus_text(60, seed=5) + HELD_OUT
    merge_table(tok)  # sweepable
    steps = sweep_counts(tok, count_tokens(tok, [text]).counts)
    for k in (0, tok.merge_count // 3, tok.merge_count):
        assert steps.tokens[k] == len(tok.encode_with_merges(text, k))


@pytest.mark.parametrize("source", ["trained", "nfc file"])
def test_a_smaller_vocabulary_cut_from_the_merge_list_keeps_the_normalizer(
    source: str, nfkc_model: Tokenizer
) -> None:
    from tokviz.core.analysis.sweep import prefix_tokenizer

    if source == "trained":
        tok = nfkc_model
    else:
        tok = hf_from_json(json.loads(library_trained(*NEOX_STYLE).to_str()), name="neox-style")
    prefix = prefix_tokenizer(tok, 256 + tok.merge_count // 2 + len(tok.special_tokens))
    assert prefix.normalizer == tok.normalizer
    assert prefix.encode(HELD_OUT) == tok.encode_with_merges(HELD_OUT, tok.merge_count // 2)


def test_a_normalizer_tokviz_does_not_run_still_refuses_replay_in_one_line() -> None:
    library = library_trained(normalizers.NFKD(), pre_tokenizers.ByteLevel(add_prefix_space=False))
    tok = hf_from_json(json.loads(library.to_str()), name="nfkd-file")
    assert tok.replay_note is not None and "NFKD" in tok.replay_note and "\n" not in tok.replay_note
    with pytest.raises(ReplayUnavailable):
        ReplayTrace(tok, "ﬁ")


def test_an_exported_nfc_model_reads_back_replayable(tmp_path: Path) -> None:
    model = train_bpe(text=corpus_text(), vocab_size=400, normalizer="nfc").tokenizer("nfc")
    path = tmp_path / "tokenizer.json"
    path.write_bytes(hf_file_bytes(model))
    back = load_tokenizer(str(path))
    assert back.replay_note is None and back.normalizer.name == "nfc"
    assert back.encode(HELD_OUT) == model.encode(HELD_OUT)
    assert back.encode_with_merges(HELD_OUT, 50) == model.encode_with_merges(HELD_OUT, 50)


@pytest.mark.slow
def test_a_dask_count_normalizes_as_a_local_count(tmp_path: Path) -> None:
    pytest.importorskip("distributed")
    from tokviz.core.training.dask_count import count_on_dask, local_cluster

    files = []
    for k in range(3):
        path = tmp_path / f"part{k}.txt"
        path.write_text(corpus_text(400, seed=k), encoding="utf-8")
        files.append(path)
    local = count_corpus(files=files, normalizer="nfkc+lowercase", workers=1)
    with local_cluster(2, processes=False) as cluster:
        on_dask = count_on_dask(
            [str(p) for p in files],
            scheduler=cluster.scheduler_address,
            chunk_bytes=3000,
            normalizer="nfkc+lowercase",
        )
    assert list(on_dask.counts.items()) == list(local.counts.items())
    assert on_dask.metadata() == local.metadata() and on_dask.normalizer == "nfkc+lowercase"
