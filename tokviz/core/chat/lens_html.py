"""A rendered chat as coloured token boxes, for a notebook: grey where the template wrote the token.

The boxes follow the window's chat panel: template tokens grey, a message's tokens coloured by id
(as every token view colours them), a token across a boundary orange, and a special token typed
inside a message red. Each box's title gives its id and source; text is escaped.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Protocol

from ..pretok.bytes_ import printable_token
from ..show.token_colours import colour_indices, fill_css


class ChatToken(Protocol):
    """What a box shows of one token of the rendered chat (a :class:`~tokviz.core.chat.lens.ChatToken`)."""

    @property
    def id(self) -> int: ...
    @property
    def text(self) -> str: ...
    @property
    def message(self) -> int | None: ...
    @property
    def straddles(self) -> bool: ...
    @property
    def special(self) -> bool: ...
    @property
    def source(self) -> str: ...


class ChatLens(Protocol):
    """The rendered chat's ids and tokens (a :class:`~tokviz.core.chat.lens.ChatLens`)."""

    @property
    def ids(self) -> Sequence[int]: ...
    @property
    def tokens(self) -> Sequence[ChatToken]: ...


_STYLE = """
.tokviz-chat-tokens{font-family:"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:14px;line-height:1.9;
  margin:0 0 10px 0}
.tokviz-chat-tok{display:inline-block;white-space:pre;padding:0 2px;margin:0 1px 2px 0;border-radius:3px;
  line-height:1.4}
.tokviz-chat-template{background:#e4e4e4;color:#6b6b6b}
.tokviz-chat-straddles{background:#f6c27a}
.tokviz-chat-injected{background:#d0312d;color:#fff}
.tokviz-chat-legend{font-family:system-ui,sans-serif;font-size:12px;color:#555;margin:0 0 6px 0}
.tokviz-chat-legend span{margin-right:12px;padding:0 4px;border-radius:3px}
"""
_LEGEND = (
    '<div class="tokviz-chat-legend"><span class="tokviz-chat-template">template</span>'
    '<span style="background:hsl(215,80%,88%)">a message\'s text</span>'
    '<span class="tokviz-chat-straddles">across a boundary</span>'
    '<span class="tokviz-chat-injected">special token typed in a message</span></div>'
)


def _box(token: ChatToken, colour: int) -> str:
    if token.straddles:
        kind, style = "tokviz-chat-straddles", ""
    elif token.message is None:
        kind, style = "tokviz-chat-template", ""
    elif token.special:
        kind, style = "tokviz-chat-injected", ""
    else:
        kind, style = "tokviz-chat-message", f' style="background:{fill_css(colour)}"'
    label = printable_token(token.text.encode("utf-8", "surrogatepass")).replace("\n", "↵")
    title = f"id {token.id} · {token.source}" + (" · special token" if token.special else "")
    line_break = "<br>" if token.text.endswith("\n") else ""
    return (
        f'<span class="tokviz-chat-tok {kind}"{style} title="{html.escape(title, quote=True)}">'
        f"{html.escape(label)}</span>{line_break}"
    )


def chat_tokens_html(lens: ChatLens) -> str:
    """The rendered chat's tokens as an HTML fragment: a legend, then one box per token."""
    colours = colour_indices(lens.ids)
    boxes = "".join(_box(t, int(c)) for t, c in zip(lens.tokens, colours))
    return f'<style>{_STYLE}</style>{_LEGEND}<div class="tokviz-chat-tokens">{boxes}</div>'
