"""What goes wrong in a chat's lens: a folder without a usable template, a template that fails, bad messages."""

from __future__ import annotations

from ..errors import InvalidArgument, TokenizerLoadError


class ChatTemplateError(TokenizerLoadError):
    """A folder holds no chat template, or its template cannot be read or rendered (the message says
    which, and quotes a template's own ``raise_exception`` text)."""


class ChatMessagesError(InvalidArgument):
    """The messages are not a list of ``{"role": ..., "content": ...}`` objects the lens can render."""
