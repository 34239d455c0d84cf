"""The typed schema of a count table's metadata and rows: each key's type and range, checked on reading.

A table is a file anyone can edit or write, so nothing in it is trusted: a string where a list of
special tokens belongs would otherwise become one special token per character, and a count of
``True`` a count of 1. Every refusal is one line naming the key (``'files'[2].'size'``) or the
row, so the file can be mended by hand.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from ..errors import InvalidArgument
from ..pretok.normalize import parse_normalizer

# The largest count a row holds: a table's counts are signed 64-bit integers in Parquet, and the
# same bound holds for TSV so that every table converts to the other format.
MAX_COUNT = 2**63 - 1
MAX_COUNT_TEXT = "1 to 2^63-1"
_MAX_DIGITS = len(str(MAX_COUNT))
_SHA256 = re.compile(r"[0-9a-f]{64}")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")

# A check returns what is wrong with a value ("must be ..., not ...") or None when it is right.
Check = Callable[[Any], str | None]
# A named check is given the value and its name, and returns the whole message naming the part that is wrong.
NamedCheck = Callable[[Any, str], str | None]


def _kind(value: object) -> str:
    """How a JSON value is named in a message: its type, and the value itself when short."""
    names = {bool: "a boolean", int: "an integer", float: "a number", str: "a string", list: "a list"}
    name = "an object" if isinstance(value, dict) else names.get(type(value), type(value).__name__)
    if value is None:
        return "null"
    shown = repr(value)
    return f"{name} {shown}" if len(shown) <= 24 and not isinstance(value, (list, dict)) else name


def _is_whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def whole(minimum: int) -> Check:
    """A whole number (never a boolean or a float) of ``minimum`` or more."""

    def check(value: Any) -> str | None:
        if _is_whole(value) and value >= minimum:
            return None
        shown = str(value) if _is_whole(value) else _kind(value)
        return f"must be a whole number of {minimum} or more, not {shown}"

    return check


def text(value: Any) -> str | None:
    """A string that UTF-8 can hold (no lone surrogate)."""
    if not isinstance(value, str):
        return f"must be a string, not {_kind(value)}"
    if _LONE_SURROGATE.search(value):
        return "holds a lone surrogate, which UTF-8 cannot encode"
    return None


def one_of(*choices: str) -> Check:
    """One of the strings ``choices``."""

    def check(value: Any) -> str | None:
        if isinstance(value, str) and value in choices:
            return None
        return f"must be {' or '.join(repr(c) for c in choices)}, not {_kind(value)}"

    return check


def _sha256_or_none(value: Any) -> str | None:
    if value is None or (isinstance(value, str) and _SHA256.fullmatch(value)):
        return None
    return f"must be 64 lowercase hex digits or null, not {_kind(value)}"


def _named(check: Check) -> NamedCheck:
    """``check`` as a named check: its message after the value's name."""

    def named(value: Any, name: str) -> str | None:
        problem = check(value)
        return f"{name} {problem}" if problem else None

    return named


FILE_SCHEMA: dict[str, tuple[bool, NamedCheck]] = {
    "path": (True, _named(text)),
    "size": (True, _named(whole(0))),
    "sha256": (False, _named(_sha256_or_none)),
    "path_bytes": (False, _named(text)),  # the exact bytes (hex) of a name that is not UTF-8
    "container": (False, _named(one_of("text", "jsonl", "parquet", "arrow"))),
    "records": (False, _named(whole(0))),
}


def _special_tokens(value: Any, name: str) -> str | None:
    if not isinstance(value, list):
        return f"{name} must be a list of strings, not {_kind(value)}"
    seen: set[str] = set()
    for k, token in enumerate(value, start=1):
        if not isinstance(token, str) or not token:
            return f"{name}[{k}] must be a non-empty string, not {_kind(token)}"
        problem = text(token)
        if problem:
            return f"{name}[{k}] {problem}"
        if token in seen:
            return f"{name}[{k}] repeats {token!r}"
        seen.add(token)
    return None


def _files(value: Any, name: str) -> str | None:
    if not isinstance(value, list):
        return f"{name} must be a list of files, not {_kind(value)}"
    for k, entry in enumerate(value, start=1):
        where = f"{name}[{k}]"
        if not isinstance(entry, dict):
            return f"{where} must be an object with 'path', 'size' and 'sha256', not {_kind(entry)}"
        problem = check_keys(entry, FILE_SCHEMA, where)
        if problem:
            return problem
    return None


def _records(value: Any, name: str) -> str | None:
    """What reading the records saw: the field, the records read, those skipped by reason."""
    if not isinstance(value, dict):
        return f"{name} must be an object, not {_kind(value)}"
    if not isinstance(value.get("field"), str) or not _is_whole(value.get("records")):
        return f"{name} must name the field (a string) and the records read (a whole number)"
    for key in ("skipped", "files"):
        counts = value.get(key, {})
        if not isinstance(counts, dict) or not all(_is_whole(n) and n >= 0 for n in counts.values()):
            return f"{name}.{key!r} must map names to whole numbers"
    return None


def _normalizer(value: Any, name: str) -> str | None:
    """A normalizer spec tokviz reads (``"nfkc+lowercase"``)."""
    if not isinstance(value, str):
        return f"{name} must be a normalizer's name, not {type(value).__name__}"
    try:
        parse_normalizer(value)
    except InvalidArgument as exc:
        return f"{name}: {exc}"
    return None


# Each key of the metadata: whether it must be there, and its check.
METADATA_SCHEMA: dict[str, tuple[bool, NamedCheck]] = {
    "format": (True, _named(text)),
    "version": (True, _named(whole(1))),
    "order": (False, _named(one_of("first-seen"))),
    "pretokenizer": (True, _named(text)),
    "pattern": (False, _named(lambda v: None if v is None else text(v))),
    "special_tokens": (False, _special_tokens),
    "invalid_utf8": (False, _named(one_of("strict", "replace"))),
    "corpus_bytes": (False, _named(whole(0))),
    "text_bytes": (False, _named(whole(0))),
    "files": (False, _files),
    "tokviz_version": (False, _named(text)),
    "parts": (False, _named(whole(1))),
    "unique": (False, _named(whole(0))),
    "total": (False, _named(whole(0))),
    "records": (False, _records),
    "normalizer": (False, _normalizer),
}


def check_keys(
    values: Mapping[str, Any], schema: Mapping[str, tuple[bool, NamedCheck]], where: str
) -> str | None:
    """What is wrong with the first key of ``values`` that breaks ``schema`` (None when all hold).

    Keys the schema does not name are left alone: a later tokviz may add some.
    """
    for key, (required, check) in schema.items():
        name = f"{where}.{key!r}" if where else repr(key)
        if key not in values:
            if required:
                return f"{name} is missing"
            continue
        problem = check(values[key], name)
        if problem:
            return problem
    return None


def parse_count(cell: str) -> int | None:
    """A TSV count cell as a whole number of 1 to :data:`MAX_COUNT`, or None when it is not one.

    Only ASCII digits count (``'²'.isdigit()`` is true, but ``int('²')`` fails), and a cell longer
    than the bound's digits is refused before it is converted (5,000 digits would be slow to read).
    """
    if not cell or len(cell) > _MAX_DIGITS or not cell.isascii() or not cell.isdigit():
        return None
    n = int(cell)
    return n if 1 <= n <= MAX_COUNT else None


def count_problem(value: object) -> str | None:
    """Why ``value`` is not a count a table can hold (None when it is one)."""
    if _is_whole(value) and 1 <= value <= MAX_COUNT:  # type: ignore[operator]
        return None
    return f"the count {value!r} is not a whole number from {MAX_COUNT_TEXT}"


def shown_cell(cell: str) -> str:
    """A cell as a message quotes it: at most 20 characters, then an ellipsis."""
    return repr(cell if len(cell) <= 20 else cell[:20] + "…")
