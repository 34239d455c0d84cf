"""Helpers shared by the file formats: safe reading, strict JSON, size limits."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, TypeGuard

import regex

from ..bpe.tokenizer import Tokenizer
from ..bpe.vocab_rules import MAX_ENTRIES as MAX_ENTRIES
from ..bpe.vocab_rules import MAX_ID as MAX_ID
from ..bpe.vocab_rules import short as _short
from ..errors import ExportError, TokenizerLoadError
from ..io.filekind import ReadProblem, read_regular_file
from ..pretok.bytes_ import bytes_to_gpt2_str

PathLike = str | os.PathLike[str]

MODEL_FORMAT = "tokviz-model"
MODEL_VERSION = 1
# Limits that keep a hostile file from exhausting memory before it is rejected.
MAX_FILE_BYTES = 2 * 1024**3
# Size caps per file kind, read before parsing: each is many times the largest real file of its
# kind (a 2^18-token tokviz model with its history is ~60 MB; the biggest published tokenizer.json
# files are 20-35 MB; GPT-2's vocab.json is 1 MB and merges.txt 0.5 MB; o200k's .tiktoken 3.6 MB),
# so only a hostile or mistaken file (a log, a disk image, /dev/zero) is ever refused by size.
MODEL_FILE_CAP = 512 * 2**20
HF_JSON_CAP = 512 * 2**20
VOCAB_JSON_CAP = 128 * 2**20
MERGES_TXT_CAP = 128 * 2**20
TIKTOKEN_CAP = 128 * 2**20
# A file of unknown kind is sniffed and parsed as whichever of the above it turns out to be.
ANY_TOKENIZER_FILE_CAP = max(MODEL_FILE_CAP, HF_JSON_CAP, TIKTOKEN_CAP)
GPT2_MERGES_HEADER = "#version: 0.2"
BOM = "\ufeff"

_HEX = regex.compile(r"(?:[0-9a-fA-F]{2})+")
_DECIMAL = regex.compile(r"[0-9]{1,10}")
_HISTORY_INT_FIELDS = ("step", "left_id", "right_id", "new_id", "count", "ties", "tokens_after")


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _read_file(path: PathLike, error: type[TokenizerLoadError], cap: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of a regular file of at most ``cap`` bytes; anything else is ``error`` naming the
    path once and saying what it is ("is a FIFO (named pipe)", "is larger than 128 MB").

    Never blocks (FIFOs are refused from ``stat``) and never reads more than ``cap + 1`` bytes.
    """
    try:
        return read_regular_file(path, cap)
    except ReadProblem as exc:
        raise error(f"{Path(path)} {exc.reason}; a tokenizer file must be a regular file") from None


def _decode_text(data: bytes, name: str, error: type[TokenizerLoadError]) -> str:
    """UTF-8 text; a leading byte-order mark (some Windows editors write one) is dropped."""
    try:
        return data.decode("utf-8").removeprefix(BOM)
    except UnicodeDecodeError as exc:
        raise error(f"{name}: not UTF-8 text (invalid byte at offset {exc.start})") from None


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(key)
        out[key] = value
    return out


class _DuplicateKey(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _parse_json(data: bytes, name: str, error: type[TokenizerLoadError]) -> Any:
    """Parse JSON strictly: a repeated key in any object is an error, not a silent overwrite."""
    text = _decode_text(data, name, error)
    try:
        return json.loads(text, object_pairs_hook=_no_duplicate_keys)
    except _DuplicateKey as exc:
        raise error(f"{name}: the key {_short(exc.key)} appears twice in one object") from None
    except json.JSONDecodeError as exc:
        raise error(f"{name}: not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})") from None
    except RecursionError:
        raise error(f"{name}: the JSON is nested too deeply") from None
    except ValueError as exc:  # e.g. an integer literal with thousands of digits
        raise error(f"{name}: unreadable JSON value ({exc})") from None


def read_json(
    path: PathLike, error: type[TokenizerLoadError] = TokenizerLoadError, cap: int = MAX_FILE_BYTES
) -> Any:
    """Read a JSON file with a size cap and strict parsing; ``error`` is the class to raise."""
    return _parse_json(_read_file(path, error, cap), Path(path).name, error)


def json_kind(value: object) -> str:
    """How a JSON value reads in a message: "an array", "null", "a string", "a number"."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, int | float):
        return "a number"
    return "an object"


def _check_count(n: int, what: str, name: str, error: type[TokenizerLoadError]) -> None:
    if n > MAX_ENTRIES:
        raise error(f"{name}: {n:,} {what} is more than the limit of {MAX_ENTRIES:,}")


def _byte_level_strings(tokenizer: Tokenizer, fmt: str) -> dict[str, int]:
    """``{GPT-2 string: id}`` for a vocab.json-like table; specials keep their own text.

    Such a table is keyed by the token, so two ids with the same bytes cannot both be written.
    """
    out: dict[str, int] = {}
    specials = {i: s for s, i in tokenizer.special_tokens.items()}
    for token_id in sorted(tokenizer.vocab):
        key = specials.get(token_id)
        if key is None:
            key = bytes_to_gpt2_str(tokenizer.vocab[token_id])
        if key in out:
            raise ExportError(
                f"cannot write {fmt}: ids {out[key]} and {token_id} are both {_short(key)}, "
                "and the format keys tokens by their text"
            )
        out[key] = token_id
    return out
