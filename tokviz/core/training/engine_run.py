"""Train Unigram, SentencePiece BPE or WordPiece with the library that defines it, in a worker process.

:func:`train_engine` cuts the documents into sentences (:func:`.engine_options.document_sentences`),
streams them to a worker process (:mod:`._engine_worker`) that runs ``sentencepiece`` or
``tokenizers`` with exactly :meth:`.EngineOptions.library_options`, reads the library's log for
progress (:mod:`.engine_log`: sentences read, EM rounds, merges) and collects a Unigram run's
pruning rounds. The libraries hold the GIL or ignore signals for the length of a run, so only a
process can be stopped at any moment: a cancel kills it, and as the model travels back through a
pipe (no file is written until :meth:`EngineModel.save`), a cancelled run leaves nothing behind.
A library's error becomes :class:`EngineError`, one line.

The worker starts from a fork server (:func:`worker_context`), ignores Ctrl+C, writes no core file and, given
``memory_limit``, cannot use more address space than that (the library's allocation fails
instead of the machine swapping).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any

from ..bpe.tokenizer import Tokenizer
from ..errors import Cancelled, TokvizError
from ..io.outputs import Output, write_outputs
from ._engine_worker import END_OF_SENTENCES, serve
from .engine_log import EngineProgress, LogReader, UnigramRound
from .engine_options import EngineOptions, document_sentences

__all__ = [
    "EngineError",
    "EngineModel",
    "EngineProgress",
    "TrainingCancelled",
    "UnigramRound",
    "engine_outputs",
    "train_engine",
]

BATCH_BYTES = 1 << 20
"""About how much text goes to the worker in one message."""
POLL_SECONDS = 0.1
"""How often the cancel flag is looked at while the worker runs."""
LOG_DRAIN_SECONDS = 1.0
"""How long the rest of an ended worker's log may take to arrive."""


class EngineError(TokvizError):
    """The library failed, or its worker ended without a model; the message is one line."""


class TrainingCancelled(Cancelled):
    """A library run was cancelled: its worker was killed and nothing was written."""


@dataclass
class EngineModel:
    """What a library run produced: the model's bytes and everything needed to repeat the run.

    ``data`` is the ``.model`` file (SentencePiece) or the ``tokenizer.json`` text (WordPiece),
    exactly as the library made it; ``library_options`` what it was given; ``documents`` and
    ``sentences`` what it read.
    """

    options: EngineOptions
    library: str
    library_options: dict[str, Any]
    data: bytes
    rounds: list[UnigramRound]
    documents: int
    seconds: float
    sentences: int = 0
    library_files: dict[str, str] = field(default_factory=dict)

    def tokenizer(self, name: str) -> Tokenizer:
        """The model opened by tokviz's SentencePiece or Hugging Face loader, named ``name``."""
        from ..formats.engine_record import remember_record

        if self.options.library == "sentencepiece":
            from ..formats.sentencepiece_file import sentencepiece_from_bytes

            tok: Tokenizer = sentencepiece_from_bytes(self.data, f"{name}.model", name)
        else:
            from ..formats.hf_json import hf_from_json

            text = self.data.decode("utf-8")
            tok = hf_from_json(json.loads(text), "tokenizer.json", name, source=text)
        remember_record(tok, {"trainer": self.trainer_record()})
        return tok

    def trainer_record(self) -> dict[str, Any]:
        """What ``tokviz info`` shows under ``trainer``: the library, its options, the sentences, the rounds."""
        from ..formats.engine_record import trainer_record

        rounds = [
            {"index": r.index, "size": r.size, "objective": r.objective, "tokens": r.tokens}
            for r in self.rounds
        ]
        return trainer_record(
            self.library,
            self.options.algorithm,
            self.library_options,
            self.library_files,
            self.options.sentence_rule,
            rounds,
        )

    def rendered(
        self, path: str | os.PathLike[str], provenance: dict[str, Any] | None = None
    ) -> list[tuple[Output, bytes]]:
        """The model file at ``path`` and its options record (``<file>.json``), each with its bytes:
        what :meth:`save` writes, for a caller that writes them with other outputs as one set.

        ``provenance`` (corpus files, version, date: :mod:`tokviz.core.formats.provenance`) goes
        into the record.
        """
        from ..formats.engine_record import record_bytes

        model, record = engine_outputs(path)
        data = record_bytes(self.data, self.trainer_record(), provenance or {}, self.library_files)
        return [(model, self.data), (record, data)]

    def save(self, path: str | os.PathLike[str], provenance: dict[str, Any] | None = None) -> list[Path]:
        """Write the model file and its options record together, or neither; the two paths written."""
        outputs = self.rendered(path, provenance)
        write_outputs(outputs)
        return [output.path for output, _ in outputs]


def engine_outputs(path: str | os.PathLike[str]) -> list[Output]:
    """The two files a library-trained model is saved as: the model at ``path`` and its options
    record beside it (``<file>.json``), checked and written as one output set."""
    from ..formats.engine_record import record_path

    return [Output.file(path, "the model file"), Output.file(record_path(path), "its options record")]


def train_engine(
    documents: Iterable[str],
    options: EngineOptions,
    *,
    progress: Callable[[EngineProgress], None] | None = None,
    cancel: threading.Event | None = None,
    memory_limit: int | None = -1,
) -> EngineModel:
    """Train ``options.algorithm`` on ``documents`` with its library, in a worker process.

    ``progress`` receives what the library's log tells (on this thread); ``cancel`` set at any
    moment kills the worker and raises :class:`TrainingCancelled`. A library error is an
    :class:`EngineError` (one line); an error reading ``documents`` is raised as it was.
    ``memory_limit`` caps the worker's address space in bytes (by default the machine's physical
    memory, :func:`default_memory_limit`; None: no cap); a run that needs more is an
    :class:`EngineError` saying so.
    """
    if memory_limit == -1:
        memory_limit = default_memory_limit()
    library_options = options.library_options()
    files = options.library_files()
    start = time.perf_counter()
    folder = tempfile.mkdtemp(prefix="tokviz-engine-")
    try:
        for name, text in files.items():
            Path(folder, name).write_bytes(text.encode("utf-8"))  # exactly, newlines and all
        config = {
            "library": options.library,
            "options": library_options,
            "memory_limit": memory_limit,
            "folder": folder,
        }
        run = _Run(config, options, progress, cancel or threading.Event())
        library, data = run.result(documents)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return EngineModel(
        options=options,
        library=library,
        library_options=library_options,
        data=data,
        rounds=run.log.finish(),
        documents=run.documents,
        seconds=time.perf_counter() - start,
        sentences=run.sentences,
        library_files=files,
    )


class _Run:
    """One worker process, the thread that feeds it sentences, and the reading of its log."""

    def __init__(
        self,
        config: dict[str, Any],
        options: EngineOptions,
        progress: Callable[[EngineProgress], None] | None,
        cancel: threading.Event,
    ) -> None:
        self.config = config
        self.options = options
        self.progress = progress
        self.cancel = cancel
        self.log = LogReader(options.algorithm, options.vocab_size)
        self.documents = 0
        self.sentences = 0
        self.feed_error: BaseException | None = None
        self.stop_feeding = threading.Event()

    def result(self, documents: Iterable[str]) -> tuple[str, bytes]:
        """The library's name and version and the model's bytes; raises as :func:`train_engine` says."""
        context: Any = worker_context()  # typeshed's BaseContext lacks the Process it has
        sentences_out, sentences_in = context.Pipe(duplex=False)
        results_out, results_in = context.Pipe(duplex=False)
        log_out, log_in = context.Pipe(duplex=False)
        process: BaseProcess = context.Process(
            target=serve,
            args=(self.config, sentences_out, results_in, log_in, (sentences_in, results_out, log_out)),
            name=f"tokviz-{self.options.algorithm}",
            daemon=True,
        )
        process.start()
        for end in (sentences_out, results_in, log_in):
            end.close()
        feeder = threading.Thread(
            target=self._feed, args=(documents, sentences_in), name="tokviz-engine-feed", daemon=True
        )
        feeder.start()
        finished = False
        try:
            answer = self._wait(process, results_out, log_out)
            finished = True
        finally:
            self.stop_feeding.set()
            if not finished and process.is_alive():
                process.kill()
            process.join()
            feeder.join()  # with the worker gone, a send fails at once and the feeder returns
            for conn in (sentences_in, results_out, log_out):
                conn.close()
        if self.feed_error is not None:
            raise self.feed_error
        return self._answer(answer, process)

    def _feed(self, documents: Iterable[str], conn: Connection) -> None:
        """Send the sentences in batches, then the end mark; stop early when asked or when the worker is gone
        (its answer, or its absence, then says why). An error reading the documents is kept for the caller."""
        try:
            for batch in _batches(document_sentences(self._counted(documents), self.options.library)):
                if self.stop_feeding.is_set() or not _send(conn, batch):
                    return
                self.sentences += batch.count(b"\n") + 1
            _send(conn, END_OF_SENTENCES)
        except BaseException as exc:  # noqa: BLE001 - a reading error is the caller's to see
            self.feed_error = exc
            self.stop_feeding.set()

    def _counted(self, documents: Iterable[str]) -> Iterator[str]:
        for document in documents:
            self.documents += 1
            yield document

    def _wait(self, process: BaseProcess, results: Connection, log: Connection) -> list[bytes]:
        """Read the log and the answer until the worker ends; kill it on cancel or a reading error."""
        answer: list[bytes] = []
        pending = b""
        log_open = True
        while True:
            if self.cancel.is_set():
                raise TrainingCancelled(f"{self.options.algorithm} training cancelled")
            if self.feed_error is not None:
                raise self.feed_error
            waiting: list[Any] = [results, process.sentinel] + ([log] if log_open else [])
            ready = wait(waiting, POLL_SECONDS)
            if log in ready:
                chunk = _read_some(log)
                if not chunk:
                    log_open = False
                pending = self._log_lines(pending + chunk)
            if results in ready:
                with contextlib.suppress(EOFError, OSError):
                    answer.append(results.recv_bytes())
                    header = json.loads(answer[0])
                    if "bytes" in header:
                        answer.append(results.recv_bytes())
            if process.sentinel in ready:
                while log_open and wait([log], LOG_DRAIN_SECONDS):  # what it wrote before it ended
                    chunk = _read_some(log)
                    log_open = bool(chunk)
                    pending = self._log_lines(pending + chunk)
                self._log_lines(pending + b"\n")
                return answer

    def _log_lines(self, data: bytes) -> bytes:
        """Hand each whole line of ``data`` to the log reader; the unfinished rest is returned."""
        *lines, rest = data.split(b"\n")
        for line in lines:
            report = self.log.line(line.decode("utf-8", "replace"))
            if report is not None and self.progress is not None:
                self.progress(report)
        return rest

    def _answer(self, answer: list[bytes], process: BaseProcess) -> tuple[str, bytes]:
        library = self.options.library
        if not answer:
            why = self.log.failure_line() or f"exit status {process.exitcode}"
            raise EngineError(self._out_of_memory(why) or f"{library} stopped without a model ({why})")
        header = json.loads(answer[0])
        if "error" in header:
            message = one_line(str(header["error"]))
            raise EngineError(self._out_of_memory(message) or f"{library}: {message}")
        if len(answer) < 2 or len(answer[1]) != header.get("bytes"):
            raise EngineError(f"{library} sent back an incomplete model")
        return str(header["library"]), answer[1]

    def _out_of_memory(self, why: str) -> str | None:
        """The one line for a run that failed for want of memory under the worker's limit, or None."""
        limit = self.config.get("memory_limit")
        if limit is None:
            return None
        size = f"{limit / 2**30:.1f} GB of address space"
        if _NO_MEMORY.search(why):
            return f"{self.options.library} ran out of memory: the worker may use {size} ({why})"
        if "terminate called" in why:  # C++ gave up on something it could not get: memory or a thread
            return f"{self.options.library} stopped without a model ({why}) under its limit of {size}"
        return None


def default_memory_limit() -> int | None:
    """The machine's physical memory in bytes (None where it cannot be read): a run that needs more
    fails with one line instead of driving the machine into swap."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return None


# What a library says when an allocation or a thread could not be had under the memory limit.
_NO_MEMORY = re.compile(
    r"bad_alloc|MemoryError|memory allocation|out of memory|Resource temporarily unavailable", re.I
)


def worker_context() -> Any:
    """How a worker starts: from a fork server (or spawned), never forked from this process.

    sentencepiece and ``tokenizers`` start native threads (OpenMP, rayon) that Python does not
    count: a process that has encoded or trained with them once cannot be forked safely (the
    child crashes or deadlocks in the library), and the window has always done so.
    """
    import multiprocessing

    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")


def _send(conn: Connection, data: bytes) -> bool:
    """Send ``data`` to the worker; False when the worker is gone."""
    try:
        conn.send_bytes(data)
    except OSError:  # a broken pipe, or reset: the worker ended
        return False
    return True


def _read_some(conn: Connection) -> bytes:
    """What the log pipe holds now (its raw bytes: the libraries write to it as to a file)."""
    try:
        return os.read(conn.fileno(), 1 << 16)
    except OSError:
        return b""


def _batches(sentences: Iterable[str]) -> Iterator[bytes]:
    """``sentences`` joined by newlines in batches of about :data:`BATCH_BYTES`."""
    batch: list[str] = []
    size = 0
    for sentence in sentences:
        batch.append(sentence)
        size += len(sentence) + 1
        if size >= BATCH_BYTES:
            yield "\n".join(batch).encode("utf-8", "surrogatepass")
            batch, size = [], 0
    if batch:
        yield "\n".join(batch).encode("utf-8", "surrogatepass")


# sentencepiece's errors start with where in its source they were raised:
# "Internal: src/trainer_interface.cc(660) [(a) == (b)] Vocabulary size is too high (5000). ..."
_SOURCE_PLACE = re.compile(r"^\w+: \S+\.(?:cc|h|cpp)\(\d+\) (?:\[[^\]]*\] )?")


def one_line(message: str) -> str:
    """A library's error message as one line, without the source file and line it names first."""
    first = next((line.strip() for line in message.splitlines() if line.strip()), message.strip())
    return _SOURCE_PLACE.sub("", first) or first
