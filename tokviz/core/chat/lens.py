"""What a chat costs: the rendered conversation's tokens, each with its source, and the injection check.

:func:`chat_lens` renders the messages with the folder's template (as ``apply_chat_template``
does), tokenizes the result with tokviz's loader for the folder (special tokens read as the
library reads them in a rendered chat) and gives every token a source: the template, one
message, or a boundary it straddles. Counts per message and in total follow, and every message
whose text holds a special token's string is reported with the id it becomes.
"""

from __future__ import annotations

import bisect
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..bpe.tokenizer import Tokenizer
from ..formats import HFTokenizer
from ..show.html_table import table_html
from .attribution import Attribution, MessageSpan, attribute
from .lens_html import chat_tokens_html
from .messages import check_messages, text_fields
from .render_process import render_template
from .sandbox import MAX_RENDERED_CHARS, RENDER_SECONDS
from .template import ChatTemplate, find_chat_template

TEMPLATE = "template"
STRADDLES = "straddles"


@dataclass(frozen=True)
class ChatToken:
    """One token of the rendered chat: its id and characters, and where it came from.

    ``message`` is the index of the message whose text holds it whole, or None for a token the
    template wrote; ``straddles`` marks a token that holds both (a boundary inside it).
    """

    id: int
    start: int
    end: int
    text: str
    message: int | None
    straddles: bool = False
    special: bool = False

    @property
    def source(self) -> str:
        """``template``, ``straddles`` or ``message N`` (numbered from 1)."""
        if self.straddles:
            return STRADDLES
        return TEMPLATE if self.message is None else f"message {self.message + 1}"


@dataclass(frozen=True)
class MessageCost:
    """One message's share: its own tokens, and the tokens it shares with the template at a boundary."""

    index: int
    role: str
    characters: int
    tokens: int
    straddling: int


@dataclass(frozen=True)
class Injection:
    """A special token's string inside a message's text, and what the tokenizer makes of it."""

    message: int
    role: str
    text: str
    offset: int
    token_id: int
    parsed: bool
    library: str


@dataclass(frozen=True)
class ChatLens:
    """A rendered chat under one tokenizer: text, tokens with sources, counts and injections."""

    tokenizer: str
    template: ChatTemplate
    add_generation_prompt: bool
    rendered: str
    tokens: tuple[ChatToken, ...]
    messages: tuple[MessageCost, ...]
    injections: tuple[Injection, ...]
    attribution: str
    ids_as_text: tuple[int, ...] | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def ids(self) -> list[int]:
        """The ids of the rendered chat (what ``apply_chat_template(..., tokenize=True)`` returns)."""
        return [t.id for t in self.tokens]

    @property
    def total(self) -> int:
        return len(self.tokens)

    @property
    def template_tokens(self) -> int:
        """Tokens the template wrote (wholly outside every message's text)."""
        return sum(1 for t in self.tokens if t.message is None and not t.straddles)

    @property
    def straddling_tokens(self) -> int:
        return sum(1 for t in self.tokens if t.straddles)

    # ------------------------------------------------------------------ outputs
    def rows(self) -> list[list[str]]:
        """``[source, role, characters, tokens, straddling]`` per message, the template and the total."""
        rows = [
            [f"message {m.index + 1}", m.role, str(m.characters), str(m.tokens), str(m.straddling)]
            for m in self.messages
        ]
        rows.append([TEMPLATE, "", "", str(self.template_tokens), ""])
        rows.append(["total", "", str(len(self.rendered)), str(self.total), str(self.straddling_tokens)])
        return rows

    HEADERS = ("source", "role", "characters", "tokens", "straddling")

    def injection_lines(self) -> list[str]:
        """One sentence per injection, for a terminal or a panel."""
        return [
            f"message {i.message + 1} ({i.role}) holds {i.text!r} at character {i.offset}: "
            + (f"it becomes special token {i.token_id}; {i.library}" if i.parsed else i.library)
            for i in self.injections
        ]

    def to_dict(self) -> dict[str, Any]:
        """Everything as plain JSON values."""
        return {
            "tokenizer": self.tokenizer,
            "template": {"name": self.template.name, "source": self.template.source},
            "add_generation_prompt": self.add_generation_prompt,
            "total": self.total,
            "template_tokens": self.template_tokens,
            "straddling_tokens": self.straddling_tokens,
            "messages": [vars(m) for m in self.messages],
            "injections": [vars(i) for i in self.injections],
            "total_with_message_specials_as_text": None
            if self.ids_as_text is None
            else len(self.ids_as_text),
            "attribution": self.attribution,
            "notes": list(self.notes),
            "rendered": self.rendered,
            "tokens": [
                {"id": t.id, "start": t.start, "end": t.end, "text": t.text, "source": t.source}
                for t in self.tokens
            ],
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=2)

    def to_markdown(self) -> str:
        lines = ["| " + " | ".join(self.HEADERS) + " |", "|---|---|---:|---:|---:|"]
        for row in self.rows():
            lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        caption = f"{self.tokenizer}: chat template {self.template.name!r}, {self.total:,} tokens"
        html = chat_tokens_html(self)
        html += table_html(self.HEADERS, self.rows(), right=(False, False, True, True, True), caption=caption)
        if self.injections:
            html += table_html(
                ("injection",),
                [[line] for line in self.injection_lines()],
                caption="special tokens in messages",
            )
        return html


# ---------------------------------------------------------------------- building
def render_chat(
    template: ChatTemplate,
    messages: Sequence[Mapping[str, Any]],
    *,
    tools: Sequence[Any] | None = None,
    add_generation_prompt: bool = False,
    seconds: float = RENDER_SECONDS,
    max_chars: int | None = None,
) -> str:
    """The chat as ``apply_chat_template(..., tokenize=False)`` renders it (see :mod:`.sandbox`)."""
    checked = check_messages(messages)
    if max_chars is None:
        given = sum(len(f.text) for f in text_fields(checked)) + len(
            json.dumps(list(tools or []), default=str)
        )
        max_chars = max(MAX_RENDERED_CHARS, 4 * given)
    variables = {
        **template.variables,
        "messages": checked,
        "tools": None if tools is None else list(tools),
        "documents": None,
        "add_generation_prompt": add_generation_prompt,
    }
    return render_template(template.text, variables, seconds=seconds, max_chars=max_chars)


def _token_sources(spans: Sequence[Any], rendered: str, located: Sequence[MessageSpan]) -> list[ChatToken]:
    """Each token's source, from the located message spans (sorted by start)."""
    starts = [s.start for s in located]
    tokens: list[ChatToken] = []
    for span in spans:
        s, e = span.start, span.end
        k = bisect.bisect_right(starts, s) - 1
        inside: int | None = None
        overlaps = False
        # The message span starting at or before s, and any starting inside the token.
        for j in range(max(k, 0), len(located)):
            m = located[j]
            if m.start >= max(e, s + 1):
                break
            if m.end <= s and not (m.start == m.end == s):
                continue
            if m.start <= s and e <= m.end:
                inside = m.message
            else:
                overlaps = True
        straddles = overlaps and inside is None
        tokens.append(
            ChatToken(span.id, s, e, rendered[s:e], inside, straddles and e > s, bool(span.special))
        )
    return tokens


def _costs(
    messages: Sequence[Mapping[str, Any]], tokens: Sequence[ChatToken], located: Sequence[MessageSpan]
) -> list[MessageCost]:
    own = [0] * len(messages)
    shared = [0] * len(messages)
    for t in tokens:
        if t.straddles:
            for m in located:
                if m.start < t.end and t.start < m.end:
                    shared[m.message] += 1
        elif t.message is not None:
            own[t.message] += 1
    characters = [0] * len(messages)
    for f in text_fields(messages):
        characters[f.message] += len(f.text)
    return [
        MessageCost(i, str(m.get("role", "")), characters[i], own[i], shared[i])
        for i, m in enumerate(messages)
    ]


def library_behaviour(tokenizer: Tokenizer, token_id: int) -> str:
    """What the tokenizer's own library does with a special token's string in text."""
    if not tokenizer.specials_in_text:
        return "this format's library reads it as text, so it stays text"
    if isinstance(tokenizer, HFTokenizer):
        return f"the tokenizers library matches added tokens in text, so the chat holds id {token_id} there"
    return (
        "tiktoken's encode() raises for it unless allowed_special names it; with allowed_special "
        f"(as for a rendered chat) it is id {token_id}"
    )


def _injections(
    tokenizer: Tokenizer,
    messages: Sequence[Mapping[str, Any]],
    tokens: Sequence[ChatToken],
) -> list[Injection]:
    specials = dict(tokenizer.special_tokens)
    if not specials:
        return []
    matched = tokenizer.matched_in_text()
    # (message, id) of every special id the rendered chat holds inside a message's text.
    held = {(t.message, t.id) for t in tokens if t.message is not None and t.special}
    located = {t.message for t in tokens if t.message is not None}
    found: list[Injection] = []
    for f in text_fields(messages):
        for text, token_id in sorted(specials.items(), key=lambda kv: -len(kv[0])):
            start = f.text.find(text)
            while start >= 0:
                if f.message in located:
                    parsed = (f.message, token_id) in held
                else:
                    parsed = text in matched
                role = str(messages[f.message].get("role", ""))
                found.append(
                    Injection(
                        f.message, role, text, start, token_id, parsed, library_behaviour(tokenizer, token_id)
                    )
                )
                start = f.text.find(text, start + len(text))
    found.sort(key=lambda i: (i.message, i.offset))
    return found


def _ids_with_message_specials_as_text(
    tokenizer: Tokenizer, rendered: str, located: Sequence[MessageSpan]
) -> list[int]:
    """The chat's ids when only the template's special tokens are special (message text read as text)."""
    plain = tokenizer.specials_as_text()
    inside = [(m.start, m.end) for m in located]

    def in_message(s: int, e: int) -> bool:
        return any(a <= s and e <= b for a, b in inside)

    ids: list[int] = []
    run_start = 0
    for s, e, special in tokenizer.segments(rendered):
        if special and not in_message(s, e) and rendered[s:e] in tokenizer.special_tokens:
            if run_start < s:
                ids.extend(plain.encode(rendered[run_start:s]))
            ids.append(tokenizer.special_tokens[rendered[s:e]])
            run_start = e
    if run_start < len(rendered):
        ids.extend(plain.encode(rendered[run_start:]))
    return ids


def lens_of_rendered(
    tokenizer: Tokenizer,
    template: ChatTemplate,
    messages: Sequence[Mapping[str, Any]],
    *,
    tools: Sequence[Any] | None = None,
    add_generation_prompt: bool = False,
    seconds: float = RENDER_SECONDS,
) -> ChatLens:
    """The lens of ``messages`` under ``template`` and ``tokenizer`` (already loaded)."""
    checked = check_messages(messages)

    def render(version: Sequence[Mapping[str, Any]]) -> str:
        return render_chat(
            template, version, tools=tools, add_generation_prompt=add_generation_prompt, seconds=seconds
        )

    rendered = render(checked)
    attribution: Attribution = attribute(rendered, checked, render)
    located = sorted(attribution.spans, key=lambda s: (s.start, s.end))
    tokens = _token_sources(tokenizer.encode_spans(rendered), rendered, located)
    injections = _injections(tokenizer, checked, tokens)
    as_text = None
    if any(i.parsed for i in injections):
        as_text = tuple(_ids_with_message_specials_as_text(tokenizer, rendered, located))
    notes = []
    if attribution.missing:
        shown = ", ".join(str(i + 1) for i in sorted(set(attribution.missing)))
        notes.append(
            f"the text of message {shown} was not found in the rendered chat; its tokens count as template"
        )
    if attribution.method != "sentinel":
        notes.append("the template treats the messages' text specially: their spans were found by searching")
    return ChatLens(
        tokenizer.name,
        template,
        add_generation_prompt,
        rendered,
        tuple(tokens),
        tuple(_costs(checked, tokens, located)),
        tuple(injections),
        attribution.method,
        as_text,
        tuple(notes),
    )


def chat_lens(
    folder: str | Path,
    messages: Sequence[Mapping[str, Any]],
    *,
    tools: Sequence[Any] | None = None,
    add_generation_prompt: bool = False,
    template_name: str | None = None,
    tokenizer: Tokenizer | None = None,
    template: ChatTemplate | None = None,
) -> ChatLens:
    """Render ``messages`` with ``folder``'s chat template and tokenize them with its tokenizer.

    ``folder`` is a ``transformers`` folder (or its ``tokenizer.json``, or any tokenizer name when
    ``template`` is given); ``tokenizer`` skips loading, ``template`` skips looking for one.
    """
    from ..formats.registry import load_tokenizer

    if template is None:
        template = find_chat_template(folder, template_name, tools=tools is not None)
    if tokenizer is None:
        tokenizer = load_tokenizer(folder)
    return lens_of_rendered(
        tokenizer, template, messages, tools=tools, add_generation_prompt=add_generation_prompt
    )
