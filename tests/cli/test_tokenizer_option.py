"""``--tokenizer`` as the commands that measure several tokenizers declare and read it: each spec
once in the order given, the command's defaults when none is given, required where there are none."""

from __future__ import annotations

import argparse

import pytest

from tokviz.cli.options import add_file_options, add_specials_in_text, add_tokenizers, load_tokenizers


def parser(defaults: tuple[str, ...]) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser()
    add_tokenizers(p, "repeat for several", defaults)
    add_file_options(p, special=False)
    add_specials_in_text(p)
    return p


def test_each_tokenizer_is_loaded_once_in_the_order_given() -> None:
    args = parser(("gpt2",)).parse_args(
        ["--tokenizer", "bytes", "--tokenizer", "gpt2", "--tokenizer", "bytes"]
    )

    specs, loaded, reading = load_tokenizers(args)

    assert specs == ["bytes", "gpt2"]
    assert [tok.name for tok in loaded] == ["bytes", "GPT-2"]
    assert len(reading) == 2


def test_without_any_the_command_s_defaults_are_loaded_and_named_in_the_help() -> None:
    p = parser(("bytes", "gpt2"))

    assert load_tokenizers(p.parse_args([])).specs == ["bytes", "gpt2"]
    assert "(default: bytes, gpt2)" in " ".join(p.format_help().split())


def test_a_command_without_defaults_requires_one(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        parser(()).parse_args([])
    assert "the following arguments are required: --tokenizer" in capsys.readouterr().err
