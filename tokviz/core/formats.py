"""Reading and writing tokenizers: tokviz's own model file, GPT-2's vocab.json + merges.txt,
tiktoken's ``.tiktoken`` rank files and Hugging Face's ``tokenizer.json``.

Every write is atomic (a reader sees the old file or the new one). Every read validates what it
reads and fails with a one-line :class:`TokenizerLoadError` (:class:`ModelFileError` for tokviz
model files) that names the file and what is wrong; nothing is ever unpickled or evaluated, and
files or tables of hostile size are refused before they are built.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import regex

from .atomic import atomic_write_text
from .bytes_ import bytes_to_gpt2_str, gpt2_str_to_bytes
from .errors import ExportError, ModelFileError, PretokenizerError, TokenizerLoadError
from .pretokenize import CL100K_PATTERN, GPT2_PATTERN, NAMED_PATTERNS, Pretokenizer, resolve_pretokenizer
from .tokenizer import Tokenizer
from .train import MergeRecord

PathLike = str | os.PathLike[str]

MODEL_FORMAT = "tokviz-model"
MODEL_VERSION = 1
# Limits that keep a hostile file from exhausting memory before it is rejected.
MAX_FILE_BYTES = 2 * 1024**3
MAX_ENTRIES = 10_000_000
MAX_ID = 2**31 - 1
GPT2_MERGES_HEADER = "#version: 0.2"

_HEX = regex.compile(r"(?:[0-9a-fA-F]{2})+")
_DECIMAL = regex.compile(r"[0-9]{1,10}")
_HISTORY_INT_FIELDS = ("step", "left_id", "right_id", "new_id", "count", "ties", "tokens_after")


# ============================================================================ shared helpers
def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _read_file(path: PathLike, error: type[TokenizerLoadError]) -> bytes:
    """The file's bytes, after refusing folders, missing files and files over the size limit."""
    p = Path(path)
    try:
        if p.is_dir():
            raise error(f"{p} is a folder, not a file")
        size = p.stat().st_size
        if size > MAX_FILE_BYTES:
            raise error(f"{p.name}: the file is {size / 2**30:.1f} GB; files over 2 GB are refused")
        return p.read_bytes()
    except FileNotFoundError:
        raise error(f"{p}: no such file") from None
    except OSError as exc:
        raise error(f"{p}: cannot read the file ({exc.strerror or exc})") from None


def _decode_text(data: bytes, name: str, error: type[TokenizerLoadError]) -> str:
    try:
        return data.decode("utf-8")
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


def read_json(path: PathLike, error: type[TokenizerLoadError] = TokenizerLoadError) -> Any:
    """Read a JSON file with the size limit and strict parsing; ``error`` is the class to raise."""
    return _parse_json(_read_file(path, error), Path(path).name, error)


def _short(value: object, limit: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _check_count(n: int, what: str, name: str, error: type[TokenizerLoadError]) -> None:
    if n > MAX_ENTRIES:
        raise error(f"{name}: {n:,} {what} is more than the limit of {MAX_ENTRIES:,}")


def _write_text(path: PathLike, text: str, what: str) -> None:
    """Write atomically; a text that cannot be UTF-8 (a lone surrogate) is an :class:`ExportError`."""
    try:
        atomic_write_text(path, text)
    except UnicodeEncodeError as exc:
        raise ExportError(
            f"cannot write {what}: {exc.reason} in {_short(exc.object[exc.start : exc.end])}"
        ) from None


def _merged_or_byte(tokenizer: Tokenizer) -> set[bytes]:
    """Bytes values the BPE can produce: the 256 single bytes and every merge result."""
    made = {bytes([b]) for b in range(256)}
    made.update(left + right for left, right in tokenizer.merges)
    return made


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


# ============================================================================ tiktoken engine
class TiktokenEngine:
    """tokviz's fast-engine protocol over a ``tiktoken.Encoding`` built from a rank table.

    For the named GPT-2 and cl100k patterns tiktoken also does the chunking (its patterns are
    the same); for any other pre-tokenizer tokviz chunks and tiktoken only merges each chunk.
    """

    def __init__(self, ranks: Mapping[bytes, int], pretokenizer: Pretokenizer, name: str = "tokviz") -> None:
        import tiktoken

        self._whole_text = pretokenizer.pattern is not None and pretokenizer.pattern == NAMED_PATTERNS.get(
            pretokenizer.name
        )
        self._split = pretokenizer.split
        pattern = pretokenizer.pattern if self._whole_text else "."
        self.encoding = tiktoken.Encoding(
            name,
            pat_str=pattern or ".",
            mergeable_ranks=ranks if isinstance(ranks, dict) else dict(ranks),
            special_tokens={},
        )
        self._piece = self.encoding._encode_single_piece

    def encode_ordinary(self, text: str) -> list[int]:
        """Ids of ``text`` with special-token strings treated as plain text."""
        if self._whole_text:
            return self.encoding.encode_ordinary(text)
        out: list[int] = []
        for chunk in self._split(text):
            out.extend(self._piece(chunk.encode("utf-8")))
        return out

    def encode_piece(self, data: bytes) -> list[int]:
        """Ids of one pre-token chunk's bytes."""
        return self._piece(data)


def tokenizer_from_ranks(
    ranks: Mapping[bytes, int],
    special_tokens: Mapping[str, int] | None = None,
    pretokenizer: str = "gpt2",
    name: str = "tiktoken",
) -> Tokenizer:
    """A tokenizer over a tiktoken rank table: tiktoken encodes, merges are recovered on first use."""
    from .encodings import recover_merges

    pre = resolve_pretokenizer(pretokenizer)
    frozen = dict(ranks)
    try:
        engine = TiktokenEngine(frozen, pre, name)
    except ValueError as exc:
        raise TokenizerLoadError(f"tiktoken cannot use this rank table: {exc}") from None
    vocab = {rank: token for token, rank in frozen.items()}
    return Tokenizer(
        vocab,
        lambda: recover_merges(frozen),
        dict(special_tokens or {}),
        pre,
        name=name,
        engine=engine,
    )


# ============================================================================ tokviz model file
@dataclass(frozen=True)
class LoadedModel:
    """A tokviz model file's contents: the tokenizer, its training settings and merge history."""

    tokenizer: Tokenizer
    settings: dict[str, Any] = field(default_factory=dict)
    history: list[MergeRecord] = field(default_factory=list)


def save_model(
    path: PathLike,
    tokenizer: Tokenizer,
    settings: Mapping[str, Any] | None = None,
    history: Sequence[MergeRecord] | None = None,
) -> None:
    """Write a versioned tokviz model file (JSON, token bytes as hex so nothing is lost).

    One vocabulary entry, merge or history record per line keeps the file readable and diffable.
    """
    hexed = bytes.hex

    def dumps(value: Any, what: str) -> str:
        try:
            return json.dumps(value, ensure_ascii=False, allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise ExportError(f"cannot write the model file: the {what} are not plain JSON ({exc})") from None

    def block(key: str, items: list[str], brackets: str) -> str:
        if not items:
            return f'  "{key}": {brackets}'
        return f'  "{key}": {brackets[0]}\n    ' + ",\n    ".join(items) + f"\n  {brackets[1]}"

    header = {
        "format": MODEL_FORMAT,
        "version": MODEL_VERSION,
        "name": tokenizer.name,
        "pretokenizer": tokenizer.pretokenizer.to_json(),
    }
    records = [
        dumps(
            {
                "step": r.step,
                "left_id": r.left_id,
                "right_id": r.right_id,
                "left": hexed(r.left),
                "right": hexed(r.right),
                "new_id": r.new_id,
                "count": r.count,
                "ties": r.ties,
                "tokens_after": r.tokens_after,
            },
            "history records",
        )
        for r in history or ()
    ]
    parts = [f"  {json.dumps(k)}: {dumps(v, 'name and pre-tokenizer')}" for k, v in header.items()]
    parts.append(f'  "special_tokens": {dumps(tokenizer.special_tokens, "special tokens")}')
    parts.append(f'  "settings": {dumps(dict(settings or {}), "settings")}')
    parts.append(
        block("vocab", [f'"{i}": "{hexed(tokenizer.vocab[i])}"' for i in sorted(tokenizer.vocab)], "{}")
    )
    parts.append(block("merges", [f'["{hexed(a)}", "{hexed(b)}"]' for a, b in tokenizer.merges], "[]"))
    parts.append(block("history", records, "[]"))
    _write_text(path, "{\n" + ",\n".join(parts) + "\n}\n", "the model file")


def load_model(path: PathLike) -> LoadedModel:
    """Read and validate a tokviz model file; :class:`ModelFileError` says what is wrong."""
    return model_from_json(read_json(path, ModelFileError), Path(path).name)


def model_from_json(data: Any, name: str = "model file") -> LoadedModel:
    """Validate parsed model-file JSON and build the tokenizer (``name`` prefixes every message)."""

    def fail(message: str) -> ModelFileError:
        return ModelFileError(f"{name}: {message}")

    if not isinstance(data, dict):
        raise fail("not a tokviz model file (the JSON is not an object)")
    if data.get("format") != MODEL_FORMAT:
        raise fail(
            f"not a tokviz model file (format is {_short(data.get('format'))}, expected {MODEL_FORMAT!r})"
        )
    version = data.get("version")
    if not _is_int(version):
        raise fail(f"the version must be an integer, not {_short(version)}")
    if version > MODEL_VERSION:
        raise fail(
            f"written by a newer tokviz (model file version {version}); this one reads version {MODEL_VERSION}"
        )
    if version < 1:
        raise fail(f"unknown model file version {version}")
    for key in ("vocab", "merges"):
        if key not in data:
            raise fail(f'the "{key}" entry is missing')

    model_name = data.get("name", Path(name).stem)
    if not isinstance(model_name, str):
        raise fail(f"the name must be a string, not {_short(model_name)}")
    pretokenizer = data.get("pretokenizer", "gpt2")
    if not isinstance(pretokenizer, str):
        raise fail(f"the pre-tokenizer must be a name or a regex string, not {_short(pretokenizer)}")
    settings = data.get("settings", {})
    if not isinstance(settings, dict):
        raise fail("settings must be a JSON object")

    vocab = _model_vocab(data["vocab"], fail)
    merges = _model_merges(data["merges"], len(vocab), fail)
    specials = _model_specials(data.get("special_tokens", {}), vocab, fail)
    history = _model_history(data.get("history", []), fail)
    try:
        tokenizer = Tokenizer(vocab, merges, specials, pretokenizer, name=model_name)
    except (TokenizerLoadError, PretokenizerError) as exc:
        raise fail(str(exc)) from None
    return LoadedModel(tokenizer, settings, history)


def _model_vocab(raw: Any, fail: Callable[[str], ModelFileError]) -> dict[int, bytes]:
    if not isinstance(raw, dict):
        raise fail('"vocab" must be an object mapping ids to hex bytes')
    if len(raw) > MAX_ENTRIES:
        raise fail(f"the vocabulary has {len(raw):,} entries, more than the limit of {MAX_ENTRIES:,}")
    vocab: dict[int, bytes] = {}
    for key, value in raw.items():
        if not _DECIMAL.fullmatch(key) or int(key) > MAX_ID:
            raise fail(f"vocabulary id {_short(key)} is not a non-negative integer below 2^31")
        token_id = int(key)
        if token_id in vocab:
            raise fail(f"vocabulary id {token_id} appears twice")
        if not isinstance(value, str) or not _HEX.fullmatch(value):
            raise fail(f"vocabulary id {token_id} has {_short(value)}, not the token's bytes as hex")
        vocab[token_id] = bytes.fromhex(value)
    return vocab


def _model_merges(
    raw: Any, vocab_size: int, fail: Callable[[str], ModelFileError]
) -> list[tuple[bytes, bytes]]:
    if not isinstance(raw, list):
        raise fail('"merges" must be a list of [left hex, right hex] pairs')
    if len(raw) > vocab_size:
        raise fail(f"{len(raw):,} merges cannot fit a vocabulary of {vocab_size:,} entries")
    merges: list[tuple[bytes, bytes]] = []
    for index, pair in enumerate(raw):
        if (
            not isinstance(pair, list)
            or len(pair) != 2
            or not all(isinstance(p, str) and _HEX.fullmatch(p) for p in pair)
        ):
            raise fail(f"merge {index} is {_short(pair)}, not a [left hex, right hex] pair")
        merges.append((bytes.fromhex(pair[0]), bytes.fromhex(pair[1])))
    return merges


def _model_specials(
    raw: Any, vocab: dict[int, bytes], fail: Callable[[str], ModelFileError]
) -> dict[str, int]:
    if not isinstance(raw, dict):
        raise fail('"special_tokens" must be an object mapping each special token to its id')
    specials: dict[str, int] = {}
    owners: dict[int, str] = {}
    for text, token_id in raw.items():
        if not text:
            raise fail("a special token is the empty string")
        if not _is_int(token_id) or not 0 <= token_id <= MAX_ID:
            raise fail(f"special token {_short(text)} has id {_short(token_id)}, not a non-negative integer")
        if token_id in owners:
            raise fail(f"special tokens {_short(owners[token_id])} and {_short(text)} share id {token_id}")
        data = text.encode("utf-8", errors="surrogatepass")
        if token_id in vocab and vocab[token_id] != data:
            raise fail(
                f"special token {_short(text)} has id {token_id}, which the vocabulary gives other bytes"
            )
        owners[token_id] = text
        specials[text] = token_id
    return specials


def _model_history(raw: Any, fail: Callable[[str], ModelFileError]) -> list[MergeRecord]:
    if not isinstance(raw, list):
        raise fail('"history" must be a list of merge records')
    if len(raw) > MAX_ENTRIES:
        raise fail(f"the history has {len(raw):,} records, more than the limit of {MAX_ENTRIES:,}")
    history: list[MergeRecord] = []
    for index, rec in enumerate(raw):
        if not isinstance(rec, dict):
            raise fail(f"history record {index} is not an object")
        for key in _HISTORY_INT_FIELDS:
            if not _is_int(rec.get(key)):
                raise fail(f"history record {index}: {key!r} must be an integer, not {_short(rec.get(key))}")
        for key in ("left", "right"):
            if not isinstance(rec.get(key), str) or not _HEX.fullmatch(rec[key]):
                raise fail(f"history record {index}: {key!r} must be the token's bytes as hex")
        history.append(
            MergeRecord(
                step=rec["step"],
                left_id=rec["left_id"],
                right_id=rec["right_id"],
                left=bytes.fromhex(rec["left"]),
                right=bytes.fromhex(rec["right"]),
                new_id=rec["new_id"],
                count=rec["count"],
                ties=rec["ties"],
                tokens_after=rec["tokens_after"],
            )
        )
    return history


# ============================================================================ GPT-2 vocab.json + merges.txt
def export_gpt2(tokenizer: Tokenizer, directory: PathLike) -> tuple[Path, Path]:
    """Write ``vocab.json`` and ``merges.txt`` (GPT-2's layout, ``#version: 0.2``) into ``directory``.

    Token bytes use GPT-2's printable byte map; special tokens are written as their own text.
    Returns the two paths.
    """
    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    table = _byte_level_strings(tokenizer, "vocab.json")
    lines = [GPT2_MERGES_HEADER]
    lines.extend(f"{bytes_to_gpt2_str(a)} {bytes_to_gpt2_str(b)}" for a, b in tokenizer.merges)
    vocab_path, merges_path = folder / "vocab.json", folder / "merges.txt"
    _write_text(vocab_path, json.dumps(table, ensure_ascii=False) + "\n", "vocab.json")
    _write_text(merges_path, "\n".join(lines) + "\n", "merges.txt")
    return vocab_path, merges_path


def tokenizer_from_files(
    vocab_json: PathLike,
    merges_txt: PathLike,
    special_tokens: Mapping[str, int] | Sequence[str] | None = None,
    pretokenizer: str = "gpt2",
    name: str | None = None,
) -> Tokenizer:
    """Load a GPT-2 style ``vocab.json`` + ``merges.txt`` pair, keeping the file's own ids.

    With ``special_tokens=None`` every vocabulary entry that is neither a single byte nor made by
    a merge (GPT-2's ``<|endoftext|>``) is taken as a special token, the only way it can be used.
    """
    vocab_path, merges_path = Path(vocab_json), Path(merges_txt)
    raw_vocab = read_json(vocab_path, TokenizerLoadError)
    merges = _parse_merges_txt(_read_file(merges_path, TokenizerLoadError), merges_path.name)
    return _byte_level_tokenizer(
        raw_vocab,
        merges,
        vocab_path.name,
        special_tokens,
        pretokenizer,
        name or vocab_path.parent.name or vocab_path.stem,
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
) -> Tokenizer:
    """Build a tokenizer from a ``{GPT-2 string: id}`` table and string merges (vocab.json, HF)."""
    if not isinstance(raw_vocab, dict):
        raise TokenizerLoadError(f"{vocab_name}: the vocabulary must be a JSON object of token -> id")
    _check_count(len(raw_vocab), "vocabulary entries", vocab_name, TokenizerLoadError)
    if len(raw_merges) > len(raw_vocab):
        raise TokenizerLoadError(
            f"{vocab_name}: {len(raw_merges):,} merges cannot fit {len(raw_vocab):,} tokens"
        )
    ids: dict[str, int] = {}
    owner: dict[int, str] = {}
    for key, token_id in raw_vocab.items():
        if not _is_int(token_id) or not 0 <= token_id <= MAX_ID:
            raise TokenizerLoadError(
                f"{vocab_name}: token {_short(key)} has id {_short(token_id)}, not an integer id"
            )
        if token_id in owner:
            raise TokenizerLoadError(
                f"{vocab_name}: tokens {_short(owner[token_id])} and {_short(key)} share id {token_id}"
            )
        owner[token_id] = key
        ids[key] = token_id

    merges: list[tuple[bytes, bytes]] = []
    for index, (left, right) in enumerate(raw_merges):
        try:
            merges.append((gpt2_str_to_bytes(left), gpt2_str_to_bytes(right)))
        except KeyError:
            raise TokenizerLoadError(
                f"merge {index} ({_short(left)} {_short(right)}) uses a character outside GPT-2's byte map"
            ) from None

    specials: dict[str, int] = dict(added or {})
    if isinstance(special_tokens, Mapping):
        specials.update({str(s): int(i) for s, i in special_tokens.items()})
    elif special_tokens is not None:
        next_id = max(owner, default=-1) + 1
        for s in special_tokens:
            if s in specials:
                continue
            if s in ids:
                specials[s] = ids[s]
            else:
                specials[s] = next_id
                next_id += 1

    made: set[bytes] | None = None
    if special_tokens is None:
        made = {bytes([b]) for b in range(256)}
        made.update(left + right for left, right in merges)
    special_ids = set(specials.values())
    vocab: dict[int, bytes] = {}
    for key, token_id in ids.items():
        if token_id in special_ids:
            vocab[token_id] = key.encode("utf-8")
            continue
        try:
            data = gpt2_str_to_bytes(key)
        except KeyError:
            data = None
        if made is not None and (data is None or data not in made):
            specials[key] = token_id  # never produced by BPE: usable only as a special token
            vocab[token_id] = key.encode("utf-8")
            continue
        if data is None:
            raise TokenizerLoadError(
                f"{vocab_name}: token {_short(key)} (id {token_id}) uses a character outside GPT-2's "
                "byte map; if it is a special token, name it as one"
            )
        vocab[token_id] = data
    try:
        return Tokenizer(vocab, merges, specials, pretokenizer, name=name)
    except TokenizerLoadError as exc:
        raise TokenizerLoadError(f"{vocab_name}: {exc}") from None


# ============================================================================ tiktoken .tiktoken
def export_tiktoken(tokenizer: Tokenizer, path: PathLike) -> Path:
    """Write a ``.tiktoken`` rank file: ``base64(token bytes) rank`` per line, ranks = ids.

    The format has no special tokens (tiktoken passes them separately) and ranks decide the
    merge order, so the ordinary ids must be exactly 0..N-1, each bytes value must appear once,
    and the merges must create their tokens in id order. tiktoken then merges by the rank of the
    merged bytes, which for trained vocabularies gives the same ids as the merge list (tested).
    """
    specials = set(tokenizer.special_tokens.values())
    ids = sorted(i for i in tokenizer.vocab if i not in specials)
    if ids != list(range(len(ids))):
        gap = next(k for k, i in enumerate(ids) if i != k)
        raise ExportError(
            f"cannot write a .tiktoken file: its ranks are the ids 0..{len(ids) - 1}, "
            f"but this vocabulary has no ordinary id {gap}"
        )
    seen: dict[bytes, int] = {}
    for i in ids:
        data = tokenizer.vocab[i]
        if data in seen:
            raise ExportError(
                f"cannot write a .tiktoken file: ids {seen[data]} and {i} have the same bytes "
                f"{_short(data)}, and a rank file keys tokens by their bytes"
            )
        seen[data] = i
    made = {left + right for left, right in tokenizer.merges}
    previous = -1
    for rank, (left, right) in enumerate(tokenizer.merges):
        token_id = seen[left + right]
        if token_id <= previous:
            raise ExportError(
                f"cannot write a .tiktoken file: merge {rank} makes id {token_id}, which is not after the id "
                f"{previous} of the merge before it, so ranks would not follow the merge order"
            )
        previous = token_id
    for i in ids:
        data = tokenizer.vocab[i]
        if len(data) > 1 and data not in made:
            raise ExportError(f"cannot write a .tiktoken file: id {i} ({_short(data)}) is made by no merge")
    lines = [f"{base64.b64encode(tokenizer.vocab[i]).decode('ascii')} {i}\n" for i in ids]
    _write_text(path, "".join(lines), "the .tiktoken file")
    return Path(path)


def load_tiktoken_file(
    path: PathLike,
    pretokenizer: str = "gpt2",
    special_tokens: Mapping[str, int] | None = None,
    name: str | None = None,
) -> Tokenizer:
    """Load a ``.tiktoken`` rank file: tiktoken encodes, and the merges are recovered on first use."""
    p = Path(path)
    ranks = parse_tiktoken_file(_read_file(p, TokenizerLoadError), p.name)
    for text, token_id in (special_tokens or {}).items():
        if token_id in ranks.values():
            raise TokenizerLoadError(
                f"{p.name}: special token {_short(text)} has id {token_id}, an ordinary rank"
            )
    try:
        return tokenizer_from_ranks(ranks, special_tokens, pretokenizer, name or p.stem)
    except TokenizerLoadError as exc:
        raise TokenizerLoadError(f"{p.name}: {exc}") from None


def parse_tiktoken_file(data: bytes, name: str) -> dict[bytes, int]:
    """Validate and parse ``.tiktoken`` data into ``{token bytes: rank}``."""
    ranks: dict[bytes, int] = {}
    owners: dict[int, bytes] = {}
    lines = data.split(b"\n")
    _check_count(len(lines), "lines", name, TokenizerLoadError)
    for number, line in enumerate(lines, start=1):
        line = line.rstrip(b"\r")
        if not line:
            continue
        parts = line.split(b" ")
        if len(parts) != 2 or not _DECIMAL.fullmatch(parts[1].decode("latin-1")):
            raise TokenizerLoadError(f"{name}, line {number}: not a 'base64-token rank' pair")
        try:
            token = base64.b64decode(parts[0], validate=True)
        except (binascii.Error, ValueError):
            raise TokenizerLoadError(f"{name}, line {number}: the token is not valid base64") from None
        rank = int(parts[1])
        if not token:
            raise TokenizerLoadError(f"{name}, line {number}: the token is empty")
        if rank > MAX_ID:
            raise TokenizerLoadError(f"{name}, line {number}: rank {rank} is larger than 2^31 - 1")
        if token in ranks:
            raise TokenizerLoadError(
                f"{name}, line {number}: token {_short(token)} already has rank {ranks[token]}"
            )
        if rank in owners:
            raise TokenizerLoadError(
                f"{name}, line {number}: rank {rank} is already used by {_short(owners[rank])}"
            )
        ranks[token] = rank
        owners[rank] = token
    if not ranks:
        raise TokenizerLoadError(f"{name}: the file holds no tokens")
    missing = [b for b in range(256) if bytes([b]) not in ranks]
    if missing:
        raise TokenizerLoadError(
            f"{name}: no token for the single byte {missing[0]:02X}; not a byte-level BPE file"
        )
    return ranks


# ============================================================================ Hugging Face tokenizer.json
def export_hf(tokenizer: Tokenizer, path: PathLike) -> Path:
    """Write a Hugging Face ``tokenizer.json`` (byte-level BPE) that encodes exactly like tokviz.

    The GPT-2 pattern is HF's own ByteLevel regex; any other pattern becomes a Split step
    (translated to Oniguruma's reading of ``$`` and ``\\Z``) before a regex-free ByteLevel step.
    Special tokens are added tokens that also sit in the model vocabulary, so they keep their ids.
    """
    table = _byte_level_strings(tokenizer, "tokenizer.json")
    doc = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [
            {
                "id": token_id,
                "content": text,
                "single_word": False,
                "lstrip": False,
                "rstrip": False,
                "normalized": False,
                "special": True,
            }
            for text, token_id in sorted(tokenizer.special_tokens.items(), key=lambda item: item[1])
        ],
        "normalizer": None,
        "pre_tokenizer": _hf_pre_tokenizer(tokenizer.pretokenizer),
        "post_processor": None,
        "decoder": {
            "type": "ByteLevel",
            "add_prefix_space": False,
            "trim_offsets": False,
            "use_regex": False,
        },
        "model": {
            "type": "BPE",
            "dropout": None,
            "unk_token": None,
            "continuing_subword_prefix": None,
            "end_of_word_suffix": None,
            "fuse_unk": False,
            "byte_fallback": False,
            "ignore_merges": False,
            "vocab": table,
            # "a b" strings: GPT-2 strings never hold a space, and every tokenizers version reads them.
            "merges": [f"{bytes_to_gpt2_str(a)} {bytes_to_gpt2_str(b)}" for a, b in tokenizer.merges],
        },
    }
    _write_text(path, json.dumps(doc, ensure_ascii=False, indent=1) + "\n", "tokenizer.json")
    return Path(path)


def _byte_level(use_regex: bool) -> dict[str, Any]:
    return {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": use_regex}


def _hf_pre_tokenizer(pre: Pretokenizer) -> dict[str, Any]:
    if pre.pattern is None:
        return _byte_level(False)
    if pre.pattern == GPT2_PATTERN:
        return _byte_level(True)
    split = {
        "type": "Split",
        "pattern": {"Regex": to_oniguruma(pre.pattern)},
        "behavior": "Isolated",
        "invert": False,
    }
    return {"type": "Sequence", "pretokenizers": [split, _byte_level(False)]}


def _scan_pattern(pattern: str) -> list[tuple[str, str, int]]:
    """Cut a regex into (kind, text, depth) pieces: ``esc`` escapes (``\\p{L}`` whole), ``class``
    sets, ``interval`` quantifiers like ``{1,3}``, and ``char`` for every other character.

    Enough structure to rewrite anchors and quantifiers without touching escapes or sets.
    """
    pieces: list[tuple[str, str, int]] = []
    i, n, depth = 0, len(pattern), 0
    while i < n:
        c = pattern[i]
        if c == "\\":
            j = i + 2
            if pattern[i + 1 : i + 2] in _BRACED_ESCAPES and pattern[j : j + 1] == "{":
                close = pattern.find("}", j)
                j = n if close < 0 else close + 1
            pieces.append(("esc", pattern[i:j], depth))
            i = j
        elif c == "[":
            j = i + 1
            if pattern[j : j + 1] == "^":
                j += 1
            if pattern[j : j + 1] == "]":
                j += 1
            while j < n and pattern[j] != "]":
                if pattern[j] == "\\":
                    j += 2
                elif pattern.startswith("[:", j) and ":]" in pattern[j:]:
                    j = pattern.index(":]", j) + 2
                else:
                    j += 1
            pieces.append(("class", pattern[i : j + 1], depth))
            i = j + 1
        elif c == "{" and (m := _INTERVAL.match(pattern, i)):
            pieces.append(("interval", m.group(), depth))
            i = m.end()
        else:
            if c == "(":
                depth += 1
            elif c == ")":
                depth -= 1
            pieces.append(("char", c, depth))
            i += 1
    return pieces


_INTERVAL = regex.compile(r"\{[0-9]+(?:,[0-9]*)?\}")
_BRACED_ESCAPES = frozenset("pPNxuUgk")


def to_oniguruma(pattern: str) -> str:
    """Rewrite a Python ``regex`` pattern for Oniguruma (HF tokenizers) with the same matches.

    Python's ``$`` (end, or before a final newline) is Oniguruma's ``\\Z``; Python's ``\\Z`` is
    Oniguruma's ``\\z``. Oniguruma reads ``X{n,m}+`` as a repeat, not a possessive interval;
    at the end of a top-level alternative possessiveness changes nothing, so the ``+`` is dropped
    there and refused anywhere else.
    """
    if regex.compile(pattern).flags & regex.MULTILINE:
        raise ExportError("cannot write tokenizer.json: the pre-tokenizer regex uses the multiline flag")
    pieces = _scan_pattern(pattern)
    out: list[str] = []
    for k, (kind, piece, _depth) in enumerate(pieces):
        if kind == "esc" and piece == "\\Z":
            out.append("\\z")
        elif kind == "char" and piece == "$":
            out.append("\\Z")
        elif kind == "char" and piece == "+" and k > 0 and pieces[k - 1][0] == "interval":
            after = pieces[k + 1] if k + 1 < len(pieces) else None
            if after is not None and not (after[:2] == ("char", "|") and after[2] == 0):
                raise ExportError(
                    f"cannot write tokenizer.json: Oniguruma reads the possessive {pieces[k - 1][1]}+ "
                    "as a repeat; write the pattern without that +"
                )
        else:
            out.append(piece)
    return "".join(out)


def from_oniguruma(pattern: str) -> str:
    """The inverse of :func:`to_oniguruma` for the anchors: ``\\z`` -> ``\\Z``, ``\\Z`` -> ``$``,
    Oniguruma's line-end ``$`` -> ``(?m:$)``. ``X{n,m}+`` (a repeat there) is refused."""
    out: list[str] = []
    pieces = _scan_pattern(pattern)
    for k, (kind, piece, _depth) in enumerate(pieces):
        if kind == "esc" and piece == "\\z":
            out.append("\\Z")
        elif kind == "esc" and piece == "\\Z":
            out.append("$")
        elif kind == "char" and piece == "$":
            out.append("(?m:$)")
        elif kind == "char" and piece == "+" and k > 0 and pieces[k - 1][0] == "interval":
            raise TokenizerLoadError(
                f"the Split regex uses {pieces[k - 1][1]}+, which Oniguruma reads as a repeat; "
                "tokviz cannot match it"
            )
        else:
            out.append(piece)
    return "".join(out)


def load_hf(path: PathLike) -> Tokenizer:
    """Load a Hugging Face ``tokenizer.json`` holding a byte-level BPE model."""
    p = Path(path)
    return hf_from_json(read_json(p, TokenizerLoadError), p.name, p.parent.name or p.stem)


def hf_from_json(data: Any, file_name: str = "tokenizer.json", name: str = "tokenizer.json") -> Tokenizer:
    """Validate parsed ``tokenizer.json`` data and build the tokenizer.

    Every added token (special or not) becomes a special token: HF matches both whole, before BPE.
    """

    def fail(message: str) -> TokenizerLoadError:
        return TokenizerLoadError(f"{file_name}: {message}")

    if not isinstance(data, dict) or not isinstance(data.get("model"), dict):
        raise fail('not a Hugging Face tokenizer.json (no "model" object)')
    model = data["model"]
    kind = model.get("type", "BPE" if "merges" in model else None)
    if kind != "BPE":
        raise fail(f"the model is {_short(kind)}, but tokviz reads only BPE models")
    for key in ("continuing_subword_prefix", "end_of_word_suffix"):
        if model.get(key):
            raise fail(f"the BPE model uses {key} {_short(model[key])}, which byte-level BPE does not")
    if data.get("normalizer") is not None:
        kind = data["normalizer"].get("type") if isinstance(data["normalizer"], dict) else data["normalizer"]
        raise fail(f"the tokenizer has a {_short(kind)} normalizer, which tokviz does not apply")
    pretokenizer = _pretokenizer_from_hf(data.get("pre_tokenizer"), fail)

    vocab = model.get("vocab")
    raw_merges = model.get("merges", [])
    if not isinstance(raw_merges, list):
        raise fail('"merges" must be a list')
    _check_count(len(raw_merges), "merges", file_name, TokenizerLoadError)
    merges: list[tuple[str, str]] = []
    for index, merge in enumerate(raw_merges):
        if isinstance(merge, str):
            parts = merge.split(" ")
        elif isinstance(merge, list):
            parts = merge
        else:
            parts = []
        if len(parts) != 2 or not all(isinstance(x, str) and x for x in parts):
            raise fail(f"merge {index} is {_short(merge)}, not 'left right' or [left, right]")
        merges.append((parts[0], parts[1]))

    added_raw = data.get("added_tokens") or []
    if not isinstance(added_raw, list):
        raise fail('"added_tokens" must be a list')
    added: dict[str, int] = {}
    for entry in added_raw:
        if (
            not isinstance(entry, dict)
            or not isinstance(entry.get("content"), str)
            or not _is_int(entry.get("id"))
        ):
            raise fail(f"added token {_short(entry)} needs a string content and an integer id")
        added[entry["content"]] = entry["id"]
    if isinstance(vocab, dict):
        # An added token outside the model vocabulary keeps the id the file gives it.
        vocab = dict(vocab)
        for text, token_id in added.items():
            vocab.setdefault(text, token_id)
    return _byte_level_tokenizer(vocab, merges, file_name, None, pretokenizer, name, added=added)


def _pretokenizer_from_hf(spec: Any, fail: Callable[[str], TokenizerLoadError]) -> Pretokenizer:
    """The tokviz pre-tokenizer equal to an HF byte-level pre-tokenizer, or a clear refusal."""
    steps = spec.get("pretokenizers") if isinstance(spec, dict) and spec.get("type") == "Sequence" else [spec]
    if not isinstance(steps, list) or not steps or not all(isinstance(s, dict) for s in steps):
        raise fail("the tokenizer has no byte-level pre-tokenizer, so it is not a byte-level BPE")
    *splits, last = steps
    if last.get("type") != "ByteLevel":
        types = ", ".join(str(s.get("type")) for s in steps)
        raise fail(f"the pre-tokenizer ({types}) does not end in ByteLevel, so it is not a byte-level BPE")
    if last.get("add_prefix_space"):
        raise fail("the ByteLevel pre-tokenizer adds a prefix space, which tokviz does not do")
    use_regex = last.get("use_regex", True)
    if not splits:
        return resolve_pretokenizer("gpt2" if use_regex else "none")
    if len(splits) > 1 or use_regex or splits[0].get("type") != "Split":
        types = ", ".join(str(s.get("type")) for s in steps)
        raise fail(f"the pre-tokenizer ({types}) chunks text in a way tokviz cannot reproduce")
    split = splits[0]
    if str(split.get("behavior", "")).lower() != "isolated" or split.get("invert"):
        raise fail("the Split pre-tokenizer must isolate its matches (behavior Isolated, invert false)")
    pattern = split.get("pattern")
    if isinstance(pattern, dict) and isinstance(pattern.get("Regex"), str):
        onig = pattern["Regex"]
        known = {to_oniguruma(p): n for n, p in (("gpt2", GPT2_PATTERN), ("cl100k", CL100K_PATTERN))}
        python_pattern = known.get(onig) or from_oniguruma(onig)
    elif isinstance(pattern, dict) and isinstance(pattern.get("String"), str):
        python_pattern = regex.escape(pattern["String"])
    else:
        raise fail(f"the Split pattern {_short(pattern)} is neither a regex nor a string")
    try:
        return resolve_pretokenizer(python_pattern)
    except PretokenizerError as exc:
        raise fail(str(exc)) from None
