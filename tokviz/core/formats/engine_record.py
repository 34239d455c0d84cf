"""The options record of a model a library trained: how to train it again with the library alone.

A SentencePiece ``.model`` or a WordPiece ``tokenizer.json`` trained through tokviz gets a record
beside it, ``<file>.json`` (``m.model`` -> ``m.model.json``), written with the model as one output
set::

    {"format": "tokviz-engine-record", "version": 1, "sha256": "<of the model file>",
     "trainer": {"library": "sentencepiece 0.2.1", "algorithm": "unigram",
                 "options": {...}, "files": {...}, "sentences": "...", "call": "...",
                 "rounds": [{"index": 0, "size": 3409, "objective": 12.2, "tokens": 43763}, ...]},
     "provenance": {...}}

``options`` are exactly what was passed to the library, ``files`` the files they name (a
normalization rule file: its size and SHA-256 here, its text in the record's own ``files``, since
a rule file can be megabytes), ``sentences`` how the documents were cut into the sentences the
library read, ``call`` the Python that repeats the run, ``rounds`` a Unigram run's pruning
rounds. When the model is opened, the record is read back if its ``sha256`` is the model's
(:func:`attach_record`), and ``tokviz info`` shows the trainer under one key.
"""

from __future__ import annotations

import hashlib
import json
import weakref
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..bpe.tokenizer import Tokenizer
from ..corpus.reading import hash_file
from ..errors import CorpusError
from ._common import PathLike
from ._reach import load_warnings, remember_warnings
from ._writing import encode_text

RECORD_FORMAT = "tokviz-engine-record"
RECORD_VERSION = 1
# Far above any record tokviz writes (the rounds and a list of corpus files).
RECORD_CAP = 64 * 2**20

CALLS = {
    "sentencepiece": (
        "import sentencepiece as spm; "
        'spm.SentencePieceTrainer.train(sentence_iterator=SENTENCES, model_writer=open("m.model", "wb"), **OPTIONS)'
    ),
    "tokenizers": (
        "import json; from tokenizers import Tokenizer; from tokenizers.trainers import WordPieceTrainer; "
        'tok = Tokenizer.from_str(json.dumps(OPTIONS["tokenizer"])); '
        'tok.train_from_iterator(SENTENCES, WordPieceTrainer(**OPTIONS["trainer"])); tok.save("tokenizer.json")'
    ),
}

_records: weakref.WeakKeyDictionary[Tokenizer, dict[str, Any]] = weakref.WeakKeyDictionary()


def record_path(path: PathLike) -> Path:
    """Where the record of the model file ``path`` goes: the same name with ``.json`` added."""
    p = Path(path)
    return p.with_name(p.name + ".json")


def trainer_record(
    library: str,
    algorithm: str,
    options: Mapping[str, Any],
    files: Mapping[str, str],
    sentences: str,
    rounds: list[dict[str, Any]],
) -> dict[str, Any]:
    """The ``trainer`` part of a record (what ``tokviz info`` shows under ``trainer``)."""
    name = library.split(" ", 1)[0]
    trainer: dict[str, Any] = {
        "library": library,
        "algorithm": algorithm,
        "options": dict(options),
        "sentences": sentences,
        "call": CALLS[name],
    }
    if files:
        # The files' text is in the record's own "files" (a rule file can be megabytes); here, what identifies it.
        trainer["files"] = {
            name: {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest(), "text_in": "files"}
            for name, text in files.items()
            for data in [text.encode("utf-8")]
        }
    if rounds:
        trainer["rounds"] = rounds
    return trainer


def record_bytes(
    model: bytes,
    trainer: Mapping[str, Any],
    provenance: Mapping[str, Any],
    files: Mapping[str, str] | None = None,
) -> bytes:
    """The record file of the model file ``model``; ``files`` are the texts of the files the options name."""
    doc: dict[str, Any] = {
        "format": RECORD_FORMAT,
        "version": RECORD_VERSION,
        "sha256": hashlib.sha256(model).hexdigest(),
        "trainer": dict(trainer),
        "provenance": dict(provenance),
    }
    if files:
        doc["files"] = dict(files)
    return encode_text(json.dumps(doc, ensure_ascii=False, indent=2) + "\n", "the options record")


def read_record(path: PathLike) -> tuple[dict[str, Any] | None, str | None]:
    """The record beside the model file ``path`` and a warning, each or None.

    No record file is no record and no warning. A record that is not tokviz's, does not parse,
    or is of another model file (its ``sha256`` differs) is not used, and the warning says why.
    """
    side = record_path(path)
    if not side.is_file():
        return None, None
    try:
        with open(side, "rb") as fh:
            data = fh.read(RECORD_CAP + 1)
        doc = json.loads(data.decode("utf-8")) if len(data) <= RECORD_CAP else None
    except (OSError, ValueError, RecursionError):
        doc = None
    if not isinstance(doc, dict) or doc.get("format") != RECORD_FORMAT:
        return None, f"{side.name} is not a tokviz options record; the trainer's options are not shown"
    if doc.get("sha256") != _file_sha256(Path(path)):
        return (
            None,
            f"{side.name} records another model file (its sha256 differs); the trainer's options are not shown",
        )
    if not isinstance(doc.get("trainer"), dict):
        return None, f"{side.name} has no trainer; the trainer's options are not shown"
    return doc, None


def attach_record(tokenizer: Tokenizer, path: PathLike) -> Tokenizer:
    """``tokenizer`` (opened from the model file ``path``) with the record beside it remembered,
    or with a load warning saying why the record there is not used."""
    doc, warning = read_record(path)
    if doc is not None:
        _records[tokenizer] = doc
    if warning is not None:
        remember_warnings(tokenizer, [*load_warnings(tokenizer), warning])
    return tokenizer


def _file_sha256(path: Path) -> str | None:
    """The SHA-256 of the file at ``path`` (None when it cannot be read)."""
    try:
        return hash_file(path)[1]
    except CorpusError:
        return None


def remember_record(tokenizer: Tokenizer, doc: Mapping[str, Any]) -> None:
    """Remember ``doc`` as the record of ``tokenizer`` (a model just trained, not yet saved)."""
    _records[tokenizer] = dict(doc)


def engine_record(tokenizer: Tokenizer) -> dict[str, Any] | None:
    """The record of a tokenizer a library trained through tokviz (``trainer``, ``provenance``), or None."""
    return _records.get(tokenizer)
