"""``tokviz encode`` of a file streams: block by block, the same output as encoding it whole, -o atomic.

The blocks are made tiny here (a few hundred characters, reads that cut characters in half), so
every test crosses many block and read boundaries.
"""

from __future__ import annotations

import io
import json
import os
import sys
from pathlib import Path

import pytest

from tokviz.cli import encode as encode_command
from tokviz.cli.output import token_label
from tokviz.core import load_tokenizer

from ..texts import HELLO
from .helpers import assert_one_line_error, run

TEXT = (HELLO + " The cat sat.\n  indented  line\r\n" + "你好世界" * 30 + " 🌍🌍 x<|endoftext|>y\n") * 40


@pytest.fixture(autouse=True)
def tiny_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Blocks of 300 characters and reads of 97 bytes (which cut UTF-8 characters apart)."""
    monkeypatch.setattr(encode_command, "BLOCK", 300)
    monkeypatch.setattr(encode_command, "JSON_BLOCK", 200)
    monkeypatch.setattr(encode_command, "READ_BLOCK", 97)


@pytest.fixture
def text_file(tmp_path: Path) -> Path:
    path = tmp_path / "in.txt"
    path.write_bytes(TEXT.encode("utf-8"))
    return path


def spans_json(text: str) -> str:
    """The JSON the command printed before it streamed: every span, dumped at once."""
    tok = load_tokenizer("gpt2")
    items = [
        {
            "id": s.id,
            "bytes": s.bytes.hex(),
            "text": None if s.partial else s.bytes.decode("utf-8", errors="replace"),
            "start": s.start,
            "end": s.end,
        }
        for s in tok.encode_spans(text)
    ]
    return json.dumps(items, ensure_ascii=False) + "\n"


def test_ids_of_a_file_read_in_blocks_are_the_ids_of_the_whole_text(
    capsys: pytest.CaptureFixture[str], text_file: Path
) -> None:
    code, out, err = run(capsys, "encode", str(text_file))

    assert (code, err) == (0, "")
    assert out == " ".join(map(str, load_tokenizer("gpt2").encode(TEXT))) + "\n"


def test_tokens_and_json_formats_stream_to_the_same_output(
    capsys: pytest.CaptureFixture[str], text_file: Path
) -> None:
    tok = load_tokenizer("gpt2")

    _, tokens, _ = run(capsys, "encode", str(text_file), "--format", "tokens")
    _, spans, _ = run(capsys, "encode", str(text_file), "--format", "json")

    assert tokens == "|".join(token_label(tok.id_bytes(i)) for i in tok.encode(TEXT)) + "\n"
    assert spans == spans_json(TEXT)
    assert json.loads(spans)[-1]["end"] == len(TEXT)


@pytest.mark.parametrize("text", ["", "a", "🌍", "你好"])
def test_short_texts_give_the_same_json_as_before(capsys: pytest.CaptureFixture[str], text: str) -> None:
    assert run(capsys, "encode", "--text", text, "--format", "json")[1] == spans_json(text)


def test_standard_input_streams_too(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(TEXT.encode("utf-8"))))

    code, out, _ = run(capsys, "encode", "-")

    assert code == 0
    assert out == " ".join(map(str, load_tokenizer("gpt2").encode(TEXT))) + "\n"


def test_output_file_gets_the_same_bytes_and_no_temporary_file_stays(
    capsys: pytest.CaptureFixture[str], text_file: Path, tmp_path: Path
) -> None:
    target = tmp_path / "ids.txt"

    code, out, _ = run(capsys, "encode", str(text_file), "-o", str(target))

    assert (code, out) == (0, "")
    assert target.read_text() == " ".join(map(str, load_tokenizer("gpt2").encode(TEXT))) + "\n"
    assert sorted(os.listdir(tmp_path)) == ["ids.txt", "in.txt"]


def test_ctrl_c_half_way_leaves_the_old_output(
    capsys: pytest.CaptureFixture[str], text_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "ids.txt"
    target.write_text("old\n")

    def interrupted(tok, pieces, fmt, out):  # type: ignore[no-untyped-def]
        out.write("12 34 ")
        raise KeyboardInterrupt

    monkeypatch.setattr(encode_command, "_write", interrupted)
    code, _, err = run(capsys, "encode", str(text_file), "-o", str(target))

    assert code != 0 and "interrupted" in err
    assert target.read_text() == "old\n"
    assert sorted(os.listdir(tmp_path)) == ["ids.txt", "in.txt"]


def test_a_bad_byte_far_into_the_file_is_named_before_anything_is_written(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    data = TEXT.encode("utf-8")
    path = tmp_path / "bad.txt"
    path.write_bytes(data + b"ok \xff tail")
    target = tmp_path / "ids.txt"

    code, out, err = run(capsys, "encode", str(path))
    assert (code, out) == (1, "")
    assert_one_line_error(err, f"byte 0xFF at byte offset {len(data) + 3}")

    assert run(capsys, "encode", str(path), "-o", str(target))[0] == 1
    assert not target.exists()
    assert sorted(os.listdir(tmp_path)) == ["bad.txt"]


def test_a_character_cut_by_the_end_of_the_file_is_named(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "cut.txt"
    path.write_bytes("abc 🌍".encode()[:-1])

    code, _, err = run(capsys, "encode", str(path))

    assert code == 1
    assert_one_line_error(err, "byte 0xF0 at byte offset 4")


def test_the_output_cannot_be_the_input(capsys: pytest.CaptureFixture[str], text_file: Path) -> None:
    code, _, err = run(capsys, "encode", str(text_file), "-o", str(text_file))

    assert code == 1
    assert_one_line_error(err, str(text_file))
    assert text_file.read_bytes() == TEXT.encode("utf-8")


@pytest.mark.parametrize("block", [1, 7, 300, 1 << 20])
def test_encode_blocks_tiles_the_input_and_its_ids(block: int) -> None:
    tok = load_tokenizer("gpt2")
    pieces = [TEXT[i : i + 97] for i in range(0, len(TEXT), 97)]

    blocks = list(tok.encode_blocks(pieces, block))

    assert "".join(text for text, _ in blocks) == TEXT
    assert [i for _, ids in blocks for i in ids] == tok.encode(TEXT)
    assert all(ids == tok.encode(text) for text, ids in blocks)
