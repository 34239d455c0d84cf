"""Error types of the core: every failure a user can cause has a clear, one-line message."""

from __future__ import annotations


class TokvizError(Exception):
    """Base of all errors the core raises on bad input; the message is meant for the user."""


class InvalidArgument(TokvizError, ValueError):
    """A public function was called with a value it cannot use: an unknown id, a negative index,
    an unknown setting. The message names the argument and the value."""


class ArgumentTypeError(InvalidArgument, TypeError):
    """A public function was called with an argument of the wrong type (``None`` for a text, a
    ``str`` where a list is meant, the corpus given positionally); the message says what to pass."""


class PretokenizerError(TokvizError, ValueError):
    """The pre-tokenizer name or custom regex is not usable."""


class CorpusError(TokvizError):
    """The training corpus is missing, empty, or not valid UTF-8."""

    def __init__(self, message: str, path: str | None = None, offset: int | None = None) -> None:
        super().__init__(message)
        self.path = path
        self.offset = offset


class VocabSizeError(InvalidArgument):
    """The requested vocabulary size cannot hold the 256 bytes plus the special tokens."""


class TokenizerLoadError(TokvizError):
    """A tokenizer name or file could not be loaded; the message says what is wrong."""


class ModelFileError(TokenizerLoadError):
    """A tokviz model file is corrupt, hostile or of an unknown version."""


class ExportError(TokvizError):
    """A vocabulary cannot be written in the requested format."""


class ReplayUnavailable(TokvizError):
    """Merge-by-merge replay cannot reproduce this tokenizer's ids; the message says why
    (its ``replay_note``: a normalizer, byte fallback, a model that is not BPE)."""


class Cancelled(TokvizError):
    """A long operation stopped because its cancel flag was set."""

    def __init__(self, message: str = "cancelled") -> None:
        super().__init__(message)


class InternalError(AssertionError):
    """A broken invariant inside tokviz: a bug, never the user's doing. The message names the
    state it found, so that a report of it can be reproduced."""
