"""``tokviz train``: train a BPE vocabulary on text files, then save the model and its exports.

Training runs on a worker thread so Ctrl+C can ask it to stop at its next cancel check; an
interrupted run exits 130 and writes nothing.
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
    from tokviz.core.train import TrainResult


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("corpus", nargs="+", metavar="CORPUS", help="text files or folders (read as UTF-8)")
    p.add_argument("--vocab-size", type=int, required=True, metavar="N", help="256 bytes + merges + specials")
    add_special(p)
    p.add_argument("--pretokenizer", default="gpt2", metavar="P", help="none, gpt2, cl100k or a regex")
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
    from tokviz.core.train import train_bpe

    if args.workers is not None and args.workers < 1:
        raise UsageError("--workers must be 1 or more")
    printer = ProgressPrinter(sys.stderr)
    errors = "replace" if args.replace_invalid else "strict"

    def train(cancel: threading.Event) -> TrainResult:
        return train_bpe(
            files=list(args.corpus),
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
    save_outputs(result, args)
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


def save_outputs(result: TrainResult, args: argparse.Namespace) -> None:
    """Write the model, then each requested export, saying where each one went."""
    from tokviz.core.formats import export_gpt2, export_hf, export_tiktoken, save_model

    name = os.path.splitext(os.path.basename(args.output))[0] or "trained"
    tok = result.tokenizer(name)
    save_model(args.output, tok, settings=result.settings(), history=result.history)
    print(f"wrote {args.output}", file=sys.stderr)
    if args.export_gpt2:
        export_gpt2(tok, args.export_gpt2)
        print(f"wrote {os.path.join(args.export_gpt2, 'vocab.json')} and merges.txt", file=sys.stderr)
    if args.export_tiktoken:
        export_tiktoken(tok, args.export_tiktoken)
        print(f"wrote {args.export_tiktoken}", file=sys.stderr)
    if args.export_hf:
        export_hf(tok, args.export_hf)
        print(f"wrote {args.export_hf}", file=sys.stderr)
