"""Replay a whole text (1 MB and more) merge by merge, where a step costs only what the merge changes.

The core's :class:`~tokviz.core.training.replay.ReplayTrace` traces every chunk of the text, and a step
re-encodes the whole text with the first k merges: fine for a page, seconds per step for 1 MB.
Here each distinct chunk is traced once (a 1 MB text has ~30K distinct chunks of ~250K), and the
text's tokens live in one array, ``id_at``: the id of the token starting at each byte, -1 inside a
token. Going to step k re-plays, for the distinct chunks whose trace holds a merge between the old
and the new step only, the trace's merges below k (each applied at the leftmost place of its pair,
as the core's heap applies them) and writes the result at every place the chunk occurs. A token
table for any range of the text is then a few numpy operations. Tests compare every table with
``encode_spans(text, max_merges=k)``. No Qt here.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable
from itertools import accumulate

import numpy as np

from tokviz.core.bpe.merges import MergeStep
from tokviz.core.bpe.tokenizer import LONE_SURROGATE, Tokenizer, replace_lone_surrogates
from tokviz.core.errors import ArgumentTypeError, ReplayUnavailable
from tokviz.core.pretok.pretokenize import piece_spans
from tokviz.core.training.replay import ReplayTrace, replayed_step
from tokviz.gui.text.token_table import INDEX, TokenTable
from tokviz.gui.text.utf16 import utf16_offsets


class MissingByteError(ValueError):
    """The vocabulary lacks a single byte the text holds: the core's own replay handles that case."""


class _Chunk:
    """One distinct chunk: its bytes, its trace, where it occurs, and how far it is replayed."""

    __slots__ = ("applied", "data", "ids", "places", "trace")

    def __init__(self, data: bytes, trace: list[int]) -> None:
        self.data = data
        self.trace = trace
        self.places: list[int] = []  # byte offset of each occurrence
        self.applied = 0  # trace entries applied in ``id_at``
        self.ids: list[int] | None = None  # the tokens after ``applied`` entries (None: the bytes)


class ReplayStepper:
    """The tokens of ``text`` at any merge step, updated incrementally from step to step."""

    def __init__(self, tokenizer: Tokenizer, text: str) -> None:
        self.tokenizer = tokenizer
        self.text = text
        data = text.encode("utf-8")
        raw = np.frombuffer(data, dtype=np.uint8)
        self.n_bytes = len(data)
        continuation = (raw & 0xC0) == 0x80
        self._continuation = np.append(continuation, False)
        self._char_at = np.cumsum(~continuation) - 1  # code point holding each byte
        cp_byte = np.append(np.flatnonzero(~continuation), self.n_bytes)  # byte offset of each code point
        self._offsets16 = utf16_offsets(text).astype(INDEX)
        vocab = tokenizer.vocab
        byte_id = {b: i for i, b in vocab.items() if len(b) == 1}
        self._byte_ids = np.array([byte_id.get(bytes([b]), -1) for b in range(256)], dtype=np.int32)
        self.id_at = self._byte_ids[raw] if self.n_bytes else np.zeros(0, dtype=np.int32)
        if (self.id_at < 0).any():
            raise MissingByteError("a byte of the text has no token of its own")
        self._lengths = {i: len(b) for i, b in vocab.items()}
        chunks: dict[str, _Chunk] = {}
        chunk_starts: list[int] = []
        self._special_at = np.zeros(self.n_bytes + 1, dtype=bool)
        self.specials = 0
        for start, end, special in tokenizer.segments(text):
            b0, b1 = int(cp_byte[start]), int(cp_byte[end])
            chunk_starts.append(b0)
            if special:
                self.specials += 1
                self.id_at[b0] = tokenizer.special_tokens[text[start:end]]
                self.id_at[b0 + 1 : b1] = -1
                self._special_at[b0] = True
                continue
            segment = text[start:end]
            spans = tokenizer.pretokenizer.spans(segment)
            chunk_starts.pop()
            for cs, ce in spans:
                chunk_starts.append(int(cp_byte[start + cs]))
                # A pre-token longer than the bound is merged in pieces by every encoder: so here too.
                for ps, pe in piece_spans(cs, ce):
                    piece = segment[ps:pe]
                    chunk = chunks.get(piece)
                    if chunk is None:
                        encoded = piece.encode("utf-8")
                        chunk = chunks[piece] = _Chunk(encoded, tokenizer.trace_chunk(encoded)[1])
                    chunk.places.append(int(cp_byte[start + ps]))
        self.chunks = list(chunks.values())
        starts = np.array(chunk_starts, dtype=np.int64)
        marks = np.zeros(self.n_bytes, dtype=INDEX)
        np.add.at(marks, starts, 1)
        self._chunk_of_byte = np.cumsum(marks, dtype=INDEX) - 1
        self._chunk_start_cp = self._char_at[starts] if starts.size else np.zeros(0, dtype=np.int64)
        # For each merge, the distinct chunks whose trace applies it (to find what a step changes).
        by_rank: dict[int, list[_Chunk]] = {}
        for chunk in self.chunks:
            for rank in dict.fromkeys(chunk.trace):
                by_rank.setdefault(rank, []).append(chunk)
        self._ranks = sorted(by_rank)
        self._by_rank = [by_rank[r] for r in self._ranks]
        self.step = 0
        self._merges: dict[int, tuple[int, int, int]] = {}

    def applications(self) -> dict[int, int]:
        """How many times each merge (by index) applies to the whole text."""
        applied: dict[int, int] = {}
        for chunk in self.chunks:
            n = len(chunk.places)
            for rank in chunk.trace:
                applied[rank] = applied.get(rank, 0) + n
        return applied

    def go_to(self, step: int) -> None:
        """Make ``id_at`` the text's tokens after the first ``step`` merges."""
        lo, hi = sorted((self.step, step))
        i, j = bisect_left(self._ranks, lo), bisect_left(self._ranks, hi)
        touched: dict[int, _Chunk] = {}
        for group in self._by_rank[i:j]:
            for chunk in group:
                touched[id(chunk)] = chunk
        self._replay(touched.values(), step)
        self.step = step

    def _merge(self, rank: int) -> tuple[int, int, int]:
        """Left id, right id and new id of merge ``rank`` (looked up once: the core checks its argument)."""
        found = self._merges.get(rank)
        if found is None:
            a, b = self.tokenizer.parents_of_merge(rank)
            found = self._merges[rank] = (a, b, self.tokenizer.id_of_merge(rank))
        return found

    def _replay(self, chunks: Iterable[_Chunk], step: int) -> None:
        lengths = self._lengths
        merge = self._merge
        for chunk in chunks:
            n = bisect_left(chunk.trace, step)
            if n == chunk.applied:
                continue
            if n > chunk.applied and chunk.ids is not None:  # forwards: go on from where it is
                ids, todo = chunk.ids, chunk.trace[chunk.applied : n]
            else:
                ids = self._byte_ids[np.frombuffer(chunk.data, dtype=np.uint8)].tolist()
                todo = chunk.trace[:n]
            for rank in todo:
                a, b, new = merge(rank)
                k = 0
                while not (ids[k] == a and ids[k + 1] == b):
                    k += 1
                ids[k : k + 2] = [new]
            chunk.ids = ids
            pattern = np.full(len(chunk.data), -1, dtype=np.int32)
            offsets = list(accumulate([lengths[i] for i in ids[:-1]], initial=0))
            pattern[offsets] = ids
            places = np.array(chunk.places, dtype=np.int64)
            self.id_at[places[:, None] + np.arange(len(chunk.data))] = pattern
            chunk.applied = n

    def first_start(self, token_id: int) -> int | None:
        """Code point where the first token ``token_id`` starts at the current step, or None."""
        found = np.flatnonzero(self.id_at == token_id)
        return int(self._char_at[found[0]]) if found.size else None

    def snap(self, lo: int, hi: int) -> tuple[int, int]:
        """``[lo, hi)`` widened to chunk boundaries (a window of whole chunks, whose tokens are whole)."""
        starts = self._chunk_start_cp
        n = len(self.text)
        a = int(starts[max(int(np.searchsorted(starts, lo, side="right")) - 1, 0)]) if starts.size else 0
        k = int(np.searchsorted(starts, min(hi, n), side="left"))
        b = int(starts[k]) if k < starts.size and hi < n else n
        return a, b

    def table(self, lo: int = 0, hi: int | None = None) -> TokenTable:
        """The tokens of the code points ``[lo, hi)`` (widened to whole chunks) at the current step."""
        lo, hi = self.snap(lo, len(self.text) if hi is None else hi)
        blo = int(np.searchsorted(self._char_at, lo, side="left")) if lo else 0
        bhi = int(np.searchsorted(self._char_at, hi, side="left")) if hi < len(self.text) else self.n_bytes
        starts_b = np.flatnonzero(self.id_at[blo:bhi] >= 0) + blo
        ends_b = np.append(starts_b[1:], bhi)
        start = self._char_at[starts_b]
        end = self._char_at[ends_b - 1] + 1 if starts_b.size else start
        return TokenTable(
            self.text,
            self.id_at[starts_b].astype(INDEX),
            start.astype(INDEX),
            end.astype(INDEX),
            self._offsets16[start],
            self._offsets16[end],
            self._continuation[starts_b] | self._continuation[ends_b],
            self._special_at[starts_b],
            self._chunk_of_byte[starts_b].astype(INDEX),
        )


class WholeTextTrace(ReplayTrace):
    """A :class:`ReplayTrace` (same events, counts and refusals) built from distinct chunks, with a
    :class:`ReplayStepper` for tables at any step: :meth:`table_at`."""

    def __init__(self, tokenizer: Tokenizer, text: str) -> None:  # noqa: D107 - the class says it
        if not isinstance(tokenizer, Tokenizer):
            raise ArgumentTypeError(f"a replay needs a Tokenizer, got {type(tokenizer).__name__}")
        if tokenizer.replay_note:  # the core's refusal: replayed merges would mislead
            raise ReplayUnavailable(f"{tokenizer.name}: {tokenizer.replay_note}")
        if not isinstance(text, str):
            raise ArgumentTypeError(f"the text to replay must be a str, got {type(text).__name__}")
        text = replace_lone_surrogates(text) if LONE_SURROGATE.search(text) else text
        self.tokenizer = tokenizer
        self.text = text
        self.total_steps = tokenizer.merge_count
        self.stepper = ReplayStepper(tokenizer, text)
        special_bytes = 0
        for start, end, special in tokenizer.segments(text):
            if special:
                special_bytes += len(text[start:end].encode("utf-8"))
        self.initial_tokens = self.stepper.n_bytes - special_bytes + self.stepper.specials
        self.text_bytes = self.stepper.n_bytes
        applied = self.stepper.applications()
        events: list[MergeStep] = []
        tokens = self.initial_tokens
        for rank in sorted(applied):
            tokens -= applied[rank]
            events.append(replayed_step(tokenizer, rank, applied[rank], tokens))
        self.events = events
        self._event_steps = [e.step for e in events]

    def table_at(self, step: int, lo: int = 0, hi: int | None = None, follow: bool = False) -> TokenTable:
        """Tokens of code points ``[lo, hi)`` (whole chunks) after the first ``step`` merges.

        With ``follow``, a window where merge ``step`` makes no token moves (same width) to the
        first place it does, so a step shows what it changed without a second round trip.
        """
        step = max(0, min(int(step), self.total_steps))
        self.stepper.go_to(step)
        table = self.stepper.table(lo, hi)
        new_id = self.new_id_at(step) if follow and hi is not None and self.changes_text(step) else None
        if new_id is not None and hi is not None and not (table.ids == new_id).any():
            where = self.stepper.first_start(new_id)
            if where is not None:
                width = hi - lo
                lo = max(0, min(where - width // 4, len(self.text) - width))
                table = self.stepper.table(lo, lo + width)
        return table


__all__ = ["MissingByteError", "ReplayStepper", "WholeTextTrace"]
