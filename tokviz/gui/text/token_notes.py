"""Lines a token's hover card adds for what the token's details alone do not say (no Qt here).

For the lecture's tokenizers, what the id means: a code point (``characters``), or that the word
under the mouse is not in the vocabulary and is lost as ``<unk>`` (``words``, and the text a
SentencePiece or WordPiece unknown token replaced). For a tokenizer
whose loader had to guess (``pre-tokenizer assumed: GPT-2``), the guess, on every card, so a
guessed id never reads as a known one.
"""

from __future__ import annotations

import html
import weakref

import numpy as np

from tokviz.core.bpe.lecture_tokenizers import CharacterTokenizer, WordTokenizer
from tokviz.core.bpe.tokenizer import Tokenizer
from tokviz.core.pretok.bytes_ import hex_bytes
from tokviz.gui.text.token_table import TokenTable
from tokviz.gui.text.unknown import unknown_id

WARNING_STYLE = "color:#b45309"
# Single bytes a byte-level vocabulary has no token for, per tokenizer (found once, on first hover).
_MISSING: weakref.WeakKeyDictionary[Tokenizer, frozenset[int]] = weakref.WeakKeyDictionary()


def missing_single_bytes(tokenizer: Tokenizer) -> frozenset[int]:
    """Byte values no ordinary token of a byte-level vocabulary holds alone (empty for the rest).

    Only file-loaded byte-level vocabularies (MPT, StarCoder, Falcon...) can lack some: tokviz's own
    BPE needs all 256, and the lecture's tokenizers are not byte-level.
    """
    if not getattr(tokenizer, "byte_level", False):
        return frozenset()
    found = _MISSING.get(tokenizer)
    if found is None:
        present = {b[0] for i, b in tokenizer.vocab.items() if len(b) == 1 and not tokenizer.is_special(i)}
        found = _MISSING[tokenizer] = frozenset(set(range(256)) - present)
    return found


def dropped_bytes(tokenizer: Tokenizer, table: TokenTable, index: int) -> bytes:
    """The bytes of the character under token ``index`` that no token holds (a byte with no token)."""
    missing = missing_single_bytes(tokenizer)
    if not missing:
        return b""
    start, end = int(table.start[index]), int(table.end[index])
    around = np.flatnonzero((table.start < end) & (table.end > start)).tolist()
    held = b"".join(tokenizer.id_bytes(int(table.ids[k])) for k in around if not table.special[k])
    text = table.text[min(int(table.start[around[0]]), start) : max(int(table.end[around[-1]]), end)]
    return bytes(b for b in text.encode("utf-8", "replace") if b in missing and b not in held)


def token_notes_html(tokenizer: Tokenizer, table: TokenTable, index: int) -> str:
    """Rich-text paragraphs to append to the card of token ``index`` ("" when there is nothing)."""
    notes: list[tuple[str, str]] = []
    token_id = int(table.ids[index])
    if isinstance(tokenizer, CharacterTokenizer) and not tokenizer.is_special(token_id):
        notes.append(("", f"id = code point U+{token_id:04X} of 1,114,112 (0 to U+10FFFF)"))
    if isinstance(tokenizer, WordTokenizer) and token_id == tokenizer.unk_id:
        word = table.text[int(table.start[index]) : int(table.end[index])]
        if word != "<unk>":
            notes.append(
                (
                    WARNING_STYLE,
                    f"unknown word: {word!r} is not in the vocabulary ({tokenizer.word_count:,} entries "
                    f"from {tokenizer.corpus}); decoding gives <unk>, the word is lost",
                )
            )
    elif token_id == unknown_id(tokenizer) and table.end[index] > table.start[index]:
        # A SentencePiece <unk>, a WordPiece [UNK]: the text it replaced never reaches the model.
        text = table.text[int(table.start[index]) : int(table.end[index])]
        piece = tokenizer.vocab[token_id].decode("utf-8", "replace")
        if text != piece:
            notes.append(
                (
                    WARNING_STYLE,
                    f"unknown: the vocabulary cannot spell {text!r}; decoding gives {piece}, the text is lost",
                )
            )
    if table.partial[index]:
        dropped = dropped_bytes(tokenizer, table, index)
        if dropped:
            notes.append(
                (
                    WARNING_STYLE,
                    f"the vocabulary has no token for the byte{'s' if len(dropped) > 1 else ''} "
                    f"{hex_bytes(dropped)} of this character: dropped from the ids (as the tokenizers "
                    "library drops it), so decoding loses the character",
                )
            )
    notes += [(WARNING_STYLE, f"⚠ {a}") for a in tokenizer.assumptions]
    return "".join(
        f"<p style='{style}'>{html.escape(text)}</p>" if style else f"<p>{html.escape(text)}</p>"
        for style, text in notes
    )
