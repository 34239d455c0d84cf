"""No command puts a raw control character on the terminal or into a CSV, whatever names it is given.

Every command in ``COMMANDS`` has a case here (a new command without one fails
:func:`test_every_command_has_a_hostile_case`) that hands it a file name, a model name, a deck
title or a text holding an escape sequence that would set the terminal's title, a bell, a
right-to-left override, a carriage return and a newline. Standard output, standard error and any
CSV written must hold none of them raw (line ends and tabs of the output itself aside), and the
name's newline must not start a line of its own.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tokviz.cli import COMMANDS
from tokviz.core.formats import save_model
from tokviz.core.training.train import train_bpe

from .helpers import run

HOSTILE = "esc\x1b]0;pwned\x07\u202e\x9b\r\npwnline"
FORGED_LINE = "\npwnline"


def raw_controls(text: str) -> list[str]:
    """The control characters in ``text`` other than line ends and tabs."""
    unsafe = {chr(c) for c in range(0x20)} - {"\n", "\t"} | {chr(c) for c in range(0x7F, 0xA0)}
    unsafe |= {
        "\u061c",
        "\u200e",
        "\u200f",
        *map(chr, range(0x2028, 0x202F)),
        *map(chr, range(0x2066, 0x206A)),
    }
    return sorted({c for c in text if c in unsafe})


class Scene:
    """The hostile things a case can point a command at, made in ``tmp_path``."""

    def __init__(self, tmp_path: Path) -> None:
        self.tmp = tmp_path
        self.corpus = tmp_path / "corpus"
        self.corpus.mkdir()
        self.text_file = self.corpus / f"{HOSTILE}.txt"
        self.text_file.write_text("hello world, the cat in the hat\n" * 3, encoding="utf-8")
        (self.corpus / "plain.txt").write_text("the hat\n", encoding="utf-8")
        self.model = self._model(f"{HOSTILE}.json", "the cat in the hat " * 20, 270)
        self.other_model = self._model("other.json", "hello world " * 20, 262)
        self.csv: list[Path] = []

    def _model(self, file_name: str, text: str, vocab_size: int) -> str:
        path = self.tmp / file_name
        save_model(path, train_bpe(text=text, vocab_size=vocab_size, pretokenizer="gpt2").tokenizer(HOSTILE))
        return str(path)

    def out(self, name: str) -> str:
        return str(self.tmp / name)

    def csv_out(self, name: str) -> str:
        path = self.tmp / name
        self.csv.append(path)
        return str(path)

    def deck(self) -> str:
        title = "".join(c if c.isprintable() else f"\\u{ord(c):04x}" for c in HOSTILE)
        path = self.tmp / "deck.toml"
        path.write_text(
            f'title = "{title}"\n\n[[slide]]\nkind = "text"\ntitle = "{title}"\nbody = "- a"\n',
            encoding="utf-8",
        )
        return str(path)

    def template(self) -> str:
        path = self.tmp / f"{HOSTILE}.jinja"
        path.write_text("{% for m in messages %}" + HOSTILE + "{{ m.content }}{% endfor %}", encoding="utf-8")
        return str(path)

    def messages(self) -> str:
        path = self.tmp / "messages.json"
        path.write_text(json.dumps([{"role": HOSTILE, "content": HOSTILE}]), encoding="utf-8")
        return str(path)


CASES: dict[str, Callable[[Scene], list[str]]] = {
    "train": lambda s: [
        "train",
        str(s.corpus),
        "--vocab-size",
        "260",
        "--name",
        HOSTILE,
        "-o",
        s.out(f"{HOSTILE}.json"),
    ],
    "encode": lambda s: ["encode", "--tokenizer", s.model, str(s.text_file), "--format", "tokens"],
    "replay": lambda s: [
        "replay",
        "--text",
        f"{HOSTILE} {HOSTILE}",
        "--merges",
        "3",
        "--pretokenizer",
        "none",
    ],
    "segment": lambda s: ["segment", "--tokenizer", s.model, "--text", HOSTILE, "--dropout", "0.5"],
    "render": lambda s: ["render", "--text", HOSTILE, "--tokenizer", s.model, "-o", s.out(f"{HOSTILE}.png")],
    "count": lambda s: ["count", str(s.corpus), "-o", s.out(f"{HOSTILE}.tsv")],
    "compare": lambda s: ["compare", "--tokenizer", s.model, str(s.text_file), "--format", "csv"],
    "eval": lambda s: [
        "eval",
        str(s.corpus),
        "--per-file",
        "--tokenizer",
        s.model,
        "--format",
        "csv",
        "-o",
        s.csv_out("eval.csv"),
    ],
    "parity": lambda s: ["parity", "--tokenizer", s.model, "--format", "csv", "-o", s.csv_out("parity.csv")],
    "info": lambda s: ["info", s.model],
    "export": lambda s: ["export", s.model, "--to", "hf", "-o", s.out(f"{HOSTILE}-hf")],
    "usage": lambda s: ["usage", "--tokenizer", s.model, str(s.corpus), "--format", "csv"],
    "sweep": lambda s: ["sweep", s.model, str(s.corpus), "--format", "csv", "-o", s.csv_out("sweep.csv")],
    "diff": lambda s: ["diff", s.model, s.other_model],
    "chat": lambda s: ["chat", "gpt2", s.messages(), "--template-file", s.template()],
    "lecture": lambda s: ["lecture", s.deck()],
    "audit": lambda s: ["audit", s.model, "--corpus", str(s.corpus), "--format", "csv"],
    "finish": lambda s: ["finish", s.model],
}


def test_every_command_has_a_hostile_case() -> None:
    assert set(CASES) == set(COMMANDS)


def assert_safe(where: str, text: str) -> None:
    assert raw_controls(text) == [], f"{where}: {raw_controls(text)!r} in {text[-600:]!r}"
    assert FORGED_LINE not in text, f"{where}: a name's newline starts a line: {text[-600:]!r}"


@pytest.mark.parametrize("command", sorted(CASES))
def test_no_raw_control_character_reaches_the_terminal_or_a_csv(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scene = Scene(tmp_path)
    code, out, err = run(capsys, *CASES[command](scene))
    assert code == 0, err[-2000:]
    assert_safe("stdout", out)
    assert_safe("stderr", err)
    for path in scene.csv:
        assert_safe(path.name, path.read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    "argv",
    [
        ["info", "gpt2", f"{HOSTILE}.txt"],  # argparse: unrecognized arguments
        ["encode", "--format", HOSTILE, "--text", "x"],  # argparse: invalid choice
        [HOSTILE],  # argparse: not a command
        ["lecture", "--pdf", f"{HOSTILE}.png"],  # the command's own usage error
        ["info", f"{HOSTILE}.json"],  # a one-line error naming a missing file
    ],
)
def test_usage_and_errors_show_the_arguments_escaped(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, *argv)
    assert code in (1, 2)
    assert_safe("stdout", out)
    assert_safe("stderr", err)
    assert "pwned" in err


def test_the_rendered_chat_keeps_its_lines_and_escapes_the_rest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scene = Scene(tmp_path)
    code, out, err = run(
        capsys, "chat", "gpt2", scene.messages(), "--template-file", scene.template(), "--show-chat"
    )
    assert code == 0, err
    assert raw_controls(out) == [] and raw_controls(err) == []
    assert "pwned\\x07" in out  # the rendered text, its line ends kept and everything else escaped
