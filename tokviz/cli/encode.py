"""``tokviz encode``: a text's ids, its visible tokens, or JSON spans placed on the text."""

from __future__ import annotations

import argparse
import json
import sys

from .options import add_file_options, add_input, add_tokenizer, add_words_corpus, input_text, load_tokenizer
from .output import token_label


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_tokenizer(p, "gpt2")
    add_file_options(p)
    add_input(p)
    add_words_corpus(p)
    p.add_argument("--format", choices=("ids", "tokens", "json"), default="ids", help="output form")


def run(args: argparse.Namespace) -> int:
    """Print the ids (one line), the tokens (``|``-separated) or JSON spans of the input text."""
    text = input_text(args)
    tok = load_tokenizer(
        args.tokenizer,
        args.special_token,
        pattern=args.pattern,
        words_corpus=args.words_corpus,
        words_texts=[text],
    )
    out = sys.stdout
    if args.format == "ids":
        out.write(" ".join(str(i) for i in tok.encode(text)) + "\n")
    elif args.format == "tokens":
        out.write("|".join(token_label(tok.id_bytes(i)) for i in tok.encode(text)) + "\n")
    else:
        items = [
            {
                "id": span.id,
                "bytes": span.bytes.hex(),
                "text": None if span.partial else span.bytes.decode("utf-8", errors="replace"),
                "start": span.start,
                "end": span.end,
            }
            for span in tok.encode_spans(text)
        ]
        json.dump(items, out, ensure_ascii=False)
        out.write("\n")
    return 0
