"""Where a trained model came from: its corpus files (sizes and SHA-256), the tokviz version and the date.

A model file that says which bytes it was trained on can be checked later ("is this the model of
today's corpus?") and trained again exactly. :func:`corpus_record` hashes the files (or the text)
training reads; :func:`make_provenance` adds the version, the date (UTC, ISO 8601) and how the
files were chosen. :func:`provenance_lines` is how ``tokviz info`` and the GUI show it.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from ..corpus.reading import FileRead, hash_file
from ..corpus.sizes import text_and_file_size

# A model file lists at most this many corpus files (the rest are counted, and hashed together).
MAX_LISTED_FILES = 100_000


def tokviz_version() -> str:
    """The installed tokviz's version ("0.1.0"), or a note that it runs from a checkout."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("tokviz-desktop")
    except PackageNotFoundError:
        return "unknown (running from a checkout)"


def utc_now() -> str:
    """The current time in UTC as ISO 8601 to the second ("2026-11-30T19:20:05Z").

    ``SOURCE_DATE_EPOCH`` (seconds since 1970, the reproducible-builds convention) replaces the
    clock when set, so two runs on the same corpus can write byte-identical model files.
    """
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    moment = datetime.fromtimestamp(int(epoch), UTC) if epoch.isdigit() else datetime.now(UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def file_sha256(path: str | os.PathLike[str], cancel: Callable[[], bool] | None = None) -> tuple[int, str]:
    """The size in bytes and SHA-256 (hex) of a file as stored on disk, read in 1 MB blocks."""
    return hash_file(path, cancel)


def corpus_record(
    files: Sequence[str | os.PathLike[str]] = (),
    text: str | None = None,
    description: str | None = None,
    cancel: Callable[[], bool] | None = None,
    read: Sequence[FileRead] | None = None,
) -> dict[str, Any]:
    """The corpus part of a model's provenance: each file with its size and SHA-256, and the total.

    ``read`` is what training read (:attr:`~tokviz.core.training.train.TrainResult.files_read`): its sizes
    and hashes are of the bytes trained on, so they are used as they are; ``files`` are hashed
    here otherwise. ``text`` (the editor's text, the Python docs) is recorded by its UTF-8 size
    and hash and by ``description``. Paths are kept as given (relative stays relative, so no home
    folder leaks).
    """
    if text is not None:
        data = text.encode("utf-8", errors="surrogatepass")
        return {
            "text": description or "text",
            "bytes": len(data),
            "sha256": hashlib.sha256(data).hexdigest(),
        }
    if read is None:
        read = [FileRead(os.fspath(path), *file_sha256(path, cancel)) for path in files]
    listed = [f.to_json() for f in read[:MAX_LISTED_FILES]]
    record: dict[str, Any] = {"files": listed, "total_bytes": sum(f.size for f in read)}
    if len(read) > len(listed):
        record["unlisted_files"] = len(read) - len(listed)
    return record


def make_provenance(
    corpus: Mapping[str, Any],
    selection: Mapping[str, Any] | None = None,
    invalid_utf8: str = "strict",
) -> dict[str, Any]:
    """A model's provenance: the tokviz version, the date (UTC), the corpus record and how it was chosen.

    ``selection`` holds the file filters and what they left out (``include``, ``exclude``,
    ``max_file_size``, ``skipped``); ``invalid_utf8`` is ``strict`` or ``replace``.
    """
    out: dict[str, Any] = {
        "tokviz_version": tokviz_version(),
        "created": utc_now(),
        "corpus": dict(corpus),
        "invalid_utf8": invalid_utf8,
    }
    if selection:
        out["selection"] = dict(selection)
    return out


def record_text_bytes(provenance: dict[str, Any], text_bytes: int | None) -> dict[str, Any]:
    """``provenance`` with the bytes of text trained on beside the files' bytes on disk.

    The two differ for compressed files (67.2 MB of text in 55.98 MB of ``.gz``), so the corpus
    record gains ``text_bytes`` then; it is left out where it would only repeat ``total_bytes``
    (older model files have no such key and load as before). See :mod:`tokviz.core.corpus.sizes`.
    """
    corpus = provenance.get("corpus")
    if text_bytes is None or not isinstance(corpus, dict) or corpus.get("total_bytes") in (None, text_bytes):
        return provenance
    return {**provenance, "corpus": {**corpus, "text_bytes": text_bytes}}


def provenance_lines(provenance: Mapping[str, Any], limit: int = 5) -> list[str]:
    """Lines for people (``tokviz info``): date, version, corpus total and the first ``limit`` files."""
    lines: list[str] = []
    if provenance.get("created"):
        lines.append(
            f"trained:        {provenance['created']} with tokviz {provenance.get('tokviz_version', '?')}"
        )
    corpus = provenance.get("corpus")
    if isinstance(corpus, Mapping):
        lines += _corpus_lines(corpus, limit)
    selection = provenance.get("selection")
    if isinstance(selection, Mapping):
        lines += _selection_lines(selection)
    if provenance.get("invalid_utf8") == "replace":
        lines.append("invalid UTF-8:  replaced with U+FFFD")
    return lines


def _corpus_lines(corpus: Mapping[str, Any], limit: int) -> list[str]:
    """The corpus: text by its size and hash, or the file count, total and the first ``limit`` files."""
    lines: list[str] = []
    if "text" in corpus:
        lines.append(
            f"corpus:         {corpus.get('text')} ({_size(corpus.get('bytes'))}, sha256 {str(corpus.get('sha256'))[:16]}…)"
        )
    files = corpus.get("files")
    if not isinstance(files, list):
        return lines
    count = len(files) + int(corpus.get("unlisted_files", 0) or 0)
    lines.append(f"corpus:         {count:,} file{'' if count == 1 else 's'}, {_files_size(corpus)}")
    lines += [
        f"  {entry.get('path')}  {_size(entry.get('bytes'))}  sha256 {str(entry.get('sha256'))[:16]}…"
        for entry in files[:limit]
        if isinstance(entry, Mapping)
    ]
    if count > limit:
        lines.append(f"  … and {count - limit:,} more (tokviz info --format json lists them all)")
    return lines


def _selection_lines(selection: Mapping[str, Any]) -> list[str]:
    """How the files were chosen: the include/exclude patterns, the size cap and what was left out."""
    chosen = [f"--{k.replace('_', '-')} {v}" for k in ("include", "exclude") for v in selection.get(k) or ()]
    if selection.get("max_file_size"):
        chosen.append(f"--max-file-size {selection['max_file_size']}")
    if selection.get("skipped"):
        chosen.append(str(selection["skipped"]))
    return ["selection:      " + "; ".join(chosen)] if chosen else []


def _files_size(corpus: Mapping[str, Any]) -> str:
    """The files' size on disk, with the bytes of their text first when those were recorded."""
    text_bytes, total = corpus.get("text_bytes"), corpus.get("total_bytes")
    if not isinstance(text_bytes, int) or not isinstance(total, int):
        return _size(total)
    return text_and_file_size(text_bytes, total, _size)


def _size(value: object) -> str:
    if not isinstance(value, int):
        return "? bytes"
    if value < 1000:
        return f"{value:,} bytes"
    return f"{value / 1e3:,.1f} kB" if value < 1_000_000 else f"{value / 1e6:,.2f} MB"
