"""The trace of a streaming decode, without Qt: what each id printed, held back, and what a naive decoder prints."""

from __future__ import annotations

from collections.abc import Container, Sequence
from dataclasses import dataclass

from tokviz.core.bpe.stream import StreamingDecoder, naive_decode_each
from tokviz.core.bpe.tokenizer import Tokenizer
from tokviz.core.pretok.bytes_ import hex_bytes, utf8_char_len


@dataclass(frozen=True)
class StreamStep:
    """What happened when one id arrived."""

    token_id: int
    data: bytes
    emitted: str  # what the streaming decoder printed for this id (possibly nothing)
    pending: bytes  # bytes it holds back afterwards
    naive: str  # what a per-token decoder prints for this id (errors="replace")
    naive_error: str | None  # what a per-token decoder raises for this id (errors="strict")


class StreamTrace:
    """An id sequence pushed through a :class:`StreamingDecoder`, every step kept for stepping back and forth."""

    def __init__(self, tokenizer: Tokenizer, ids: Sequence[int]) -> None:
        self.tokenizer = tokenizer
        self.ids = list(ids)
        decoder = StreamingDecoder(tokenizer)
        steps: list[StreamStep] = []
        for token_id in self.ids:
            data = tokenizer.id_bytes(token_id)
            emitted = decoder.push(token_id)
            try:
                data.decode("utf-8")
                error = None
            except UnicodeDecodeError as exc:
                error = f"UnicodeDecodeError: {exc}"
            steps.append(
                StreamStep(
                    token_id, data, emitted, decoder.pending, naive_decode_each(tokenizer, token_id), error
                )
            )
        self.steps = steps

    def __len__(self) -> int:
        return len(self.steps)

    def text_at(self, k: int) -> str:
        """The text printed after the first ``k`` ids."""
        return "".join(s.emitted for s in self.steps[: max(0, k)])

    def pending_at(self, k: int) -> bytes:
        """The bytes held back after the first ``k`` ids."""
        return self.steps[k - 1].pending if k > 0 else b""

    def naive_at(self, k: int) -> str:
        """What decoding each of the first ``k`` ids separately (errors="replace") prints."""
        return "".join(s.naive for s in self.steps[: max(0, k)])

    def first_error(self, k: int) -> tuple[int, str] | None:
        """``(index, message)`` of the first of the first ``k`` ids a strict per-token decode fails on."""
        for i, s in enumerate(self.steps[: max(0, k)]):
            if s.naive_error is not None:
                return i, s.naive_error
        return None

    def final_text(self) -> str:
        """Everything, with the stream flushed at the end (an unfinished tail becomes U+FFFD)."""
        tail = self.pending_at(len(self)).decode("utf-8", errors="replace")
        return self.text_at(len(self)) + tail


def parse_ids(text: str, vocab_size: int | None = None, valid: Container[int] | None = None) -> list[int]:
    """Ids typed by a user: integers separated by spaces or commas; ValueError names the first bad one."""
    ids: list[int] = []
    for word in text.replace(",", " ").replace("[", " ").replace("]", " ").split():
        try:
            value = int(word)
        except ValueError:
            raise ValueError(f"{word!r} is not an id") from None
        if value < 0 or (valid is not None and value not in valid):
            raise ValueError(
                f"{value} is not in the vocabulary" + (f" (0–{vocab_size - 1})" if vocab_size else "")
            )
        ids.append(value)
    return ids


def describe_pending(pending: bytes) -> str:
    """A sentence about the held-back bytes: how many, which, and how many more the character needs."""
    if not pending:
        return "Nothing held back: every byte so far belongs to a complete character."
    need = utf8_char_len(pending[0])
    more = need - len(pending)
    s = "s" if len(pending) != 1 else ""
    return (
        f"{len(pending)} byte{s} held back: {hex_bytes(pending)} — the start of a {need}-byte character, "
        f"waiting for {more} more byte{'s' if more != 1 else ''}."
    )
