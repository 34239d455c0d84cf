"""File paths recorded in JSON (a model's corpus files, a count table's files) without loss.

On Linux a file name is bytes, and a name that is not UTF-8 (``z\\xff.txt``) reaches Python as a
``str`` holding lone surrogates, which UTF-8 JSON cannot hold. Such a path is recorded as a
readable ``"path"`` (each undecodable byte written ``\\xNN``) plus ``"path_bytes"``, the name's
exact bytes as hex; reading the record back gives the very ``str`` that was recorded, so the file
can be opened and hashed again. A UTF-8 path is recorded as its text alone, as before.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

PATH_BYTES_KEY = "path_bytes"
_HEX = re.compile(r"(?:[0-9a-fA-F]{2})+")


def path_fields(path: str | os.PathLike[str]) -> dict[str, str]:
    """``{"path": text}``, plus ``"path_bytes"`` (hex) when the path's bytes are not UTF-8."""
    text = os.fspath(path)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raw = os.fsencode(text) if os.name == "posix" else text.encode("utf-8", "surrogatepass")
        return {"path": raw.decode("utf-8", "backslashreplace"), PATH_BYTES_KEY: raw.hex()}
    return {"path": text}


def recorded_path(entry: Mapping[str, Any]) -> Any:
    """The path a record made by :func:`path_fields` holds (its ``"path"`` when it has no bytes)."""
    raw = entry.get(PATH_BYTES_KEY)
    if isinstance(raw, str) and _HEX.fullmatch(raw):
        data = bytes.fromhex(raw)
        return os.fsdecode(data) if os.name == "posix" else data.decode("utf-8", "surrogatepass")
    return entry.get("path")


def recorded_entry(entry: Mapping[str, Any]) -> dict[str, Any]:
    """One file's record ready for JSON: its ``path`` replaced by :func:`path_fields`."""
    out = dict(entry)
    if isinstance(out.get("path"), str):
        out.pop(PATH_BYTES_KEY, None)
        fields = path_fields(out.pop("path"))
        out = {**fields, **out}
    return out


def read_entry(entry: Mapping[str, Any]) -> dict[str, Any]:
    """One file's record as read from JSON: ``path`` is the recorded path again, ``path_bytes`` dropped."""
    out = dict(entry)
    if PATH_BYTES_KEY in out:
        out["path"] = recorded_path(out)
        del out[PATH_BYTES_KEY]
    return out
