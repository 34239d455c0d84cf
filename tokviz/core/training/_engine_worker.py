"""The worker process of a library trainer: it receives sentences, runs the library, sends the model back.

sentencepiece and ``tokenizers`` train in C++ and Rust: they hold the GIL or ignore Python's
signals for seconds to hours, so they run here, in a process of their own that the parent can
kill at any moment (:mod:`.engine_run`). The worker

- leaves Ctrl+C to the parent, and dies with it (Linux: the kernel kills it when its parent goes;
  everywhere: the sentences' pipe ends, and an end without the end mark stops the run);
- writes no core file and, given a memory limit, cannot use more address space than that;
- sends its own standard output and error, where the libraries log, into the log pipe the
  parent reads for progress, with lines of its own stages (:data:`~.engine_log.WORKER_MARK`);
- answers with a JSON header (the library's version, or the library's error as one line) and
  the model's bytes.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
from collections.abc import Iterator
from multiprocessing.connection import Connection
from typing import Any

from .engine_log import WORKER_MARK

if sys.platform != "win32":
    import resource

END_OF_SENTENCES = b""
"""The message that ends the sentences (an empty batch): a pipe that ends without it was cut."""
REPORT_EVERY = 20_000
"""Sentences between two "read" lines of the worker's log."""


class SentencesCut(Exception):
    """The parent stopped sending before the end mark: it died or gave up; the run must not finish."""


def serve(
    config: dict[str, Any],
    sentences: Connection,
    results: Connection,
    log: Connection,
    parent_ends: tuple[Connection, ...],
) -> None:
    """The worker's whole life: limits, log redirection, the run, the answer.

    The parent's ends of the pipes are closed first (a worker that holds them too would never see
    the sentences' pipe end when the parent dies), and the run works in its own folder (the
    options name files there).
    """
    for end in parent_ends:
        end.close()
    os.chdir(config["folder"])
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _die_with_parent()
    os.dup2(log.fileno(), 2)  # the libraries log to standard error (absl) or print to standard output
    os.dup2(log.fileno(), 1)
    log.close()
    _limit(config.get("memory_limit"))
    try:
        library = _library_version(config["library"])
        data = _train(config, _sentences(sentences))
    except SentencesCut:
        os._exit(3)
    except Exception as exc:  # noqa: BLE001 - the library's error, whatever its type, goes back as text
        message = str(exc) or type(exc).__name__
        results.send_bytes(json.dumps({"error": message}).encode("utf-8"))
        return
    results.send_bytes(json.dumps({"library": library, "bytes": len(data)}).encode("utf-8"))
    results.send_bytes(data)


def _train(config: dict[str, Any], sentences: Iterator[str]) -> bytes:
    """Run the library on ``sentences`` with exactly the recorded options; the model's bytes."""
    options = config["options"]
    if config["library"] == "sentencepiece":
        import io

        import sentencepiece

        model = io.BytesIO()
        sentencepiece.SentencePieceTrainer.train(sentence_iterator=sentences, model_writer=model, **options)
        _say("done")
        return model.getvalue()
    from tokenizers import Tokenizer
    from tokenizers.trainers import WordPieceTrainer

    tokenizer = Tokenizer.from_str(json.dumps(options["tokenizer"]))
    trainer = WordPieceTrainer(**options["trainer"])
    tokenizer.train_from_iterator(sentences, trainer)
    _say("done")
    return tokenizer.to_str().encode("utf-8")


def _sentences(conn: Connection) -> Iterator[str]:
    """The sentences the parent sends, in batches of lines; :class:`SentencesCut` if the pipe ends early."""
    count = 0
    next_report = REPORT_EVERY
    while True:
        try:
            batch = conn.recv_bytes()
        except (EOFError, OSError):
            raise SentencesCut from None
        if batch == END_OF_SENTENCES:
            _say(f"training {count}")
            return
        lines = batch.decode("utf-8", "surrogatepass").split("\n")
        count += len(lines)
        yield from lines
        if count >= next_report:
            _say(f"read {count}")
            next_report = count + REPORT_EVERY


def _say(text: str) -> None:
    """One line of the worker's own on the log (a single write, so it never splits a library line's)."""
    with contextlib.suppress(OSError):
        os.write(2, f"\n{WORKER_MARK}{text}\n".encode())


def _library_version(library: str) -> str:
    """``"sentencepiece 0.2.1"`` / ``"tokenizers 0.21.0"``: the version that trains."""
    from importlib.metadata import version

    return f"{library} {version(library)}"


def _die_with_parent() -> None:
    """Linux: have the kernel kill this process when its parent ends (the pipe's end covers the rest)."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        pr_set_pdeathsig = 1
        libc.prctl(pr_set_pdeathsig, signal.SIGKILL)


def _limit(memory: int | None) -> None:
    """No core file, and at most ``memory`` bytes of address space (when given and allowed)."""
    if sys.platform == "win32":  # pragma: no cover - no resource limits there
        return
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_CORE, (0, resource.getrlimit(resource.RLIMIT_CORE)[1]))
    if memory is None:
        return
    hard = resource.getrlimit(resource.RLIMIT_AS)[1]
    wanted = memory if hard == resource.RLIM_INFINITY else min(memory, hard)
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_AS, (wanted, hard))
