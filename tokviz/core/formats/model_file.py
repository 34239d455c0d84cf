"""tokviz's own model file: versioned JSON with the vocabulary, merges, specials, settings, history
and provenance (the corpus files with sizes and SHA-256, the tokviz version, the date).

``provenance`` is an optional key of format version 1: files written before it existed load as
they always did (with empty provenance), and an older tokviz reading a newer file ignores it.
"""

from __future__ import annotations

import json
import re
import weakref
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..bpe.merges import MergeStep
from ..bpe.tokenizer import Tokenizer
from ..bpe.vocab_rules import id_problem, specials_problem, too_many
from ..errors import ExportError, InvalidArgument, ModelFileError, PretokenizerError, TokenizerLoadError
from ..io.path_record import read_entry, recorded_entry
from ..pretok.normalize import Normalizer, parse_normalizer
from ._common import (
    _HEX,
    _HISTORY_INT_FIELDS,
    MAX_ENTRIES,
    MODEL_FILE_CAP,
    MODEL_FORMAT,
    MODEL_VERSION,
    JsonMembers,
    PathLike,
    _is_int,
    _parse_json_text,
    _short,
    json_kind,
    read_text,
)
from ._reach import judge_reach, remember_warnings, unmade
from ._writing import encode_text, write_file

# A vocabulary key: decimal digits (the id's range is checked by the rules shared with the constructor).
_DIGITS = re.compile(r"[0-9]{1,30}")


@dataclass(frozen=True)
class LoadedModel:
    """A tokviz model file's contents: the tokenizer, its training settings and merge history."""

    tokenizer: Tokenizer
    settings: dict[str, Any] = field(default_factory=dict)
    history: list[MergeStep] = field(default_factory=list)
    provenance: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ModelDetails:
    """What a model file says about its tokenizer beyond the vocabulary: training settings and provenance."""

    settings: dict[str, Any] = field(default_factory=dict)
    provenance: dict[str, Any] = field(default_factory=dict)


# The details of every tokenizer read from a model file, for as long as the tokenizer lives.
_details: weakref.WeakKeyDictionary[Tokenizer, ModelDetails] = weakref.WeakKeyDictionary()


def model_details(tokenizer: Tokenizer) -> ModelDetails | None:
    """The settings and provenance of a tokenizer loaded from a tokviz model file, else ``None``.

    ``tokviz info`` and the GUI show them (the corpus files and their hashes, the tie rule).
    """
    return _details.get(tokenizer)


def save_model(
    path: PathLike,
    tokenizer: Tokenizer,
    settings: Mapping[str, Any] | None = None,
    history: Sequence[MergeStep] | None = None,
    provenance: Mapping[str, Any] | None = None,
) -> None:
    """Write a versioned tokviz model file, checked and atomic (see :mod:`tokviz.core.io.outputs`)."""
    write_file(path, "the model file", model_file_bytes(tokenizer, settings, history, provenance))


def model_file_bytes(
    tokenizer: Tokenizer,
    settings: Mapping[str, Any] | None = None,
    history: Sequence[MergeStep] | None = None,
    provenance: Mapping[str, Any] | None = None,
) -> bytes:
    """A versioned tokviz model file's bytes (JSON, token bytes as hex so nothing is lost).

    One vocabulary entry, merge, history record or corpus file per line keeps the file readable
    and diffable. ``provenance`` (see :mod:`tokviz.core.formats.provenance`) is written when given.
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
    if tokenizer.normalizer:  # written only when there is one: older files and readers stay as they were
        header["normalizer"] = tokenizer.normalizer.name
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
                # The tied pairs in the tie rule's order, the merged one first (absent in older files).
                "tied": [[hexed(a), hexed(b)] for a, b in r.tied],
            },
            "history records",
        )
        for r in history or ()
    ]
    parts = [
        f"  {json.dumps(k)}: {dumps(v, 'name, pre-tokenizer and normalizer')}" for k, v in header.items()
    ]
    parts.append(f'  "special_tokens": {dumps(tokenizer.special_tokens, "special tokens")}')
    parts.append(f'  "settings": {dumps(dict(settings or {}), "settings")}')
    if provenance:
        parts.append(_provenance_block(dict(provenance), dumps))
    parts.append(
        block("vocab", [f'"{i}": "{hexed(tokenizer.vocab[i])}"' for i in sorted(tokenizer.vocab)], "{}")
    )
    parts.append(block("merges", [f'["{hexed(a)}", "{hexed(b)}"]' for a, b in tokenizer.merges], "[]"))
    parts.append(block("history", records, "[]"))
    return encode_text("{\n" + ",\n".join(parts) + "\n}\n", "the model file")


def _provenance_block(provenance: dict[str, Any], dumps: Callable[[Any, str], str]) -> str:
    """The provenance object with its corpus files one per line (the rest of it on one line each)."""
    corpus = provenance.get("corpus")
    files = corpus.get("files") if isinstance(corpus, dict) else None
    if not isinstance(corpus, dict) or not isinstance(files, list) or not files:
        return f'  "provenance": {dumps(provenance, "provenance")}'
    inner = [f"    {json.dumps(k)}: {dumps(v, 'provenance')}" for k, v in provenance.items() if k != "corpus"]
    rest = [f"      {json.dumps(k)}: {dumps(v, 'provenance')}" for k, v in corpus.items() if k != "files"]
    listed = ",\n        ".join(
        dumps(recorded_entry(f) if isinstance(f, dict) else f, "corpus files") for f in files
    )
    corpus_lines = [
        "{",
        *[line + "," for line in rest],
        f'      "files": [\n        {listed}\n      ]',
        "    }",
    ]
    inner.append('    "corpus": ' + "\n".join(corpus_lines))
    return '  "provenance": {\n' + ",\n".join(inner) + "\n  }"


def load_model(path: PathLike) -> LoadedModel:
    """Read and validate a tokviz model file; :class:`ModelFileError` says what is wrong."""
    return model_from_text(read_text(path, ModelFileError, MODEL_FILE_CAP), Path(path).name)


# The top-level members a model file may hold by the million, one item a token.
_LISTS = ("merges", "history")
# A file this short is parsed whole, at the json module's full speed: whatever it holds, its
# objects take at most about twenty bytes a character, a few hundred MB. (GPT-2's vocabulary as a
# model file is 2.8 MB; a 2^18-token model with its history about 60 MB.)
WHOLE_PARSE_CHARS = 8 * 2**20


def model_from_text(text: str, name: str = "model file") -> LoadedModel:
    """:func:`model_from_json` of a model file's text, read member by member.

    The vocabulary bounds what may follow it: a merge or history record more than it has entries
    is refused as soon as it is read, before the rest is built (3,000,000 merges with 256 tokens
    cost a few kilobytes, not 800 MB). A list met before the vocabulary is passed over without
    building any of it (its end found with array operations) and read once the vocabulary is known. A text of at most :data:`WHOLE_PARSE_CHARS` is
    parsed whole.
    """
    fail = _failer(name)
    reader = JsonMembers(text, name, ModelFileError)
    if len(text) <= WHOLE_PARSE_CHARS or reader.first_char() != "{":
        return model_from_json(_parse_json_text(text, name, ModelFileError), name)
    data: dict[str, Any] = {}
    vocab: dict[int, bytes] | None = None
    lists: dict[str, list[Any]] = {}
    later: dict[str, int] = {}  # lists met before the vocabulary: where each starts
    for key in reader.members():
        if key == "vocab" and reader.is_next("{"):
            entries = reader.entries(MAX_ENTRIES)
            if entries is None:
                raise fail(f"the vocabulary has more than {MAX_ENTRIES:,} entries, the limit")
            vocab = _vocab_entries(entries, fail)
        elif key in _LISTS and reader.is_next("["):
            if vocab is not None:
                lists[key] = _bounded(key, reader.array(len(vocab)), len(vocab), fail)
                continue
            later[key] = reader.skip_array()
        else:
            data[key] = reader.value()
    _check_header(data, fail, present={*data, *lists, *later, *(["vocab"] if vocab is not None else [])})
    if vocab is None:
        vocab = _model_vocab(data["vocab"], fail)
    for key, start in later.items():
        lists[key] = _bounded(key, reader.array_at(start, len(vocab)), len(vocab), fail)
    merges = _model_merges(lists.get("merges", data.get("merges")), len(vocab), fail)
    history = _model_history(lists.get("history", data.get("history", [])), len(vocab), fail)
    return _built(data, vocab, merges, history, name, fail)


def model_from_json(data: Any, name: str = "model file") -> LoadedModel:
    """Validate parsed model-file JSON and build the tokenizer (``name`` prefixes every message)."""
    fail = _failer(name)
    _check_header(data, fail)
    vocab = _model_vocab(data["vocab"], fail)
    merges = _model_merges(data["merges"], len(vocab), fail)
    history = _model_history(data.get("history", []), len(vocab), fail)
    return _built(data, vocab, merges, history, name, fail)


def _failer(name: str) -> Callable[[str], ModelFileError]:
    """What makes this file's errors: every message starts with its name."""

    def fail(message: str) -> ModelFileError:
        return ModelFileError(f"{name}: {message}")

    return fail


def _built(
    data: dict[str, Any],
    vocab: dict[int, bytes],
    merges: list[tuple[bytes, bytes]],
    history: list[MergeStep],
    name: str,
    fail: Callable[[str], ModelFileError],
) -> LoadedModel:
    """The tokenizer of a checked vocabulary, merge list and history, with the file's other members."""
    model_name, pretokenizer, settings, provenance = _model_fields(data, name, fail)
    normalizer = _model_normalizer(data.get("normalizer", "none"), fail)
    specials = _model_specials(data.get("special_tokens", {}), vocab, fail)
    try:
        tokenizer = Tokenizer(vocab, merges, specials, pretokenizer, name=model_name, normalizer=normalizer)
    except (TokenizerLoadError, PretokenizerError) as exc:
        raise fail(str(exc)) from None
    # Learned tokens no merge makes are never produced: refused when most are, else flagged.
    special_ids = set(specials.values())
    learned = [b for i, b in vocab.items() if i not in special_ids and len(b) > 1]
    warnings = judge_reach(
        name, len(learned), unmade(learned, merges), len(merges), "are never produced", ModelFileError
    )
    tokenizer = remember_warnings(tokenizer, warnings)
    provenance = _read_provenance(provenance)
    _details[tokenizer] = ModelDetails(settings, provenance)
    return LoadedModel(tokenizer, settings, history, provenance)


def _check_header(data: Any, fail: Callable[[str], ModelFileError], present: set[str] | None = None) -> None:
    """A JSON object of tokviz's model format, in a version this tokviz reads, with vocab and merges
    (``present``: the members the file has, when some were read apart from ``data``)."""
    if not isinstance(data, dict):
        raise fail(f"not a tokviz model file (expected a JSON object, found {json_kind(data)})")
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
        if key not in (data if present is None else present):
            raise fail(f'the "{key}" entry is missing')


def _bounded(
    key: str, items: list[Any] | None, vocab_size: int, fail: Callable[[str], ModelFileError]
) -> list[Any]:
    """The items of the list ``key`` (merges or history records), or the error for a list longer
    than a vocabulary of ``vocab_size`` entries can hold (None: it is; each item makes one token)."""
    if items is None or len(items) > vocab_size:
        what = "merges" if key == "merges" else "history records"
        raise fail(too_many(None if items is None else len(items), what, vocab_size))
    return items


def _model_fields(
    data: dict[str, Any], name: str, fail: Callable[[str], ModelFileError]
) -> tuple[str, str, dict[str, Any], dict[str, Any]]:
    """The model's name, pre-tokenizer, settings and provenance, each checked for its JSON type."""
    model_name = data.get("name", Path(name).stem)
    if not isinstance(model_name, str):
        raise fail(f"the name must be a string, not {_short(model_name)}")
    pretokenizer = data.get("pretokenizer", "gpt2")
    if not isinstance(pretokenizer, str):
        raise fail(f"the pre-tokenizer must be a name or a regex string, not {_short(pretokenizer)}")
    settings = data.get("settings", {})
    if not isinstance(settings, dict):
        raise fail("settings must be a JSON object")
    provenance = data.get("provenance", {})
    if not isinstance(provenance, dict):
        raise fail(f"the provenance must be a JSON object, not {json_kind(provenance)}")
    return model_name, pretokenizer, settings, provenance


def _model_normalizer(raw: Any, fail: Callable[[str], ModelFileError]) -> Normalizer:
    """The normalizer the file names (``"nfkc+lowercase"``; absent: none)."""
    if not isinstance(raw, str):
        raise fail(f"the normalizer must be a name such as 'nfkc', not {_short(raw)}")
    try:
        return parse_normalizer(raw)
    except InvalidArgument as exc:
        raise fail(str(exc)) from None


def _read_provenance(provenance: dict[str, Any]) -> dict[str, Any]:
    """The provenance as recorded: each corpus file's path as it was given (see :mod:`..path_record`)."""
    corpus = provenance.get("corpus")
    files = corpus.get("files") if isinstance(corpus, dict) else None
    if not isinstance(corpus, dict) or not isinstance(files, list):
        return provenance
    listed = [read_entry(f) if isinstance(f, dict) else f for f in files]
    return {**provenance, "corpus": {**corpus, "files": listed}}


def _model_vocab(raw: Any, fail: Callable[[str], ModelFileError]) -> dict[int, bytes]:
    if not isinstance(raw, dict):
        raise fail('"vocab" must be an object mapping ids to hex bytes')
    return _vocab_entries(raw.items(), fail)


def _vocab_entries(
    entries: Iterable[tuple[str, Any]], fail: Callable[[str], ModelFileError]
) -> dict[int, bytes]:
    """The vocabulary from its ``(id text, hex bytes)`` entries, refused at the first entry past the limit."""
    vocab: dict[int, bytes] = {}
    for key, value in entries:
        if len(vocab) >= MAX_ENTRIES:
            raise fail(f"the vocabulary has more than {MAX_ENTRIES:,} entries, the limit")
        if not _DIGITS.fullmatch(key):
            raise fail(f"vocabulary id {_short(key)} is not a non-negative integer below 2^31")
        token_id = int(key)
        problem = id_problem(token_id)
        if problem:
            raise fail(problem)
        if token_id in vocab:
            raise fail(f"vocabulary id {token_id} appears twice")
        # An empty value is a token of no bytes (Whisper's rank files have one; BPE never makes it).
        if not isinstance(value, str) or not (value == "" or _HEX.fullmatch(value)):
            raise fail(f"vocabulary id {token_id} has {_short(value)}, not the token's bytes as hex")
        vocab[token_id] = bytes.fromhex(value)
    return vocab


def _model_merges(
    raw: Any, vocab_size: int, fail: Callable[[str], ModelFileError]
) -> list[tuple[bytes, bytes]]:
    if not isinstance(raw, list):
        raise fail('"merges" must be a list of [left hex, right hex] pairs')
    merges: list[tuple[bytes, bytes]] = []
    for index, pair in enumerate(_bounded("merges", raw, vocab_size, fail)):
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
    for text, token_id in raw.items():
        if not _is_int(token_id):
            raise fail(f"special token {_short(text)} has id {_short(token_id)}, not a non-negative integer")
        specials[text] = token_id
    problem = specials_problem(specials, vocab)
    if problem:
        raise fail(problem)
    return specials


def _model_history(raw: Any, vocab_size: int, fail: Callable[[str], ModelFileError]) -> list[MergeStep]:
    if not isinstance(raw, list):
        raise fail('"history" must be a list of merge records')
    history: list[MergeStep] = []
    for index, rec in enumerate(_bounded("history", raw, vocab_size, fail)):
        if not isinstance(rec, dict):
            raise fail(f"history record {index} is not an object")
        for key in _HISTORY_INT_FIELDS:
            if not _is_int(rec.get(key)):
                raise fail(f"history record {index}: {key!r} must be an integer, not {_short(rec.get(key))}")
        for key in ("left", "right"):
            if not isinstance(rec.get(key), str) or not _HEX.fullmatch(rec[key]):
                raise fail(f"history record {index}: {key!r} must be the token's bytes as hex")
        tied = rec.get("tied", [])
        if not isinstance(tied, list) or not all(
            isinstance(pair, list)
            and len(pair) == 2
            and all(isinstance(h, str) and _HEX.fullmatch(h) for h in pair)
            for pair in tied
        ):
            raise fail(f"history record {index}: 'tied' must be a list of [left, right] pairs of hex bytes")
        history.append(
            MergeStep(
                step=rec["step"],
                left_id=rec["left_id"],
                right_id=rec["right_id"],
                left=bytes.fromhex(rec["left"]),
                right=bytes.fromhex(rec["right"]),
                new_id=rec["new_id"],
                count=rec["count"],
                ties=rec["ties"],
                tokens_after=rec["tokens_after"],
                tied=tuple((bytes.fromhex(a), bytes.fromhex(b)) for a, b in tied),
            )
        )
    return history
