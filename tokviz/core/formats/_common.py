"""Helpers shared by the file formats: safe reading, strict JSON, size limits."""

from __future__ import annotations

import json
import json.scanner
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Literal, TypeGuard

import regex

from ..bpe.tokenizer import Tokenizer
from ..bpe.vocab_rules import MAX_ENTRIES as MAX_ENTRIES
from ..bpe.vocab_rules import MAX_ID as MAX_ID
from ..bpe.vocab_rules import short as _short
from ..errors import ExportError, PretokenizerError, TokenizerLoadError
from ..io.filekind import ReadProblem, read_regular_file
from ..io.outputs import unfinished_problem
from ..pretok.bytes_ import bytes_to_gpt2_str
from ..pretok.regex_bounds import check_pattern_bounds
from .json_skip import bracket_end

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
    A file of a set of outputs that a stopped run left half replaced is refused, naming the set
    (see :func:`tokviz.core.io.outputs.unfinished_set`): every tokenizer file is read through here.
    """
    unfinished = unfinished_problem(path)
    if unfinished is not None:
        raise error(unfinished)
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
    return _parse_json_text(_decode_text(data, name, error), name, error)


def _parse_json_text(text: str, name: str, error: type[TokenizerLoadError]) -> Any:
    """:func:`_parse_json` of text already decoded."""
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


_WHITESPACE = regex.compile(r"[ \t\n\r]*")
_AFTER_ITEM = regex.compile(r"[ \t\n\r]*([,\]])[ \t\n\r]*")
_AFTER_MEMBER = regex.compile(r"[ \t\n\r]*([,}])[ \t\n\r]*")
_AFTER_KEY = regex.compile(r"[ \t\n\r]*:[ \t\n\r]*")


class JsonMembers:
    """A JSON object's text read member by member, for a file whose members may be huge.

    :meth:`members` yields each key; the caller then reads its value whole (:meth:`value`), or
    reads an array or object up to a number of items (:meth:`array`, :meth:`entries`), which stops
    at the first item too many instead of building the whole list first. An array can also be
    passed over without building anything (:meth:`skip_array`) and read later (:meth:`array_at`). A value the caller leaves alone is read whole. Items are read by the
    ``json`` module's C scanner in one tight loop; errors name the file as :func:`_parse_json` does.
    """

    def __init__(self, text: str, name: str, error: type[TokenizerLoadError]) -> None:
        self.text = text
        self.name = name
        self.error = error
        self.pos = 0
        decoder = json.JSONDecoder(object_pairs_hook=_no_duplicate_keys)
        self._scan: Callable[[str, int], tuple[Any, int]] = json.scanner.make_scanner(decoder)  # type: ignore[arg-type]
        self._read = True

    def first_char(self) -> str:
        """The first character of the document after white space ("" when there is none)."""
        return self.text[self._after_space(0) : self._after_space(0) + 1]

    def members(self) -> Iterator[str]:
        """The keys of the top-level object, in order (the caller reads each value after its key)."""
        text = self.text
        with self._errors():
            self.pos = self._opened("{", 0)
            if text.startswith("}", self.pos):
                self.pos += 1
            else:
                seen: set[str] = set()
                while True:
                    key, self.pos = self._key(self.pos, seen)
                    self._read = False
                    yield key
                    if not self._read:
                        self.value()
                    after = _AFTER_MEMBER.match(text, self.pos)
                    if after is None:
                        raise self._invalid("Expecting ',' delimiter", self.pos)
                    self.pos = after.end()
                    if after[1] == "}":
                        break
        if self._after_space(self.pos) < len(text):
            raise self._invalid("Extra data", self._after_space(self.pos))

    def value(self) -> Any:
        """The current member's value, read whole."""
        self._read = True
        with self._errors():
            value, self.pos = self._scan(self.text, self.pos)
        return value

    def is_next(self, char: str) -> bool:
        """Whether the current value starts with ``char`` (``[`` for an array)."""
        return self.text.startswith(char, self.pos)

    def array(self, limit: int) -> list[Any] | None:
        """The items of the current member's value, an array, or None when it has more than ``limit``."""
        self._read = True
        items: list[Any] = []
        return items if self._array(self.pos, limit, items.append) else None

    def array_at(self, start: int, limit: int) -> list[Any] | None:
        """:meth:`array` of the array that starts at ``start`` (a position :meth:`skip_array` gave)."""
        items: list[Any] = []
        return items if self._array(start, limit, items.append) else None

    def skip_array(self) -> int:
        """Pass over the current member's array without building any of it (:func:`bracket_end`);
        where it starts, for :meth:`array_at`, which reads it exactly."""
        self._read = True
        start = self.pos
        end = bracket_end(self.text, start)
        if end is None:
            raise self._invalid("the array never ends", start)
        self.pos = end
        return start

    def entries(self, limit: int) -> list[tuple[str, Any]] | None:
        """The members of the current member's value, an object, as ``(key, value)`` pairs, or None
        when it has more than ``limit``."""
        self._read = True
        seen: set[str] = set()

        def member(pos: int) -> tuple[tuple[str, Any], int]:
            key, pos = self._key(pos, seen)
            value, pos = self._scan(self.text, pos)
            return (key, value), pos

        pairs: list[tuple[str, Any]] = []
        return pairs if self._sequence(self.pos, "{", member, limit, pairs.append) else None

    # ------------------------------------------------------------------ reading
    def _array(self, start: int, limit: int, keep: Callable[[Any], None] | None) -> bool:
        """Read the array at ``start`` item by item, giving each to ``keep``; False at item ``limit + 1``, before it is read."""
        text, scan = self.text, self._scan
        return self._sequence(start, "[", lambda pos: scan(text, pos), limit, keep)

    def _sequence(
        self,
        start: int,
        opener: str,
        read: Callable[[int], tuple[Any, int]],
        limit: int,
        keep: Callable[[Any], None] | None,
    ) -> bool:
        """Read the array or object opened at ``start`` one item at a time (``read`` gives an item
        and where it ends), handing each to ``keep``; False at item ``limit + 1`` (not read), True at its end."""
        text = self.text
        after_item = (_AFTER_ITEM if opener == "[" else _AFTER_MEMBER).match
        with self._errors():
            pos = self._opened(opener, start)
            if text.startswith("]" if opener == "[" else "}", pos):
                self.pos = pos + 1
                return True
            count = 0
            while True:  # the tightest loop: a file may hold millions of items here
                if count == limit:  # an item more is here: refused before it is built
                    return False
                value, pos = read(pos)
                count += 1
                if keep is not None:
                    keep(value)
                after = after_item(text, pos)
                if after is None:
                    raise self._invalid("Expecting ',' delimiter", pos)
                pos = after.end()
                if after[1] != ",":
                    self.pos = pos
                    return True

    def _key(self, pos: int, seen: set[str]) -> tuple[str, int]:
        """The key at ``pos`` (a string not seen before in its object) and where its value starts."""
        if not self.text.startswith('"', pos):
            raise self._invalid("Expecting property name enclosed in double quotes", pos)
        key, pos = self._scan(self.text, pos)
        if key in seen:
            raise self.error(f"{self.name}: the key {_short(key)} appears twice in one object")
        seen.add(key)
        colon = _AFTER_KEY.match(self.text, pos)
        if colon is None:
            raise self._invalid("Expecting ':' delimiter", pos)
        return str(key), colon.end()

    def _opened(self, char: str, pos: int) -> int:
        """Where the value opened by ``char`` at ``pos`` (after white space) starts its content."""
        pos = self._after_space(pos)
        if not self.text.startswith(char, pos):
            raise self._invalid(f"Expecting '{char}'", pos)
        return self._after_space(pos + 1)

    def _after_space(self, pos: int) -> int:
        found = _WHITESPACE.match(self.text, pos)
        return found.end() if found else pos

    def _errors(self) -> _ScanErrors:
        """A block in which what the scanner raises becomes one line naming the file."""
        return _ScanErrors(self)

    def _invalid(self, message: str, where: int) -> TokenizerLoadError:
        line = self.text.count("\n", 0, where) + 1
        column = where - (self.text.rfind("\n", 0, where) + 1) + 1
        return self.error(f"{self.name}: not valid JSON ({message} at line {line}, column {column})")


class _ScanErrors:
    """What the ``json`` scanner raises inside the block, as :class:`JsonMembers`'s one-line error."""

    def __init__(self, reader: JsonMembers) -> None:
        self.reader = reader

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: object, exc: BaseException | None, tb: object) -> Literal[False]:
        reader = self.reader
        if isinstance(exc, StopIteration):
            raise reader._invalid("Expecting value", int(exc.value)) from None
        if isinstance(exc, _DuplicateKey):
            raise reader.error(
                f"{reader.name}: the key {_short(exc.key)} appears twice in one object"
            ) from None
        if isinstance(exc, json.JSONDecodeError):
            raise reader._invalid(exc.msg, exc.pos) from None
        if isinstance(exc, RecursionError):
            raise reader.error(f"{reader.name}: the JSON is nested too deeply") from None
        if isinstance(exc, ValueError):  # e.g. an integer literal with thousands of digits
            raise reader.error(f"{reader.name}: unreadable JSON value ({exc})") from None
        return False


def read_json(
    path: PathLike, error: type[TokenizerLoadError] = TokenizerLoadError, cap: int = MAX_FILE_BYTES
) -> Any:
    """Read a JSON file with a size cap and strict parsing; ``error`` is the class to raise."""
    return _parse_json_text(read_text(path, error, cap), Path(path).name, error)


def read_text(
    path: PathLike, error: type[TokenizerLoadError] = TokenizerLoadError, cap: int = MAX_FILE_BYTES
) -> str:
    """Read a UTF-8 text file (a leading byte-order mark dropped) with a size cap; ``error`` is the
    class to raise."""
    return _decode_text(_read_file(path, error, cap), Path(path).name, error)


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


def check_file_pattern(pattern: str, what: str, file_name: str) -> None:
    """Refuse, before any compile, a pattern read from a tokenizer file that the pre-tokenizer could
    not bound: a :class:`TokenizerLoadError` naming the file and ``what`` in it holds the pattern."""
    try:
        check_pattern_bounds(pattern, what)
    except PretokenizerError as exc:
        raise TokenizerLoadError(f"{file_name}: {exc}") from None


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
