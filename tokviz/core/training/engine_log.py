"""Progress read from a library trainer's log, line by line, as the trainer writes it.

sentencepiece logs to standard error: the sentences loaded, the seed pieces of a Unigram run and
one ``EM sub_iter=N size=S obj=O num_tokens=T`` line per EM sub-iteration (a pruning round is the
sub-iterations from one ``sub_iter=0`` to the next), and for BPE a line every hundred merges
(``Merged: freq=F merges=M`` in 0.2.1 and later, ``Added: freq=F size=S`` before). ``tokenizers``
writes nothing when its output is not a terminal, so a WordPiece run reports the stages the
worker itself announces (lines starting with :data:`WORKER_MARK`): sentences read, training,
done. Every run reports ``done`` last.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass

WORKER_MARK = "tokviz-engine: "
"""The start of a line the worker process writes about its own stages (not the library's)."""


@dataclass(frozen=True)
class EngineProgress:
    """One step of a library run: its stage, how far (``total`` None when not known) and a line for people."""

    stage: str
    done: int
    total: int | None
    message: str


@dataclass(frozen=True)
class UnigramRound:
    """One pruning round of a Unigram run, at its last EM sub-iteration: the vocabulary's size then,
    the EM objective (the corpus's negative log-likelihood per sentence) and the tokens of the corpus."""

    index: int
    size: int
    objective: float
    tokens: int


_EM = re.compile(r"EM sub_iter=(\d+) size=(\d+) obj=([-+0-9.eEinfa]+) num_tokens=(\d+)")
_SEEDS = re.compile(r"Initialized (\d+) seed sentencepieces|Initialized (\d+) seed pieces")
_MERGED = re.compile(r"Merged: freq=\d+ merges=(\d+)")
_ADDED = re.compile(r"Added: freq=\d+ size=(\d+)")
_COMPLETED = re.compile(r"Completed (\d+) merge steps")
_LOADED = re.compile(r"Loaded all (\d+) sentences")
_STAGES = (
    ("Normalizing sentences", "normalizing"),
    ("Extracting seed", "seeding"),
    ("Tokenizing input sentences", "splitting words"),
    ("Saving model", "saving"),
)
# The last lines of the log are kept to explain a failure.
KEPT_LINES = 8


class LogReader:
    """Turns a run's log lines into :class:`EngineProgress` and collects the Unigram rounds."""

    def __init__(self, algorithm: str, vocab_size: int) -> None:
        self.algorithm = algorithm
        self.vocab_size = vocab_size
        self.rounds: list[UnigramRound] = []
        self.last_lines: deque[str] = deque(maxlen=KEPT_LINES)
        self._seeds: int | None = None
        self._pending: UnigramRound | None = None

    def line(self, text: str) -> EngineProgress | None:
        """The progress ``text`` (one log line, without its newline) tells, or None."""
        text = text.rstrip("\r")
        if not text.strip():
            return None
        if text.startswith(WORKER_MARK):
            return self._worker_line(text[len(WORKER_MARK) :])
        self.last_lines.append(text)
        em = _EM.search(text)
        if em is not None:
            return self._em(int(em[1]), int(em[2]), float(em[3]), int(em[4]))
        step = _MERGED.search(text) or _ADDED.search(text)
        if step is not None:
            done = int(step[1])
            what = "merges" if step.re is _MERGED else "pieces"
            return EngineProgress("merging", done, self.vocab_size, f"{done:,} {what}")
        completed = _COMPLETED.search(text)
        if completed is not None:
            done = int(completed[1])
            return EngineProgress("merging", done, done, f"{done:,} merges")
        seeds = _SEEDS.search(text)
        if seeds is not None:
            self._seeds = int(seeds[1] or seeds[2])
            return EngineProgress("seeding", self._seeds, None, f"{self._seeds:,} seed pieces")
        loaded = _LOADED.search(text)
        if loaded is not None:
            count = int(loaded[1])
            return EngineProgress("loading", count, count, f"{count:,} sentences loaded")
        for mark, stage in _STAGES:
            if mark in text:
                return EngineProgress(stage, 0, None, stage)
        return None

    def finish(self) -> list[UnigramRound]:
        """The Unigram rounds of the whole run (the last one closed by the end of the log)."""
        if self._pending is not None:
            self.rounds.append(self._pending)
            self._pending = None
        return list(self.rounds)

    def failure_line(self) -> str | None:
        """The library's last log line that reads like an error, for a run that failed without a message."""
        for text in reversed(self.last_lines):
            if re.search(r"error|fail|abort|terminate|check failed|memory|bad_alloc", text, re.IGNORECASE):
                return _without_log_prefix(text)
        return None

    def _em(self, sub_iter: int, size: int, objective: float, tokens: int) -> EngineProgress:
        if sub_iter == 0 and self._pending is not None:
            self.rounds.append(self._pending)
        index = len(self.rounds)
        self._pending = UnigramRound(index, size, objective, tokens)
        seeds = self._seeds if self._seeds is not None else size
        total = max(seeds - self.vocab_size, 1)
        done = min(max(seeds - size, 0), total)
        return EngineProgress(
            "pruning", done, total, f"round {index + 1}: {size:,} pieces, objective {objective:.4f}"
        )

    def _worker_line(self, text: str) -> EngineProgress | None:
        stage, _, rest = text.partition(" ")
        number = int(rest) if rest.isdigit() else 0
        if stage == "read":
            return EngineProgress("reading", number, None, f"{number:,} sentences read")
        if stage == "training":
            return EngineProgress("training", 0, None, f"training on {number:,} sentences")
        if stage == "done":
            return EngineProgress("done", 1, 1, "trained")
        return None


def _without_log_prefix(text: str) -> str:
    """A log line without absl's ``I0000 00:00:... file.cc:123]`` head."""
    return re.sub(r"^[IWEF]\d{4} [^\]]*\]\s*", "", text).strip()
