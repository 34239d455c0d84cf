"""``tokviz train --normalizer``, ``count --normalizer``, and sweep/replay on files that normalize or
have no merge list, as a user runs them."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from tokenizers import Tokenizer as Library
from tokenizers import models, normalizers, pre_tokenizers, trainers

from .helpers import assert_one_line_error, run

WORDS = [
    "ﬁne",
    "ﬂow",
    "ofﬁce",
    "１２３",
    "Ａｂｃ",
    "½",
    "café",
    "cafe\u0301",
    "İstanbul",
    "the",
    "data",
    "fine",
]
HELD_OUT = "ﬁnal ﬂows in the ofﬁce: １２３４５ ＡＢＣ ½ café vs cafe\u0301, İstanbul"
DATA = Path(__file__).resolve().parents[1] / "data" / "real"


@pytest.fixture
def nfkc_corpus(tmp_path: Path) -> Path:
    rng = random.Random(3)
    path = tmp_path / "corpus.txt"
    lines = (" ".join(rng.choice(WORDS) for _ in range(10)) for _ in range(1200))
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def test_train_with_a_normalizer_records_it_and_exports_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, nfkc_corpus: Path
) -> None:
    model = tmp_path / "m.json"
    code, _, err = run(
        capsys,
        "train",
        str(nfkc_corpus),
        "--vocab-size",
        "400",
        "--normalizer",
        "NFKC",
        "-o",
        str(model),
        "--export-hf",
        f"{tmp_path / 'hf'}/",
    )
    assert code == 0, err
    code, out, _ = run(capsys, "info", str(model))
    assert "normalizer:     nfkc" in out
    code, out, _ = run(capsys, "info", str(model), "--format", "json")
    assert json.loads(out)["normalizer"] == "nfkc"
    library = Library.from_file(str(tmp_path / "hf" / "tokenizer.json"))
    code, out, _ = run(capsys, "encode", "--tokenizer", str(model), "--text", HELD_OUT, "--format", "json")
    assert code == 0
    spans = json.loads(out)
    assert library.encode(HELD_OUT, add_special_tokens=False).ids == [s["id"] for s in spans]
    # The spans lie on the text as typed: the first token starts on the ligature, the last ends the text.
    assert (spans[0]["start"], spans[-1]["end"]) == (0, len(HELD_OUT))
    assert HELD_OUT[spans[0]["start"] : spans[0]["end"]].startswith("ﬁ")


def test_a_tiktoken_export_is_refused_before_training(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, nfkc_corpus: Path
) -> None:
    model = tmp_path / "m.json"
    argv = ["train", str(nfkc_corpus), "--vocab-size", "300", "--normalizer", "nfkc", "-o", str(model)]
    code, _, err = run(capsys, *argv, "--export-tiktoken", str(tmp_path / "m.tiktoken"))
    assert code == 1
    assert_one_line_error(err, "a .tiktoken file cannot carry a normalizer")
    assert not model.exists()


def test_an_unknown_normalizer_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], nfkc_corpus: Path
) -> None:
    code, _, err = run(
        capsys, "train", str(nfkc_corpus), "--vocab-size", "300", "--normalizer", "nfd", "-o", "x.json"
    )
    assert code == 2
    assert "unknown normalizer 'nfd'" in err


def test_a_count_table_keeps_its_normalizer(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, nfkc_corpus: Path
) -> None:
    table = tmp_path / "t.tsv"
    code, _, err = run(capsys, "count", str(nfkc_corpus), "--normalizer", "nfkc", "-o", str(table))
    assert code == 0, err
    model = tmp_path / "m.json"
    code, _, err = run(capsys, "train", "--from-counts", str(table), "--vocab-size", "400", "-o", str(model))
    assert code == 0, err
    assert json.loads(model.read_text(encoding="utf-8"))["normalizer"] == "nfkc"
    argv = ["train", "--from-counts", str(table), "--vocab-size", "400", "-o", str(tmp_path / "n.json")]
    code, _, err = run(capsys, *argv, "--normalizer", "nfc")
    assert code == 1
    assert_one_line_error(err, "counted with the normalizer nfkc, not nfc")


def nfc_file(folder: Path) -> Path:
    """A byte-level BPE tokenizer.json with an NFC normalizer, trained by tokenizers (as GPT-NeoX's is)."""
    tk = Library(models.BPE())
    tk.normalizer = normalizers.NFC()
    tk.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    trainer = trainers.BpeTrainer(
        vocab_size=400, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False
    )
    rng = random.Random(5)
    tk.train_from_iterator([" ".join(rng.choice(WORDS) for _ in range(4000))], trainer)
    path = folder / "tokenizer.json"
    tk.save(str(path))
    return path


def test_sweep_and_replay_run_on_a_file_with_an_nfc_normalizer(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = nfc_file(tmp_path)
    held = tmp_path / "held.txt"
    held.write_text(HELD_OUT, encoding="utf-8")
    code, out, err = run(capsys, "sweep", str(path), str(held), "--format", "json", "-q")
    assert code == 0, err
    rows = json.loads(out)["rows"]
    library = Library.from_file(str(path))
    tokens = len(library.encode(HELD_OUT, add_special_tokens=False).ids)
    whole = [r for r in rows if r["group"] == "all" and r["merges"] == max(x["merges"] for x in rows)]
    assert whole[0]["tokens"] == tokens
    code, out, err = run(capsys, "replay", "--tokenizer", str(path), "--text", HELD_OUT, "--format", "json")
    assert code == 0, err
    steps = json.loads(out)
    assert steps[-1]["tokens"] == tokens


@pytest.mark.parametrize("command", ["sweep", "replay"])
def test_a_unigram_vocabulary_says_it_has_no_merge_prefixes(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, command: str
) -> None:
    model = DATA / "botchan_en_unigram_1000.model"
    held = tmp_path / "held.txt"
    held.write_text("hello world", encoding="utf-8")
    argv = [str(model), str(held)] if command == "sweep" else ["--tokenizer", str(model), "--text", "hello"]
    code, _, err = run(capsys, command, *argv)
    assert code == 1
    assert_one_line_error(err, "a Unigram vocabulary has no merge prefixes")
