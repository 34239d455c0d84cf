"""Hugging Face ``tokenizer.json`` for a byte-level BPE, loadable by the ``tokenizers`` library."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import regex

from ..bytes_ import bytes_to_gpt2_str
from ..errors import ExportError, PretokenizerError, TokenizerLoadError
from ..outputs import Output
from ..pretokenize import CL100K_PATTERN, GPT2_PATTERN, Pretokenizer, resolve_pretokenizer
from ..tokenizer import Tokenizer
from ._common import (
    HF_JSON_CAP,
    PathLike,
    _byte_level_strings,
    _check_count,
    _is_int,
    _short,
    json_kind,
    read_json,
)
from ._writing import encode_text, write_one
from .gpt2_files import _byte_level_tokenizer
from .hf_verify import verify_hf_export


def export_hf(tokenizer: Tokenizer, path: PathLike) -> Path:
    """Write a Hugging Face ``tokenizer.json``, checked and atomic (see :mod:`tokviz.core.outputs`)."""
    write_one(Output.file(path, "tokenizer.json"), hf_file_bytes(tokenizer))
    return Path(path)


def hf_file_bytes(tokenizer: Tokenizer, *, sample: Iterable[str] = ()) -> bytes:
    """A Hugging Face ``tokenizer.json`` (byte-level BPE) that encodes exactly like tokviz.

    Verified before it is returned (:func:`.hf_verify.verify_hf_export`): a pattern Oniguruma reads
    otherwise is refused with the reason, and ``tokenizers`` must give tokviz's ids on a hard
    built-in sample plus ``sample`` (e.g. some training text); else :class:`ExportError`.

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
    return hf_from_json(read_json(p, TokenizerLoadError, HF_JSON_CAP), p.name, p.parent.name or p.stem)


def hf_from_json(data: Any, file_name: str = "tokenizer.json", name: str = "tokenizer.json") -> Tokenizer:
    """Validate parsed ``tokenizer.json`` data and build the tokenizer.

    Every added token (special or not) becomes a special token: HF matches both whole, before BPE.
    """

    def fail(message: str) -> TokenizerLoadError:
        return TokenizerLoadError(f"{file_name}: {message}")

    if not isinstance(data, dict):
        raise fail(f"not a Hugging Face tokenizer file (expected a JSON object, found {json_kind(data)})")
    if not isinstance(data.get("model"), dict):
        raise fail('not a Hugging Face tokenizer file (no "model" object)')
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
