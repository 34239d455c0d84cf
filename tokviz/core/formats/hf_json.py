"""Hugging Face ``tokenizer.json``: written for a byte-level BPE, read for any model.

Writing (:func:`export_hf`) makes a file the ``tokenizers`` library encodes exactly like tokviz;
reading (:func:`load_hf`, :func:`hf_from_json`) takes every file the library reads, and the library
itself encodes (:mod:`.hf_engine`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import regex

from ..bpe.tokenizer import Tokenizer
from ..errors import TokenizerLoadError
from ..pretok.bytes_ import bytes_to_gpt2_str
from ..pretok.pretokenize import GPT2_PATTERN, Pretokenizer
from ._common import (
    HF_JSON_CAP,
    PathLike,
    _byte_level_strings,
    _check_count,
    _parse_json_text,
    _short,
    check_file_pattern,
    json_kind,
    read_text,
)
from ._reach import judge_reach, remember_warnings
from ._writing import encode_text, write_file
from .hf_config import folder_assumptions
from .hf_engine import NEVER_IN_UTF8, build_hf_tokenizer, load_library_tokenizer
from .hf_verify import verify_hf_export
from .oniguruma import from_oniguruma as from_oniguruma  # re-exported for code that imports it from here
from .oniguruma import to_oniguruma


def export_hf(tokenizer: Tokenizer, path: PathLike) -> Path:
    """Write a Hugging Face ``tokenizer.json``, checked and atomic (see :mod:`tokviz.core.io.outputs`)."""
    return write_file(path, "tokenizer.json", hf_file_bytes(tokenizer))


def hf_file_bytes(tokenizer: Tokenizer, *, sample: Iterable[str] = ()) -> bytes:
    """A Hugging Face ``tokenizer.json`` (byte-level BPE) that encodes exactly like tokviz.

    Verified before it is returned (:func:`.hf_verify.verify_hf_export`): a pattern Oniguruma reads
    otherwise is refused with the reason, and ``tokenizers`` must give tokviz's ids on a hard
    built-in sample plus ``sample`` (e.g. some training text); else :class:`ExportError`.

    The normalizer is the library's own (:meth:`~tokviz.core.pretok.normalize.Normalizer.hf_json`).
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
        "normalizer": tokenizer.normalizer.hf_json(),
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
    text = json.dumps(doc, ensure_ascii=False, indent=1) + "\n"
    data = encode_text(text, "tokenizer.json")
    verify_hf_export(tokenizer, text, sample)
    return data


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


def load_hf(path: PathLike) -> Tokenizer:
    """Load any Hugging Face ``tokenizer.json`` (see :func:`hf_from_json`)."""
    p = Path(path)
    source = read_text(p, cap=HF_JSON_CAP)
    parsed = _parse_json_text(source, p.name, TokenizerLoadError)
    tok = hf_from_json(parsed, p.name, p.parent.name or p.stem, source=source)
    return with_folder_assumptions(tok, p)


def with_folder_assumptions(tok: Tokenizer, path: Path) -> Tokenizer:
    """``tok`` read from ``path``, with what a folder tokviz exported recorded as assumed about its
    source (the ``tokenizer_config.json`` beside a file named tokenizer.json)."""
    if path.name == "tokenizer.json":
        tok.assumptions = tuple(dict.fromkeys((*tok.assumptions, *folder_assumptions(path.parent))))
    return tok


def hf_from_json(
    data: Any, file_name: str = "tokenizer.json", name: str = "tokenizer.json", *, source: str | None = None
) -> Tokenizer:
    """Build the tokenizer of parsed ``tokenizer.json`` data: the ``tokenizers`` library encodes.

    Every file the library reads loads (any normalizer, pre-tokenizer, model and added tokens; see
    :mod:`.hf_engine`); one it cannot read is refused with the library's reason. A BPE file whose
    merges cannot make most of its vocabulary (merges missing or cut short) is refused as before,
    and a byte with no token is named in :func:`load_warnings`. ``source`` is the file's text when
    the caller has it (the library then reads it as is, instead of ``data`` written out again).
    """

    def fail(message: str) -> TokenizerLoadError:
        return TokenizerLoadError(f"{file_name}: {message}")

    if not isinstance(data, dict):
        raise fail(f"not a Hugging Face tokenizer file (expected a JSON object, found {json_kind(data)})")
    if not isinstance(data.get("model"), dict):
        raise fail('not a Hugging Face tokenizer file (no "model" object)')
    warnings: list[str] = []
    if model_kind(data["model"]) == "BPE":
        warnings += _bpe_reach(data, file_name)
    for key in _PIPELINE_KEYS:
        for pattern in library_regexes(data.get(key)):
            check_file_pattern(pattern, f"the {key.replace('_', '-')} regex", file_name)
    try:
        hf = load_library_tokenizer(source if source is not None else json.dumps(data, ensure_ascii=False))
    except TokenizerLoadError as exc:
        raise fail(str(exc)) from None
    if "type" not in data["model"]:  # an older file: the kind is the one the library read it as
        data = {**data, "model": {**data["model"], "type": type(hf.model).__name__}}
    tok = build_hf_tokenizer(hf, name, doc=data)
    warnings += missing_byte_warnings(tok, file_name)
    return remember_warnings(tok, warnings)


# The parts of a tokenizer.json that hold regexes (the model's vocabulary is not walked).
_PIPELINE_KEYS = ("normalizer", "pre_tokenizer", "post_processor", "decoder")


def library_regexes(spec: Any) -> Iterator[str]:
    """Every ``{"Regex": ...}`` pattern in a tokenizer.json (Split, Replace, ...): the library
    compiles each one when it reads the file."""
    if isinstance(spec, dict):
        for key, value in spec.items():
            if key == "Regex" and isinstance(value, str):
                yield value
            elif isinstance(value, (dict, list)):
                yield from library_regexes(value)
    elif isinstance(spec, list):
        for item in spec:
            yield from library_regexes(item)


def model_kind(model: dict[str, Any]) -> str:
    """The model's kind as the ``tokenizers`` library reads it: its ``"type"``, or for an older file
    written without one, inferred from its keys (WordPiece has a subword prefix or a word length
    limit, BPE has merges, Unigram a vocabulary of (piece, score) pairs, WordLevel otherwise)."""
    kind = model.get("type")
    if isinstance(kind, str):
        return kind
    if "merges" in model:
        return "BPE"
    if "continuing_subword_prefix" in model or "max_input_chars_per_word" in model:
        return "WordPiece"
    if isinstance(model.get("vocab"), list):
        return "Unigram"
    return "WordLevel"


def _bpe_reach(data: dict[str, Any], file_name: str) -> list[str]:
    """Refuse BPE merges that cannot make most of the vocabulary; else warnings (see :mod:`._reach`)."""
    model = data["model"]
    vocab = model.get("vocab")
    raw_merges = model.get("merges", [])
    if not isinstance(vocab, dict) or not isinstance(raw_merges, list):
        return []  # the library names what is wrong with the shape
    _check_count(len(raw_merges), "merges", file_name, TokenizerLoadError)
    entries = data.get("added_tokens")
    added = {
        e["content"]
        for e in (entries if isinstance(entries, list) else [])
        if isinstance(e, dict) and isinstance(e.get("content"), str)
    }
    made: set[str] = set()
    for index, merge in enumerate(raw_merges):
        if isinstance(merge, str) and merge.count(" ") == 1 and " " not in (merge[0], merge[-1]):
            made.add(merge.replace(" ", "", 1))
        elif isinstance(merge, list) and len(merge) == 2 and all(isinstance(x, str) and x for x in merge):
            made.add("".join(merge))
        else:  # said here with the merge's number: the library names only a column
            raise TokenizerLoadError(
                f"{file_name}: merge {index} is {_short(merge)}, not 'left right' or [left, right]"
            )
    fallback = bool(model.get("byte_fallback"))
    learned = [
        t
        for t in vocab
        if isinstance(t, str)
        and len(t) > 1
        and t not in added
        and not (fallback and _BYTE_TOKEN.fullmatch(t))
    ]
    unreachable = [t for t in learned if t not in made]
    return judge_reach(file_name, len(learned), unreachable, len(raw_merges), "are never produced")


_BYTE_TOKEN = regex.compile(r"<0x[0-9A-Fa-f]{2}>")


def missing_byte_warnings(tok: Tokenizer, file_name: str) -> list[str]:
    """A line naming the bytes a byte-level vocabulary has no token for, when UTF-8 text can hold them.

    The ``tokenizers`` library drops such a byte from the ids (tokviz shows the ids it gives: the
    character's other tokens appear as partial tokens). Bytes UTF-8 never uses are not mentioned.
    """
    if not getattr(tok, "byte_level", False):
        return []
    present = {b[0] for i, b in tok.vocab.items() if len(b) == 1 and not tok.is_special(i)}
    missing = [b for b in range(256) if b not in present and b not in NEVER_IN_UTF8]
    if not missing:
        return []
    shown = " ".join(f"{b:02X}" for b in missing[:8]) + (" ..." if len(missing) > 8 else "")
    return [
        f"{file_name} has no token for {len(missing)} byte{'s' if len(missing) > 1 else ''} that UTF-8 text "
        f"can hold ({shown}); the tokenizers library drops them from the ids, and so does tokviz"
    ]
