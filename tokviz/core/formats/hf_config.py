"""``tokenizer_config.json`` and ``special_tokens_map.json``: what ``transformers`` reads beside a vocabulary.

Without them ``AutoTokenizer.from_pretrained(folder)`` does not know the tokenizer's class, has no
``eos_token`` and treats the special tokens as unknown text. Each special token's role (end of
text, start of text, unknown, padding) is read from its spelling (``<|endoftext|>`` and ``</s>``
end a text, ``<s>`` starts one, ``<pad>`` pads, ``[SEP]``, ``[CLS]`` and ``[MASK]`` as BERT uses them);
every other special token is an additional special token. All roles are written, ``null`` when the vocabulary has no such token, so that a
class's own defaults (GPT-2's is ``<|endoftext|>`` for all of them) never add tokens the
vocabulary does not have.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ..bpe.tokenizer import Tokenizer
from ._writing import encode_text

CONFIG_FILES = ("tokenizer_config.json", "special_tokens_map.json")
# The tokenizer_config.json key where a folder tokviz exported lists what tokviz assumed about the source.
ASSUMPTIONS_KEY = "tokviz_assumptions"


def recorded_assumptions(config: Mapping[str, Any], known: Iterable[str] = ()) -> tuple[str, ...]:
    """The assumptions an export recorded in ``config`` (:data:`ASSUMPTIONS_KEY`) not already in ``known``."""
    listed = config.get(ASSUMPTIONS_KEY)
    if not isinstance(listed, list):
        return ()
    seen = set(known)
    return tuple(dict.fromkeys(str(a) for a in listed if isinstance(a, str) and a and a not in seen))


def _folder_config(folder: Path) -> dict[str, Any]:
    """The ``tokenizer_config.json`` in ``folder`` as a dict; ``{}`` when absent or unreadable (the
    loader that needs it names the problem)."""
    path = folder / "tokenizer_config.json"
    try:
        if not path.is_file() or path.stat().st_size > _CONFIG_CAP:
            return {}
        config = json.loads(path.read_bytes().decode("utf-8"))
    except (OSError, ValueError):
        return {}
    return config if isinstance(config, dict) else {}


def folder_assumptions(folder: Path) -> tuple[str, ...]:
    """What an export into ``folder`` recorded as assumed (its ``tokenizer_config.json``), else ``()``."""
    return recorded_assumptions(_folder_config(folder))


def sentencepiece_class_assumption(folder: Path) -> str | None:
    """For a folder whose ``tokenizer.model`` is read without a ``tokenizer.json``: when its config
    names a transformers class (``LlamaTokenizer``, ``T5Tokenizer``), the line saying the ids are
    sentencepiece's. transformers converts the model into its own pipeline, which can give other ids
    (runs of spaces, pieces the vocabulary lacks); a folder saved with tokenizer.json has its ids."""
    named = _folder_config(folder).get("tokenizer_class")
    if not isinstance(named, str) or not named:
        return None
    return f"ids assumed as sentencepiece gives them, not as transformers converts {named}"


# transformers' class for a vocab.json + merges.txt folder, and for a lone tokenizer.json.
GPT2_CLASS = "GPT2Tokenizer"
FAST_CLASS = "PreTrainedTokenizerFast"

# Spellings of each role in the tokenizers people train and publish, compared case-insensitively.
_ROLE_SPELLINGS: dict[str, frozenset[str]] = {
    "eos_token": frozenset(
        {"<|endoftext|>", "</s>", "<eos>", "<|eos|>", "<|end_of_text|>", "[eos]", "<|end|>", "<|im_end|>"}
    ),
    "bos_token": frozenset({"<s>", "<bos>", "<|bos|>", "<|begin_of_text|>", "<|startoftext|>", "[bos]"}),
    "unk_token": frozenset({"<unk>", "[unk]", "<|unk|>"}),
    "pad_token": frozenset({"<pad>", "[pad]", "<|pad|>", "<|padding|>"}),
    "sep_token": frozenset({"[sep]", "<sep>", "<|sep|>"}),
    "cls_token": frozenset({"[cls]", "<cls>", "<|cls|>"}),
    "mask_token": frozenset({"[mask]", "<mask>", "<|mask|>"}),
}
ROLES = tuple(_ROLE_SPELLINGS)
_CONFIG_CAP = 64 * 1024 * 1024


def special_roles(specials: Mapping[str, int]) -> dict[str, str | None]:
    """Each role (``eos_token``, ``bos_token``, ``unk_token``, ``pad_token``, ``sep_token``,
    ``cls_token``, ``mask_token``) and the special token that plays it, or ``None``; the lowest id
    wins when several are spelled for one role."""
    ordered = sorted(specials.items(), key=lambda item: item[1])
    roles: dict[str, str | None] = {}
    for role, spellings in _ROLE_SPELLINGS.items():
        roles[role] = next((text for text, _ in ordered if text.lower() in spellings), None)
    return roles


def hf_config_files(tokenizer: Tokenizer, tokenizer_class: str) -> dict[str, bytes]:
    """``tokenizer_config.json`` and ``special_tokens_map.json`` for ``tokenizer`` as ``{name: bytes}``.

    ``tokenizer_class`` is :data:`GPT2_CLASS` for a vocab.json + merges.txt folder and
    :data:`FAST_CLASS` when the folder's tokenizer.json is what must be read (its pre-tokenizer
    is not GPT-2's, so no class built from vocab.json + merges.txt may be chosen instead).
    """
    specials = dict(sorted(tokenizer.special_tokens.items(), key=lambda item: item[1]))
    settings: dict[str, Any] = {}
    if tokenizer_class == GPT2_CLASS:
        settings.update({"add_prefix_space": False, "add_bos_token": False, "errors": "replace"})
    if tokenizer.assumptions:
        # What tokviz assumed about the source stays a stated assumption in the export (read back on load).
        settings[ASSUMPTIONS_KEY] = list(tokenizer.assumptions)
    tokens = [{"id": token_id, "content": text, "special": True} for text, token_id in specials.items()]
    return library_config_files(tokens, special_roles(specials), tokenizer_class, **settings)


def library_config_files(
    added_tokens: Iterable[Mapping[str, Any]],
    roles: Mapping[str, str | None],
    tokenizer_class: str = FAST_CLASS,
    **settings: Any,
) -> dict[str, bytes]:
    """The two config files for a tokenizer.json whose added tokens are ``added_tokens`` as written
    there (their own flags, so transformers matches each as that file does), ``roles`` naming the
    special tokens (``eos_token`` ...) and ``settings`` added to ``tokenizer_config.json``."""
    tokens = list(added_tokens)
    named = {text for text in roles.values() if text is not None}
    others = [str(t["content"]) for t in tokens if t.get("special") and t["content"] not in named]
    flags = ("lstrip", "normalized", "rstrip", "single_word", "special")
    config: dict[str, Any] = {"tokenizer_class": tokenizer_class, **settings, **roles}
    config["additional_special_tokens"] = others
    # Decoding gives back the text exactly: no " ." -> "." clean-up.
    config["clean_up_tokenization_spaces"] = False
    config["added_tokens_decoder"] = {
        str(t["id"]): {"content": t["content"], **{f: bool(t.get(f)) for f in flags}} for t in tokens
    }
    special_map: dict[str, Any] = {role: text for role, text in roles.items() if text is not None}
    if others:
        special_map["additional_special_tokens"] = others
    return {
        "tokenizer_config.json": _json_bytes(config, "tokenizer_config.json"),
        "special_tokens_map.json": _json_bytes(special_map, "special_tokens_map.json"),
    }


def _json_bytes(value: Any, name: str) -> bytes:
    return encode_text(json.dumps(value, ensure_ascii=False, indent=2) + "\n", name)
