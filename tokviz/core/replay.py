"""Replay BPE merge by merge on a text: which merges change it, and its tokens at any step.

For a given text only the merges that change it matter (at most one per byte), so a trace
records them once; the token count at any step is then a lookup, and the tokens at step k cost
one encoding of the text with the first k merges.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass

from .tokenizer import Tokenizer, TokenSpan


@dataclass(frozen=True, slots=True)
class ReplayEvent:
    """A merge that changes the text: its step (1-based), how many times it applied, tokens after."""

    step: int
    applications: int
    tokens_after: int


class ReplayTrace:
    """The merge-by-merge history of one text under one BPE tokenizer."""

    def __init__(self, tokenizer: Tokenizer, text: str) -> None:
        self.tokenizer = tokenizer
        self.text = text
        self.total_steps = tokenizer.merge_count
        applied: dict[int, int] = {}
        initial = 0
        for start, end, special in tokenizer._splitter.segments(text):
            if special:
                initial += 1
                continue
            for chunk in tokenizer.pretokenizer.split(text[start:end]):
                data = chunk.encode("utf-8")
                initial += len(data)
                _ids, trace = tokenizer.trace_chunk(data)
                for rank in trace:
                    applied[rank] = applied.get(rank, 0) + 1
        self.initial_tokens = initial
        self.text_bytes = len(text.encode("utf-8"))
        events: list[ReplayEvent] = []
        tokens = initial
        for rank in sorted(applied):
            tokens -= applied[rank]
            events.append(ReplayEvent(rank + 1, applied[rank], tokens))
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
