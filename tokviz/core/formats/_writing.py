"""What every writer shares: text encoded for a file, and writing one output through the checks.

Each format renders its file(s) to bytes first (``*_bytes`` functions), so a run can check all of
its outputs, render them all (a vocabulary the format cannot hold fails here, before anything is
written) and then commit them together with :class:`tokviz.core.io.outputs.OutputWriter`.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from ..errors import ExportError
from ..io.outputs import Output, write_outputs
from ._common import PathLike, _short


def encode_text(text: str, what: str) -> bytes:
    """UTF-8 bytes of a file's text; a lone surrogate is an :class:`ExportError` naming ``what``."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ExportError(
            f"cannot write {what}: {exc.reason} in {_short(exc.object[exc.start : exc.end])}"
        ) from None


def write_one(output: Output, data: bytes | Mapping[str, bytes]) -> None:
    """Check one output and write it atomically (a folder's files all together)."""
    write_outputs([(output, data)])


def write_file(path: PathLike, what: str, data: bytes) -> Path:
    """Check one file (``what`` names it in messages), write it atomically and return its path."""
    write_one(Output.file(path, what), data)
    return Path(path)
