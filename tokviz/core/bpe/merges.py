"""The one record of a BPE merge step, shared by training, model files, replay, the CLI and the GUI.

A leaf module (it imports nothing from tokviz), so every layer can use the type without pulling
in the trainer or the tokenizer.
"""

from __future__ import annotations

from dataclasses import dataclass

# How many of the pairs tied at one step a training run records (near the end of a run thousands
# of pairs share a count of 1; a handful is what a table or a lecture can show).
TIED_KEPT = 8


@dataclass(frozen=True, slots=True, kw_only=True)
class MergeStep:
    """One merge, what it made, and what it did to the text it was trained or replayed on.

    ``step`` is the merge's 1-based number (merge index + 1). ``count`` is how often the pair
    occurred when it was merged: in a training run, the pair's count in the corpus (every adjacent
    pair, so ``aaa`` holds two ``(a, a)``); in a replay of a tokenizer on a text, how many times
    the merge applied to that text (0 when it does not change it). ``tokens_after`` is the size
    of the corpus or text, in tokens, once this merge has been made. ``ties`` is how many pairs
    shared the winning count in a training run, and 0 when it is not known (a replay of a
    tokenizer's merges, which carry no counts). ``tied`` lists the tied pairs (at most
    :data:`TIED_KEPT` of them) in the order the tie rule ranks them, the merged pair first; it is
    empty when not known.
    """

    step: int
    left_id: int
    right_id: int
    left: bytes
    right: bytes
    new_id: int
    count: int
    ties: int
    tokens_after: int
    tied: tuple[tuple[bytes, bytes], ...] = ()

    @property
    def merged(self) -> bytes:
        """The bytes of the token this merge makes."""
        return self.left + self.right


# What a vocabulary that is not a merge list does instead, by its model type (tokenizer.json's or
# SentencePiece's name for it).
_NO_MERGES = {
    "unigram": ("Unigram", "it picks the most probable segmentation out of scored pieces"),
    "wordpiece": ("WordPiece", "it takes the longest piece it knows, left to right"),
    "wordlevel": ("WordLevel", "it looks whole words up"),
    "char": ("character", "every character is a piece"),
    "word": ("word", "it looks whole words up"),
}


def no_merges_note(model_type: object) -> str | None:
    """One sentence saying that a vocabulary of ``model_type`` (a tokenizer's ``model_type``:
    ``"Unigram"``, ``"WordPiece"`` ...) has no merge prefixes, for sweep and replay to refuse
    with; None for a merge list (BPE)."""
    kind = str(model_type).lower()
    if kind not in _NO_MERGES:
        return None
    label, how = _NO_MERGES[kind]
    return (
        f"a {label} vocabulary has no merge prefixes ({how}, with no merge list), "
        "so there are no smaller vocabularies to sweep or merges to replay"
    )
