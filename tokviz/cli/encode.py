"""``tokviz encode``: a text's ids, its visible tokens, or JSON spans placed on the text.

A file is read, encoded and written block by block (cut where encoding cannot change), so a
100 MB file takes memory for one block, not for its tokens. With ``-o`` the output is written to
a temporary file renamed into place at the end: an error or Ctrl+C leaves the old file.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Protocol

from tokviz.cli.assumed import note_assumptions
from tokviz.cli.command import UsageError, warns_on_cuts
from tokviz.cli.options import (
    add_file_options,
    add_input,
    add_specials_in_text,
    add_tokenizer,
    add_words_corpus,
    is_words,
    load_tokenizer,
    read_text_file,
    reading_specials,
)
from tokviz.cli.output import token_label

if TYPE_CHECKING:
    from tokviz.core.bpe.tokenizer import Tokenizer

# Characters encoded at a time: large enough that per-block costs vanish, small enough that a
# block's ids (and, for --format json, its items) stay a few tens of megabytes.
BLOCK = 1 << 19
READ_BLOCK = 1 << 20  # bytes read at a time to check the input is UTF-8
# JSON items are about 80 characters a token: smaller blocks keep them to a few tens of megabytes.
JSON_BLOCK = 1 << 18


class _Writer(Protocol):
    def write(self, text: str) -> int: ...


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_tokenizer(p, "gpt2")
    add_file_options(p)
    add_input(p)
    add_words_corpus(p)
    add_specials_in_text(p)
    p.add_argument("--format", choices=("ids", "tokens", "json"), default="ids", help="output form")
    p.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="write to FILE instead of standard output (complete or not at all: the old file stays on error)",
    )


@warns_on_cuts
def run(args: argparse.Namespace) -> int:
    """Write the ids (one line), the tokens (``|``-separated) or JSON spans of the input text."""
    from tokviz.core.bpe.stream import AtomicStream, check_utf8_file, read_utf8_pieces

    if args.text is not None and args.file is not None:
        raise UsageError("give either --text or FILE, not both")
    if args.text is None and args.file is None:
        raise UsageError("give the input as --text TEXT or as a FILE")
    text = args.text
    if text is None and is_words(args.tokenizer) and not args.words_corpus:
        text = read_text_file(args.file)  # the words tokenizer's vocabulary comes from the input
    tok = load_tokenizer(
        args.tokenizer,
        args.special_token,
        pattern=args.pattern,
        words_corpus=args.words_corpus,
        words_texts=[text] if text is not None else None,
    )
    note_assumptions([tok.name], [tok])
    tok = reading_specials([tok], args)[0]
    if args.output:
        from tokviz.core.io.outputs import Output, check_outputs

        inputs = [args.file] if args.file not in (None, "-") else []
        check_outputs([Output.file(args.output, "-o")], inputs)
    pieces: Iterable[str]
    if text is not None:
        pieces = [text]
    else:
        if args.file != "-":
            # A bad byte is reported before anything is written (a read at C speed, from cache).
            check_utf8_file(args.file, READ_BLOCK)
        # Pieces no larger than a block, so a block is not a whole read of the file.
        pieces = read_utf8_pieces(args.file, JSON_BLOCK if args.format == "json" else BLOCK)
    if not args.output:
        _write(tok, pieces, args.format, sys.stdout)
        return 0
    with AtomicStream(args.output) as out:
        _write(tok, pieces, args.format, out)
        out.commit()
    return 0


def _write(tok: Tokenizer, pieces: Iterable[str], fmt: str, out: _Writer) -> None:
    """Encode ``pieces`` block by block and write each block's part of the output as it comes."""
    if fmt == "json" and places_its_own_spans(tok):
        _write_own_spans(tok, pieces, out)
        return
    if fmt == "json":
        from tokviz.core.bpe.stream import JsonSpans

        spans = JsonSpans(tok.vocab)
        out.write("[")
        for text, ids in tok.encode_blocks(pieces, JSON_BLOCK):
            out.write(spans.block(text, ids))
        out.write(spans.close() + "\n")
        return
    show: Callable[[list[int]], str]
    if fmt == "ids":
        sep = " "

        def show(ids: list[int]) -> str:
            return " ".join(map(str, ids))

    else:
        sep = "|"
        labels: dict[int, str] = {}

        def label(i: int) -> str:
            text = labels.get(i)
            if text is None:
                text = labels[i] = token_label(tok.id_bytes(i))
            return text

        def show(ids: list[int]) -> str:
            return "|".join(map(label, ids))

    first = True
    for _, ids in tok.encode_blocks(pieces, BLOCK):
        if not ids:
            continue
        out.write(show(ids) if first else sep + show(ids))
        first = False
    out.write("\n")


def places_its_own_spans(tok: Tokenizer) -> bool:
    """Whether ``tok`` places its tokens on the text itself (a words ``<unk>`` covers the word it
    lost; a library engine gives offsets; a normalizer's tokens go back onto the typed text), so
    JSON offsets cannot come from token byte lengths."""
    from tokviz.core.bpe.tokenizer import Tokenizer as ByteLevelBPE

    return type(tok).encode_spans is not ByteLevelBPE.encode_spans or bool(tok.normalizer)


def _write_own_spans(tok: Tokenizer, pieces: Iterable[str], out: _Writer) -> None:
    """``--format json`` from the tokenizer's own spans, block by block, in ``json.dump``'s form."""
    import json

    out.write("[")
    base = 0
    first = True
    for text, _ids in tok.encode_blocks(pieces, JSON_BLOCK):
        for span in tok.encode_spans(text):
            item = {
                "id": span.id,
                "bytes": span.bytes.hex(),
                "text": None if span.partial else span.bytes.decode("utf-8", errors="replace"),
                "start": base + span.start,
                "end": base + span.end,
            }
            out.write(("" if first else ", ") + json.dumps(item, ensure_ascii=False))
            first = False
        base += len(text)
    out.write("]\n")
