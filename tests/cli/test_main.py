"""The ``tokviz`` command: every documented example, exit codes, one-line errors, clean cancel."""

from __future__ import annotations

import _thread
import json
import os
import random
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import tiktoken

from tokviz import cli
from tokviz.cli import main

ROOT = Path(__file__).resolve().parents[2]
DEMO = "Hello, 🌍! 你好!"
CAT = "the cat in the hat"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Run ``tokviz ARGV`` in-process; return the exit status, stdout and stderr."""
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_line_error(err: str, *fragments: str) -> None:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("tokviz: error: ")
    assert "Traceback" not in err
    for fragment in fragments:
        assert fragment in lines[0]


def child_env() -> dict[str, str]:
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    return dict(os.environ, PYTHONPATH=path)


@pytest.fixture
def corpus(tmp_path: Path, english_text: str) -> Path:
    path = tmp_path / "corpus.txt"
    path.write_text(english_text[:30_000], encoding="utf-8")
    return path


# ----------------------------------------------------------------------------- encode
def test_bytes_tokenizer_gives_one_id_per_byte(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "encode", "--tokenizer", "bytes", "--text", "Hi 🌍") == (
        0,
        "72 105 32 240 159 140 141\n",
        "",
    )


def test_gpt2_is_the_default_and_matches_tiktoken(
    capsys: pytest.CaptureFixture[str], gpt2_tiktoken: tiktoken.Encoding
) -> None:
    code, out, _ = run(capsys, "encode", "--text", DEMO)

    ids = [int(i) for i in out.split()]
    assert code == 0
    assert len(ids) == 12
    assert ids == gpt2_tiktoken.encode(DEMO)


def test_tokens_format_shows_visible_pieces(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "encode", "--text", DEMO, "--format", "tokens")

    assert code == 0
    assert out == "Hello|,|·<F0 9F>|<8C>|<8D>|!|·|<E4 BD>|<A0>|<E5 A5>|<BD>|!\n"


def test_json_format_places_every_token_on_the_text(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "encode", "--text", DEMO, "--format", "json")

    tokens = json.loads(out)
    assert code == 0
    assert tokens[0] == {"id": 15496, "bytes": "48656c6c6f", "text": "Hello", "start": 0, "end": 5}
    # The globe is split over three tokens; each one covers the whole emoji and has no text of its own.
    globe = [t for t in tokens if t["start"] <= 7 < t["end"]]
    assert [t["bytes"] for t in globe] == ["20f09f", "8c", "8d"]
    assert [t["text"] for t in globe] == [None, None, None]
    assert bytes.fromhex("".join(t["bytes"] for t in tokens)).decode("utf-8") == DEMO


def test_special_tokens_can_be_added_on_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "encode", "--text", "a<|endoftext|>b<|mine|>", "--special-token", "<|mine|>")

    assert code == 0
    assert out.split() == ["64", "50256", "65", "50257"]


def test_encode_reads_a_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "hi.txt"
    path.write_text("Hi 🌍", encoding="utf-8")

    assert run(capsys, "encode", "--tokenizer", "bytes", str(path))[1] == "72 105 32 240 159 140 141\n"


# ----------------------------------------------------------------------------- replay
def test_replay_reproduces_the_lecture_table(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys,
        "replay",
        "--text",
        CAT,
        "--merges",
        "3",
        "--pretokenizer",
        "none",
        "--tie-break",
        "first-seen",
    )

    assert code == 0
    assert out == (
        "step  merge            new id  bytes   count  tokens\n"
        "   0                                              18\n"
        '   1  "t" + "h"    ->     256  "th"        2      16\n'
        '   2  "th" + "e"   ->     257  "the"       2      14\n'
        '   3  "the" + " "  ->     258  "the "      2      12\n'
        "12 tokens: [the ][c][a][t][ ][i][n][ ][the ][h][a][t]  1.5 bytes per token  vocab size 259\n"
    )


def test_replay_json_has_one_record_per_merge(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys,
        "replay",
        "--text",
        CAT,
        "--merges",
        "3",
        "--pretokenizer",
        "none",
        "--tie-break",
        "first-seen",
        "--format",
        "json",
    )

    assert code == 0
    assert json.loads(out) == [
        {"step": 1, "left": "t", "right": "h", "new_id": 256, "bytes": "th", "count": 2, "tokens": 16},
        {"step": 2, "left": "th", "right": "e", "new_id": 257, "bytes": "the", "count": 2, "tokens": 14},
        {"step": 3, "left": "the", "right": " ", "new_id": 258, "bytes": "the ", "count": 2, "tokens": 12},
    ]


def test_replay_shows_partial_bytes_as_hex_in_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "replay", "--text", "🌍🌍", "--merges", "1", "--format", "json")

    assert code == 0
    assert json.loads(out)[0] == {
        "step": 1, "left": "f0", "right": "9f", "new_id": 256, "bytes": "f09f", "count": 2, "tokens": 6
    }  # fmt: skip


def test_replay_of_a_tokenizer_counts_tokens_after_every_merge(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "replay", "--tokenizer", "gpt2", "--text", DEMO, "--format", "json")

    steps = json.loads(out)
    tok = cli.load_tokenizer("gpt2")
    assert code == 0
    assert len(steps) == 50_000
    assert steps[-1]["tokens"] == 12
    assert steps[0] == {
        "step": 1,
        "left": " ",
        "right": "t",
        "new_id": 256,
        "bytes": " t",
        "count": 0,
        "tokens": 20,
    }
    for k in (1, 100, 8327, 8328, 12265, 12266, 15241, 15242, 30_000):
        assert steps[k - 1]["tokens"] == len(tok.encode_with_merges(DEMO, k)), k


def test_replay_of_a_trained_tokenizer_matches_encoding_with_k_merges(english_text: str) -> None:
    from tokviz.core.train import train_bpe

    tok = train_bpe(english_text[:20_000], 600, special_tokens=["<|eot|>"]).tokenizer()
    text = english_text[20_000:22_000] + "<|eot|>" + DEMO

    replay = cli.replay_tokenizer(tok, text, None)

    assert replay.start_tokens == len(tok.encode_with_merges(text, 0))
    for step in replay.steps[::37] + replay.steps[-1:]:
        assert step.tokens == len(tok.encode_with_merges(text, step.step)), step.step
    assert replay.final == [tok.id_bytes(i) for i in tok.encode(text)]


def test_replay_table_can_skip_merges_that_do_not_change_the_text(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "replay", "--tokenizer", "gpt2", "--text", "the cat", "--only-changes")

    assert code == 0
    assert out == (
        "step  merge            new id  bytes   count  tokens\n"
        "   0                                               7\n"
        '   3  "h" + "e"    ->     258  "he"        1       6\n'
        '  10  "a" + "t"    ->     265  "at"        1       5\n'
        '  14  " " + "c"    ->     269  " c"        1       4\n'
        ' 914  "t" + "he"   ->    1169  "the"       1       3\n'
        '3542  " c" + "at"  ->    3797  " cat"      1       2\n'
        "2 tokens: [the][ cat]  3.5 bytes per token  vocab size 50257\n"
    )


def test_replay_options_for_training_do_not_mix_with_a_tokenizer(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "replay", "--tokenizer", "gpt2", "--pretokenizer", "none", "--text", "x")

    assert code == 2
    assert "only when training" in err


def test_replay_text_that_names_a_file_is_still_text(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("aaa").write_text("something else entirely", encoding="utf-8")

    code, out, _ = run(capsys, "replay", "--text", "aaa", "--pretokenizer", "none", "--format", "json")

    assert code == 0
    assert [(s["bytes"], s["tokens"]) for s in json.loads(out)] == [("aa", 2), ("aaa", 1)]


# ----------------------------------------------------------------------------- compare and info
def test_compare_defaults_to_bytes_gpt2_and_cl100k(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "compare", "--text", DEMO, "--format", "json")

    rows = {r["tokenizer"]: r for r in json.loads(out)}
    assert code == 0
    assert list(rows) == ["bytes", "gpt2", "cl100k"]
    assert [rows[n]["tokens"] for n in rows] == [20, 12, rows["cl100k"]["tokens"]]
    best = min(r["tokens"] for r in rows.values())
    for r in rows.values():
        assert r["bytes"] == 20
        assert r["bytes_per_token"] == pytest.approx(20 / r["tokens"])
        assert r["attention_multiplier"] == pytest.approx((r["tokens"] / best) ** 2)


def test_compare_table_and_csv(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("hello hello hello", encoding="utf-8")
    b.write_text("你好", encoding="utf-8")

    code, out, _ = run(capsys, "compare", str(a), str(b), "--tokenizer", "bytes", "--tokenizer", "gpt2")
    table = out.splitlines()
    assert code == 0
    assert table[0].split() == ["input", "tokenizer", "bytes", "tokens", "bytes/token", "attention", "x"]
    assert table[1].split()[1:] == ["bytes", "17", "17", "1", "32.11"]
    assert table[2].split()[1:] == ["gpt2", "17", "3", "5.67", "1", "(best)"]

    code, out, _ = run(capsys, "compare", str(a), "--tokenizer", "gpt2", "--format", "csv")
    assert out.splitlines() == [
        "input,tokenizer,bytes,code_points,tokens,bytes_per_token,attention_multiplier",
        f"{a},gpt2,17,17,3,{17 / 3},1.0",
    ]


def test_info_describes_a_tokenizer(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "info", "gpt2", "--format", "json")

    assert code == 0
    assert json.loads(out) | {"pattern": None} == {
        "name": "GPT-2",
        "vocab_size": 50257,
        "merges": 50000,
        "special_tokens": {"<|endoftext|>": 50256},
        "pretokenizer": "gpt2",
        "pattern": None,
    }
    assert "vocab size:     256" in run(capsys, "info", "bytes")[1]


# ----------------------------------------------------------------------------- train
def test_train_writes_a_model_that_encode_and_exports_can_use(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, corpus: Path
) -> None:
    from tokviz.core.train import train_bpe

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

    text = "The assert statement is handy.<|eot|>" + DEMO
    expected = train_bpe(corpus, 400, special_tokens=["<|eot|>"]).tokenizer().encode(text)
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


def test_interrupted_training_cancels_cleanly_and_writes_nothing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tokviz.core.train

    trainer = _Interrupted()
    monkeypatch.setattr(tokviz.core.train, "train_bpe", trainer)
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
    proc = subprocess.Popen(
        [sys.executable, "-m", "tokviz", "train", str(corpus), "--vocab-size", "30000", "-o", str(model)],
        stderr=subprocess.PIPE,
        text=True,
        env=child_env(),
        # A background shell may have left SIGINT ignored; restore the default so Python handles it.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    with proc:
        assert proc.stderr is not None
        lines = []
        for line in proc.stderr:
            lines.append(line)
            if line.startswith("merging"):
                proc.send_signal(signal.SIGINT)
                break
        rest = proc.stderr.read()
        proc.wait(timeout=30)

    assert proc.returncode == 130, "".join(lines) + rest
    assert rest.strip().splitlines()[-1] == "tokviz: error: training cancelled; nothing was written"
    assert "Traceback" not in rest
    assert not model.exists()


def test_progress_printer_writes_plain_lines_when_not_a_terminal() -> None:
    import io

    from tokviz.core.train import Progress

    stream = io.StringIO()
    printer = cli.ProgressPrinter(stream, interactive=False)
    printer(Progress("reading", 0, 1, (), 0.0))
    for done in range(0, 1001, 50):
        printer(Progress("merging", done, 1000, (), 1.0 + done / 1000))
    printer(Progress("done", 1000, 1000, (), 2.0))

    lines = stream.getvalue().splitlines()
    assert "\r" not in stream.getvalue()
    assert [line.split()[1] for line in lines] == [f"{p}.0%" for p in range(0, 101, 10)]
    assert lines[-1] == "merging        100.0%  1000/1000 merges  1,000 merges/s"


def test_progress_printer_redraws_one_line_on_a_terminal() -> None:
    import io

    from tokviz.core.train import Progress

    stream = io.StringIO()
    printer = cli.ProgressPrinter(stream, interactive=True)
    for done in range(0, 1001):
        printer(Progress("merging", done, 1000, (), done / 1000))
    printer(Progress("done", 1000, 1000, (), 1.0))

    text = stream.getvalue()
    assert text.count("\n") == 1 and text.endswith("\n")
    assert 2 <= text.count("\r") <= 5  # throttled: the first draw, the last, hardly anything between
    assert "[########################] 100.0%" in text


# ----------------------------------------------------------------------------- errors and exit codes
@pytest.mark.parametrize(
    "argv",
    [
        ["train", "corpus.txt"],  # --vocab-size and -o missing
        ["train", "corpus.txt", "--vocab-size", "many", "-o", "m.json"],
        ["encode", "--format", "bogus", "--text", "x"],
        ["encode"],  # no input
        ["encode", "--text", "x", "file.txt"],  # two inputs
        ["no-such-command"],
    ],
)
def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    code, _, err = run(capsys, *argv)

    assert code == 2
    assert err.startswith("usage: tokviz")
    assert "error:" in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["train", "missing.txt", "--vocab-size", "300", "-o", "m.json"], "missing.txt"),
        (["encode", "missing.txt"], "missing.txt"),
        (
            ["train", "corpus.txt", "--vocab-size", "300", "-o", "m.json", "--pretokenizer", "(unclosed"],
            "regex",
        ),
        (["train", "corpus.txt", "--vocab-size", "100", "-o", "m.json"], "too small"),
        (["encode", "--tokenizer", "corrupt.json", "--text", "x"], "corrupt.json"),
        (["encode", "--tokenizer", "no-such-tokenizer", "--text", "x"], "no-such-tokenizer"),
    ],
)
def test_other_errors_exit_1_with_one_line(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    argv: list[str],
    fragment: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("corpus.txt").write_text("some text to train on", encoding="utf-8")
    Path("corrupt.json").write_text('{"format": "tokviz-model", "version": 1, "vocab": {', encoding="utf-8")

    code, out, err = run(capsys, *argv)

    assert code == 1
    assert out == ""
    assert_one_line_error(err, fragment)
    assert not Path("m.json").exists()


def test_unexpected_errors_suggest_debug_which_reraises(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(args: object) -> int:
        raise RuntimeError("something odd")

    monkeypatch.setattr(cli, "cmd_info", broken)

    code, _, err = run(capsys, "info", "gpt2")
    assert code == 1
    assert_one_line_error(err, "RuntimeError", "something odd", "--debug")

    with pytest.raises(RuntimeError, match="something odd"):
        main(["info", "gpt2", "--debug"])


def test_no_arguments_without_the_gui_is_a_one_line_error(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "tokviz.gui.app", None)  # makes the import fail

    code, _, err = run(capsys)

    assert code == 1
    assert_one_line_error(err, "desktop app")


def test_no_arguments_opens_the_gui(monkeypatch: pytest.MonkeyPatch) -> None:
    import types

    calls = []
    fake = types.ModuleType("tokviz.gui.app")
    fake.main = lambda: calls.append("gui") or 0  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "tokviz.gui.app", fake)

    assert main([]) == 0
    assert calls == ["gui"]


# ----------------------------------------------------------------------------- as a program
def test_python_m_tokviz_runs_headless_without_qt() -> None:
    probe = (
        "import sys\n"
        "from tokviz.cli import main\n"
        "code = main(['encode', '--tokenizer', 'bytes', '--text', 'Hi 🌍'])\n"
        "code = code or main(['replay', '--text', 'the cat', '--merges', '2', '--format', 'json'])\n"
        "assert 'PySide6' not in sys.modules and 'tokviz.gui' not in sys.modules, 'Qt was imported'\n"
        "sys.exit(code)\n"
    )
    probed = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=child_env())
    assert probed.returncode == 0, probed.stderr

    done = subprocess.run(
        [sys.executable, "-m", "tokviz", "encode", "--tokenizer", "bytes", "--text", "Hi 🌍"],
        capture_output=True,
        text=True,
        env=child_env(),
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "72 105 32 240 159 140 141\n", "")

    failed = subprocess.run(
        [sys.executable, "-m", "tokviz", "encode", "missing.txt"],
        capture_output=True,
        text=True,
        env=child_env(),
    )
    assert failed.returncode == 1
    assert failed.stderr == "tokviz: error: missing.txt: No such file or directory\n"


def test_version_is_printed(capsys):
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.startswith("tokviz ")
