"""The ``chain`` slide: merges form a dependency chain, so encoding replays them in their order.

Each merge joins two ids that must already exist: 257 = 256 + "e" cannot form before 256 = "t" +
"h" has. The slide learns the merges on its text (as the ``merges`` slide does), shows each new
id with the ids it is made of, then replays the merges on the text in their order and in reverse
order: out of order, a merge whose parts do not exist yet finds nothing to join, and the text
stays longer.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..bpe.tokenizer import Tokenizer
from .blocks import (
    Block,
    Built,
    Chip,
    ChipRow,
    Counters,
    SlideInput,
    Table,
    Words,
    chip_label,
    trained_tokenizer,
)

Merge = tuple[tuple[int, int], int]
"""A merge as the lecture's replay applies it: the pair of ids it joins and the id it makes."""


def apply_merge(ids: Sequence[int], pair: tuple[int, int], new_id: int) -> list[int]:
    """Replace each non-overlapping ``pair`` in ``ids``, left to right, by ``new_id`` (the lecture's merge)."""
    out: list[int] = []
    i = 0
    while i < len(ids):
        if i + 1 < len(ids) and (ids[i], ids[i + 1]) == pair:
            out.append(new_id)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return out


def replay(data: bytes, merges: Sequence[Merge]) -> list[list[int]]:
    """The ids of ``data`` before any merge and after each of ``merges`` applied in the order given."""
    states = [list(data)]
    for pair, new_id in merges:
        states.append(apply_merge(states[-1], pair, new_id))
    return states


def learned_merges(tok: Tokenizer) -> list[Merge]:
    """A trained tokenizer's merges in training order, each as (left id, right id) → new id."""
    return [(tok.parents_of_merge(k), tok.id_of_merge(k)) for k in range(tok.merge_count)]


def _labels(tok: Tokenizer, ids: Sequence[int]) -> str:
    return " ".join(chip_label(tok.id_bytes(i)) for i in ids)


def chain_slide(s: SlideInput, _step: int) -> Built:
    """Every merge with the ids it needs, and the text replayed in order and in reverse order."""
    tok = trained_tokenizer(s.text, int(s.slide.get("merges")), s.slide)
    merges = learned_merges(tok)
    chain = tuple(
        Chip(chip_label(tok.id_bytes(new)), f"{new} = {a} + {b}", k * 2)
        for k, ((a, b), new) in enumerate(merges)
    )
    data = s.text.encode("utf-8", "replace")
    forward = replay(data, merges)
    backward = replay(data, merges[::-1])
    rows = [("bytes", _labels(tok, forward[0]), str(len(forward[0])))]
    for (pair, new), state in zip(merges, forward[1:]):
        rows.append((f"{new} = {pair[0]} + {pair[1]}", _labels(tok, state), str(len(state))))
    blocks: list[Block] = [
        ChipRow("each new id is made of ids that exist before it", chain),
        Table(("in order", "tokens", "n"), tuple(rows), (False, False, True)),
        Counters(
            (
                ("tokens, merges in order", str(len(forward[-1]))),
                ("tokens, merges in reverse order", str(len(backward[-1]))),
            )
        ),
        Words(
            "Out of order, a merge whose parts do not exist yet finds nothing to join: "
            "encoding replays the merges in the order they were learned.",
        ),
    ]
    figures = {
        "merges": " ".join(f"{new}={a}+{b}" for (a, b), new in merges),
        "tokens in order": " → ".join(str(len(state)) for state in forward),
        "tokens in reverse order": " → ".join(str(len(state)) for state in backward),
    }
    return blocks, figures
