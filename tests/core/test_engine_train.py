"""Library trainers through tokviz: the same model as the library called directly with the recorded
options, the Unigram rounds of its log, a cancel that leaves nothing, an error in one line."""

from __future__ import annotations

import io
import json
import multiprocessing
import re
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sentencepiece as spm
from tokenizers import Tokenizer as HFTokenizer
from tokenizers.trainers import WordPieceTrainer

from tokviz.core.errors import InvalidArgument
from tokviz.core.formats.engine_record import engine_record, record_path
from tokviz.core.formats.registry import load_tokenizer, load_warnings
from tokviz.core.io.procpool import process_alive
from tokviz.core.training.engine_options import (
    ALGORITHMS,
    ENGINE_ALGORITHMS,
    SENTENCEPIECE_MAX_SENTENCE_BYTES,
    EngineOptions,
    document_sentences,
    options_for,
)
from tokviz.core.training.engine_run import (
    BATCH_BYTES,
    EngineError,
    EngineModel,
    EngineProgress,
    TrainingCancelled,
    train_engine,
)


@pytest.fixture(scope="module")
def documents(english_text: str) -> list[str]:
    """Two documents of real prose and code, each of many lines."""
    text = english_text[:120_000]
    return [text[:60_000], text[60_000:]]


def lines_of(documents: list[str]) -> list[str]:
    """The sentences a user gives the library: every non-empty line (none here is over-long)."""
    return [line for document in documents for line in document.split("\n") if line]


def spm_pieces(model: bytes) -> list[tuple[str, float]]:
    sp = spm.SentencePieceProcessor(model_proto=model)
    return [(sp.id_to_piece(i), sp.get_score(i)) for i in range(sp.get_piece_size())]


def spm_direct(sentences: list[str], options: dict[str, Any]) -> bytes:
    model = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(sentences), model_writer=model, **options)
    return model.getvalue()


@pytest.fixture(scope="module")
def unigram(documents: list[str]) -> EngineModel:
    return train_engine(documents, EngineOptions("unigram", 1000))


@pytest.mark.parametrize("algorithm", ["unigram", "sentencepiece-bpe"])
def test_a_sentencepiece_model_equals_the_library_run_directly_with_the_recorded_options(
    documents: list[str], algorithm: str, unigram: EngineModel
) -> None:
    model = unigram if algorithm == "unigram" else train_engine(documents, EngineOptions(algorithm, 1000))

    assert model.library.startswith("sentencepiece ")
    assert model.library_options == {
        "model_type": "unigram" if algorithm == "unigram" else "bpe",
        "vocab_size": 1000,
    }
    assert spm_pieces(model.data) == spm_pieces(spm_direct(lines_of(documents), model.library_options))
    assert model.documents == 2
    assert model.sentences == len(lines_of(documents))


def test_wordpiece_equals_the_library_run_directly_with_the_recorded_options(documents: list[str]) -> None:
    """The library run directly with the recorded options learns the same tokens, up to how it breaks
    ties: tokenizers orders merges of equal counts by ids it hands out in hash order, which changes
    from one process to the next (huggingface/tokenizers#1794), so two runs of the library itself
    may end on different tokens of one tied count. So tokviz's vocabulary must hold every token the
    library learns a few merges earlier, and only tokens it learns a few merges later."""
    size, slack = 300, 8
    model = train_engine(
        documents, EngineOptions("wordpiece", size, split_digits=True, user_symbols=("<eot>",))
    )
    options = model.library_options

    def direct(vocab_size: int) -> set[str]:
        library = HFTokenizer.from_str(json.dumps(options["tokenizer"]))
        library.train_from_iterator(
            lines_of(documents), WordPieceTrainer(**{**options["trainer"], "vocab_size": vocab_size})
        )
        return set(library.get_vocab())

    ours = HFTokenizer.from_str(model.data.decode("utf-8"))
    assert model.library.startswith("tokenizers ") and options["trainer"]["vocab_size"] == size
    assert len(ours.get_vocab()) == size
    assert direct(size - slack) <= set(ours.get_vocab()) <= direct(size + slack)
    assert options["trainer"]["special_tokens"] == ["[UNK]", "<eot>"]
    assert ours.encode("page 2026 and <eot>").tokens[-1] == "<eot>"
    assert ours.encode("2026").tokens == ["2", "0", "2", "6"]


def test_the_unigram_rounds_are_the_library_logs_last_em_sub_iteration_of_each_round(
    documents: list[str], unigram: EngineModel, capfd: pytest.CaptureFixture[str]
) -> None:
    capfd.readouterr()
    # The library's log level is one setting for the whole process, which an earlier test's quiet
    # run (minloglevel=2) may have left raised: this run asks for its log.
    spm_direct(lines_of(documents), {**unigram.library_options, "minloglevel": 0})
    text = capfd.readouterr().err  # the library logs to the process's standard error
    em = [m.groups() for m in re.finditer(r"EM sub_iter=(\d+) size=(\d+) obj=(\S+) num_tokens=(\d+)", text)]
    last_of_each_round = [em[i] for i in range(len(em)) if i + 1 == len(em) or em[i + 1][0] == "0"]

    assert len(unigram.rounds) == len(last_of_each_round) >= 2
    for index, (round_, (_, size, objective, tokens)) in enumerate(
        zip(unigram.rounds, last_of_each_round, strict=True)
    ):
        assert (round_.index, round_.size, round_.objective, round_.tokens) == (
            index,
            int(size),
            float(objective),
            int(tokens),
        )


def test_the_model_opens_in_tokviz_and_keeps_its_record_when_saved(
    unigram: EngineModel, tmp_path: Path
) -> None:
    path = tmp_path / "m.model"
    tok = unigram.tokenizer("m")
    sp = spm.SentencePieceProcessor(model_proto=unigram.data)
    text = "The assert statement is handy."
    assert tok.encode(text) == sp.encode(text)

    written = unigram.save(path, {"corpus": {"text": "docs"}})

    assert written == [path, record_path(path)] and path.read_bytes() == unigram.data
    opened = load_tokenizer(path)
    record = engine_record(opened)
    assert record is not None
    assert record["trainer"]["options"] == unigram.library_options
    assert record["trainer"]["rounds"][0]["size"] == unigram.rounds[0].size
    assert record["provenance"] == {"corpus": {"text": "docs"}}


def test_a_record_of_another_model_is_not_used_and_says_so(unigram: EngineModel, tmp_path: Path) -> None:
    path = tmp_path / "m.model"
    unigram.save(path)
    path.write_bytes(
        Path(__file__).parents[1].joinpath("data/real/botchan_en_unigram_1000.model").read_bytes()
    )

    opened = load_tokenizer(path)

    assert engine_record(opened) is None
    assert any("records another model file" in w for w in load_warnings(opened))


def test_cancel_kills_the_worker_and_leaves_no_file(
    documents: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    cancel = threading.Event()
    workers: list[int] = []
    seen: list[EngineProgress] = []

    def progress(report: EngineProgress) -> None:
        seen.append(report)
        if report.stage == "pruning" and not cancel.is_set():
            workers.extend(
                p.pid for p in multiprocessing.active_children() if p.name == "tokviz-unigram" and p.pid
            )
            cancel.set()

    with pytest.raises(TrainingCancelled):
        train_engine(
            documents, EngineOptions("unigram", 1000, normalizer=None), progress=progress, cancel=cancel
        )

    assert len(workers) == 1
    assert not process_alive(workers[0])
    # Only multiprocessing's own folder (its fork server's socket, removed at exit) may be there.
    assert [p.name for p in tmp_path.iterdir() if not p.name.startswith("pymp-")] == []
    assert seen[-1].stage == "pruning"


def test_a_library_error_is_one_line(documents: list[str]) -> None:
    with pytest.raises(EngineError) as caught:
        train_engine(documents[:1], EngineOptions("unigram", 90_000))

    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith("sentencepiece: ") and "Vocabulary size" in message
    assert ".cc(" not in message


def test_a_reading_error_stops_the_run_and_is_raised_as_it_was() -> None:
    def documents() -> object:
        yield "first document\n"
        raise OSError("the disk went away")

    with pytest.raises(OSError, match="the disk went away"):
        train_engine(documents(), EngineOptions("wordpiece", 100))  # type: ignore[arg-type]


def test_options_apply_per_algorithm_and_only_given_ones_are_passed() -> None:
    assert ALGORITHMS[0] == "bpe" and set(ENGINE_ALGORITHMS) == set(ALGORITHMS[1:])
    assert "character_coverage" in options_for("unigram") and "character_coverage" not in options_for(
        "wordpiece"
    )
    options = EngineOptions(
        "sentencepiece-bpe",
        500,
        character_coverage=0.9995,
        byte_fallback=True,
        split_digits=False,
        max_piece_length=8,
        user_symbols=("<eot>", "a,b"),
    )
    assert options.library_options() == {
        "model_type": "bpe",
        "vocab_size": 500,
        "character_coverage": 0.9995,
        "byte_fallback": True,
        "split_digits": False,
        "max_sentencepiece_length": 8,
        "user_defined_symbols": ["<eot>", "a,b"],
    }
    with pytest.raises(InvalidArgument, match="character_coverage does not apply to wordpiece"):
        EngineOptions("wordpiece", 500, character_coverage=0.9)
    with pytest.raises(InvalidArgument, match="tokviz's own trainer"):
        EngineOptions("bpe", 500)
    with pytest.raises(InvalidArgument, match="character coverage"):
        EngineOptions("unigram", 500, character_coverage=1.5)


def test_user_symbols_with_a_comma_reach_sentencepiece_whole(documents: list[str]) -> None:
    model = train_engine(
        documents[:1], EngineOptions("sentencepiece-bpe", 400, user_symbols=("<eot>", "a,b"))
    )
    pieces = [piece for piece, _ in spm_pieces(model.data)]
    assert "<eot>" in pieces and "a,b" in pieces


def test_over_long_lines_are_cut_before_whitespace_into_parts_the_library_keeps() -> None:
    long_line = " ".join(f"wörd{i}" for i in range(3000))
    no_space = "é" * 5000
    sentences = list(document_sentences([f"short\n\n{long_line}\n{no_space}\n"], "sentencepiece"))

    long_parts = [s for s in sentences[1:] if not s.startswith("é")]
    assert sentences[0] == "short"
    assert len(long_parts) > 1 and "".join(long_parts) == long_line
    assert all(part.startswith(" ") for part in long_parts[1:])
    assert "".join(s for s in sentences if s.startswith("é")) == no_space
    assert all(len(s.encode()) <= SENTENCEPIECE_MAX_SENTENCE_BYTES for s in sentences)
    assert list(document_sentences([long_line], "tokenizers")) == [long_line]


@pytest.mark.slow
def test_a_normalizer_reaches_sentencepiece_as_a_rule_file_the_record_holds(
    documents: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = train_engine(documents[:1], EngineOptions("sentencepiece-bpe", 500, normalizer="lowercase"))
    path = tmp_path / "m.model"
    model.save(path)
    record = json.loads(record_path(path).read_text(encoding="utf-8"))

    assert record["trainer"]["options"]["normalization_rule_tsv"] == "normalization.tsv"
    assert set(record["files"]) == {"normalization.tsv"}
    # Repeated with the library alone: the rule file from the record in the working folder.
    (tmp_path / "normalization.tsv").write_text(record["files"]["normalization.tsv"], encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    direct = spm_direct(lines_of(documents[:1]), record["trainer"]["options"])
    assert spm_pieces(model.data) == spm_pieces(direct)
    assert all(piece == piece.lower() for piece, _ in spm_pieces(model.data)[3:])


@pytest.mark.parametrize("megabytes", [120, 250])
def test_a_worker_that_needs_more_memory_than_its_limit_fails_in_one_line_saying_so(
    documents: list[str], megabytes: int
) -> None:
    with pytest.raises(EngineError) as caught:
        train_engine(documents, EngineOptions("unigram", 1000), memory_limit=megabytes * 2**20)

    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith("sentencepiece ")
    assert f"{megabytes * 2**20 / 2**30:.1f} GB of address space" in message


def test_a_cancel_while_documents_are_read_stops_reading_them() -> None:
    cancel = threading.Event()
    read: list[int] = []

    def endless() -> Iterator[str]:
        while True:
            read.append(1)
            if len(read) == 100:
                cancel.set()
            yield "a line of text in an endless corpus\n"

    with pytest.raises(TrainingCancelled):
        train_engine(endless(), EngineOptions("unigram", 1000), cancel=cancel)

    # The feeder stops at its next batch: at most the batch being read and one more.
    assert len(read) <= 2 * BATCH_BYTES // len("a line of text in an endless corpus\n") + 100
