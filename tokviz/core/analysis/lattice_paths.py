"""A segmentation placed on a lattice: the pieces it runs through, and its score there.

The lattice (:mod:`tokviz.core.analysis.lattice`) knows its best path; a reader also wants to see
where another segmentation runs (one of the N best, a sample, or another model's cut of the same
text, such as BPE's) and what it would score under the unigram model. A segmentation is a path of
the lattice when each of its pieces is a piece of the lattice at the place it covers.
"""

from __future__ import annotations

from collections.abc import Sequence

from .lattice import Lattice


def path_on(lattice: Lattice, pieces: Sequence[str]) -> tuple[int, ...] | None:
    """The indices in ``lattice.pieces`` that ``pieces`` run through, left to right, or None when
    one of them is not a piece of the lattice where it falls (or they do not cover its text)."""
    where = {(p.start, p.end, p.piece): i for i, p in enumerate(lattice.pieces)}
    path: list[int] = []
    at = 0
    for piece in pieces:
        found = where.get((at, at + len(piece), piece))
        if found is None:
            return None
        path.append(found)
        at += len(piece)
    return tuple(path) if at == len(lattice.text) else None


def score_on(lattice: Lattice, pieces: Sequence[str]) -> float | None:
    """The sum of the lattice's log-probabilities along ``pieces``, or None when they are not a path."""
    path = path_on(lattice, pieces)
    return None if path is None else sum(lattice.pieces[i].log_prob for i in path)
