"""Streaming decode: turn ids into text one at a time without ever printing half a character."""

from __future__ import annotations

from typing import Protocol

from .bytes_ import incomplete_tail_length
from .errors import ArgumentTypeError


class _HasIdBytes(Protocol):
    def id_bytes(self, token_id: int) -> bytes: ...


class StreamingDecoder:
    """Decode ids as they arrive (as in streaming generation).

    ``push`` returns only complete characters and holds back an incomplete UTF-8 tail until the
    ids that finish it arrive; ``flush`` ends the stream, replacing a tail that never finished.
    """

    def __init__(self, tokenizer: _HasIdBytes) -> None:
        if not callable(getattr(tokenizer, "id_bytes", None)):
            raise ArgumentTypeError(
                f"StreamingDecoder needs a tokenizer (something with id_bytes()), got {type(tokenizer).__name__}"
            )
        self._tokenizer = tokenizer
        self._pending = b""

    @property
    def pending(self) -> bytes:
        """The bytes held back because the character they start is not complete yet."""
        return self._pending

    def push(self, token_id: int) -> str:
        """Add one id; return the text that is now complete (possibly empty)."""
        data = self._pending + self._tokenizer.id_bytes(token_id)
        keep = incomplete_tail_length(data)
        ready = data[: len(data) - keep] if keep else data
        self._pending = data[len(data) - keep :] if keep else b""
        return ready.decode("utf-8", errors="replace")

    def flush(self) -> str:
        """End of stream: return what is held back, with U+FFFD for an unfinished character."""
        data, self._pending = self._pending, b""
        return data.decode("utf-8", errors="replace")


def naive_decode_each(tokenizer: _HasIdBytes, token_id: int) -> str:
    """What a naive per-token decoder prints for one id: replacement characters for partial bytes."""
    return tokenizer.id_bytes(token_id).decode("utf-8", errors="replace")
