"""``tokviz train``: train a BPE vocabulary on text files, then save the model and its exports.

This module trains byte-level BPE, tokviz's own trainer; ``--algorithm unigram``,
``sentencepiece-bpe`` and ``wordpiece`` go to the libraries that define them
(:mod:`tokviz.cli.train_engines`).

Every output is checked before training starts (a missing folder fails at once, not after a long
run), and all of them are written together or not at all (:mod:`tokviz.core.io.outputs`). Training
runs on a worker thread so Ctrl+C can ask it to stop at its next cancel check; an interrupted
run exits 130 and writes nothing.

Folders are filtered like ``tokviz eval``'s (``--include`` / ``--exclude`` globs, ``--max-file-size``;
binary files skipped and counted), and the model file records which files were read, with their
sizes and SHA-256, the tokviz version and the date (:mod:`tokviz.core.formats.provenance`). Each export
is complete or refused with the reason (:mod:`tokviz.core.formats.exports`), and what a user must know
about one (tiktoken needs the pattern passed in) is printed after it is written.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
from typing import TYPE_CHECKING

from tokviz.cli.command import EXIT_INTERRUPTED, UsageError, print_error, print_note, run_cancellable
from tokviz.cli.corpus_files import (
    add_file_filters,
    add_limit_options,
    add_reading_options,
    check_workers,
    corpus_provenance,
    corpus_sample,
    max_file_size,
    read_corpus,
    read_options,
    record_options_given,
    say_reading,
    select_corpus,
)
from tokviz.cli.options import add_normalizer, add_special, add_tie_break
from tokviz.cli.progress import ProgressPrinter
from tokviz.cli.train_engines import add_engine_arguments, refuse_misplaced, run_engine

if TYPE_CHECKING:
    from tokviz.core.corpus.fileselect import Selection
    from tokviz.core.formats.exports import Export
    from tokviz.core.io.outputs import Output
    from tokviz.core.training.counts import CountTable
    from tokviz.core.training.train import TrainResult


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "corpus",
        nargs="*",
        metavar="CORPUS",
        help="text files, JSON Lines, Parquet or Arrow files (each record a document), folders or globs "
        "(UTF-8; .gz, .bz2, .xz and .zst are decompressed; folders skip binary files)",
    )
    add_file_filters(p)
    add_limit_options(p)
    p.add_argument("--name", metavar="NAME", help="the model's name (default: the -o file's name)")
    p.add_argument(
        "--from-counts",
        metavar="TABLE",
        help="train on a count table from 'tokviz count' (.parquet or .tsv) instead of CORPUS files",
    )
    p.add_argument("--vocab-size", type=int, required=True, metavar="N", help="256 bytes + merges + specials")
    add_special(p)
    p.add_argument(
        "--pretokenizer", default=None, metavar="P", help="none, gpt2 (default), cl100k, o200k or a regex"
    )
    add_normalizer(
        p, "none for bpe; the library's own for the others: nmt_nfkc for sentencepiece, none for wordpiece"
    )
    add_tie_break(p)
    p.add_argument("-o", "--output", required=True, metavar="MODEL.json", help="where to save the model")
    p.add_argument(
        "--export-gpt2",
        metavar="DIR",
        help="also write vocab.json + merges.txt with tokenizer_config.json into DIR "
        "(and tokenizer.json when the pre-tokenizer is not GPT-2's)",
    )
    p.add_argument(
        "--export-tiktoken",
        metavar="FILE",
        help="also write a .tiktoken rank file and FILE.json (pattern, specials)",
    )
    p.add_argument(
        "--export-hf",
        metavar="FILE|DIR/",
        help="also write a Hugging Face tokenizer.json (into DIR/ or as FILE named tokenizer.json: "
        "with tokenizer_config.json and special_tokens_map.json for AutoTokenizer)",
    )
    add_reading_options(p, workers_help="pre-tokenization processes (default: CPUs)")
    add_engine_arguments(p)


def run(args: argparse.Namespace) -> int:
    """Train, then save the model (and any exports) only when training finished."""
    from tokviz.core.io.outputs import check_outputs
    from tokviz.core.training.train import train_bpe

    if args.algorithm != "bpe":
        return run_engine(args)
    refuse_misplaced(args)
    check_workers(args)
    if args.name is not None and not args.name.strip():
        raise UsageError("--name must not be empty")
    max_size = max_file_size(args.max_file_size)
    table = None
    if args.from_counts:
        from tokviz.cli.count import table_for_training

        table = table_for_training(args)
    elif not args.corpus:
        raise UsageError("give the corpus (text files or folders) or --from-counts TABLE")
    if args.pretokenizer is None:
        args.pretokenizer = "gpt2"
    outputs = planned_outputs(args)
    check_outputs(outputs, inputs=args.corpus or [args.from_counts])
    check_exports_fit(args)
    errors = "replace" if args.replace_invalid else "strict"
    reading = read_options(args)
    corpus_files, source = _training_input(args, table, max_size, errors)
    printer = ProgressPrinter(sys.stderr)

    def train(cancel: threading.Event) -> TrainResult:
        if table is not None:
            from tokviz.core.training.counts import train_from_counts

            return train_from_counts(table, args.vocab_size, args.tie_break, progress=printer, cancel=cancel)
        return train_bpe(
            files=corpus_files,
            vocab_size=args.vocab_size,
            special_tokens=args.special_token,
            pretokenizer=args.pretokenizer,
            tie_break=args.tie_break,
            progress=printer,
            cancel=cancel,
            errors=errors,
            workers=args.workers,
            reading=reading,
            normalizer=args.normalizer,
        )

    result = read_corpus(
        lambda: run_cancellable(train, "tokviz-train"), "training", printer, args.replace_invalid
    )
    if result is None:
        return EXIT_INTERRUPTED
    say_reading(result.reading)
    from tokviz.core.formats.provenance import record_text_bytes

    provenance = record_text_bytes(_provenance(args, source, errors, result), result.text_bytes)
    code = save_outputs(result, args, outputs, provenance)
    if code:
        return code
    _say_trained(result)
    return 0


def _training_input(
    args: argparse.Namespace, table: CountTable | None, max_size: int | None, errors: str
) -> tuple[list[str], CountTable | Selection]:
    """The corpus files to read (none for a count table), and where they come from: the count
    table, or the selection of files."""
    if table is None:
        selection = select_corpus(args, args.corpus, errors)
        return [str(f.path) for f in selection.files], selection
    if args.include or args.exclude or max_size is not None or args.include_binary:
        raise UsageError(
            "--include, --exclude, --max-file-size and --include-binary choose corpus files; "
            "the table is counted"
        )
    given = record_options_given(args)
    if given:
        raise UsageError(f"{', '.join(given)} read corpus files; the table is counted")
    return [], table


def _provenance(
    args: argparse.Namespace, source: CountTable | Selection, errors: str, result: TrainResult
) -> dict[str, object]:
    """The provenance the model records, made once training has read the corpus (from the bytes
    it read) or trained from the count table."""
    from tokviz.core.training.counts import CountTable

    if isinstance(source, CountTable):
        return table_provenance(source, args.from_counts)
    return corpus_provenance(source, args, errors, result.files_read, result.reading)


def _say_trained(result: TrainResult) -> None:
    """The run's summary on standard error: a warning about cut pre-tokens, a note when it stopped
    before the size asked, and the totals."""
    if result.long_pretokens_note is not None:
        print_note(f"warning: {result.long_pretokens_note}")
    if result.stop_reason is not None:
        # Not an error (the model is complete for this corpus), but never a silent surprise.
        print_note(f"stopped early: {result.stop_reason}")
    t = result.timings
    merges_per_s = len(result.merges) / t["merge"] if t.get("merge") else 0.0
    from tokviz.core.corpus.sizes import text_and_file_size

    print(
        f"trained {len(result.merges)} merges on {text_and_file_size(result.text_bytes, result.corpus_bytes)}, "
        f"{result.unique_words} unique pre-tokens, in {t.get('total', 0.0):.2f} s "
        f"(pre-tokenize {t.get('pretokenize', 0.0):.2f} s, merges {t.get('merge', 0.0):.2f} s, "
        f"{merges_per_s:,.0f} merges/s); vocab size {len(result.vocab)}",
        file=sys.stderr,
    )


def table_provenance(table: CountTable, path: str) -> dict[str, object]:
    """The provenance of a model trained on a count table: the table and the files it counted."""
    from tokviz.core.formats.provenance import make_provenance

    files = [{"path": f.path, "bytes": f.size, "sha256": f.sha256} for f in table.files]
    corpus = {"count_table": path, "files": files, "total_bytes": sum(f.size for f in table.files)}
    return make_provenance(corpus, None, str(table.metadata().get("invalid_utf8", "strict")))


def _name_of(output: str) -> str:
    """The model's default name: the -o file's name without its extension, undecodable bytes as ``\\xNN``."""
    stem = os.path.splitext(os.path.basename(output))[0]
    return os.fsencode(stem).decode("utf-8", "backslashreplace") or "trained"


def planned_exports(args: argparse.Namespace) -> list[Export]:
    """The model file and every export the run asks for, named by its option in messages."""
    from tokviz.core.formats.exports import Export
    from tokviz.core.pretok.normalize import parse_normalizer

    pre = args.pretokenizer or "gpt2"
    norm = parse_normalizer(args.normalizer or "none")
    exports = [Export.of("model", args.output, "-o", pre, norm)]
    for kind, option in (("gpt2", "--export-gpt2"), ("tiktoken", "--export-tiktoken"), ("hf", "--export-hf")):
        path = getattr(args, option[2:].replace("-", "_"))
        if path:
            exports.append(Export.of(kind, path, option, pre, norm))
    return exports


def planned_outputs(args: argparse.Namespace) -> list[Output]:
    """Every file and folder the run writes (exports into one folder share one output)."""
    from tokviz.core.formats.exports import plan_outputs

    return plan_outputs(planned_exports(args))


def check_exports_fit(args: argparse.Namespace) -> None:
    """Before training, what the exports cannot hold whatever is learned: a special token spelled like
    a byte token (vocab.json and tokenizer.json key tokens by their text) and, for tokenizer.json, a
    pattern HF would read otherwise. Clashes with learned tokens still fail before writing."""
    from tokviz.core.errors import ExportError
    from tokviz.core.formats.hf_verify import pattern_problem
    from tokviz.core.pretok.bytes_ import bytes_to_gpt2_str

    for export in planned_exports(args):
        if export.kind == "tiktoken" and export.normalizer:
            raise ExportError(f"{export.what}: a .tiktoken file cannot carry a normalizer")
        if export.kind == "tiktoken":
            from tokviz.core.formats.tiktoken_sidecar import tiktoken_pattern_problem

            reason = tiktoken_pattern_problem(export.pretokenizer)
            if reason is not None:  # still written: tokviz reads the file and its sidecar back exactly
                print_note(f"{export.what}: {reason}; tokviz will read the file back, tiktoken will not")
        if not export.needs_hf_json:
            continue
        problem = pattern_problem(export.pretokenizer)
        if problem is not None:
            why = " (vocab.json + merges.txt cannot hold it, and tokenizer.json cannot either)"
            raise ExportError(
                f"{export.what} cannot write the pre-tokenizer {args.pretokenizer!r}"
                f"{why if export.kind == 'gpt2' else ''}: {problem}"
            )

    formats = [flag for flag in ("--export-gpt2", "--export-hf") if getattr(args, flag[2:].replace("-", "_"))]
    if not formats:
        return
    byte_strings = {bytes_to_gpt2_str(bytes([b])): b for b in range(256)}
    for special in args.special_token:
        if special in byte_strings:
            raise ExportError(
                f"the special token {special!r} is spelled like the byte token {byte_strings[special]}, "
                f"and the files {' and '.join(formats)} writes key tokens by their text; "
                "choose another special token"
            )


def save_outputs(
    result: TrainResult,
    args: argparse.Namespace,
    outputs: list[Output],
    provenance: dict[str, object] | None = None,
) -> int:
    """Render every output, then write them all together; say where each one went and what to know.

    A format that cannot hold the vocabulary fails here, before anything is written. Returns
    the exit status: 0, or 130 when Ctrl+C stopped the saving.
    """
    from tokviz.core.formats.exports import ModelExtras, export_warnings, render_exports
    from tokviz.core.io.outputs import InterruptedAfterCommit, write_outputs

    name = (args.name or "").strip() or _name_of(args.output)
    tok = result.tokenizer(name)
    exports = planned_exports(args)
    extras = ModelExtras(result.settings(), result.history, provenance or {})
    sample = corpus_sample(provenance or {}, args.replace_invalid)
    try:
        write_outputs(render_exports(exports, tok, extras, sample), inputs=args.corpus)
    except InterruptedAfterCommit:
        _say_written(outputs)
        print_error("interrupted; every output had already been written")
        return EXIT_INTERRUPTED
    except KeyboardInterrupt:
        print_error("saving cancelled; nothing was written")
        return EXIT_INTERRUPTED
    _say_written(outputs)
    for warning in export_warnings(exports, tok, sample):
        print_note(warning)
    for export in exports:
        for note in export.notes():
            print_note(note)
    return 0


def _say_written(outputs: list[Output]) -> None:
    """``wrote PATH`` on standard error for each output (a folder with the files written into it)."""
    from tokviz.core.io.safe_text import terminal_text

    for o in outputs:
        if o.is_folder:
            print(f"wrote {', '.join(o.files)} into {terminal_text(str(o.path))}", file=sys.stderr)
        else:
            print(f"wrote {terminal_text(str(o.path))}", file=sys.stderr)
