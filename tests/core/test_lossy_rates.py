"""A tokenizer that loses text (a lowercasing WordPiece, a SentencePiece model that folds spaces) is
marked lossy wherever rates are compared, and never called the best while another kept the text."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tokviz.core.analysis.evaluation import evaluate
from tokviz.core.analysis.exchange import ExchangeTable
from tokviz.core.analysis.metrics import TextMetrics, best_of, compare_rows
from tokviz.core.bpe.tokenizer import Tokenizer
from tokviz.core.corpus.fileselect import select_files
from tokviz.core.formats.registry import load_tokenizer

REAL = Path(__file__).parent.parent / "data" / "real"
TEXT = "The Cat sat.\n\nThe  Cat   ran, and the cat came back."


@pytest.fixture(scope="module")
def bert_json(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small WordPiece tokenizer.json with BERT's lowercasing normalizer, made by ``tokenizers``."""
    from tokenizers import Tokenizer as HFTokenizer
    from tokenizers import decoders, models, normalizers, pre_tokenizers, trainers

    hf = HFTokenizer(models.WordPiece(unk_token="[UNK]"))
    hf.normalizer = normalizers.BertNormalizer(lowercase=True)
    hf.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    hf.decoder = decoders.WordPiece()
    hf.train_from_iterator([TEXT * 20], trainers.WordPieceTrainer(vocab_size=200, special_tokens=["[UNK]"]))
    path = tmp_path_factory.mktemp("wordpiece") / "wordpiece.json"
    hf.save(str(path))
    return path


@pytest.fixture(scope="module")
def bert_like(bert_json: Path) -> Tokenizer:
    return load_tokenizer(str(bert_json))


@pytest.fixture(scope="module")
def gpt2() -> Tokenizer:
    return load_tokenizer("gpt2")


def test_a_lowercasing_tokenizer_has_no_round_trip_and_is_lossy(
    bert_like: Tokenizer, gpt2: Tokenizer
) -> None:
    lowered = TextMetrics.of(bert_like, TEXT)
    assert lowered.unknown == 0 and not lowered.round_trip and lowered.lossy
    kept = TextMetrics.of(gpt2, TEXT)
    assert kept.round_trip and not kept.lossy


def test_a_sentencepiece_model_that_folds_spaces_is_lossy_on_a_text_with_runs_of_spaces() -> None:
    unigram = load_tokenizer(str(REAL / "botchan_en_unigram_1000.model"))
    assert TextMetrics.of(unigram, TEXT).lossy
    assert not TextMetrics.of(unigram, "the cat sat").lossy


def test_best_of_lets_only_the_tokenizers_that_kept_the_text_compete() -> None:
    assert best_of([(10, False), (6, True), (12, False)]) == (0,)
    assert best_of([(10, False), (10, True)]) == (0,)
    assert best_of([(9, True), (6, True)]) == (1,)  # every one lost some: all compete
    assert best_of([(7, False), (7, False)]) == (0, 1)
    assert best_of([(0, False), (0, False)]) == ()


def test_compare_rows_and_the_exchange_table_never_call_a_lossy_tokenizer_best(
    bert_like: Tokenizer, gpt2: Tokenizer
) -> None:
    rows = compare_rows({"text": TEXT}, [bert_like, gpt2])
    by_name = {r["tokenizer"]: r for r in rows}
    assert by_name[bert_like.name]["tokens"] < by_name[gpt2.name]["tokens"]  # fewer tokens ...
    assert by_name[bert_like.name]["lossy"] and not by_name[bert_like.name]["best"]  # ... for less text
    assert by_name[gpt2.name]["best"] and by_name[gpt2.name]["attention_multiplier"] == 1.0
    table = ExchangeTable.measure({"text": TEXT}, [bert_like, gpt2])
    assert table.best(0) == (1,)
    assert ExchangeTable.from_rows(table.rows()).best(0) == (1,)


def test_eval_counts_the_files_a_tokenizer_cannot_give_back(
    bert_like: Tokenizer, gpt2: Tokenizer, tmp_path: Path
) -> None:
    (tmp_path / "a.txt").write_text(TEXT, encoding="utf-8")
    (tmp_path / "b.txt").write_text("the cat sat and the cat ran", encoding="utf-8")
    evaluation = evaluate(select_files([str(tmp_path)]), [bert_like, gpt2])
    lowered, kept = evaluation.totals
    assert (lowered.lossy_files, kept.lossy_files) == (1, 0)
    assert (
        kept.relative_tokens == 1.0 and lowered.relative_tokens is not None and lowered.relative_tokens < 1.0
    )


def test_compare_marks_the_lossy_row_and_says_why(bert_json: Path, tmp_path: Path) -> None:
    text = tmp_path / "text.txt"
    text.write_text(TEXT, encoding="utf-8")
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "tokviz",
            "compare",
            "--tokenizer",
            str(bert_json),
            "--tokenizer",
            "gpt2",
            str(text),
        ],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    ).stdout
    rows = {line.split()[1]: line for line in out.splitlines() if line.startswith(str(text))}
    assert rows["wordpiece"].endswith("(lossy)")
    assert rows["GPT-2"].endswith("(best)")
    assert "lossy: its tokens do not decode back to the text" in out
