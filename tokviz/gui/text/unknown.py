"""Which id a tokenizer puts where its vocabulary has no piece for the text (``<unk>``, ``[UNK]``).

The words tokenizer, a SentencePiece model without byte fallback and a WordPiece or BPE
``tokenizer.json`` with an unknown token all replace text they cannot spell by one id, and the
text is lost for the model. The views mark those tokens (drawn as ``<unk>``, not as the text they
replaced) and count them in the view's header, so a lecturer sees what the model never gets.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tokviz.core.bpe.tokenizer import Tokenizer


def unknown_id(tokenizer: Tokenizer | None) -> int | None:
    """The id ``tokenizer`` gives text its vocabulary lacks, or None when it can spell every text.

    Read from the tokenizer itself: a ``unk_id`` (the words tokenizer, SentencePiece), or the
    unknown token of a Hugging Face model (WordPiece's ``[UNK]``, a BPE's ``unk_token``).
    """
    if tokenizer is None:
        return None
    own = getattr(tokenizer, "unk_id", None)
    if isinstance(own, int):
        return own
    hf: Any = getattr(tokenizer, "hf", None)
    name = getattr(getattr(hf, "model", None), "unk_token", None)
    if isinstance(name, str) and name:
        token_id = hf.token_to_id(name)
        return token_id if isinstance(token_id, int) else None
    return None


def unknown_mask(tokenizer: Tokenizer | None, ids: np.ndarray) -> np.ndarray | None:
    """Where ``ids`` hold the unknown id (a boolean array), or None when the tokenizer has none."""
    unk = unknown_id(tokenizer)
    return None if unk is None else ids == unk
