"""Tokenize a big change visible part first, the rest piece by piece in the background.

Waiting for the whole text's table would keep a 1 MB paste from showing a single token for
seconds (3.8 s for two views). :class:`ProgressiveTokenizationModel` cuts a large window at safe cuts
(:func:`~tokviz.gui.workers.fast_table.piece_cuts`): the first piece (what a view shows first) is
encoded and shown at once, then each following piece is encoded in a worker and spliced in, one
job per view at a time so every view gets its first piece early and views progress in parallel.
While pieces are missing, the table holds the tokens before and after the gap; ``current`` stays
False until the last piece lands, so counts and every whole-text consumer wait for the exact
table, which equals a fresh encode of the whole text array for array.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QObject, Signal

from tokviz.core.bpe.cuts import cut_mode
from tokviz.core.bpe.tokenizer import Tokenizer
from tokviz.gui.models.tokenization import TokenizationModel
from tokviz.gui.models.tokenizers import TokenizerRegistryModel
from tokviz.gui.text.display import DisplayOptions, DisplayRun, build_run
from tokviz.gui.text.token_table import EditPlan, TableUpdate, TokenTable, plan_edit
from tokviz.gui.text.utf16 import utf16_len
from tokviz.gui.workers.fast_table import encode_range, piece_cuts, places_like_core
from tokviz.gui.workers.jobs import Job, run_job

# Windows at least this long (code points) are encoded in pieces; smaller ones as before.
PROGRESSIVE_MIN = 24_000
# The first piece: more than two full-height views show (about 100 lines of 80 characters).
FIRST_PIECE = 12_000
# Later pieces: each costs the GUI thread ~10-20 ms to splice and lay out, so typing stays smooth.
PIECE = 96_000

_FIELDS = ("ids", "start", "end", "start16", "end16", "partial", "special", "chunk")


def _concat(text: str, tables: list[TokenTable]) -> TokenTable:
    return TokenTable(text, *(np.concatenate([getattr(t, f) for t in tables]) for f in _FIELDS))


def _slice(table: TokenTable, lo: int, hi: int) -> TokenTable:
    return TokenTable(table.text, *(getattr(table, f)[lo:hi] for f in _FIELDS))


def _on_text(table: TokenTable, text: str) -> TokenTable:
    return TokenTable(text, *(getattr(table, f) for f in _FIELDS))


def _moved(table: TokenTable, shift: int, shift16: int, chunk_shift: int) -> TokenTable:
    return TokenTable(
        table.text,
        table.ids,
        table.start + shift,
        table.end + shift,
        table.start16 + shift16,
        table.end16 + shift16,
        table.partial,
        table.special,
        table.chunk + chunk_shift,
    )


@dataclass(frozen=True)
class PieceUpdate(TableUpdate):
    """A piece spliced in, with its display text already built in the worker for ``run_options``.

    A view drawing with those options inserts ``run`` as is (for 1 MB, 0.3-1 s of string work per
    view moves off the GUI thread); any other view builds its own, as for a plain update.
    """

    run: DisplayRun | None = None
    run_options: DisplayOptions | None = None


def _encode_piece(
    tok: Tokenizer, text: str, lo: int, hi: int, options: DisplayOptions | None
) -> tuple[TokenTable, DisplayRun | None]:
    piece = encode_range(tok, text, lo, hi)
    run = build_run(piece, 0, len(piece), tok.vocab, options) if options is not None else None
    return piece, run


@dataclass
class _Progress:
    """One window being encoded in pieces: what is done (``head``) and what follows the gap (``tail``)."""

    tokenizer: Tokenizer
    generation: int
    plan: EditPlan
    cuts: list[int]
    full: bool
    replaced: int  # old tokens the first piece replaces (from ``head``'s end)
    head: TokenTable  # old tokens before the window, then every piece so far
    tail: TokenTable  # old tokens after the window, moved to the new text (chunks not yet)
    old_last: int  # the old window's last chunk number (the tail's chunks count on from it)
    any_cut: bool
    done: int = 0  # pieces spliced in

    def next_chunk_base(self) -> int:
        if not len(self.head):
            return 0
        last = int(self.head.chunk[-1])
        return last if self.any_cut else last + 1

    def table(self) -> TokenTable:
        """The head, then the tail with chunk numbers continuing after the head's."""
        if not len(self.tail):
            return self.head
        last = int(self.head.chunk[-1]) if len(self.head) else -1
        shift = 0 if self.any_cut else last - self.old_last
        return _concat(self.plan.text, [self.head, _moved(self.tail, 0, 0, shift)])


class ProgressiveTokenizationModel(TokenizationModel):
    """A :class:`TokenizationModel` that shows a big change's first piece before the rest is encoded.

    ``progressed(done, total)`` counts the window's code points encoded so far.
    """

    progressed = Signal(int, int)

    def __init__(self, registry: TokenizerRegistryModel, key: str, parent: QObject | None = None) -> None:
        self._progress: _Progress | None = None
        # How the view draws (set by its panel): pieces come with their display text built for it.
        self.display_options: Callable[[], DisplayOptions] | None = None
        super().__init__(registry, key, parent)

    def _active(self) -> _Progress | None:
        p = self._progress
        if p is not None and (p.generation != self._generation or p.tokenizer is not self.tokenizer):
            self._progress = p = None  # the tokenizer changed: the pieces are void
        return p

    @property
    def current(self) -> bool:
        """True when the table is complete and describes the latest text."""
        return bool(super().current) and self._active() is None

    @property
    def busy(self) -> bool:
        """True while a worker is encoding, pieces are missing, or the tokenizer is loading."""
        return bool(super().busy) or self._active() is not None

    def progress(self) -> tuple[int, int] | None:
        """Code points of the pending window encoded so far and its size, or None when complete."""
        p = self._active()
        if p is None:
            return None
        return p.cuts[p.done] - p.cuts[0], p.cuts[-1] - p.cuts[0]

    def _schedule(self, text: str) -> None:
        tok = self.tokenizer
        assert tok is not None
        if self._active() is not None:
            return  # the last piece reschedules the newest text
        if tok.pretokenizer.bounded or (not places_like_core(tok) and cut_mode(tok) == "none"):
            # A custom pattern keeps the base class's time-limit handling; a whole-document
            # tokenizer of its own kind gains nothing from pieces.
            super()._schedule(text)
            return
        plan = plan_edit(tok, self.table, text)
        # A first table (start-up, another tokenizer) is built in a worker whatever its size: the
        # GUI thread stays free to paint the window (the first non-ASCII encode of a process pays
        # for a Unicode check, ~0.2 s).
        if plan.unchanged or (plan.size < PROGRESSIVE_MIN and self.table is not None):
            super()._schedule(text)
            return
        self._start(tok, plan)

    def _start(self, tok: Tokenizer, plan: EditPlan) -> None:
        old = self.table
        text = plan.text
        empty = TokenTable.empty(text)
        if plan.full or old is None or not len(old):
            head, tail, replaced, old_last = empty, empty, len(old) if old is not None else 0, -1
            lo, hi, full = 0, len(text), True
        else:
            # As execute_plan: the old tokens before the window stay, those after it move by the
            # length change, and their chunk numbers follow the window's last chunk.
            first, stop, n = plan.old_first, plan.old_stop, len(old)
            lo, hi, full = plan.start, plan.stop, False
            old_lo16 = int(old.start16[first]) if first < n else int(old.end16[-1])
            old_hi16 = int(old.start16[stop]) if stop < n else int(old.end16[-1])
            shift16 = utf16_len(text[lo:hi]) - (old_hi16 - old_lo16)
            head = _on_text(_slice(old, 0, first), text)
            tail = _on_text(_moved(_slice(old, stop, n), len(text) - len(old.text), shift16, 0), text)
            replaced = stop - first
            old_last = (
                int(old.chunk[stop - 1]) if stop > first else (int(old.chunk[first - 1]) if first else -1)
            )
        cuts = piece_cuts(tok, text, lo, hi, FIRST_PIECE, PIECE)
        any_cut = cut_mode(tok) == "any"
        self._progress = _Progress(
            tok, self._generation, plan, cuts, full, replaced, head, tail, old_last, any_cut
        )
        self._run_piece(self._progress)
        self.busyChanged.emit(True)

    def _run_piece(self, p: _Progress) -> None:
        lo, hi = p.cuts[p.done], p.cuts[p.done + 1]
        tok, text = p.tokenizer, p.plan.text
        options = self.display_options() if self.display_options is not None else None
        job = run_job(lambda: _encode_piece(tok, text, lo, hi, options), self)
        self._job = job
        job.returned.connect(lambda result, job=job: self._piece_done(p, job, options, *result))
        job.errored.connect(lambda exc, job=job: self._piece_failed(p, job, exc))

    def _stale(self, p: _Progress, job: Job) -> bool:
        return self._progress is not p or self._active() is not p or self._job is not job

    def _piece_done(
        self,
        p: _Progress,
        job: Job,
        options: DisplayOptions | None,
        piece: TokenTable,
        run: DisplayRun | None,
    ) -> None:
        if self._stale(p, job):
            return
        shift = p.next_chunk_base()
        piece = _moved(piece, 0, 0, shift) if shift else piece
        at = len(p.head)
        p.head = _concat(p.plan.text, [p.head, piece])
        first_piece = p.done == 0
        p.done += 1
        table = p.table()
        old_stop = at + p.replaced if first_piece else at
        full = p.full and first_piece
        update = PieceUpdate(table, at, old_stop, at + len(piece), full, None if full else run, options)
        finished = p.done == len(p.cuts) - 1
        if finished:
            self._progress = None
            self._job = None
        self.table = table
        self.tableChanged.emit(update)
        self.progressed.emit(p.cuts[p.done] - p.cuts[0], p.cuts[-1] - p.cuts[0])
        if not finished:
            self._run_piece(p)
            return
        if self._text is not None and self._text != p.plan.text:
            self._schedule(self._text)
        if self._job is None and self._active() is None:
            self.busyChanged.emit(False)

    def _piece_failed(self, p: _Progress, job: Job, exc: BaseException) -> None:
        if self._stale(p, job):
            return
        # The table has a gap: never plan an edit against it. The next text is encoded whole.
        self._progress = None
        self._job = None
        self.table = None
        self.busyChanged.emit(False)
        self.failed.emit(str(exc))


__all__ = ["FIRST_PIECE", "PIECE", "PROGRESSIVE_MIN", "PieceUpdate", "ProgressiveTokenizationModel"]
