"""One entry point for every tokenizer tokviz can show: a built-in name or a file or folder.

Built-ins are the pure byte tokenizer and the bundled GPT-2 (r50k_base), cl100k_base and
o200k_base (GPT-4o) encodings. The bundled ones are built once per process (tiktoken encodes; their merge lists are
recovered only when something asks for them), so asking again is free.
"""

from __future__ import annotations

import json
import os
import re
import threading
import weakref
from collections.abc import Callable, Mapping
from pathlib import Path

from ..bpe.merges import MergeStep
from ..bpe.tokenizer import Tokenizer
from ..errors import TokenizerLoadError
from . import (
    hf_from_json,
    model_from_json,
    model_from_text,
    tokenizer_from_ranks,
)
from ._common import (
    ANY_TOKENIZER_FILE_CAP,
    MODEL_FORMAT,
    TIKTOKEN_CAP,
    _decode_text,
    _parse_json,
    _read_file,
    json_kind,
)
from ._reach import load_warnings as load_warnings  # re-exported: the GUI and CLI show them
from ._reach import remember_warnings
from .encoding_names import encoding_aliases
from .engine_record import attach_record
from .hf_config import sentencepiece_class_assumption
from .hf_folder import load_vocab_merges, load_wordpiece_vocab
from .hf_json import with_folder_assumptions
from .tekken_file import is_tekken, tekken_from_json
from .tiktoken_file import SpecialTokens, tiktoken_from_data

# A tokviz model file's format member: inside a JSON string a quote is escaped, so this can only be
# a member of an object (in every file tokviz writes, the first of the top level).
_MODEL_FORMAT_MEMBER = re.compile(rb'"format"\s*:\s*"' + MODEL_FORMAT.encode() + rb'"')

BUILTIN_TOKENIZERS = ("bytes", "gpt2", "cl100k", "o200k", "characters", "words")

# The built-ins that are no bundled encoding (encoding_names has those), each with its other names.
_OWN_NAMES = (("bytes", "byte"), ("characters", "chars"), ("words",))
# Every name a built-in answers to -> its key in BUILTIN_TOKENIZERS.
_ALIASES = {alias: names[0] for names in _OWN_NAMES for alias in names} | encoding_aliases(by_short_name=True)
_DISPLAY_NAMES = {"gpt2": "GPT-2", "cl100k": "cl100k", "o200k": "o200k"}

_lock = threading.Lock()
_cache: dict[str, Tokenizer] = {}
# The training history that came with a tokviz model file, for as long as its tokenizer lives.
_histories: weakref.WeakKeyDictionary[Tokenizer, tuple[MergeStep, ...]] = weakref.WeakKeyDictionary()


def merge_history(tokenizer: Tokenizer) -> tuple[MergeStep, ...]:
    """The merge records (counts, ties, corpus tokens) a model file was saved with; () for others."""
    return _histories.get(tokenizer, ())


def is_builtin(spec: str) -> bool:
    """Whether ``spec`` names a built-in tokenizer (``bytes``, ``gpt2``, ``cl100k``, ``o200k``, ... or an alias)."""
    return spec.strip().lower() in _ALIASES


def byte_tokenizer() -> Tokenizer:
    """The pure byte tokenizer: 256 ids, one per byte value, no merges, no pre-tokenizer."""
    return Tokenizer({b: bytes([b]) for b in range(256)}, [], pretokenizer="none", name="bytes")


def _bundled(key: str) -> Tokenizer:
    from .encodings import bundled_encoding, bundled_ranks_view

    encoding = bundled_encoding(key)
    return tokenizer_from_ranks(
        bundled_ranks_view(key), dict(encoding.special_tokens), encoding.pattern, name=_DISPLAY_NAMES[key]
    )


def _lecture(key: str) -> Tokenizer:
    from ..bpe.lecture_tokenizers import character_tokenizer, default_words_tokenizer

    return character_tokenizer() if key == "characters" else default_words_tokenizer()


_BUILDERS: dict[str, Callable[[], Tokenizer]] = {
    "bytes": byte_tokenizer,
    "gpt2": lambda: _bundled("gpt2"),
    "cl100k": lambda: _bundled("cl100k"),
    "o200k": lambda: _bundled("o200k"),
    # The lecture's tokenizers that fail (core/bpe/lecture_tokenizers.py); ``words`` reads tokviz's word
    # list here; the CLI and the GUI may build it from the input text or a corpus instead.
    "characters": lambda: _lecture("characters"),
    "words": lambda: _lecture("words"),
}


def builtin_tokenizer(name: str) -> Tokenizer:
    """A built-in tokenizer by name (``bytes``, ``gpt2``/``r50k_base``, ``cl100k``/``cl100k_base``,
    ``o200k``/``o200k_base``/``gpt-4o``, ``characters``, ``words``).

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


def load_tokenizer(
    name_or_path: str | os.PathLike[str],
    *,
    pattern: str | None = None,
    special_tokens: SpecialTokens | None = None,
) -> Tokenizer:
    """Load a built-in tokenizer by name, or a tokenizer file or folder of any supported kind.

    Files: a tokviz model file (JSON with ``"format": "tokviz-model"``), any Hugging Face
    ``tokenizer.json`` (the ``tokenizers`` library encodes it), a folder as ``transformers`` saves
    it (``tokenizer.json`` first, else ``vocab.json`` + ``merges.txt`` with ``added_tokens.json``,
    ``special_tokens_map.json`` and ``tokenizer_config.json``; either file of the pair names it too;
    or BERT's ``vocab.txt``),
    a ``.tiktoken`` rank file, or a SentencePiece ``.model``. Raises :class:`TokenizerLoadError` saying what was tried. Only
    regular files are read, each with a size cap; :func:`load_warnings` tells what the loader
    found doubtful in a file that still loaded (some tokens no merge makes).

    ``pattern`` (a regex or gpt2/cl100k/o200k) and ``special_tokens`` (``{text: id}``, an id of
    None or a bare text taking the next free id) say what a rank file cannot: a ``.tiktoken`` file
    takes them instead of its sidecar's or a guess, and so does a vocab.json + merges.txt pair. Other kinds carry their own pattern; they take
    extra special tokens by text.
    """
    if pattern is not None or special_tokens is not None:
        return _load_with(name_or_path, pattern, special_tokens)
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
    """A folder as transformers saves it (tokenizer.json first), or one rank file or .model."""
    if (folder / "tokenizer.json").is_file():
        return _load_file(folder / "tokenizer.json")
    if (folder / "vocab.json").exists() and (folder / "merges.txt").exists():
        return load_vocab_merges(folder / "vocab.json", folder / "merges.txt")
    if (folder / "vocab.txt").is_file():
        return load_wordpiece_vocab(folder / "vocab.txt")
    tiktoken_files = sorted(folder.glob("*.tiktoken"))
    if len(tiktoken_files) == 1:
        return _load_tiktoken(tiktoken_files[0])
    spm_files = sorted(folder.glob("*.model"))
    if not spm_files:  # Mistral's names: tokenizer.model.v1, ...model.v3
        spm_files = [p for p in sorted(folder.glob("*.model.*")) if _starts_like_model_proto(p)]
    if len(spm_files) == 1:
        tok = _load_file(spm_files[0])
        assumed = sentencepiece_class_assumption(folder)
        if assumed is not None:
            tok.assumptions = (*tok.assumptions, assumed)
        return tok
    several = spm_files if len(spm_files) > 1 else tiktoken_files if len(tiktoken_files) > 1 else []
    if several:
        names = ", ".join(p.name for p in several[:4]) + (", ..." if len(several) > 4 else "")
        raise TokenizerLoadError(
            f"{folder} holds {len(several)} tokenizer files ({names}): open one of them by its path"
        )
    raise TokenizerLoadError(
        f"{folder} holds no tokenizer: looked for vocab.json + merges.txt, tokenizer.json, BERT's "
        "vocab.txt, a single .tiktoken file and a single SentencePiece .model file"
    )


def _vocab_merges_pair(path: Path) -> tuple[Path, Path] | None:
    """The vocab.json + merges.txt a path names (the pair's folder, or either file), else None."""
    if path.is_dir():
        if (path / "tokenizer.json").is_file():
            return None
        pair = (path / "vocab.json", path / "merges.txt")
        return pair if pair[0].exists() and pair[1].exists() else None
    name = path.name.lower()
    if name not in ("vocab.json", "merges.txt"):
        return None
    return path.with_name("vocab.json"), path.with_name("merges.txt")


def _load_with(
    name_or_path: str | os.PathLike[str], pattern: str | None, special_tokens: SpecialTokens | None
) -> Tokenizer:
    """:func:`load_tokenizer` with a pattern or special tokens given (see there)."""
    path = Path(name_or_path)
    pair = _vocab_merges_pair(path)
    if pair is not None and pair[0].exists() and pair[1].exists():
        return load_vocab_merges(*pair, pattern=pattern, special_tokens=special_tokens)
    if path.is_dir():
        found = sorted(path.glob("*.tiktoken"))
        if len(found) == 1 and not (path / "tokenizer.json").exists() and not (path / "vocab.json").exists():
            path = found[0]
    if path.is_file() and (path.suffix.lower() == ".tiktoken" or _looks_like_ranks(path)):
        data = _read_file(path, TokenizerLoadError, TIKTOKEN_CAP)
        return tiktoken_from_data(data, path, pattern=pattern, special_tokens=special_tokens, name=path.stem)
    tokenizer = load_tokenizer(name_or_path)
    shown = str(name_or_path)
    if pattern is not None:
        raise TokenizerLoadError(
            f"{shown} carries its own pre-tokenizer; a pattern is given only to a .tiktoken rank file "
            "or a vocab.json + merges.txt pair"
        )
    given = (
        special_tokens.items()
        if isinstance(special_tokens, Mapping)
        else ((s, None) for s in special_tokens or ())
    )
    extra: list[str] = []
    for text, token_id in given:
        known = tokenizer.special_tokens.get(text)
        if token_id is not None and known != token_id:
            raise TokenizerLoadError(
                f"{shown}: special token {text!r} can get an id ({token_id}) only in a .tiktoken rank file; "
                "give it without =ID"
            )
        if known is None:
            extra.append(text)
    if not extra:
        return tokenizer
    return remember_warnings(tokenizer.with_special_tokens(extra), load_warnings(tokenizer))


def _looks_like_ranks(path: Path) -> bool:
    """Whether a file without the .tiktoken extension starts like a rank file (base64, space, digits)."""
    with open(path, "rb") as f:
        head = f.read(256).split(b"\n", 1)[0].rstrip(b"\r").split(b" ")
    return len(head) == 2 and head[1].isdigit() and not head[0].startswith((b"{", b"["))


def _load_tiktoken(path: Path) -> Tokenizer:
    """A rank file; its pattern and specials come from a sidecar or OpenAI's published files, or are assumed."""
    return _tiktoken_from(_read_file(path, TokenizerLoadError, TIKTOKEN_CAP), path)


def _tiktoken_from(data: bytes, path: Path) -> Tokenizer:
    return tiktoken_from_data(data, path, name=path.stem)


def _head(path: Path, size: int) -> bytes:
    """The first ``size`` bytes of a regular file; b"" for anything else (a FIFO is never opened)."""
    try:
        if not path.is_file():
            return b""
        with open(path, "rb") as f:
            return f.read(size)
    except OSError:
        return b""


def _is_sentencepiece(path: Path) -> bool:
    """A ``.model`` file that is not JSON (a tokviz model file may be named ``x.model`` too)."""
    head = _head(path, 64)
    # A ModelProto starts with its first piece (field 1, length-delimited: byte 0x0A); JSON text
    # that happens to start with a newline starts with a JSON value after it.
    first = head.strip()[:1]
    return head[:1] == b"\n" and not (first == b"{" or (first and first[0] in _JSON_STARTS))


# What a JSON document can start with, besides an object's "{".
_JSON_STARTS = tuple(b'["-0123456789') + tuple(b"ntf")


def _starts_like_model_proto(path: Path) -> bool:
    """Whether a file of any name starts as a SentencePiece ModelProto does.

    Mistral ships its models as ``tokenizer.model.v1`` or ``...model.v3``, so the extension cannot
    decide. The first piece is field 1 (``0x0A``, a length) holding a SentencePiece whose first
    field is its text (``0x0A`` again, a shorter length), which no text format starts with.
    """
    head = _head(path, 16)

    def varint(at: int) -> tuple[int, int]:
        value = shift = 0
        while at < len(head) and shift < 35:
            byte = head[at]
            value |= (byte & 0x7F) << shift
            at += 1
            if not byte & 0x80:
                return value, at
            shift += 7
        return -1, at

    if head[:1] != b"\n":
        return False
    outer, at = varint(1)
    if outer <= 0 or head[at : at + 1] != b"\n":
        return False
    inner, _ = varint(at + 1)
    return 0 <= inner < outer


def _load_file(path: Path) -> Tokenizer:
    name = path.name.lower()
    if name in ("vocab.json", "merges.txt"):
        other = path.with_name("merges.txt" if name == "vocab.json" else "vocab.json")
        if not other.exists():  # a partner that is a FIFO or a folder is named by the reader
            raise TokenizerLoadError(
                f"{path.name} needs its partner {other.name} in the same folder ({path.parent})"
            )
        vocab, merges = (path, other) if name == "vocab.json" else (other, path)
        return load_vocab_merges(vocab, merges)
    if name.endswith(".tiktoken"):
        return _load_tiktoken(path)
    if name == "vocab.txt":
        return load_wordpiece_vocab(path)
    if (name.endswith(".model") and _is_sentencepiece(path)) or _starts_like_model_proto(path):
        from .sentencepiece_file import sentencepiece_from_file

        # tokenizer.model.v3 (Mistral's names) is named in full; x.model keeps the loader's naming.
        return attach_record(
            sentencepiece_from_file(path, None if name.endswith(".model") else path.name), path
        )
    return _load_by_content(path)


def _load_by_content(path: Path) -> Tokenizer:
    """A file whose name does not say its format: one bounded read (FIFOs and devices are refused
    before opening), then a JSON object is a model or a Hugging Face tokenizer, anything else a rank file."""
    data = _read_file(path, TokenizerLoadError, ANY_TOKENIZER_FILE_CAP)
    head = data[:64].removeprefix(b"\xef\xbb\xbf").lstrip()
    if not head.startswith(b"{"):
        return _load_not_json_object(data, head, path)
    if _MODEL_FORMAT_MEMBER.search(
        data
    ):  # a tokviz model: read member by member, counts checked as they come
        loaded = model_from_text(_decode_text(data, path.name, TokenizerLoadError), path.name)
        if loaded.history:
            _histories[loaded.tokenizer] = tuple(loaded.history)
        return loaded.tokenizer
    parsed = _parse_json(data, path.name, TokenizerLoadError)
    if isinstance(parsed, dict) and "format" in parsed:
        loaded = model_from_json(parsed, path.name)
        if loaded.history:
            _histories[loaded.tokenizer] = tuple(loaded.history)
        return loaded.tokenizer
    if isinstance(parsed, dict) and "model" in parsed:
        text = data.decode("utf-8").removeprefix("\ufeff")  # valid: it parsed above
        tok = hf_from_json(parsed, path.name, path.parent.name or path.stem, source=text)
        return attach_record(with_folder_assumptions(tok, path), path)
    if is_tekken(parsed):
        return tekken_from_json(parsed, path.name, path.stem)
    raise TokenizerLoadError(
        f'{path.name} is JSON but neither a tokviz model file (no "format") nor a Hugging Face '
        'tokenizer (no "model"); a vocab.json must be named vocab.json next to merges.txt'
    )


def _load_not_json_object(data: bytes, head: bytes, path: Path) -> Tokenizer:
    """Other JSON (a list, a string) is refused as such; the only text format left is a rank file
    with another extension."""
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
    try:
        return _tiktoken_from(data, path)
    except TokenizerLoadError as exc:
        reason = str(exc).removeprefix(f"{path.name}").lstrip(":, ")
        raise TokenizerLoadError(
            f"{path.name} is not a tokenizer file tokviz knows: not JSON (a tokviz model or a Hugging Face tokenizer), "
            f"and not a .tiktoken rank file ({reason})"
        ) from None
