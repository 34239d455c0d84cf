"""The ``tokviz`` command as a whole: exit codes, one-line errors, the GUI, running as a program."""

from __future__ import annotations

import importlib
import json
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import tokviz.cli
import tokviz.cli.info
from tokviz.cli import COMMANDS, main

from .helpers import assert_one_line_error, child_env, run


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

    monkeypatch.setattr(tokviz.cli.info, "run", broken)

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
@pytest.mark.slow
def test_python_m_tokviz_runs_headless_without_qt() -> None:
    probe = (
        "import sys\n"
        "from tokviz.cli import main\n"
        "code = main(['encode', '--tokenizer', 'bytes', '--text', 'Hi 🌍'])\n"
        "code = code or main(['replay', '--text', 'the cat', '--merges', '2', '--format', 'json'])\n"
        "code = code or main(['compare', '--text', 'the cat', '--tokenizer', 'bytes', '--tokenizer', 'gpt2'])\n"
        "code = code or main(['info', 'gpt2'])\n"
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


# ----------------------------------------------------------------------------- the table of commands
def test_a_command_line_imports_only_the_module_of_its_command() -> None:
    probe = (
        "import json, sys\n"
        "from tokviz.cli import COMMANDS, main\n"
        "def loaded():\n"
        "    return sorted(name for name in COMMANDS if f'tokviz.cli.{name}' in sys.modules)\n"
        "main(['-h'])\n"
        "overview = loaded()\n"
        "main(['info', 'bytes'])\n"
        "print(json.dumps([overview, loaded()]))\n"
    )
    probed = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=child_env())
    assert probed.returncode == 0, probed.stderr
    assert json.loads(probed.stdout.splitlines()[-1]) == [[], ["info"]]


def test_every_command_module_is_in_the_table_and_has_options_and_a_run() -> None:
    modules = [m.name for m in pkgutil.iter_modules(tokviz.cli.__path__)]
    commands = {name for name in modules if hasattr(importlib.import_module(f"tokviz.cli.{name}"), "run")}

    assert commands == set(COMMANDS)
    for name, entry in COMMANDS.items():
        assert entry.module == f"tokviz.cli.{name}"
        assert callable(importlib.import_module(entry.module).add_arguments), name
