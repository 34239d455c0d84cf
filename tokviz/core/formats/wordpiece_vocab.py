"""BERT's ``vocab.txt``: a WordPiece vocabulary, one token per line in id order, and what reads it.

The file holds only the tokens. Whoever reads it (``tokenizers.BertWordPieceTokenizer``,
``transformers``' ``BertTokenizer``) builds BERT's own pipeline around it: the ``BertNormalizer``
(control characters dropped, CJK ideographs spaced, optional lowercasing and accent stripping), the
``BertPreTokenizer`` (whitespace and punctuation), WordPiece with ``##`` and at most 100 characters
a word, and ``[UNK] [SEP] [CLS] [PAD] [MASK]`` matched in text wherever the vocabulary has them.
So a WordPiece tokenizer exports to ``vocab.txt`` only when its tokenizer.json is that pipeline
(:func:`bert_vocab_problem` says what differs otherwise); the folder's ``tokenizer_config.json``
records the normalizer's switches, which the file cannot.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ..bpe.tokenizer import Tokenizer
from ._writing import encode_text
from .hf_config import library_config_files

VOCAB_FILE = "vocab.txt"
# The special tokens BERT's readers register when the vocabulary has them, by role.
BERT_SPECIALS = {
    "unk_token": "[UNK]",
    "sep_token": "[SEP]",
    "cls_token": "[CLS]",
    "pad_token": "[PAD]",
    "mask_token": "[MASK]",
}


def _doc(tokenizer: Tokenizer) -> dict[str, Any] | None:
    """The tokenizer.json of a tokenizer the ``tokenizers`` library encodes, else ``None``."""
    from .hf_engine import HFTokenizer

    if not isinstance(tokenizer, HFTokenizer):
        return None
    doc = json.loads(tokenizer.hf.to_str())
    return doc if isinstance(doc, dict) else None


def _bert_normalizer(doc: Mapping[str, Any]) -> Mapping[str, Any] | None:
    spec = doc.get("normalizer")
    return spec if isinstance(spec, dict) and spec.get("type") == "BertNormalizer" else None


def bert_vocab_problem(tokenizer: Tokenizer) -> str | None:
    """Why BERT's readers of a ``vocab.txt`` would not give ``tokenizer``'s ids, in one line, or ``None``."""
    doc = _doc(tokenizer)
    model = (doc or {}).get("model") or {}
    if doc is None or model.get("type") != "WordPiece":
        return f"vocab.txt holds a WordPiece vocabulary, and {tokenizer.name} is not a WordPiece model"
    normalizer = _bert_normalizer(doc)
    if normalizer is None or not normalizer.get("clean_text", True):
        return "BERT's readers of vocab.txt clean and normalize text with the BertNormalizer, and this model does not"
    pre = doc.get("pre_tokenizer")
    if not isinstance(pre, dict) or pre.get("type") != "BertPreTokenizer":
        return "BERT's readers of vocab.txt split words with the BertPreTokenizer, and this model does not"
    if model.get("continuing_subword_prefix") != "##" or model.get("max_input_chars_per_word") != 100:
        return "BERT's readers of vocab.txt mark word pieces with ## and cut words at 100 characters, and this model does not"
    if model.get("unk_token") != BERT_SPECIALS["unk_token"]:
        return f"BERT's readers of vocab.txt call the unknown token [UNK], and this model calls it {model.get('unk_token')!r}"
    vocab: dict[str, int] = model.get("vocab") or {}
    if sorted(vocab.values()) != list(range(len(vocab))):
        return "vocab.txt numbers its tokens by line, and this vocabulary's ids have gaps"
    if any("\n" in token or "\r" in token for token in vocab):
        return "vocab.txt holds one token a line, and a token of this vocabulary holds a line break"
    expected = {text for text in BERT_SPECIALS.values() if text in vocab}
    added = {str(t.get("content")): t for t in doc.get("added_tokens") or []}
    if set(added) != expected:
        return (
            "BERT's readers of vocab.txt match exactly the tokens of [UNK] [SEP] [CLS] [PAD] [MASK] it has "
            f"in text, and this model matches {', '.join(sorted(added)) or 'none'}"
        )
    if any(
        t.get("lstrip") or t.get("rstrip") or t.get("single_word") or t.get("normalized")
        for t in added.values()
    ):
        return "BERT's readers of vocab.txt match special tokens as they are written, and this model strips or normalizes them"
    return None


def bert_settings(tokenizer: Tokenizer) -> dict[str, Any]:
    """The BertNormalizer's switches, by the names ``BertWordPieceTokenizer`` takes."""
    normalizer = _bert_normalizer(_doc(tokenizer) or {}) or {}
    return {
        "lowercase": bool(normalizer.get("lowercase", True)),
        "strip_accents": normalizer.get("strip_accents"),
        "handle_chinese_chars": bool(normalizer.get("handle_chinese_chars", True)),
    }


def bert_files(tokenizer: Tokenizer) -> dict[str, bytes]:
    """``vocab.txt`` and the two config files that make transformers read it as this model does."""
    doc = _doc(tokenizer) or {}
    vocab: dict[str, int] = (doc.get("model") or {}).get("vocab") or {}
    lines = "".join(f"{token}\n" for token, _ in sorted(vocab.items(), key=lambda item: item[1]))
    settings = bert_settings(tokenizer)
    roles = {role: (text if text in vocab else None) for role, text in BERT_SPECIALS.items()}
    added = [dict(t) for t in doc.get("added_tokens") or []]
    files = library_config_files(
        added,
        roles,
        "BertTokenizer",
        do_lower_case=settings["lowercase"],
        strip_accents=settings["strip_accents"],
        tokenize_chinese_chars=settings["handle_chinese_chars"],
    )
    return {VOCAB_FILE: encode_text(lines, VOCAB_FILE), **files}


def bert_snippet(tokenizer: Tokenizer, folder: str) -> str:
    """The line of Python that reads the exported vocab.txt with ``tokenizers`` as this model encodes."""
    settings = bert_settings(tokenizer)
    args = ", ".join(f"{key}={value!r}" for key, value in settings.items())
    return f'BertWordPieceTokenizer("{folder}/{VOCAB_FILE}", {args})'
