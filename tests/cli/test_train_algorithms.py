"""``tokviz train --algorithm unigram|sentencepiece-bpe|wordpiece``: the library's own model, its
options shown by ``tokviz info``, the same model when the library is run with them, and the
command's refusals, errors and Ctrl+C."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
import sentencepiece as spm
from tokenizers import Tokenizer as HFTokenizer
from tokenizers.trainers import WordPieceTrainer

from tokviz.core.pretok.normalize import parse_normalizer

from .helpers import assert_one_line_error, interrupted_training, run


@pytest.fixture(scope="module")
def corpus_file(tmp_path_factory: pytest.TempPathFactory, english_text: str) -> Path:
    path = tmp_path_factory.mktemp("corpus") / "corpus.txt"
    path.write_text(english_text, encoding="utf-8")
    return path


def sentences(path: Path) -> list[str]:
    """What a user of the library gives it for a text file: its non-empty lines."""
    return [line for line in path.read_text(encoding="utf-8").split("\n") if line]


def reported_trainer(capsys: pytest.CaptureFixture[str], model: Path) -> dict[str, Any]:
    code, out, err = run(capsys, "info", "--format", "json", str(model))
    assert code == 0, err
    trainer = json.loads(out)["trainer"]
    assert isinstance(trainer, dict)
    return trainer


def spm_pieces(model: bytes) -> list[tuple[str, float]]:
    sp = spm.SentencePieceProcessor(model_proto=model)
    return [(sp.id_to_piece(i), sp.get_score(i)) for i in range(sp.get_piece_size())]


@pytest.mark.parametrize("algorithm", ["unigram", "sentencepiece-bpe"])
def test_a_sentencepiece_model_equals_the_library_run_with_the_options_info_reports(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, corpus_file: Path, algorithm: str
) -> None:
    model = tmp_path / "m.model"
    code, _, err = run(
        capsys, "train", str(corpus_file), "--algorithm", algorithm, "--vocab-size", "2000", "-o", str(model)
    )
    assert code == 0, err
    assert f"wrote {model}" in err and f"wrote {model}.json" in err

    trainer = reported_trainer(capsys, model)
    assert trainer["library"].startswith("sentencepiece ") and trainer["algorithm"] == algorithm
    direct = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(sentences(corpus_file)), model_writer=direct, **trainer["options"]
    )
    assert spm_pieces(model.read_bytes()) == spm_pieces(direct.getvalue())
    if algorithm == "unigram":
        assert "pruning" in err and len(trainer["rounds"]) >= 2


def test_wordpiece_equals_the_library_run_with_the_options_info_reports(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, corpus_file: Path
) -> None:
    model = tmp_path / "tokenizer.json"
    code, _, err = run(
        capsys,
        "train",
        str(corpus_file),
        "--algorithm",
        "wordpiece",
        "--vocab-size",
        "300",
        "--normalizer",
        "nfkc+lowercase",
        "-o",
        str(model),
    )
    assert code == 0, err

    options = reported_trainer(capsys, model)["options"]
    assert options["tokenizer"]["normalizer"] == parse_normalizer("nfkc+lowercase").hf_json()
    direct = HFTokenizer.from_str(json.dumps(options["tokenizer"]))
    direct.train_from_iterator(sentences(corpus_file), WordPieceTrainer(**options["trainer"]))
    ours = HFTokenizer.from_file(str(model))
    # tokenizers hands out ids in hash order (huggingface/tokenizers#1794): the tokens are the same.
    assert set(ours.get_vocab()) == set(direct.get_vocab())
    sample = corpus_file.read_text(encoding="utf-8")[:3000]
    assert ours.encode(sample).tokens == direct.encode(sample).tokens
    code, out, _ = run(capsys, "encode", "--tokenizer", str(model), "--text", "The ＡＳＳＥＲＴ statement")
    assert code == 0 and out.split() == [str(i) for i in ours.encode("the assert statement").ids]


def test_export_hf_writes_a_tokenizer_json_with_sentencepieces_ids_in_the_same_output_set(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, corpus_file: Path
) -> None:
    model, folder = tmp_path / "m.model", tmp_path / "hf"
    code, _, err = run(
        capsys,
        "train",
        str(corpus_file),
        "--algorithm",
        "sentencepiece-bpe",
        "--vocab-size",
        "1000",
        "-o",
        str(model),
        "--export-hf",
        f"{folder}/",
    )
    assert code == 0, err

    assert sorted(p.name for p in folder.iterdir()) == [
        ".tokviz-files.json",
        "special_tokens_map.json",
        "tokenizer.json",
        "tokenizer_config.json",
    ]
    text = corpus_file.read_text(encoding="utf-8")[5000:9000]
    expected = spm.SentencePieceProcessor(model_file=str(model)).encode(text)
    assert HFTokenizer.from_file(str(folder / "tokenizer.json")).encode(text).ids == expected


def test_a_json_lines_corpus_trains_on_its_documents_text(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, english_text: str
) -> None:
    texts = [english_text[i : i + 4000] for i in range(0, 60_000, 4000)]
    jsonl = tmp_path / "docs.jsonl"
    jsonl.write_text(
        "".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in enumerate(texts)), encoding="utf-8"
    )
    model = tmp_path / "m.model"
    code, _, err = run(
        capsys, "train", str(jsonl), "--algorithm", "unigram", "--vocab-size", "800", "-o", str(model)
    )
    assert code == 0, err

    options = reported_trainer(capsys, model)["options"]
    direct = io.BytesIO()
    lines = [line for text in texts for line in text.split("\n") if line]
    spm.SentencePieceTrainer.train(sentence_iterator=iter(lines), model_writer=direct, **options)
    assert spm_pieces(model.read_bytes()) == spm_pieces(direct.getvalue())
    assert not any('"text"' in piece or "▁{" in piece for piece, _ in spm_pieces(model.read_bytes()))
    assert "on 15 documents" in err


def test_given_options_reach_the_library_and_info_says_them(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, corpus_file: Path
) -> None:
    model = tmp_path / "m.model"
    code, _, err = run(
        capsys,
        "train",
        str(corpus_file),
        "--algorithm",
        "sentencepiece-bpe",
        "--vocab-size",
        "600",
        "--character-coverage",
        "0.9995",
        "--byte-fallback",
        "--split-digits",
        "--max-piece-length",
        "8",
        "--special-token",
        "<eot>",
        "-o",
        str(model),
    )
    assert code == 0, err
    assert reported_trainer(capsys, model)["options"] == {
        "model_type": "bpe",
        "vocab_size": 600,
        "character_coverage": 0.9995,
        "byte_fallback": True,
        "split_digits": True,
        "max_sentencepiece_length": 8,
        "user_defined_symbols": ["<eot>"],
    }
    code, out, _ = run(capsys, "info", str(model))
    assert "trainer:        sentencepiece" in out and '"byte_fallback": true' in out


@pytest.mark.parametrize(
    ("argv", "fragments"),
    [
        (
            ["--algorithm", "wordpiece", "--byte-fallback", "-o", "t.json"],
            ("--byte-fallback", "not to wordpiece"),
        ),
        (["--character-coverage", "0.9", "-o", "m.json"], ("--character-coverage", "not to bpe")),
        (
            ["--algorithm", "unigram", "--pretokenizer", "cl100k", "-o", "m.model"],
            ("--pretokenizer", "bpe only"),
        ),
        (
            ["--algorithm", "unigram", "--export-tiktoken", "t.tiktoken", "-o", "m.model"],
            ("--export-tiktoken", "bpe only"),
        ),
        (["--algorithm", "unigram", "-o", "m.json"], ("-o", "*.model")),
        (["--algorithm", "wordpiece", "-o", "m.model"], ("-o", "tokenizer.json")),
        (["--algorithm", "unigram", "--character-coverage", "2", "-o", "m.model"], ("character coverage",)),
    ],
)
def test_options_that_do_not_apply_are_refused_in_one_line(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    corpus_file: Path,
    argv: list[str],
    fragments: tuple[str, ...],
) -> None:
    argv = [str(tmp_path / a) if a.endswith((".json", ".model", ".tiktoken")) else a for a in argv]
    code, _, err = run(capsys, "train", str(corpus_file), "--vocab-size", "500", *argv)

    assert code == 2
    assert err.strip().splitlines()[-1].startswith("tokviz train: error: ")
    for fragment in fragments:
        assert fragment in err.strip().splitlines()[-1]
    assert list(tmp_path.iterdir()) == []


def test_a_library_error_is_one_line_and_writes_nothing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, corpus_file: Path
) -> None:
    model = tmp_path / "m.model"
    code, _, err = run(
        capsys, "train", str(corpus_file), "--algorithm", "unigram", "--vocab-size", "90000", "-o", str(model)
    )

    assert code == 1
    assert_one_line_error(err.strip().splitlines()[-1], "sentencepiece: ", "Vocabulary size")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_ctrl_c_during_a_unigram_run_exits_130_and_writes_nothing(tmp_path: Path, english_text: str) -> None:
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(english_text, encoding="utf-8")
    model = tmp_path / "m.model"
    argv = [str(corpus), "--algorithm", "unigram", "--vocab-size", "3000", "-o", str(model)]
    code, before, rest = interrupted_training(argv, at="pruning", timeout=60)

    assert code == 130, before + rest
    assert rest.strip().splitlines()[-1] == "tokviz: error: training cancelled; nothing was written"
    assert "Traceback" not in rest
    assert sorted(p.name for p in tmp_path.iterdir()) == ["corpus.txt"]
