"""``tokviz encode`` on text that is not UTF-8 and with standard output closed: one line, exit 1.

From a shell, ``--text $'\\xffabc'`` reaches Python as a ``str`` holding a lone surrogate (its
``surrogateescape`` reading of the byte). It used to become ``�abc`` in one output format and a
crash in another; now every format refuses it the way an input file with that byte is refused.
A closed standard output (``>&-``) is an error too, where a reader that went away (``| head``) is
not.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from .helpers import assert_one_line_error, child_env, run

FORMATS = ["ids", "tokens", "json"]


@pytest.mark.parametrize("fmt", FORMATS)
def test_invalid_utf8_in_text_is_refused_in_every_format(
    capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    text = b"\xffabc".decode("utf-8", "surrogateescape")  # what sys.argv holds for $'\xffabc'
    code, out, err = run(capsys, "encode", "--text", text, "--format", fmt)
    assert (code, out) == (1, "")
    assert_one_line_error(err, "--text is not valid UTF-8 (byte 0xFF at byte offset 0)")


@pytest.mark.parametrize(
    "argv",
    [
        ["replay", "--pretokenizer", "none"],
        ["compare", "--tokenizer", "bytes"],
        ["render", "--tokenizer", "bytes", "-o", "strips.svg"],
    ],
    ids=["replay", "compare", "render"],
)
def test_every_command_with_text_refuses_it_the_same_way(
    capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    text = b"\xffabc".decode("utf-8", "surrogateescape")
    code, out, err = run(capsys, *argv, "--text", text)
    assert (code, out) == (1, "")
    assert_one_line_error(err, "--text is not valid UTF-8 (byte 0xFF at byte offset 0)")


def test_the_offset_is_the_byte_offset_of_the_bad_byte(capsys: pytest.CaptureFixture[str]) -> None:
    text = "héllo ".encode() + b"\xc3("
    code, _, err = run(capsys, "encode", "--text", text.decode("utf-8", "surrogateescape"))
    assert code == 1
    assert_one_line_error(err, "byte 0xC3 at byte offset 7")


def test_a_true_lone_surrogate_is_named(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "encode", "--text", "ab\ud800", "--format", "json")
    assert code == 1
    assert_one_line_error(err, "lone surrogate U+D800 at character 2")


def test_a_special_token_that_is_not_utf8_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    bad = b"<\xfe>".decode("utf-8", "surrogateescape")
    code, _, err = run(capsys, "encode", "--text", "hi", "--special-token", bad)
    assert code == 1
    assert_one_line_error(err, "--special-token is not valid UTF-8 (byte 0xFE at byte offset 1)")


def test_an_input_file_with_the_same_byte_is_refused_the_same_way(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "bad.txt"
    path.write_bytes(b"\xffabc")
    code, _, err = run(capsys, "encode", str(path), "--format", "json")
    assert code == 1
    assert_one_line_error(err, "not valid UTF-8", "byte offset 0")


@pytest.mark.slow
@pytest.mark.skipif(os.name != "posix", reason="bytes in argv are a POSIX matter")
def test_invalid_utf8_from_the_shell_is_a_one_line_error() -> None:
    for fmt in FORMATS:
        done = subprocess.run(
            [sys.executable, "-m", "tokviz", "encode", "--text", b"\xffabc", "--format", fmt],
            capture_output=True,
            env=child_env(),
        )
        assert done.returncode == 1 and done.stdout == b""
        assert (
            done.stderr
            == b"tokviz: error: --text is not valid UTF-8 (byte 0xFF at byte offset 0); put the text in a UTF-8 file instead\n"
        )


@pytest.mark.slow
@pytest.mark.skipif(os.name != "posix", reason="closing a descriptor for the child is POSIX")
@pytest.mark.parametrize("fmt", FORMATS)
def test_a_closed_standard_output_is_a_one_line_error(fmt: str) -> None:
    done = subprocess.run(
        ["sh", "-c", f'exec "$0" -m tokviz encode --text hello --format {fmt} >&-', sys.executable],
        capture_output=True,
        text=True,
        env=child_env(),
    )
    assert done.returncode == 1
    assert_one_line_error(done.stderr, "standard output is closed")
    assert "AttributeError" not in done.stderr


@pytest.mark.slow
@pytest.mark.skipif(os.name != "posix", reason="pipes that close early are POSIX")
def test_a_reader_that_goes_away_is_not_an_error(tmp_path: Path) -> None:
    big = tmp_path / "big.txt"
    big.write_text("hello " * 200_000, encoding="utf-8")
    done = subprocess.run(
        ["sh", "-c", '"$0" -m tokviz encode "$1" | head -c 1 >/dev/null', sys.executable, str(big)],
        capture_output=True,
        text=True,
        env=child_env(),
    )
    assert done.returncode == 0
    assert done.stderr == ""
