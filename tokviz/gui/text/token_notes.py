"""Lines a token's hover card adds for what the token's details alone do not say (no Qt here).

For the lecture's tokenizers, what the id means: a code point (``characters``), or that the word
under the mouse is not in the vocabulary and is lost as ``<unk>`` (``words``). For a tokenizer
whose loader had to guess (``pre-tokenizer assumed: GPT-2``), the guess, on every card, so a
guessed id never reads as a known one.
"""

from __future__ import annotations

import html

from tokviz.core.lecture_tokenizers import CharacterTokenizer, WordTokenizer
from tokviz.core.tokenizer import Tokenizer
from tokviz.gui.text.token_table import TokenTable

WARNING_STYLE = "color:#b45309"


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
    notes += [(WARNING_STYLE, f"⚠ {a}") for a in tokenizer.assumptions]
    return "".join(
        f"<p style='{style}'>{html.escape(text)}</p>" if style else f"<p>{html.escape(text)}</p>"
        for style, text in notes
    )
