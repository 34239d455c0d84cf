"""``tokviz train``: train a BPE vocabulary on text files, then save the model and its exports.

Every output is checked before training starts (a missing folder fails at once, not after a long
run), and all of them are written together or not at all (:mod:`tokviz.core.outputs`). Training
runs on a worker thread so Ctrl+C can ask it to stop at its next cancel check; an interrupted
run exits 130 and writes nothing.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from .command import EXIT_INTERRUPTED, UsageError, print_error, print_note
from .options import add_special, add_tie_break
from .progress import ProgressPrinter

if TYPE_CHECKING:
    from tokviz.core.outputs import Output
    from tokviz.core.train import TrainResult


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "corpus",
        nargs="*",
        metavar="CORPUS",
        help="text files or folders (UTF-8; .gz, .bz2 and .xz are decompressed; folders skip binary files)",
    )
    p.add_argument(
        "--from-counts",
        metavar="TABLE",
        help="train on a count table from 'tokviz count' (.parquet or .tsv) instead of CORPUS files",
    )
    p.add_argument("--vocab-size", type=int, required=True, metavar="N", help="256 bytes + merges + specials")
    add_special(p)
    p.add_argument(
        "--pretokenizer", default=None, metavar="P", help="none, gpt2 (default), cl100k or a regex"
    )
    add_tie_break(p)
    p.add_argument("-o", "--output", required=True, metavar="MODEL.json", help="where to save the model")
    p.add_argument("--export-gpt2", metavar="DIR", help="also write vocab.json and merges.txt into DIR")
    p.add_argument("--export-tiktoken", metavar="FILE", help="also write a .tiktoken rank file")
    p.add_argument("--export-hf", metavar="FILE", help="also write a Hugging Face tokenizer.json")
    p.add_argument(
        "--replace-invalid",
        action="store_true",
        help="read invalid UTF-8 as U+FFFD instead of stopping with an error",
    )
    p.add_argument("--workers", type=int, metavar="N", help="pre-tokenization processes (default: CPUs)")


def run(args: argparse.Namespace) -> int:
    """Train, then save the model (and any exports) only when training finished."""
    from tokviz.core.errors import Cancelled, CorpusError
    from tokviz.core.outputs import check_outputs
    from tokviz.core.train import train_bpe

    if args.workers is not None and args.workers < 1:
        raise UsageError("--workers must be 1 or more")
    table = None
    if args.from_counts:
        from .count import table_for_training

        table = table_for_training(args)
    elif not args.corpus:
        raise UsageError("give the corpus (text files or folders) or --from-counts TABLE")
    if args.pretokenizer is None:
        args.pretokenizer = "gpt2"
    outputs = planned_outputs(args)
    check_outputs(outputs, inputs=args.corpus or [args.from_counts])
    check_exports_fit(args)
    errors = "replace" if args.replace_invalid else "strict"
    corpus_files = scan_corpus(args.corpus, errors) if table is None else []
    printer = ProgressPrinter(sys.stderr)

    def train(cancel: threading.Event) -> TrainResult:
        if table is not None:
            from tokviz.core.counts import train_from_counts

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
        )

    try:
        result = run_training(train)
    except (KeyboardInterrupt, Cancelled):
        printer.close()
        print_error("training cancelled; nothing was written")
        return EXIT_INTERRUPTED
    except CorpusError as exc:
        printer.close()
        if exc.offset is not None and not args.replace_invalid:
            raise CorpusError(
                f"{exc.path} is not valid UTF-8 (byte offset {exc.offset}); "
                "use --replace-invalid to read it with U+FFFD replacement characters",
                exc.path,
                exc.offset,
            ) from None
        raise
    finally:
        printer.close()
    code = save_outputs(result, args, outputs)
    if code:
        return code
    if result.stop_reason is not None:
        # Not an error (the model is complete for this corpus), but never a silent surprise.
        print_note(f"stopped early: {result.stop_reason}")
    t = result.timings
    merges_per_s = len(result.merges) / t["merge"] if t.get("merge") else 0.0
    print(
        f"trained {len(result.merges)} merges on {result.corpus_bytes / 1e6:.2f} MB "
        f"({result.unique_words} unique pre-tokens) in {t.get('total', 0.0):.2f} s "
        f"(pre-tokenize {t.get('pretokenize', 0.0):.2f} s, merges {t.get('merge', 0.0):.2f} s, "
        f"{merges_per_s:,.0f} merges/s); vocab size {len(result.vocab)}",
        file=sys.stderr,
    )
    return 0


def scan_corpus(paths: list[str], errors: str) -> list[str]:
    """The text files training reads from ``paths``; a note on standard error says what folders left out.

    Folders are walked once here and training gets the files found, so the note counts exactly
    what was skipped ("skipped 717 binary files (.pyc, .so, .a, …)").
    """
    from tokviz.core.corpus import scan_source

    scan = scan_source(list(paths), errors)
    note = scan.summary.note("--replace-invalid")
    if note is not None:
        print_note(note)
    return [str(f.path) for f in scan.files]


def run_training(train: Callable[[threading.Event], TrainResult]) -> TrainResult:
    """Run ``train`` on a worker thread so Ctrl+C can set its cancel flag and wait for a clean stop.

    Raises :class:`KeyboardInterrupt` once the training thread has stopped after an interrupt.
    """
    cancel = threading.Event()
    results: list[TrainResult] = []
    errors: list[BaseException] = []

    def target() -> None:
        try:
            results.append(train(cancel))
        except BaseException as exc:  # noqa: BLE001 - handed back to the main thread
            errors.append(exc)

    worker = threading.Thread(target=target, name="tokviz-train", daemon=True)
    interrupted = False
    while True:
        try:
            if worker.ident is None:
                worker.start()
            while worker.is_alive():
                worker.join(0.1)
            break
        except KeyboardInterrupt:
            # Ask the trainer to stop, then keep waiting: it ends at its next cancel check.
            interrupted = True
            cancel.set()
    if interrupted:
        raise KeyboardInterrupt
    if errors:
        raise errors[0]
    return results[0]


def planned_outputs(args: argparse.Namespace) -> list[Output]:
    """Every output the run asks for, named by its option in messages."""
    from tokviz.core.formats.gpt2_files import GPT2_FILES
    from tokviz.core.outputs import Output

    outputs = [Output.file(args.output, "-o")]
    if args.export_gpt2:
        outputs.append(Output.folder(args.export_gpt2, "--export-gpt2", GPT2_FILES))
    if args.export_tiktoken:
        outputs.append(Output.file(args.export_tiktoken, "--export-tiktoken"))
    if args.export_hf:
        outputs.append(Output.file(args.export_hf, "--export-hf"))
    return outputs


def check_exports_fit(args: argparse.Namespace) -> None:
    """Before training, what the exports cannot hold whatever is learned: a special token spelled like
    a byte token (vocab.json and tokenizer.json key tokens by their text) and, for tokenizer.json, a
    pattern HF would read otherwise. Clashes with learned tokens still fail before writing."""
    from tokviz.core.bytes_ import bytes_to_gpt2_str
    from tokviz.core.errors import ExportError
    from tokviz.core.formats.hf_verify import pattern_problem
    from tokviz.core.pretokenize import resolve_pretokenizer

    if args.export_hf:
        problem = pattern_problem(resolve_pretokenizer(args.pretokenizer))
        if problem is not None:
            raise ExportError(f"--export-hf cannot write the pre-tokenizer {args.pretokenizer!r}: {problem}")

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


def save_outputs(result: TrainResult, args: argparse.Namespace, outputs: list[Output]) -> int:
    """Render every output, then write them all together; say where each one went.

    A format that cannot hold the vocabulary fails here, before anything is written. Returns
    the exit status: 0, or 130 when Ctrl+C stopped the saving.
    """
    from tokviz.core.formats.gpt2_files import gpt2_file_bytes
    from tokviz.core.formats.hf_json import hf_file_bytes
    from tokviz.core.formats.model_file import model_file_bytes
    from tokviz.core.formats.tiktoken_file import tiktoken_file_bytes
    from tokviz.core.outputs import InterruptedAfterCommit, write_outputs

    name = os.path.splitext(os.path.basename(args.output))[0] or "trained"
    tok = result.tokenizer(name)
    render: dict[str, Callable[[], bytes | dict[str, bytes]]] = {
        "-o": lambda: model_file_bytes(tok, settings=result.settings(), history=result.history),
        "--export-gpt2": lambda: gpt2_file_bytes(tok),
        "--export-tiktoken": lambda: tiktoken_file_bytes(tok),
        "--export-hf": lambda: hf_file_bytes(tok),
    }
    try:
        write_outputs([(o, render[o.what]()) for o in outputs], inputs=args.corpus)
    except InterruptedAfterCommit:
        _say_written(outputs)
        print_error("interrupted; every output had already been written")
        return EXIT_INTERRUPTED
    except KeyboardInterrupt:
        print_error("saving cancelled; nothing was written")
        return EXIT_INTERRUPTED
    _say_written(outputs)
    return 0


def _say_written(outputs: list[Output]) -> None:
    """``wrote PATH`` on standard error for each output (both files of a GPT-2 folder)."""
    for o in outputs:
        if o.is_folder:
            print(f"wrote {o.path / o.files[0]} and {' and '.join(o.files[1:])}", file=sys.stderr)
        else:
            print(f"wrote {o.path}", file=sys.stderr)
