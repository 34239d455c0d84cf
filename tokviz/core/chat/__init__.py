"""The chat-template lens: what a conversation costs in tokens once its template is applied.

A model's chat template (Jinja2 code shipped in its tokenizer folder) wraps every message in
role markers and special tokens; the count an API bills is the count of that rendered text. This
package renders the template as ``transformers`` does (:mod:`.sandbox`, bounded in time and
size), finds which characters are the messages' own (:mod:`.attribution`), and counts the tokens
per source, flagging message text the tokenizer reads as a special token (:mod:`.lens`).
"""

from __future__ import annotations

from .errors import ChatMessagesError, ChatTemplateError
from .lens import ChatLens, ChatToken, Injection, MessageCost, chat_lens, lens_of_rendered, render_chat
from .messages import SAMPLE_MESSAGES, SAMPLE_TOOLS, Conversation, parse_conversation, read_conversation
from .template import (
    ChatTemplate,
    find_chat_template,
    read_template_file,
    sample_template,
    template_variables,
)

__all__ = [
    "SAMPLE_MESSAGES",
    "SAMPLE_TOOLS",
    "ChatLens",
    "ChatMessagesError",
    "ChatTemplate",
    "ChatTemplateError",
    "ChatToken",
    "Conversation",
    "Injection",
    "MessageCost",
    "chat_lens",
    "find_chat_template",
    "lens_of_rendered",
    "parse_conversation",
    "read_conversation",
    "read_template_file",
    "sample_template",
    "template_variables",
    "render_chat",
]
