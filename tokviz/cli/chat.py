"""``tokviz chat FOLDER [MESSAGES.json]``: what a conversation costs once the folder's chat template wraps it.

The folder is one ``transformers`` saves (``tokenizer.json`` + ``tokenizer_config.json`` with a
``chat_template``, or ``chat_template.jinja``). The messages file is a JSON list of
``{"role", "content"}`` objects, or ``{"messages": [...], "tools": [...]}``; without one, a short
sample conversation is used. The output counts each message's own tokens, the tokens the
template adds and the total (the ids ``apply_chat_template(..., tokenize=True)`` returns), and
warns about message text that the tokenizer reads as a special token.
"""

from __future__ import annotations

import argparse
import sys

from tokviz.cli.output import render_markdown, render_table


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("folder", metavar="FOLDER", help="a transformers tokenizer folder (or its tokenizer.json)")
    p.add_argument(
        "messages",
        metavar="MESSAGES",
        nargs="?",
        help="a JSON file of messages (default: a short sample conversation)",
    )
    p.add_argument("--template", metavar="NAME", help="which of several named chat templates to use")
    p.add_argument(
        "--template-file",
        metavar="FILE",
        help="a .jinja template to use instead (FOLDER may then be any tokenizer, gpt2 or cl100k too)",
    )
    p.add_argument(
        "--generation-prompt",
        action="store_true",
        help="end with the assistant's opening, as add_generation_prompt=True does",
    )
    p.add_argument(
        "--format",
        choices=("table", "markdown", "json", "tokens"),
        default="table",
        help="counts as a table (default), markdown or JSON, or one line per token with its source",
    )
    p.add_argument("--show-chat", action="store_true", help="print the rendered chat before the counts")


def run(args: argparse.Namespace) -> int:
    """Render the messages with the folder's template, tokenize, and print the counts."""
    from pathlib import Path

    from tokviz.cli.command import print_note
    from tokviz.core.chat import (
        SAMPLE_MESSAGES,
        chat_lens,
        read_conversation,
        read_template_file,
        template_variables,
    )
    from tokviz.core.io.safe_text import terminal_text

    if args.messages is None:
        messages, tools = [dict(m) for m in SAMPLE_MESSAGES], None
    else:
        conversation = read_conversation(args.messages)
        messages, tools = conversation.messages, conversation.tools
    template = None
    if args.template_file is not None:
        folder = Path(args.folder)
        variables = template_variables(folder) if folder.is_dir() else {}
        template = read_template_file(args.template_file, variables)
    lens = chat_lens(
        args.folder,
        messages,
        tools=tools,
        add_generation_prompt=args.generation_prompt,
        template_name=args.template,
        template=template,
    )
    out = sys.stdout
    if args.format == "json":
        out.write(lens.to_json() + "\n")
        return 0
    if args.show_chat:
        out.write("\n".join(terminal_text(line) for line in lens.rendered.split("\n")) + "\n\n")
    if args.format == "tokens":
        rows = [[str(k), str(t.id), t.source, repr(t.text)] for k, t in enumerate(lens.tokens)]
        out.write(render_table(["#", "id", "source", "text"], rows, [True, True, False, False]) + "\n")
    else:
        render = render_markdown if args.format == "markdown" else render_table
        heading = (
            f"{lens.tokenizer}: chat template {lens.template.name!r} ({lens.template.source}), "
            f"add_generation_prompt={lens.add_generation_prompt}"
        )
        out.write(terminal_text(heading) + "\n")
        out.write(render(list(lens.HEADERS), lens.rows(), [False, False, True, True, True]) + "\n")
    for line in lens.injection_lines():
        print_note(f"warning: {line}")
    if lens.ids_as_text is not None:
        print_note(
            f"with the messages' special-token text read as text the chat is {len(lens.ids_as_text):,} tokens "
            "(the whole rendered chat encoded with those strings as plain text; a library that encodes "
            "the messages apart from the template may count a token or two more)"
        )
    for note in lens.notes:
        print_note(note)
    return 0
