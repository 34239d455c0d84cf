"""How the Train panel shows a library run (Unigram, SentencePiece BPE, WordPiece): progress and result."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QLabel, QProgressBar

from tokviz.gui.panels.training.algorithm import algorithm_label
from tokviz.gui.panels.training.report import html_text, human_seconds

if TYPE_CHECKING:
    from tokviz.core.training.engine_run import EngineProgress
    from tokviz.gui.workers.engine_training import EngineOutcome


def train_tooltip(algorithm: str) -> str:
    """The Train button's tooltip for ``algorithm``."""
    if algorithm == "bpe":
        return "Train a byte-level BPE vocabulary on the corpus (Ctrl+T)"
    library = "tokenizers" if algorithm == "wordpiece" else "sentencepiece"
    return f"Train a {algorithm_label(algorithm)} vocabulary on the corpus with {library} (Ctrl+T)"


def engine_fraction(progress: EngineProgress) -> float:
    """How far the run is in [0, 1], when the library says (0 while it cannot tell)."""
    if not progress.total:
        return 0.0
    return min(max(progress.done / progress.total, 0.0), 1.0)


def engine_progress_format(progress: EngineProgress) -> str:
    """The progress bar's words: the stage and, when known, how far it is."""
    if progress.total:
        return f"{progress.stage} · {int(engine_fraction(progress) * 100)}%"
    return f"{progress.stage} · {progress.done:,}" if progress.done else progress.stage


def engine_progress_text(progress: EngineProgress) -> str:
    """The status line while a library trains: its stage and what its log says (EM rounds and
    vocabulary size for Unigram, merges for BPE and WordPiece)."""
    said = f" · {html_text(progress.message)}" if progress.message else ""
    return f"<b>{html_text(progress.stage.capitalize())}</b>{said}"


def engine_result(outcome: EngineOutcome) -> str:
    """What was trained: the algorithm and library, the vocabulary, the documents and the rounds."""
    model = outcome.model
    vocab = outcome.tokenizer.vocab_size
    rounds = f", {len(model.rounds)} pruning rounds (see the timeline)" if model.rounds else ""
    return (
        f"<b>{html_text(outcome.settings.name)}</b>: {algorithm_label(model.options.algorithm)} of {vocab:,} "
        f"pieces from {model.documents:,} document{'' if model.documents == 1 else 's'}, trained by {html_text(model.library)} in "
        f"{model.seconds:.1f} s{rounds}. Now in every tokenizer picker."
    )


def show_engine_progress(bar: QProgressBar, status: QLabel, progress: EngineProgress) -> None:
    """A library run's progress in the Train panel's bar and status line."""
    bar.setValue(int(engine_fraction(progress) * 1000))
    bar.setFormat(engine_progress_format(progress))
    status.setText(engine_progress_text(progress))


def show_engine_finished(bar: QProgressBar, status: QLabel, result: QLabel, outcome: EngineOutcome) -> None:
    """A finished library run in the Train panel: the bar full, the time, what was trained."""
    bar.setValue(1000)
    bar.setFormat("done")
    status.setText(f"Done in {human_seconds(outcome.wall_time)}")
    result.setText(engine_result(outcome))
