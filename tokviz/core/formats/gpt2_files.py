"""GPT-2 / Hugging Face ``vocab.json`` + ``merges.txt``, written with GPT-2's byte-to-unicode map."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..bpe.tokenizer import Tokenizer
from ..errors import TokenizerLoadError
from ..io.outputs import Output, mismatched_files
from ..pretok.bytes_ import bytes_to_gpt2_str, gpt2_str_to_bytes
from ..pretok.pretokenize import Pretokenizer
from ._common import (
    GPT2_MERGES_HEADER,
    MAX_ID,
    MERGES_TXT_CAP,
    VOCAB_JSON_CAP,
    PathLike,
    _byte_level_strings,
    _check_count,
    _decode_text,
    _is_int,
    _parse_json,
    _read_file,
    _short,
    json_kind,
)
from ._reach import judge_reach, remember_warnings, unmade
from ._writing import encode_text, write_one

GPT2_FILES = ("vocab.json", "merges.txt")


def export_gpt2(tokenizer: Tokenizer, directory: PathLike) -> tuple[Path, Path]:
    """Write ``vocab.json`` and ``merges.txt`` into ``directory`` together (never one old, one new).

    A new folder appears whole in one rename; in an existing one the pair comes with a checksum
    manifest the loader verifies (see :mod:`tokviz.core.io.outputs`). Returns the two paths.
    """
    folder = Path(directory)
    write_one(Output.folder(folder, "the GPT-2 export", GPT2_FILES), gpt2_file_bytes(tokenizer))
    return folder / "vocab.json", folder / "merges.txt"


def gpt2_file_bytes(tokenizer: Tokenizer) -> dict[str, bytes]:
    """``vocab.json`` and ``merges.txt`` (GPT-2's layout, ``#version: 0.2``) as ``{name: bytes}``.

    Token bytes use GPT-2's printable byte map; special tokens are written as their own text.
    """
    table = _byte_level_strings(tokenizer, "vocab.json")
    lines = [GPT2_MERGES_HEADER]
    lines.extend(f"{bytes_to_gpt2_str(a)} {bytes_to_gpt2_str(b)}" for a, b in tokenizer.merges)
    return {
        "vocab.json": encode_text(json.dumps(table, ensure_ascii=False) + "\n", "vocab.json"),
        "merges.txt": encode_text("\n".join(lines) + "\n", "merges.txt"),
    }


def tokenizer_from_files(
    vocab_json: PathLike,
    merges_txt: PathLike,
    special_tokens: Mapping[str, int] | Sequence[str] | None = None,
    pretokenizer: str = "gpt2",
    name: str | None = None,
) -> Tokenizer:
    """Load a GPT-2 style ``vocab.json`` + ``merges.txt`` pair into tokviz's own BPE, keeping the ids.

    With ``special_tokens=None`` every vocabulary entry that is neither a single byte nor made by
    a merge (GPT-2's ``<|endoftext|>``) is taken as a special token, the only way it can be used.
    The pair alone, with any ``pretokenizer``: :func:`tokviz.core.formats.registry.load_tokenizer` opens
    folders with :func:`.hf_folder.load_vocab_merges` instead, which reads the side files
    ``transformers`` writes and lets the ``tokenizers`` library encode.
    """
    vocab_path, merges_path = Path(vocab_json), Path(merges_txt)
    raw_vocab, merges = read_vocab_merges(vocab_path, merges_path)
    return _byte_level_tokenizer(
        raw_vocab,
        merges,
        vocab_path.name,
        special_tokens,
        pretokenizer,
        name or vocab_path.parent.name or vocab_path.stem,
        merges_name=merges_path.name,
    )


def read_vocab_merges(vocab_path: Path, merges_path: Path) -> tuple[Any, list[tuple[str, str]]]:
    """The parsed JSON of ``vocab.json`` (not yet checked) and the merges of ``merges.txt``.

    Both files are read with bounded reads of regular files first (a FIFO or a device is refused
    before anything opens it), and a pair from two different exports (half of an interrupted one)
    is refused before either is parsed.
    """
    vocab_data = _read_file(vocab_path, TokenizerLoadError, VOCAB_JSON_CAP)
    merges_data = _read_file(merges_path, TokenizerLoadError, MERGES_TXT_CAP)
    mismatch = mismatched_files([vocab_path, merges_path])
    if mismatch is not None:
        raise TokenizerLoadError(mismatch)
    return _parse_json(vocab_data, vocab_path.name, TokenizerLoadError), _parse_merges_txt(
        merges_data, merges_path.name
    )


def _parse_merges_txt(data: bytes, name: str) -> list[tuple[str, str]]:
    text = _decode_text(data, name, TokenizerLoadError)
    lines = text.split("\n")
    if lines and lines[0].startswith("#version"):
        lines = lines[1:]
    _check_count(len(lines), "lines", name, TokenizerLoadError)
    merges: list[tuple[str, str]] = []
    for number, line in enumerate(lines, start=2 if text.startswith("#version") else 1):
        line = line.rstrip("\r")
        if not line:
            continue
        parts = line.split(" ")
        if len(parts) != 2 or not parts[0] or not parts[1]:
            raise TokenizerLoadError(
                f"{name}, line {number}: {_short(line)} is not two tokens separated by a space"
            )
        merges.append((parts[0], parts[1]))
    return merges


def _byte_level_tokenizer(
    raw_vocab: Any,
    raw_merges: list[tuple[str, str]],
    vocab_name: str,
    special_tokens: Mapping[str, int] | Sequence[str] | None,
    pretokenizer: str | Pretokenizer,
    name: str,
    added: Mapping[str, int] | None = None,
    merges_name: str | None = None,
) -> Tokenizer:
    """Build a tokenizer from a ``{GPT-2 string: id}`` table and string merges (vocab.json, HF).

    ``vocab_name`` and ``merges_name`` (default: the same) start the messages about each part.
    Entries no merge makes are refused when they are most of the vocabulary (the merges are
    missing or cut short), else taken as specials (see :mod:`._reach`).
    """
    ids = checked_vocab(raw_vocab, vocab_name)
    if len(raw_merges) > len(ids):
        raise TokenizerLoadError(f"{vocab_name}: {len(raw_merges):,} merges cannot fit {len(ids):,} tokens")
    merges = _byte_merges(raw_merges, merges_name or vocab_name)
    specials = _named_specials(ids, added, special_tokens)
    # Without special tokens named, a token no merge makes can only be a special token.
    made = (
        None if special_tokens is not None else {bytes([b]) for b in range(256)} | {a + b for a, b in merges}
    )
    vocab, promoted, learned = _byte_vocab(ids, specials, made, vocab_name)
    try:
        tokenizer = Tokenizer(vocab, merges, specials, pretokenizer, name=name)
    except TokenizerLoadError as exc:
        raise TokenizerLoadError(f"{vocab_name}: {exc}") from None
    if made is not None:
        warnings = judge_reach(vocab_name, learned, promoted, len(merges), "are treated as special tokens")
    else:
        special_ids = set(specials.values())
        plain = [b for i, b in vocab.items() if i not in special_ids and len(b) > 1]
        warnings = judge_reach(
            vocab_name, len(plain), unmade(plain, merges), len(merges), "are never produced"
        )
    return remember_warnings(tokenizer, warnings)


def checked_vocab(raw: Any, file_name: str) -> dict[str, int]:
    """A vocabulary read from JSON as ``{token: id}``: an object of integer ids, each id used once."""
    if not isinstance(raw, dict):
        raise TokenizerLoadError(
            f"{file_name}: the vocabulary must be a JSON object of token -> id, not {json_kind(raw)}"
        )
    _check_count(len(raw), "vocabulary entries", file_name, TokenizerLoadError)
    owner: dict[int, str] = {}
    for key, token_id in raw.items():
        if not _is_int(token_id) or not 0 <= token_id <= MAX_ID:
            raise TokenizerLoadError(
                f"{file_name}: token {_short(key)} has id {_short(token_id)}, not an integer id"
            )
        if token_id in owner:
            raise TokenizerLoadError(
                f"{file_name}: tokens {_short(owner[token_id])} and {_short(key)} share id {token_id}"
            )
        owner[token_id] = key
    return dict(raw)


def _byte_merges(raw_merges: list[tuple[str, str]], file_name: str) -> list[tuple[bytes, bytes]]:
    """The merges as byte pairs; a character outside GPT-2's byte map is an error naming the merge."""
    merges: list[tuple[bytes, bytes]] = []
    for index, (left, right) in enumerate(raw_merges):
        try:
            merges.append((gpt2_str_to_bytes(left), gpt2_str_to_bytes(right)))
        except KeyError:
            raise TokenizerLoadError(
                f"{file_name}: merge {index} ({_short(left)} {_short(right)}) "
                "uses a character outside GPT-2's byte map"
            ) from None
    return merges


def _named_specials(
    ids: dict[str, int],
    added: Mapping[str, int] | None,
    special_tokens: Mapping[str, int] | Sequence[str] | None,
) -> dict[str, int]:
    """The added tokens and the special tokens named: a mapping as given; a name in the vocabulary
    keeps its id, any other gets the next id after the largest."""
    specials: dict[str, int] = dict(added or {})
    if isinstance(special_tokens, Mapping):
        specials.update({str(s): int(i) for s, i in special_tokens.items()})
        return specials
    next_id = max(ids.values(), default=-1) + 1
    for s in special_tokens or ():
        if s in specials:
            continue
        if s in ids:
            specials[s] = ids[s]
        else:
            specials[s] = next_id
            next_id += 1
    return specials


def _byte_vocab(
    ids: dict[str, int], specials: dict[str, int], made: set[bytes] | None, vocab_name: str
) -> tuple[dict[int, bytes], list[str], int]:
    """Each id's bytes, the tokens promoted to specials and the count of learned (multi-byte) tokens.

    A special token's bytes are its UTF-8 text. With ``made`` (the tokens the merges can make), a
    token outside it is added to ``specials``, since BPE never produces it.
    """
    special_ids = set(specials.values())
    vocab: dict[int, bytes] = {}
    promoted: list[str] = []
    learned = 0
    for key, token_id in ids.items():
        if token_id in special_ids:
            vocab[token_id] = key.encode("utf-8")
            continue
        try:
            data: bytes | None = gpt2_str_to_bytes(key)
        except KeyError:
            data = None
        if data is None or len(data) > 1:
            learned += 1
        if made is not None and (data is None or data not in made):
            specials[key] = token_id
            promoted.append(key)
            vocab[token_id] = key.encode("utf-8")
        elif data is None:
            raise TokenizerLoadError(
                f"{vocab_name}: token {_short(key)} (id {token_id}) uses a character outside GPT-2's "
                "byte map; if it is a special token, name it as one"
            )
        else:
            vocab[token_id] = data
    return vocab, promoted, learned
