"""``tokviz export``: write any tokenizer tokviz can open to another format, or say why it cannot go there.

The same exports as ``tokviz train --export-*`` (:mod:`tokviz.core.formats.exports`), for a model trained
earlier or any file or built-in: a Hugging Face folder (tokenizer.json with its config files), a
vocab.json + merges.txt folder, a ``.tiktoken`` file with its sidecar, or a tokviz model file (an
opened model file keeps its settings, history and provenance); a SentencePiece model also as its
``.model`` file, a BERT-style WordPiece model as a ``vocab.txt`` folder. All files of an export are written
together or not at all; what the user must know afterwards is printed on standard error.
"""

from __future__ import annotations

import argparse

from tokviz.cli.command import print_note
from tokviz.cli.options import add_file_options, load_tokenizer

FORMATS = ("hf", "gpt2", "tiktoken", "model", "spm", "bert")
FOLDER_FORMATS = ("hf", "gpt2", "bert")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "tokenizer", metavar="NAME|PATH", help="a built-in name or a model/vocabulary file or folder"
    )
    p.add_argument(
        "--to",
        required=True,
        choices=FORMATS,
        help="hf: tokenizer.json + tokenizer_config.json folder; gpt2: vocab.json + merges.txt folder; "
        "tiktoken: rank file + sidecar; model: tokviz model file; spm: SentencePiece .model file; "
        "bert: vocab.txt folder (WordPiece)",
    )
    p.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="PATH",
        help="a folder for hf, gpt2 and bert (a file named tokenizer.json also works for hf), a file otherwise",
    )
    p.add_argument(
        "--vocab-size",
        type=int,
        metavar="N",
        help="write the vocabulary of the first merges only, N tokens in all (256 bytes + merges + "
        "special tokens), as tokviz sweep measures it",
    )
    add_file_options(p)


def run(args: argparse.Namespace) -> int:
    """Load the tokenizer, refuse a format it cannot go to (with the reason), write the export, say what to know."""
    from tokviz.core.errors import ExportError
    from tokviz.core.formats.exports import export_problem, write_export

    tok = load_tokenizer(args.tokenizer, args.special_token, pattern=args.pattern)
    extras = None
    if args.vocab_size is not None:
        from tokviz.core.analysis.sweep import prefix_extras, prefix_tokenizer

        full, tok = tok, prefix_tokenizer(tok, args.vocab_size)
        extras = prefix_extras(full, tok)
    problem = export_problem(tok, args.to)
    if problem is not None:
        raise ExportError(f"cannot export {tok.name} as --to {args.to}: {problem}")
    output = args.output
    if args.to in FOLDER_FORMATS and not output.endswith(("/", "\\")) and not output.endswith(".json"):
        output += "/"  # a folder, whether it exists yet or not
    notes = write_export(tok, args.to, output, what="-o", extras=extras)
    print_note(f"wrote {tok.name} as {args.to} to {args.output}")
    for note in notes:
        print_note(note)
    return 0
