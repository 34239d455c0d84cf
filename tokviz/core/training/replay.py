"""Replay BPE merge by merge on a text: which merges change it, and its tokens at any step.

For a given text only the merges that change it matter (at most one per byte), so a trace
records them once; the token count at any step is then a lookup, and the tokens at step k cost
one encoding of the text with the first k merges.

:func:`replay_training` and :func:`replay_tokenizer` turn a text into a :class:`Replay`: every
merge with the text's size after it, as ``tokviz replay`` prints it and its picture draws it.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass

from ..bpe.merges import MergeStep, no_merges_note
from ..bpe.tokenizer import LONE_SURROGATE, Tokenizer, TokenSpan, replace_lone_surrogates
from ..errors import ArgumentTypeError, InvalidArgument, ReplayUnavailable
from ..pretok.stretches import PieceMemo, encoding_pieces
from .train import train_bpe


@dataclass(frozen=True)
class Replay:
    """Merges replayed on one text: the steps, its size before any merge, and its final tokens.

    ``vocab_size`` is the size of the vocabulary the steps build: 256 bytes, the merges, and the
    tokenizer's special tokens.
    """

    steps: list[MergeStep]
    initial_tokens: int
    final: list[bytes]
    text_bytes: int
    vocab_size: int


def replayed_step(tokenizer: Tokenizer, rank: int, applications: int, tokens_after: int) -> MergeStep:
    """Merge number ``rank`` (0-based) of ``tokenizer``, applied ``applications`` times to a text
    (leaving ``tokens_after`` tokens): one event of a replay."""
    left, right = tokenizer.merges[rank]
    left_id, right_id = tokenizer.parents_of_merge(rank)
    return MergeStep(
        step=rank + 1,
        left_id=left_id,
        right_id=right_id,
        left=left,
        right=right,
        new_id=tokenizer.id_of_merge(rank),
        count=applications,
        ties=0,
        tokens_after=tokens_after,
    )


class ReplayTrace:
    """The merge-by-merge history of one text under one BPE tokenizer.

    ``events`` are the merges that change the text (a :class:`MergeStep` each, ``count`` being
    how many times it applied); every other merge leaves the text as it was.
    """

    def __init__(self, tokenizer: Tokenizer, text: str) -> None:
        if not isinstance(tokenizer, Tokenizer):
            raise ArgumentTypeError(f"a replay needs a Tokenizer, got {type(tokenizer).__name__}")
        no_merges = no_merges_note(getattr(tokenizer, "model_type", "BPE"))
        if no_merges:
            raise ReplayUnavailable(f"{tokenizer.name}: {no_merges}")
        if tokenizer.replay_note:  # e.g. a normalizer or byte fallback: replayed merges would mislead
            raise ReplayUnavailable(f"{tokenizer.name}: {tokenizer.replay_note}")
        text = _as_encoded(text)
        self.tokenizer = tokenizer
        self.text = text
        self.total_steps = tokenizer.merge_count
        applied: dict[int, int] = {}
        initial = 0
        memo = PieceMemo()  # the pieces of a long pre-token repeat: each distinct one is traced once

        def traced(piece: str) -> list[int]:
            return tokenizer.trace_chunk(piece.encode("utf-8"))[1]

        for start, end, special in tokenizer.segments(text):
            if special:
                initial += 1
                continue
            for chunk in tokenizer.pretokenizer.split(tokenizer.normalize(text[start:end])):
                initial += len(chunk.encode("utf-8"))
                # Traced in the pieces every encoder merges, so the counts are the encoder's.
                pieces = encoding_pieces(chunk)
                for piece in pieces:
                    for rank in memo.ids(piece, traced) if len(pieces) > 1 else traced(piece):
                        applied[rank] = applied.get(rank, 0) + 1
        self.initial_tokens = initial
        self.text_bytes = len(text.encode("utf-8"))
        # The merges that change the text, in order; ``count`` is how many times each applied.
        events: list[MergeStep] = []
        tokens = initial
        for rank in sorted(applied):
            tokens -= applied[rank]
            events.append(replayed_step(tokenizer, rank, applied[rank], tokens))
        self.events = events
        self._event_steps = [e.step for e in events]

    @property
    def final_tokens(self) -> int:
        return self.events[-1].tokens_after if self.events else self.initial_tokens

    def token_count(self, step: int) -> int:
        """Tokens of the text after the first ``step`` merges (a lookup, no encoding)."""
        i = bisect_left(self._event_steps, step + 1)  # events with event.step <= step
        return self.events[i - 1].tokens_after if i else self.initial_tokens

    def changes_text(self, step: int) -> bool:
        """Whether merge number ``step`` (1-based) changes this text."""
        i = bisect_left(self._event_steps, step)
        return i < len(self._event_steps) and self._event_steps[i] == step

    def next_event(self, step: int) -> int | None:
        """The first step after ``step`` that changes the text, if any."""
        i = bisect_left(self._event_steps, step + 1)
        return self._event_steps[i] if i < len(self._event_steps) else None

    def previous_event(self, step: int) -> int | None:
        """The last step before ``step`` that changed the text, if any."""
        i = bisect_left(self._event_steps, step)
        return self._event_steps[i - 1] if i else None

    def spans_at(self, step: int) -> list[TokenSpan]:
        """The text's tokens after the first ``step`` merges, placed on the text."""
        step = max(0, min(step, self.total_steps))
        if step >= self.total_steps:
            return self.tokenizer.encode_spans(self.text)
        return self.tokenizer.encode_spans(self.text, max_merges=step)

    def ids_at(self, step: int) -> list[int]:
        """The ids after the first ``step`` merges."""
        return [s.id for s in self.spans_at(step)]

    def new_id_at(self, step: int) -> int | None:
        """The id made by merge number ``step`` (1-based): the tokens to highlight at that step."""
        if step < 1 or step > self.total_steps:
            return None
        return self.tokenizer.id_of_merge(step - 1)


def replay_training(text: str, merges: int | None, pretokenizer: str, tie_break: str) -> Replay:
    """Train ``merges`` merges (default: until nothing is left to merge) on the text itself.

    The steps are the training run's history: ``count`` is each pair's count in the text.
    """
    text = _as_encoded(text)
    _check_merges(merges)
    n_bytes = len(text.encode("utf-8"))
    k = merges if merges is not None else max(n_bytes - 1, 0)
    if not text:
        return Replay([], 0, [], 0, 256)
    result = train_bpe(
        text=text, vocab_size=256 + k, pretokenizer=pretokenizer, tie_break=tie_break, workers=1
    )
    tok = result.tokenizer("replay")
    final = [tok.id_bytes(i) for i in tok.encode(text)]
    return Replay(list(result.history), result.initial_tokens, final, n_bytes, 256 + len(result.merges))


def replay_tokenizer(tok: Tokenizer, text: str, merges: int | None) -> Replay:
    """The first ``merges`` merges of ``tok`` (default: all) and the text's token count after each.

    Only the merges that change the text move the count, and a :class:`ReplayTrace` finds them
    in one encoding of the text; merges applied in order of their index make the text at step
    k the trace's merges below k, so every step's count follows without encoding the text again
    after each of (say) 50,000 merges. ``count`` is how many times a merge applied to the text.
    """
    _check_merges(merges)
    trace = ReplayTrace(tok, text)
    k = trace.total_steps if merges is None else min(merges, trace.total_steps)
    applied = {e.step: e.count for e in trace.events if e.step <= k}
    steps: list[MergeStep] = []
    tokens = trace.initial_tokens
    for rank in range(k):
        n = applied.get(rank + 1, 0)
        tokens -= n
        steps.append(replayed_step(tok, rank, n, tokens))
    ids = tok.encode_with_merges(text, k)
    if steps and steps[-1].tokens_after != len(ids):  # pragma: no cover - guards the argument above
        raise AssertionError("replay counts disagree with the encoder")
    vocab = tok.size_after(k)
    return Replay(steps, trace.initial_tokens, [tok.id_bytes(i) for i in ids], trace.text_bytes, vocab)


def _as_encoded(text: object) -> str:
    """``text`` as the encoders read it: a ``str`` with each lone surrogate as U+FFFD."""
    if not isinstance(text, str):
        raise ArgumentTypeError(f"the text to replay must be a str, got {type(text).__name__}")
    return replace_lone_surrogates(text) if LONE_SURROGATE.search(text) else text


def _check_merges(merges: object) -> None:
    """A merge count is None (all of them) or a whole number >= 0."""
    if merges is None:
        return
    if isinstance(merges, bool) or not isinstance(merges, int):
        raise ArgumentTypeError(f"the number of merges must be a whole number, got {merges!r}")
    if merges < 0:
        raise InvalidArgument(f"the number of merges must not be negative, got {merges}")
