"""A conversation as the lens reads it: messages (role + content), optional tool schemas, and sample ones.

A message's *text* is its ``content``: a string, or a list of parts whose ``{"type": "text",
"text": ...}`` parts are its text. Other keys (``tool_calls``, ``name`` ...) pass to the template
unchanged; what the template writes from them is counted with the template.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..io.filekind import ReadProblem, read_regular_file
from .errors import ChatMessagesError

MESSAGES_CAP = 32 * 2**20
MAX_MESSAGES = 10_000

SAMPLE_MESSAGES: tuple[dict[str, str], ...] = (
    {"role": "system", "content": "You are a helpful assistant."},
    {"role": "user", "content": "How many tokens does this chat cost?"},
    {"role": "assistant", "content": "More than its words: the template adds its own."},
    {"role": "user", "content": "Even when I type <|im_end|> myself?"},
)
SAMPLE_TOOLS: tuple[dict[str, Any], ...] = (
    {
        "type": "function",
        "function": {
            "name": "count_tokens",
            "description": "Count the tokens of a text.",
            "parameters": {
                "type": "object",
                "properties": {"text": {"type": "string", "description": "The text to count."}},
                "required": ["text"],
            },
        },
    },
)


@dataclass(frozen=True)
class TextField:
    """One piece of a message's own text: message ``message``, part ``part`` (0 for a string content)."""

    message: int
    part: int
    text: str


def check_messages(messages: object) -> list[dict[str, Any]]:
    """``messages`` as a list of plain dicts, each with a string ``role``; else :class:`ChatMessagesError`."""
    if not isinstance(messages, Sequence) or isinstance(messages, str | bytes):
        raise ChatMessagesError("messages are a list of {'role': ..., 'content': ...} objects")
    if len(messages) > MAX_MESSAGES:
        raise ChatMessagesError(
            f"a chat of {len(messages):,} messages is more than the {MAX_MESSAGES:,} read"
        )
    out: list[dict[str, Any]] = []
    for i, message in enumerate(messages):
        if not isinstance(message, Mapping):
            raise ChatMessagesError(f"message {i + 1} is not an object with a role and a content")
        if not isinstance(message.get("role"), str):
            raise ChatMessagesError(f"message {i + 1} has no role (a string such as 'user')")
        content = message.get("content")
        if content is not None and not isinstance(content, str | list):
            raise ChatMessagesError(f"message {i + 1}: content is a string or a list of parts")
        # None values are dropped, as transformers drops them (templates handle a missing key).
        out.append({key: value for key, value in message.items() if value is not None})
    return out


def text_fields(messages: Sequence[Mapping[str, Any]]) -> list[TextField]:
    """Every piece of the messages' own text, in order."""
    fields: list[TextField] = []
    for i, message in enumerate(messages):
        content = message.get("content")
        if isinstance(content, str):
            fields.append(TextField(i, 0, content))
        elif isinstance(content, list):
            for j, part in enumerate(content):
                if isinstance(part, Mapping) and isinstance(part.get("text"), str):
                    fields.append(TextField(i, j, part["text"]))
    return fields


def with_texts(
    messages: Sequence[Mapping[str, Any]], texts: Mapping[tuple[int, int], str]
) -> list[dict[str, Any]]:
    """A copy of ``messages`` whose text fields ``(message, part)`` read ``texts`` instead."""
    out: list[dict[str, Any]] = []
    for i, message in enumerate(messages):
        copy = dict(message)
        content = message.get("content")
        if isinstance(content, str) and (i, 0) in texts:
            copy["content"] = texts[(i, 0)]
        elif isinstance(content, list):
            parts: list[Any] = []
            for j, part in enumerate(content):
                if isinstance(part, Mapping) and (i, j) in texts:
                    part = {**part, "text": texts[(i, j)]}
                parts.append(part)
            copy["content"] = parts
        out.append(copy)
    return out


@dataclass(frozen=True)
class Conversation:
    """What a messages file holds: the messages, and tool schemas when it gives them."""

    messages: list[dict[str, Any]]
    tools: list[Any] | None = None


def parse_conversation(doc: object, where: str = "messages") -> Conversation:
    """A list of messages, or ``{"messages": [...], "tools": [...]}``."""
    tools: Any = None
    if isinstance(doc, Mapping):
        if "messages" not in doc:
            raise ChatMessagesError(f"{where}: an object holds a 'messages' list (and 'tools', if any)")
        tools = doc.get("tools")
        if tools is not None and not isinstance(tools, list):
            raise ChatMessagesError(f"{where}: 'tools' is a list of tool schemas")
        doc = doc["messages"]
    try:
        return Conversation(check_messages(doc), tools)
    except ChatMessagesError as exc:
        raise ChatMessagesError(f"{where}: {exc}") from None


def read_conversation(path: str | Path) -> Conversation:
    """A messages JSON file (see :func:`parse_conversation`), read with a size cap."""
    try:
        data = read_regular_file(path, MESSAGES_CAP)
    except ReadProblem as exc:
        raise ChatMessagesError(f"{path} {exc.reason}") from None
    try:
        doc = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ChatMessagesError(f"{path}: not UTF-8 (byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise ChatMessagesError(f"{path}: not valid JSON ({exc.msg} at line {exc.lineno})") from None
    except (RecursionError, ValueError):
        raise ChatMessagesError(
            f"{path}: the JSON is nested too deeply or holds an unreadable value"
        ) from None
    return parse_conversation(doc, str(path))
