"""``tokviz train --algorithm unigram|sentencepiece-bpe|wordpiece``: a library trains, tokviz runs and records it.

The corpus is chosen and read as for byte-level BPE (the same files, filters, record fields and
limits, so every algorithm trains on the same documents), then handed to sentencepiece or
``tokenizers`` in a worker process (:mod:`tokviz.core.training.engine_run`); its log is the
progress line. Ctrl+C kills the worker: exit 130, nothing written. The model is the library's
own file (``-o m.model`` for the sentencepiece algorithms, ``-o tokenizer.json`` for WordPiece),
written together with its options record ``<file>.json`` (the exact library options, the corpus
files read, version and date, a Unigram run's rounds), which ``tokviz info`` shows.
"""

from __future__ import annotations

import argparse
import sys
import threading
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from tokviz.cli.command import EXIT_INTERRUPTED, UsageError, print_error, print_note, run_cancellable
from tokviz.cli.corpus_files import (
    corpus_provenance,
    corpus_sample,
    read_corpus,
    read_options,
    say_reading,
    select_corpus,
)
from tokviz.cli.progress import ProgressLine

if TYPE_CHECKING:
    from tokviz.core.corpus.documents import ReadSummary
    from tokviz.core.corpus.fileselect import Selection
    from tokviz.core.corpus.reading import ReadLog
    from tokviz.core.formats.exports import Export
    from tokviz.core.training.engine_options import EngineOptions
    from tokviz.core.training.engine_run import EngineModel, EngineProgress

# Each engine option: its flag, and the EngineOptions field it sets.
ENGINE_FLAGS = {
    "--character-coverage": "character_coverage",
    "--byte-fallback": "byte_fallback",
    "--split-digits": "split_digits",
    "--max-piece-length": "max_piece_length",
}
# Options of byte-level BPE alone, with the value each has when not given.
BPE_ONLY = {
    "--from-counts": None,
    "--pretokenizer": None,
    "--tie-break": "lexicographic",
    "--export-gpt2": None,
    "--export-tiktoken": None,
    "--workers": None,
}
OUTPUT_SUFFIX = {"unigram": ".model", "sentencepiece-bpe": ".model", "wordpiece": ".json"}


def add_engine_arguments(p: argparse.ArgumentParser) -> None:
    """``--algorithm`` and the options of the library trainers (each refused where it does not apply)."""
    from tokviz.core.training.engine_options import ALGORITHMS

    p.add_argument(
        "--algorithm",
        choices=ALGORITHMS,
        default="bpe",
        help="bpe: byte-level BPE, trained by tokviz (default); unigram and sentencepiece-bpe: trained by "
        "sentencepiece (-o FILE.model); wordpiece: trained by tokenizers (-o tokenizer.json)",
    )
    group = p.add_argument_group(
        "library trainers (unigram, sentencepiece-bpe, wordpiece; default: the library's)"
    )
    group.add_argument(
        "--character-coverage",
        type=float,
        metavar="F",
        help="share of characters the vocabulary covers; the rarest others become unknown or bytes (sentencepiece)",
    )
    group.add_argument(
        "--byte-fallback",
        action=argparse.BooleanOptionalAction,
        help="spell characters outside the vocabulary as byte pieces <0xNN> (sentencepiece)",
    )
    group.add_argument(
        "--split-digits",
        action=argparse.BooleanOptionalAction,
        help="every digit a piece of its own (sentencepiece; wordpiece: a Digits pre-tokenizer)",
    )
    group.add_argument(
        "--max-piece-length", type=int, metavar="N", help="longest piece in characters (sentencepiece)"
    )


def refuse_misplaced(args: argparse.Namespace) -> None:
    """A usage error (one line) for the first option given that does not apply to ``--algorithm``."""
    from tokviz.core.training.engine_options import ENGINE_ALGORITHMS, options_for

    algorithm = args.algorithm
    if algorithm not in ENGINE_ALGORITHMS:
        for flag, name in ENGINE_FLAGS.items():
            if getattr(args, name) is not None:
                raise UsageError(f"{flag} applies to {', '.join(_algorithms_with(name))}, not to {algorithm}")
        return
    for flag, unset in BPE_ONLY.items():
        if getattr(args, flag[2:].replace("-", "_")) != unset:
            raise UsageError(f"{flag} applies to bpe only, not to {algorithm}")
    applies = options_for(algorithm)
    for flag, name in ENGINE_FLAGS.items():
        if getattr(args, name) is not None and name not in applies:
            raise UsageError(f"{flag} applies to {', '.join(_algorithms_with(name))}, not to {algorithm}")
    suffix = OUTPUT_SUFFIX[algorithm]
    if not args.output.lower().endswith(suffix):
        raise UsageError(
            f"-o: {algorithm} writes the library's own file; name it *{suffix}"
            + (" (tokenizer.json)" if suffix == ".json" else "")
        )


def _algorithms_with(option: str) -> list[str]:
    from tokviz.core.training.engine_options import ALGORITHMS, options_for

    return [a for a in ALGORITHMS if option in options_for(a)]


def engine_options(args: argparse.Namespace) -> EngineOptions:
    """The :class:`EngineOptions` of the command line (a bad value is a usage error)."""
    from tokviz.core.errors import InvalidArgument
    from tokviz.core.training.engine_options import EngineOptions

    try:
        return EngineOptions(
            algorithm=args.algorithm,
            vocab_size=args.vocab_size,
            normalizer=args.normalizer,
            character_coverage=args.character_coverage,
            byte_fallback=args.byte_fallback,
            split_digits=args.split_digits,
            max_piece_length=args.max_piece_length,
            user_symbols=tuple(args.special_token),
        )
    except InvalidArgument as exc:
        raise UsageError(str(exc)) from None


def run_engine(args: argparse.Namespace) -> int:
    """Train with the library, then write the model and its record only when training finished."""
    from tokviz.core.corpus.documents import CorpusReader
    from tokviz.core.corpus.reading import ReadLog
    from tokviz.core.formats.exports import plan_outputs
    from tokviz.core.io.outputs import check_outputs
    from tokviz.core.training.engine_run import engine_outputs, train_engine

    refuse_misplaced(args)
    if args.name is not None:
        raise UsageError(f"--name applies to bpe only: the {args.algorithm} file holds no name")
    if not args.corpus:
        raise UsageError("give the corpus (text files or folders)")
    options = engine_options(args)
    errors = "replace" if args.replace_invalid else "strict"
    exports = planned_exports(args)
    check_outputs(engine_outputs(args.output) + plan_outputs(exports), inputs=args.corpus)
    selection = select_corpus(args, args.corpus, errors)
    reader = CorpusReader(read_options(args), errors)
    log = ReadLog()
    printer = EngineProgressPrinter(sys.stderr)

    def train(cancel: threading.Event) -> EngineModel:
        documents = whole_documents(reader.corpus(selection.corpus_files(), log=log), cancel)
        return train_engine(documents, options, progress=printer, cancel=cancel)

    model = read_corpus(
        lambda: run_cancellable(train, "tokviz-train"), "training", printer, args.replace_invalid
    )
    if model is None:
        return EXIT_INTERRUPTED
    say_reading(reader.summary())
    provenance = _provenance(selection, args, errors, log, reader.summary())
    return _save(model, args, provenance, exports)


def _provenance(
    selection: Selection, args: argparse.Namespace, errors: str, log: ReadLog, reading: ReadSummary
) -> dict[str, object]:
    """The record's provenance: the files read (sizes and SHA-256 as read), filters, version and date."""
    from tokviz.core.formats.provenance import record_text_bytes

    provenance = corpus_provenance(selection, args, errors, log.files, reading)
    return record_text_bytes(provenance, reading.text_bytes)


def whole_documents(documents: Iterable[Iterable[str]], cancel: threading.Event) -> Iterator[str]:
    """Each document's pieces joined; Ctrl+C stops the reading between two pieces, so a cancel never
    waits for a large text file to be read to its end."""
    from tokviz.core.errors import Cancelled

    for document in documents:
        parts = []
        for piece in document:
            if cancel.is_set():
                raise Cancelled("training cancelled while reading the corpus")
            parts.append(piece)
        yield "".join(parts)


def planned_exports(args: argparse.Namespace) -> list[Export]:
    """The exports asked for besides the model: ``--export-hf`` (a tokenizer.json, made from a
    SentencePiece model, or the WordPiece model's own with a folder's config files)."""
    from tokviz.core.formats.exports import Export

    return [Export.of("hf", args.export_hf, "--export-hf", "none")] if args.export_hf else []


def _save(
    model: EngineModel, args: argparse.Namespace, provenance: dict[str, object], exports: list[Export]
) -> int:
    """Write the model, its record and the exports together; say where, what to know, and what was trained."""
    import os

    from tokviz.core.formats.exports import export_warnings, render_exports
    from tokviz.core.io.outputs import InterruptedAfterCommit, write_outputs
    from tokviz.core.io.safe_text import terminal_text

    name = os.path.splitext(os.path.basename(args.output))[0] or args.algorithm
    tok = model.tokenizer(name)
    sample = corpus_sample(provenance, args.replace_invalid)
    outputs = [*model.rendered(args.output, provenance), *render_exports(exports, tok, None, sample)]
    try:
        write_outputs(outputs, inputs=args.corpus)
    except InterruptedAfterCommit:
        print_error("interrupted; every output had already been written")
        return EXIT_INTERRUPTED
    except KeyboardInterrupt:
        print_error("saving cancelled; nothing was written")
        return EXIT_INTERRUPTED
    for output, _ in outputs:
        print(f"wrote {terminal_text(str(output.path))}", file=sys.stderr)
    for note in [*export_warnings(exports, tok, sample), *(n for e in exports for n in e.notes())]:
        print_note(note)
    rounds = f", {len(model.rounds)} pruning rounds" if model.rounds else ""
    print(
        f"trained {model.options.algorithm} with {model.library} on {model.documents:,} documents "
        f"({model.sentences:,} sentences) in {model.seconds:.2f} s{rounds}",
        file=sys.stderr,
    )
    return 0


class EngineProgressPrinter(ProgressLine):
    """A library run's progress on a stream: its stage and the log's last figure, a line per stage in a log."""

    stage = ""

    def __call__(self, progress: EngineProgress) -> None:
        with self.lock:
            if progress.stage != self.stage:
                self.end_line()
                self.stage = progress.stage
                self.restart()
            fraction = min(progress.done / progress.total, 1.0) if progress.total else 0.0
            self.show(fraction, lambda bar: f"{progress.stage:<16} {progress.message}")

    def close(self) -> None:
        """End the line drawn in place, if there is one."""
        with self.lock:
            self.end_line()
