"""``tokviz train``: the model and its exports, one-line errors, and a clean stop on Ctrl+C."""

from __future__ import annotations

import _thread
import random
import threading
from pathlib import Path

import pytest

from ..texts import HELLO
from .helpers import assert_one_line_error, interrupted_training, run


def test_train_writes_a_model_that_encode_and_exports_can_use(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, corpus: Path
) -> None:
    from tokviz.core.training.train import train_bpe

    model = tmp_path / "model.json"
    code, _, err = run(
        capsys,
        "train",
        str(corpus),
        "--vocab-size",
        "400",
        "--special-token",
        "<|eot|>",
        "-o",
        str(model),
        "--export-gpt2",
        str(tmp_path / "gpt2"),
        "--export-tiktoken",
        str(tmp_path / "model.tiktoken"),
        "--export-hf",
        str(tmp_path / "tokenizer.json"),
        "--workers",
        "1",
    )
    assert code == 0, err
    assert "merging" in err and "143 merges" in err

    text = "The assert statement is handy.<|eot|>" + HELLO
    expected = train_bpe(files=corpus, vocab_size=400, special_tokens=["<|eot|>"]).tokenizer().encode(text)
    assert run(capsys, "encode", "--tokenizer", str(model), "--text", text)[1].split() == [
        str(i) for i in expected
    ]
    for exported in ("gpt2", "tokenizer.json"):
        _, out, _ = run(capsys, "encode", "--tokenizer", str(tmp_path / exported), "--text", text)
        assert out.split() == [str(i) for i in expected], exported
    # A .tiktoken file holds no specials: name them again to encode them as one id.
    _, out, _ = run(
        capsys,
        "encode",
        "--tokenizer",
        str(tmp_path / "model.tiktoken"),
        "--special-token",
        "<|eot|>",
        "--text",
        text,
    )
    assert out.split() == [str(i) for i in expected]


def test_train_on_invalid_utf8_names_the_offset_and_the_way_out(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"hello wor\xffld, hello world")
    model = tmp_path / "m.json"

    code, _, err = run(capsys, "train", str(bad), "--vocab-size", "300", "-o", str(model))
    assert code == 1
    assert_one_line_error(err, "bad.txt", "byte offset 9", "--replace-invalid")
    assert not model.exists()

    code, _, err = run(
        capsys, "train", str(bad), "--vocab-size", "300", "-o", str(model), "--replace-invalid"
    )
    assert code == 0, err
    assert model.exists()


class _Interrupted:
    """A stand-in trainer that presses Ctrl+C once it is running, then waits to be cancelled."""

    def __init__(self) -> None:
        self.saw_cancel = False

    def __call__(self, *args: object, cancel: threading.Event, progress: object, **kwargs: object) -> None:
        from tokviz.core.errors import Cancelled

        _thread.interrupt_main()
        self.saw_cancel = cancel.wait(10)
        raise Cancelled("training was cancelled")


@pytest.mark.slow
def test_interrupted_training_cancels_cleanly_and_writes_nothing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tokviz.core.training.train

    trainer = _Interrupted()
    monkeypatch.setattr(tokviz.core.training.train, "train_bpe", trainer)
    model = tmp_path / "model.json"

    code, out, err = run(capsys, "train", str(corpus), "--vocab-size", "400", "-o", str(model))

    assert code == 130
    assert trainer.saw_cancel
    assert_one_line_error(err, "cancelled", "nothing was written")
    assert not model.exists()


@pytest.mark.slow
def test_ctrl_c_during_a_real_training_run_exits_130_and_writes_nothing(tmp_path: Path) -> None:
    rng = random.Random(0)
    words = ("".join(rng.choices("abcdefghijklmnopqrstuvwxyz", k=rng.randint(3, 12))) for _ in range(150_000))
    corpus = tmp_path / "random.txt"
    corpus.write_text(" ".join(words), encoding="utf-8")
    model = tmp_path / "model.json"
    code, before, rest = interrupted_training(
        [str(corpus), "--vocab-size", "30000", "-o", str(model)], at="merging", timeout=30
    )

    assert code == 130, before + rest
    assert rest.strip().splitlines()[-1] == "tokviz: error: training cancelled; nothing was written"
    assert "Traceback" not in rest
    assert not model.exists()
