"""How text equal to a special token's text is read: as that special id, or as plain text.

One setting for every count tokviz makes (``encode``, ``compare``, ``eval``, ``usage``, the
desktop views and vocabulary browser), so two of them never disagree on the same text:

* ``special`` (the default): ``<|endoftext|>`` in the text becomes its one id, as tiktoken's
  ``encode(text, allowed_special="all")`` and the ``tokenizers`` library's ``encode`` do. It is the
  default because it is what a model is fed when a document holds its separator, and what the
  libraries a tokenizer ships with do unasked.
* ``text``: the same characters are ordinary text and are split by BPE (tiktoken's
  ``encode_ordinary``), for text that merely quotes a special token.

A format whose own library never parses special tokens from text (Mistral's tekken) reads them as
text under both settings; :func:`specials_note` says so.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from ..errors import InvalidArgument
from .tokenizer import Tokenizer

SpecialsInText = Literal["special", "text"]
SPECIAL: SpecialsInText = "special"
TEXT: SpecialsInText = "text"
SPECIALS_IN_TEXT_CHOICES: tuple[SpecialsInText, ...] = (SPECIAL, TEXT)
DEFAULT_SPECIALS_IN_TEXT: SpecialsInText = SPECIAL
NOTE_PREFIX = "special tokens in text"


def check_specials_in_text(mode: object) -> SpecialsInText:
    """``mode`` if it is ``"special"`` or ``"text"``, else :class:`InvalidArgument` naming both."""
    if mode == SPECIAL:
        return SPECIAL
    if mode == TEXT:
        return TEXT
    raise InvalidArgument(f"special tokens in text are read as 'special' or 'text', not {mode!r}")


def reading_specials(tokenizer: Tokenizer, mode: str = DEFAULT_SPECIALS_IN_TEXT) -> Tokenizer:
    """``tokenizer`` encoding special-token text as ``mode`` says (see the module).

    ``special`` keeps the tokenizer as loaded; ``text`` gives its plain-text view
    (:meth:`~tokviz.core.bpe.tokenizer.Tokenizer.specials_as_text`), the same object on every call.
    """
    if check_specials_in_text(mode) == TEXT:
        return tokenizer.specials_as_text()
    return tokenizer


def parses_specials(tokenizer: Tokenizer) -> bool:
    """Whether ``tokenizer.encode`` turns a special token's text into its id."""
    return bool(tokenizer.specials_in_text and tokenizer.special_tokens)


def reading_note(tokenizer: Tokenizer) -> str:
    """How ``tokenizer`` itself reads special-token text, as the note of :func:`specials_note` says it."""
    parsed = tokenizer.specials_in_text or not tokenizer.special_tokens
    return f"{NOTE_PREFIX}: " + ("parsed as specials" if parsed else "read as plain text")


def specials_note(mode: str, tokenizers: Iterable[Tokenizer] = ()) -> str:
    """The note printed with every table: how special-token text was read, and by whom not.

    "special tokens in text: parsed as specials"; a tokenizer with special tokens that still read
    them as text (its format never parses them) is named.
    """
    if check_specials_in_text(mode) == TEXT:
        return f"{NOTE_PREFIX}: read as plain text"
    exceptions = [t.name for t in tokenizers if t.special_tokens and not t.specials_in_text]
    note = f"{NOTE_PREFIX}: parsed as specials"
    if exceptions:
        note += f" (read as plain text by {', '.join(exceptions)}: the format never parses them)"
    return note
