"""Which characters of a rendered chat are a message's own text, and which the template wrote.

The chat is rendered twice: as it is, and with each text field replaced by a sentinel (private-use
characters around a number) that no template transforms. The second rendering cuts the output
into template pieces and sentinels; the first is then read piece by piece, each field's text found
between the template pieces around it, as written or as ``trim`` left it. A template that branches
on the text itself (a reasoning model splitting on ``</think>``) renders the two differently; then
each field's text is searched for in order instead, and ``method`` says so.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .messages import TextField, text_fields, with_texts

SENTINEL = "sentinel"
SEARCH = "search"
_MARKS = (("\ue000", "\ue001"), ("\uf000", "\uf001"), ("\U000f0000", "\U000f0001"))


@dataclass(frozen=True)
class MessageSpan:
    """Characters ``start..end`` of the rendered chat are text of message ``message``."""

    message: int
    start: int
    end: int


@dataclass(frozen=True)
class Attribution:
    """Every located span of message text, how they were found, and the fields not found."""

    spans: tuple[MessageSpan, ...]
    method: str
    missing: tuple[int, ...] = ()


def _marks(texts: Sequence[str]) -> tuple[str, str]:
    for opening, closing in _MARKS:
        if not any(opening in t or closing in t for t in texts):
            return opening, closing
    return _MARKS[-1]


def _candidates(text: str) -> list[str]:
    """The field's text as a template may have written it: whole, or trimmed."""
    seen: list[str] = []
    for candidate in (text, text.strip(), text.lstrip(), text.rstrip()):
        if candidate not in seen:
            seen.append(candidate)
    return seen


def _aligned(
    rendered: str, pieces: list[str], refs: list[int], fields: Sequence[TextField]
) -> list[MessageSpan] | None:
    """Spans read from ``rendered`` between the template ``pieces``, or None when they do not line up."""
    if not rendered.startswith(pieces[0]):
        return None
    pos = len(pieces[0])
    spans: list[MessageSpan] = []
    for index, (k, after) in enumerate(zip(refs, pieces[1:])):
        last = index == len(refs) - 1
        end = None
        for candidate in _candidates(fields[k].text):
            stop = pos + len(candidate)
            if rendered.startswith(candidate, pos) and rendered.startswith(after, stop):
                if not last or stop + len(after) == len(rendered):
                    end = stop
                    break
        if end is None:
            return None
        spans.append(MessageSpan(fields[k].message, pos, end))
        pos = end + len(after)
    return spans if pos == len(rendered) else None


def _searched(rendered: str, fields: Sequence[TextField]) -> tuple[list[MessageSpan], list[int]]:
    """Each field's trimmed text found in order in ``rendered``; the messages of fields not found."""
    spans: list[MessageSpan] = []
    missing: list[int] = []
    pos = 0
    for field in fields:
        text = field.text.strip()
        if not text:
            continue
        found = rendered.find(text, pos)
        if found < 0:
            missing.append(field.message)
            continue
        spans.append(MessageSpan(field.message, found, found + len(text)))
        pos = found + len(text)
    return spans, missing


def attribute(
    rendered: str,
    messages: Sequence[Mapping[str, Any]],
    render: Callable[[list[dict[str, Any]]], str],
) -> Attribution:
    """Locate the messages' text in ``rendered``; ``render(messages)`` renders another version of the chat."""
    fields = text_fields(messages)
    if not fields:
        return Attribution((), SENTINEL)
    opening, closing = _marks([f.text for f in fields])
    sentinels = {(f.message, f.part): f"{opening}{k}{closing}" for k, f in enumerate(fields)}
    marked = render(with_texts(messages, sentinels))
    parts = re.split(f"{re.escape(opening)}(\\d+){re.escape(closing)}", marked)
    pieces, refs = parts[0::2], [int(r) for r in parts[1::2]]
    if all(k < len(fields) for k in refs):
        spans = _aligned(rendered, pieces, refs, fields) if refs else ([] if rendered == marked else None)
        if spans is not None:
            return Attribution(tuple(s for s in spans if s.end > s.start), SENTINEL)
    found, missing = _searched(rendered, fields)
    return Attribution(tuple(found), SEARCH, tuple(missing))
