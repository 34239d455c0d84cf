"""One entry point for every tokenizer tokviz can show: a built-in name or a file or folder.

Built-ins are the pure byte tokenizer and the bundled GPT-2 (r50k_base) and cl100k_base
encodings. The bundled ones are built once per process (tiktoken encodes; their merge lists are
recovered only when something asks for them), so asking again is free.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Callable
from pathlib import Path

from .errors import TokenizerLoadError
from .formats import (
    MAX_FILE_BYTES,
    hf_from_json,
    load_tiktoken_file,
    model_from_json,
    read_json,
    tokenizer_from_files,
    tokenizer_from_ranks,
)
from .tokenizer import Tokenizer

BUILTIN_TOKENIZERS = ("bytes", "gpt2", "cl100k")

_ALIASES = {
    "bytes": "bytes",
    "byte": "bytes",
    "gpt2": "gpt2",
    "gpt-2": "gpt2",
    "r50k": "gpt2",
    "r50k_base": "gpt2",
    "cl100k": "cl100k",
    "cl100k_base": "cl100k",
}
_DISPLAY_NAMES = {"gpt2": "GPT-2", "cl100k": "cl100k"}

_lock = threading.Lock()
_cache: dict[str, Tokenizer] = {}


def byte_tokenizer() -> Tokenizer:
    """The pure byte tokenizer: 256 ids, one per byte value, no merges, no pre-tokenizer."""
    return Tokenizer({b: bytes([b]) for b in range(256)}, [], pretokenizer="none", name="bytes")


def _bundled(key: str) -> Tokenizer:
    from .encodings import bundled_encoding, load_bundled_ranks

    encoding = bundled_encoding(key)
    return tokenizer_from_ranks(
        load_bundled_ranks(key), dict(encoding.special_tokens), encoding.pattern, name=_DISPLAY_NAMES[key]
    )


_BUILDERS: dict[str, Callable[[], Tokenizer]] = {
    "bytes": byte_tokenizer,
    "gpt2": lambda: _bundled("gpt2"),
    "cl100k": lambda: _bundled("cl100k"),
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
    Face ``tokenizer.json``. Raises :class:`TokenizerLoadError` saying what was tried.
    """
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
    if (folder / "vocab.json").is_file() and (folder / "merges.txt").is_file():
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
    from .encodings import BUNDLED

    # Only files of a published encoding's size range are hashed; others cannot match anyway.
    if path.stat().st_size < 64 << 20:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        for encoding in BUNDLED.values():
            if encoding.sha256 == digest:
                return load_tiktoken_file(
                    path, encoding.pattern, dict(encoding.special_tokens), name=path.stem
                )
    return load_tiktoken_file(path)


def _load_file(path: Path) -> Tokenizer:
    name = path.name.lower()
    if name in ("vocab.json", "merges.txt"):
        other = path.with_name("merges.txt" if name == "vocab.json" else "vocab.json")
        if not other.is_file():
            raise TokenizerLoadError(
                f"{path.name} needs its partner {other.name} in the same folder ({path.parent})"
            )
        vocab, merges = (path, other) if name == "vocab.json" else (other, path)
        return tokenizer_from_files(vocab, merges)
    if name.endswith(".tiktoken"):
        return _load_tiktoken(path)
    if path.stat().st_size > MAX_FILE_BYTES:
        raise TokenizerLoadError(f"{path.name}: the file is over 2 GB; files that large are refused")
    with path.open("rb") as f:
        head = f.read(64).lstrip()
    if not head.startswith(b"{"):
        # Not JSON: the only text format left is a rank file with another extension.
        try:
            return load_tiktoken_file(path)
        except TokenizerLoadError as exc:
            raise TokenizerLoadError(
                f"{path.name} is not a tokenizer file tokviz knows: not JSON (a tokviz model or tokenizer.json), "
                f"and not a .tiktoken rank file ({exc})"
            ) from None
    data = read_json(path, TokenizerLoadError)
    if isinstance(data, dict) and "format" in data:
        return model_from_json(data, path.name).tokenizer
    if isinstance(data, dict) and "model" in data:
        return hf_from_json(data, path.name, path.parent.name or path.stem)
    raise TokenizerLoadError(
        f'{path.name} is JSON but neither a tokviz model file (no "format") nor a Hugging Face '
        'tokenizer.json (no "model"); a vocab.json must be named vocab.json next to merges.txt'
    )
