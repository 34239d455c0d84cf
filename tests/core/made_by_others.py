"""Tokenizer files made by other tools (Hugging Face ``tokenizers``, tiktoken), not by tokviz.

The loaders are tested on what real tools write, so a shared misreading cannot hide a bug.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

from tokenizers import Tokenizer as HFTokenizer
from tokenizers import decoders, models, pre_tokenizers, trainers

from tokviz.core.pretok.bytes_ import gpt2_str_to_bytes


def hf_trained(
    text: str, vocab_size: int = 400, specials: tuple[str, ...] = ("<|endoftext|>",)
) -> HFTokenizer:
    """A byte-level BPE trained by Hugging Face ``tokenizers`` (GPT-2's layout: no prefix space)."""
    tk = HFTokenizer(models.BPE())
    tk.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tk.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        special_tokens=list(specials),
        show_progress=False,
    )
    tk.train_from_iterator([text], trainer)
    return tk


def write_hf_files(tk: HFTokenizer, folder: Path) -> dict[str, Path]:
    """``tokenizer.json`` (``tk.save``) and ``vocab.json`` + ``merges.txt`` (``tk.model.save``)."""
    folder.mkdir(parents=True, exist_ok=True)
    tk.save(str(folder / "tokenizer.json"))
    tk.model.save(str(folder))
    return {
        "tokenizer.json": folder / "tokenizer.json",
        "vocab.json": folder / "vocab.json",
        "merges.txt": folder / "merges.txt",
    }


def hf_document(tk: HFTokenizer) -> dict[str, Any]:
    """The parsed ``tokenizer.json`` of ``tk``."""
    result: dict[str, Any] = json.loads(tk.to_str())
    return result


def tiktoken_lines(tk: HFTokenizer) -> list[str]:
    """A ``.tiktoken`` rank file's lines for ``tk``'s byte-level vocabulary (specials left out).

    Ranks are re-numbered 0..N-1 in id order, as a rank file requires.
    """
    vocab = tk.get_vocab()
    specials = {t.content for t in tk.get_added_tokens_decoder().values()}
    ordered = sorted((i, s) for s, i in vocab.items() if s not in specials)
    return [
        f"{base64.b64encode(gpt2_str_to_bytes(s)).decode()} {rank}" for rank, (_, s) in enumerate(ordered)
    ]


def model_document(
    vocab: dict[int, bytes], merges: list[tuple[bytes, bytes]], **extra: Any
) -> dict[str, Any]:
    """A tokviz model file's JSON built by hand from a vocabulary and merges (not by ``save_model``)."""
    doc: dict[str, Any] = {
        "format": "tokviz-model",
        "version": 1,
        "name": "hand-made",
        "pretokenizer": "gpt2",
        "special_tokens": {},
        "settings": {},
        "vocab": {str(i): b.hex() for i, b in sorted(vocab.items())},
        "merges": [[a.hex(), b.hex()] for a, b in merges],
        "history": [],
    }
    doc.update(extra)
    return doc


def hf_vocab_and_merges(tk: HFTokenizer) -> tuple[dict[int, bytes], list[tuple[bytes, bytes]]]:
    """``tk``'s non-special vocabulary as ``{id: bytes}`` and its merges as byte pairs."""
    doc = hf_document(tk)
    specials = {t["content"] for t in doc["added_tokens"]}
    vocab = {i: gpt2_str_to_bytes(s) for s, i in doc["model"]["vocab"].items() if s not in specials}
    merges = []
    for m in doc["model"]["merges"]:
        left, right = m.split(" ") if isinstance(m, str) else m
        merges.append((gpt2_str_to_bytes(left), gpt2_str_to_bytes(right)))
    return vocab, merges
