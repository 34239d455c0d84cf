"""One entry point for every tokenizer tokviz can show: a built-in name or a file or folder.

Built-ins are the pure byte tokenizer and the bundled GPT-2 (r50k_base) and cl100k_base
encodings. The bundled ones are built once per process (tiktoken encodes; their merge lists are
recovered only when something asks for them), so asking again is free.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import weakref
from collections.abc import Callable
from pathlib import Path

from .errors import TokenizerLoadError
from .formats import (
    hf_from_json,
    model_from_json,
    tokenizer_from_files,
    tokenizer_from_ranks,
)
from .formats._common import (
    ANY_TOKENIZER_FILE_CAP,
    TIKTOKEN_CAP,
    _parse_json,
    _read_file,
    json_kind,
)
from .formats._reach import load_warnings as load_warnings  # re-exported: the GUI and CLI show them
from .formats.tiktoken_file import tiktoken_from_data
from .merges import MergeStep
from .tokenizer import Tokenizer

BUILTIN_TOKENIZERS = ("bytes", "gpt2", "cl100k", "characters", "words")

_ALIASES = {
    "bytes": "bytes",
    "byte": "bytes",
    "gpt2": "gpt2",
    "gpt-2": "gpt2",
    "r50k": "gpt2",
    "r50k_base": "gpt2",
    "cl100k": "cl100k",
    "cl100k_base": "cl100k",
    "characters": "characters",
    "chars": "characters",
    "words": "words",
}
_DISPLAY_NAMES = {"gpt2": "GPT-2", "cl100k": "cl100k"}

_lock = threading.Lock()
_cache: dict[str, Tokenizer] = {}
# The training history that came with a tokviz model file, for as long as its tokenizer lives.
_histories: weakref.WeakKeyDictionary[Tokenizer, tuple[MergeStep, ...]] = weakref.WeakKeyDictionary()


def merge_history(tokenizer: Tokenizer) -> tuple[MergeStep, ...]:
    """The merge records (counts, ties, corpus tokens) a model file was saved with; () for others."""
    return _histories.get(tokenizer, ())


def is_builtin(spec: str) -> bool:
    """Whether ``spec`` names a bundled tokenizer (``bytes``, ``gpt2``, ``cl100k`` or an alias)."""
    return spec.strip().lower() in _ALIASES


def byte_tokenizer() -> Tokenizer:
    """The pure byte tokenizer: 256 ids, one per byte value, no merges, no pre-tokenizer."""
    return Tokenizer({b: bytes([b]) for b in range(256)}, [], pretokenizer="none", name="bytes")


def _bundled(key: str) -> Tokenizer:
    from .encodings import bundled_encoding, load_bundled_ranks

    encoding = bundled_encoding(key)
    return tokenizer_from_ranks(
        load_bundled_ranks(key), dict(encoding.special_tokens), encoding.pattern, name=_DISPLAY_NAMES[key]
    )


def _lecture(key: str) -> Tokenizer:
    from .lecture_tokenizers import character_tokenizer, default_words_tokenizer

    return character_tokenizer() if key == "characters" else default_words_tokenizer()


_BUILDERS: dict[str, Callable[[], Tokenizer]] = {
    "bytes": byte_tokenizer,
    "gpt2": lambda: _bundled("gpt2"),
    "cl100k": lambda: _bundled("cl100k"),
    # The lecture's tokenizers that fail (core/lecture_tokenizers.py); ``words`` is built from
    # tokviz's English sample here, and from the input text or a corpus by the CLI and the GUI.
    "characters": lambda: _lecture("characters"),
    "words": lambda: _lecture("words"),
}


def builtin_tokenizer(name: str) -> Tokenizer:
    """A built-in tokenizer by name (``bytes``, ``gpt2``/``r50k_base``, ``cl100k``/``cl100k_base``).

    Each is built once per process, under a lock so that two threads asking at once share it.
    """
    key = _ALIASES.get(name.strip().lower())
    if key is None:
        raise TokenizerLoadError(
            f"{name!r} is not a built-in tokenizer; choose one of {', '.join(BUILTIN_TOKENIZERS)}"
        )
    with _lock:
        tokenizer = _cache.get(key)
        if tokenizer is None:
            tokenizer = _cache[key] = _BUILDERS[key]()
    return tokenizer


def load_tokenizer(name_or_path: str | os.PathLike[str]) -> Tokenizer:
    """Load a built-in tokenizer by name, or a tokenizer file or folder of any supported kind.

    Files: a tokviz model file (JSON with ``"format": "tokviz-model"``), a GPT-2 ``vocab.json`` +
    ``merges.txt`` pair (either file, or their folder), a ``.tiktoken`` rank file, or a Hugging
    Face ``tokenizer.json``. Raises :class:`TokenizerLoadError` saying what was tried. Only
    regular files are read, each with a size cap; :func:`load_warnings` tells what the loader
    found doubtful in a file that still loaded (some tokens no merge makes).
    """
    if not isinstance(name_or_path, str | os.PathLike):
        raise TokenizerLoadError(
            f"a tokenizer is named by a string or a path, not {type(name_or_path).__name__}"
        )
    if isinstance(name_or_path, str) and name_or_path.strip().lower() in _ALIASES:
        return builtin_tokenizer(name_or_path)
    path = Path(name_or_path)
    if not path.exists():
        raise TokenizerLoadError(
            f"{str(name_or_path)!r} is neither a built-in tokenizer ({', '.join(BUILTIN_TOKENIZERS)}) "
            "nor an existing file or folder"
        )
    if path.is_dir():
        return _load_folder(path)
    return _load_file(path)


def _load_folder(folder: Path) -> Tokenizer:
    if (folder / "vocab.json").exists() and (folder / "merges.txt").exists():
        return tokenizer_from_files(folder / "vocab.json", folder / "merges.txt")
    if (folder / "tokenizer.json").is_file():
        return _load_file(folder / "tokenizer.json")
    tiktoken_files = sorted(folder.glob("*.tiktoken"))
    if len(tiktoken_files) == 1:
        return _load_tiktoken(tiktoken_files[0])
    raise TokenizerLoadError(
        f"{folder} holds no tokenizer: looked for vocab.json + merges.txt, tokenizer.json "
        "and a single .tiktoken file"
    )


def _load_tiktoken(path: Path) -> Tokenizer:
    """A rank file; a copy of a published encoding (same SHA-256) gets its own pattern and specials."""
    return _tiktoken_from(_read_file(path, TokenizerLoadError, TIKTOKEN_CAP), path)


def _tiktoken_from(data: bytes, path: Path) -> Tokenizer:
    from .encodings import BUNDLED

    digest = hashlib.sha256(data).hexdigest()
    for encoding in BUNDLED.values():
        if encoding.sha256 == digest:
            return tiktoken_from_data(
                data, path.name, encoding.pattern, dict(encoding.special_tokens), name=path.stem
            )
    return tiktoken_from_data(data, path.name, name=path.stem)


# What a JSON document can start with, besides an object's "{".
_JSON_STARTS = tuple(b'["-0123456789') + tuple(b"ntf")


def _load_file(path: Path) -> Tokenizer:
    name = path.name.lower()
    if name in ("vocab.json", "merges.txt"):
        other = path.with_name("merges.txt" if name == "vocab.json" else "vocab.json")
        if not other.exists():  # a partner that is a FIFO or a folder is named by the reader
            raise TokenizerLoadError(
                f"{path.name} needs its partner {other.name} in the same folder ({path.parent})"
            )
        vocab, merges = (path, other) if name == "vocab.json" else (other, path)
        return tokenizer_from_files(vocab, merges)
    if name.endswith(".tiktoken"):
        return _load_tiktoken(path)
    # One bounded read of a regular file (FIFOs and devices are refused before opening), then sniff.
    data = _read_file(path, TokenizerLoadError, ANY_TOKENIZER_FILE_CAP)
    head = data[:64].removeprefix(b"\xef\xbb\xbf").lstrip()
    if not head.startswith(b"{"):
        if head[:1] and head[0] in _JSON_STARTS:
            try:
                value = json.loads(data.decode("utf-8").removeprefix("\ufeff"))
            except (ValueError, RecursionError):
                pass
            else:
                raise TokenizerLoadError(
                    f"{path.name}: expected a JSON object (a tokviz model or a Hugging Face tokenizer), "
                    f"found {json_kind(value)}"
                )
        # Not JSON: the only text format left is a rank file with another extension.
        try:
            return _tiktoken_from(data, path)
        except TokenizerLoadError as exc:
            reason = str(exc).removeprefix(f"{path.name}").lstrip(":, ")
            raise TokenizerLoadError(
                f"{path.name} is not a tokenizer file tokviz knows: not JSON (a tokviz model or a Hugging Face tokenizer), "
                f"and not a .tiktoken rank file ({reason})"
            ) from None
    parsed = _parse_json(data, path.name, TokenizerLoadError)
    if isinstance(parsed, dict) and "format" in parsed:
        loaded = model_from_json(parsed, path.name)
        if loaded.history:
            _histories[loaded.tokenizer] = tuple(loaded.history)
        return loaded.tokenizer
    if isinstance(parsed, dict) and "model" in parsed:
        return hf_from_json(parsed, path.name, path.parent.name or path.stem)
    raise TokenizerLoadError(
        f'{path.name} is JSON but neither a tokviz model file (no "format") nor a Hugging Face '
        'tokenizer (no "model"); a vocab.json must be named vocab.json next to merges.txt'
    )
