"""Mistral's tekken files (mistral-common's ``tekken.json``): tiktoken ranks behind the special ids.

A tekken file holds a ``config`` (the pre-tokenizer ``pattern``, ``default_vocab_size`` and
``default_num_special_tokens``, a ``version``), a ``vocab`` list of ``{rank, token_bytes (base64),
token_str}`` in rank order, and, from version v11 on, its ``special_tokens``. mistral-common gives the
special tokens ids ``0 .. n-1`` (naming the unnamed ones ``<SPECIAL_k>``), keeps the first
``default_vocab_size - n`` ranks and gives rank ``r`` the id ``r + n``; its tiktoken encoding never
reads special tokens from text, so neither does this tokenizer (their ids only decode).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from typing import Any

from ..bpe.tokenizer import Tokenizer
from ..errors import PretokenizerError, TokenizerLoadError
from ._common import MAX_ENTRIES, _is_int, _short, check_file_pattern
from .engine import tokenizer_from_ranks

# The special tokens of files written before v11 named none (mistral-common's list for them).
LEGACY_SPECIALS = (
    "<unk>",
    "<s>",
    "</s>",
    "[INST]",
    "[/INST]",
    "[AVAILABLE_TOOLS]",
    "[/AVAILABLE_TOOLS]",
    "[TOOL_RESULTS]",
    "[/TOOL_RESULTS]",
    "[TOOL_CALLS]",
    "[IMG]",
    "<pad>",
    "[IMG_BREAK]",
    "[IMG_END]",
    "[PREFIX]",
    "[MIDDLE]",
    "[SUFFIX]",
    "[SYSTEM_PROMPT]",
    "[/SYSTEM_PROMPT]",
    "[TOOL_CONTENT]",
)
LEGACY_VERSIONS = ("v1", "v2", "v3", "v7")
FILLER = "<SPECIAL_{id}>"


def is_tekken(parsed: object) -> bool:
    """Whether parsed JSON is a tekken file: a ``config`` with a pattern and a ``vocab`` list."""
    if not isinstance(parsed, dict):
        return False
    config, vocab = parsed.get("config"), parsed.get("vocab")
    return isinstance(config, dict) and "pattern" in config and isinstance(vocab, list)


def tekken_from_json(parsed: Mapping[str, Any], file_name: str, name: str) -> Tokenizer:
    """The tokenizer a parsed tekken file defines, with mistral-common's ids (see the module docstring).

    tiktoken encodes over the ranks shifted by the number of special tokens (a shift keeps their
    order, so the merges are the same); every problem is a :class:`TokenizerLoadError` naming the file.
    """
    config = parsed["config"]
    pattern = config.get("pattern")
    if not isinstance(pattern, str) or not pattern:
        raise TokenizerLoadError(f"{file_name}: config.pattern must be a regex string")
    check_file_pattern(pattern, "config.pattern", file_name)
    n_special = _config_int(config, "default_num_special_tokens", file_name)
    vocab_size = _config_int(config, "default_vocab_size", file_name)
    entries = parsed["vocab"]
    inner = vocab_size - n_special
    if not 256 <= inner <= len(entries):
        raise TokenizerLoadError(
            f"{file_name}: default_vocab_size {vocab_size:,} minus {n_special:,} special tokens leaves "
            f"{inner:,} ordinary tokens; the vocab list has {len(entries):,} (at least the 256 bytes are needed)"
        )
    if inner > MAX_ENTRIES:
        raise TokenizerLoadError(f"{file_name}: {inner:,} tokens is more than tokviz reads ({MAX_ENTRIES:,})")
    ranks = _ranks(entries[:inner], n_special, file_name)
    specials = _specials(parsed.get("special_tokens"), config.get("version"), n_special, file_name)
    try:
        return tokenizer_from_ranks(ranks, specials, pattern, name, specials_in_text=False)
    except (TokenizerLoadError, PretokenizerError) as exc:
        raise TokenizerLoadError(f"{file_name}: {exc}") from None


def _config_int(config: Mapping[str, Any], key: str, file_name: str) -> int:
    value = config.get(key)
    if not _is_int(value) or value < 0:
        raise TokenizerLoadError(
            f"{file_name}: config.{key} must be a whole number >= 0, got {_short(value)}"
        )
    return value


def _ranks(entries: list[Any], shift: int, file_name: str) -> dict[bytes, int]:
    """``{token bytes: rank + shift}``, checking each entry as mistral-common does."""
    ranks: dict[bytes, int] = {}
    for i, entry in enumerate(entries):
        token = _field(
            entry,
            i,
            "token_bytes",
            f"{file_name}: vocab entry {i} must be {{rank: {i}, token_bytes: base64}}",
        )
        try:
            data = base64.b64decode(token, validate=True)
        except (binascii.Error, ValueError):
            raise TokenizerLoadError(
                f"{file_name}: vocab entry {i} has token_bytes that are not base64: {_short(token)}"
            ) from None
        if i < 256 and data != bytes([i]):
            raise TokenizerLoadError(
                f"{file_name}: rank {i} must be the single byte {i:02X}, got {_short(data)}"
            )
        if data in ranks:
            raise TokenizerLoadError(
                f"{file_name}: ranks {ranks[data] - shift} and {i} are the same bytes {_short(data)}"
            )
        ranks[data] = i + shift
    return ranks


def _field(entry: object, rank: int, key: str, what: str) -> str:
    """``entry[key]`` of a ``{rank, key: str}`` entry at position ``rank``, or an error saying ``what``."""
    if not isinstance(entry, dict) or entry.get("rank") != rank or not isinstance(entry.get(key), str):
        raise TokenizerLoadError(f"{what}, got {_short(entry)}")
    return str(entry[key])


def _specials(given: object, version: object, n_special: int, file_name: str) -> dict[str, int]:
    """The special tokens' ``{text: id}``: the file's list (or the legacy names), then fillers to ``n``."""
    if given is None:
        if version not in LEGACY_VERSIONS and version is not None:
            raise TokenizerLoadError(
                f"{file_name}: a tekken file of version {_short(version)} must list its special_tokens"
            )
        names = list(LEGACY_SPECIALS)
    elif isinstance(given, list):
        names = []
        for k, entry in enumerate(given):
            what = f"{file_name}: special token {k} must be {{rank: {k}, token_str: text}}"
            names.append(_field(entry, k, "token_str", what))
    else:
        raise TokenizerLoadError(f"{file_name}: special_tokens must be a list, got {_short(given)}")
    if len(names) > n_special:
        raise TokenizerLoadError(
            f"{file_name}: {len(names)} special tokens listed, but default_num_special_tokens is {n_special}"
        )
    names += [FILLER.format(id=k) for k in range(len(names), n_special)]
    ids = {text: k for k, text in enumerate(names)}
    if len(ids) != len(names):
        twice = next(t for t in names if names.count(t) > 1)
        raise TokenizerLoadError(f"{file_name}: the special token {twice!r} is listed twice")
    return ids
