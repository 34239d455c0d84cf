"""``tokviz segment``: the lattice, the N best and samples of a unigram model, BPE-dropout samples.

The figures are checked against the ``sentencepiece`` library called directly on the same
``.model`` files (made by sentencepiece), and a seed's samples against a second run of the
program.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import sentencepiece as spm

from .helpers import assert_one_line_error, run, tokviz_child

REAL = Path(__file__).resolve().parents[1] / "data" / "real"
UNIGRAM = REAL / "botchan_en_unigram_1000.model"
JAPANESE = REAL / "kyoto_ja_unigram_8000.model"
BPE = REAL / "botchan_en_bpe_1000.model"


@pytest.mark.parametrize(
    ("model", "text"), [(UNIGRAM, "Hello world, naïve tokenizer"), (JAPANESE, "吾輩は猫である。")]
)
def test_the_n_best_and_their_scores_are_the_librarys(
    capsys: pytest.CaptureFixture[str], model: Path, text: str
) -> None:
    sp = spm.SentencePieceProcessor(model_file=str(model))
    code, out, err = run(
        capsys, "segment", "--tokenizer", str(model), "--text", text, "--nbest", "5", "--format", "json"
    )
    assert code == 0, err
    found = json.loads(out)
    assert [s["pieces"] for s in found["nbest"]] == sp.nbest_encode_as_pieces(text, nbest_size=5)
    assert found["best"]["ids"] == sp.encode(text)
    assert found["text"] == sp.normalize(text)
    on_path = [p for p in found["lattice"] if p["best"]]
    assert [p["piece"] for p in on_path] == found["best"]["pieces"]
    assert sum(p["log_prob"] for p in on_path) == pytest.approx(found["nbest"][0]["score"], abs=1e-3)

    code, out, err = run(capsys, "segment", "--tokenizer", str(model), "--text", text, "--nbest", "3")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == f"text: {found['text']}"
    assert f"lattice: {len(found['lattice'])} pieces (★ on the best path)" in lines
    assert sum(line.endswith(" ★") for line in lines) == len(on_path)
    best = lines.index("3 best:")
    for k, seg in enumerate(found["nbest"][:3], 1):
        assert lines[best + k].split() == [str(k), f"{seg['score']:.4f}", *seg["pieces"]]


@pytest.mark.slow  # three more runs of the program
def test_samples_with_a_seed_repeat_from_one_run_to_the_next(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    unigram = ["segment", "--tokenizer", str(UNIGRAM), "--text", "internationalization", "--sample", "8"]
    unigram += ["--alpha", "0.2", "--seed", "5"]
    dropout = ["segment", "--tokenizer", "gpt2", "--text", "internationalization", "--dropout", "0.4"]
    dropout += ["--seed", "5", "--format", "json"]
    spm_bpe = ["segment", "--tokenizer", str(BPE), "--text", "unbelievable reassignment", "--dropout", "0.3"]
    spm_bpe += ["--seed", "1", "--sample", "3"]
    for argv in (unigram, dropout, spm_bpe):
        child = tokviz_child(tmp_path, *argv)  # another run, in another process
        assert child.returncode == 0, child.stderr
        assert run(capsys, *argv) == (0, child.stdout, "")
    code, out, _ = run(capsys, *unigram)
    assert "8 samples (alpha 0.2, seed 5):" in out
    assert run(capsys, *unigram[:-1], "6")[1] != out
    code, out, _ = run(capsys, *dropout)
    assert run(capsys, *dropout[:-3], "6", "--format", "json")[1] != out
    samples = json.loads(out)["samples"]
    assert samples["dropout"] == 0.4 and samples["seed"] == 5 and len(samples["segmentations"]) == 5
    assert all("".join(s["pieces"]) == "internationalization" for s in samples["segmentations"])


def test_a_bpe_model_has_no_lattice_but_samples_with_dropout(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "segment", "--tokenizer", str(BPE), "--text", "Hello world")
    assert code == 1 and out == ""
    assert_one_line_error(err, "a BPE model has no lattice", "--dropout")
    code, out, err = run(
        capsys, "segment", "--tokenizer", str(BPE), "--text", "Hello world", "--dropout", "0", "--sample", "2"
    )
    assert code == 0, err
    pieces = spm.SentencePieceProcessor(model_file=str(BPE)).encode("Hello world", out_type=str)
    assert out.splitlines()[2:] == [f"  {k:>3}  {len(pieces):>4} tokens  {' '.join(pieces)}" for k in (1, 2)]


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["--text", ""], "the text is empty"),
        (["--text", "x", "--nbest", "0"], "from 1 to 100"),
        (["--text", "x", "--sample", "2", "--alpha", "-1"], "alpha must be a number of at least 0"),
        (["--text", "x", "--dropout", "0.2"], "samples with alpha, not dropout"),
        (["--text", "x", "--sample", "2", "--seed", "-3"], "the seed must be"),
    ],
)
def test_bad_input_is_one_line(capsys: pytest.CaptureFixture[str], argv: list[str], fragment: str) -> None:
    code, out, err = run(capsys, "segment", "--tokenizer", str(UNIGRAM), *argv)
    assert code == 1 and out == ""
    assert_one_line_error(err, fragment)


def test_numbers_that_are_not_numbers_are_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "segment", "--tokenizer", str(UNIGRAM), "--text", "x", "--nbest", "many")
    assert code == 2 and "invalid int value" in err
    code, _, err = run(capsys, "segment", "--tokenizer", str(UNIGRAM), "--text", "x", "--sample", "0")
    assert code == 2 and "--sample must be at least 1" in err


def test_a_long_text_is_cut_and_its_search_prints_nothing_else(
    capfd: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    text = tmp_path / "long.txt"
    text.write_text("The quick brown fox jumps over the lazy dog. " * 60, encoding="utf-8")
    code, out, err = run(capfd, "segment", "--tokenizer", str(UNIGRAM), str(text), "--nbest", "100")
    assert code == 0 and err == ""
    assert "note: only the first 1,000 of 2,700 characters are segmented" in out.splitlines()
    assert "100 best:" in out.splitlines()
