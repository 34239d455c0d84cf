"""A catastrophic pre-tokenizer pattern never freezes the window, and training with one always stops.

``(a|a)+$`` on forty a's then a ``b`` backtracks 2**40 times. Opening a model file with it, or
encoding the editor's text with it, runs in a worker; the event loop keeps turning meanwhile
(counted with a heartbeat timer, not timed) and the error reaches the window's dialog. Some
tests switch the up-front trial off so the pattern reaches its per-run time limit, which is how
a pattern the trial cannot catch behaves.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QTimer

from tokviz.core.formats import save_model
from tokviz.core.pretok import pretokenize
from tokviz.core.training.train import train_bpe
from tokviz.gui.panels.training.panel import TrainPanel
from tokviz.gui.workers.training import TrainJob, TrainSettings

from ..cli.helpers import ROOT, child_env
from .reach import docked, error_text

CATASTROPHIC = r"(a|a)+$"
HOSTILE_TEXT = "a" * 40 + "b"
SAFETY_MS = 60_000


class Heartbeat:
    """Counts the event loop's turns while ``busy()`` is true (a frozen loop counts none)."""

    def __init__(self, busy: Callable[[], bool], interval_ms: int = 10) -> None:
        self.busy = busy
        self.beats = 0
        self.timer = QTimer()
        self.timer.setInterval(interval_ms)
        self.timer.timeout.connect(self._beat)
        self.timer.start()

    def _beat(self) -> None:
        if self.busy():
            self.beats += 1

    def stop(self) -> None:
        self.timer.stop()


def _hostile_model(tmp_path: Path) -> Path:
    """A valid tokviz model file whose pre-tokenizer is the catastrophic pattern."""
    result = train_bpe(text="the cat in the hat aaa " * 20, vocab_size=270, pretokenizer=r"\w+|\S")
    path = tmp_path / "hostile.json"
    save_model(path, result.tokenizer("hostile"))
    data = json.loads(path.read_text(encoding="utf-8"))
    data["pretokenizer"] = CATASTROPHIC
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.fixture
def no_trial(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The trial lets every pattern through; a run may take 2 s before it times out."""
    monkeypatch.setattr(pretokenize, "_trial_texts", lambda pattern: [])
    monkeypatch.setattr(pretokenize, "PATTERN_TIME_BASE", 2.0)
    pretokenize._checked_pattern.cache_clear()
    yield
    pretokenize._checked_pattern.cache_clear()


def test_opening_a_model_with_a_catastrophic_pattern_keeps_the_window_turning(qtbot, window, tmp_path):
    path = _hostile_model(tmp_path)
    pretokenize._checked_pattern.cache_clear()  # the trial really runs, in the loading worker
    job_box: list = []
    heart = Heartbeat(lambda: bool(job_box) and not job_box[0].done)
    with qtbot.waitSignal(window.tokenizers.loadFailed, timeout=SAFETY_MS):
        job_box.append(window.files.open_tokenizer_file(str(path), window.panels[0]))
    heart.stop()
    qtbot.waitUntil(lambda: error_text(window) is not None, timeout=SAFETY_MS)
    assert "takes too long" in error_text(window) and "(a|a)+$" in error_text(window)
    assert heart.beats >= 3, "the event loop did not turn while the model was loading"
    assert window.panels[0].model.key in ("gpt2", "bytes", "cl100k")


@pytest.mark.slow
def test_encoding_the_editor_with_a_pattern_that_times_out_runs_in_a_worker(
    qtbot, make_window, tmp_path, no_trial
):
    window = make_window(text=HOSTILE_TEXT)
    panel = window.panels[0]
    path = _hostile_model(tmp_path)
    heart = Heartbeat(lambda: panel.model._job is not None)
    with qtbot.waitSignal(panel.model.failed, timeout=SAFETY_MS) as failed:
        window.files.open_tokenizer_file(str(path), panel)
    heart.stop()
    assert "takes too long" in failed.args[0]
    qtbot.waitUntil(lambda: error_text(window) is not None, timeout=SAFETY_MS)
    assert "takes too long" in error_text(window)
    assert heart.beats >= 5, "the editor's text was encoded in the GUI thread"
    # Typing on tries again in a worker, without a second dialog for the same pattern.
    errors: list = []
    panel.model.failed.connect(errors.append)
    window.set_text(HOSTILE_TEXT + "a")
    qtbot.waitUntil(lambda: panel.model._job is not None, timeout=SAFETY_MS)
    qtbot.waitUntil(lambda: panel.model._job is None, timeout=SAFETY_MS)
    assert errors == []
    # Removing what the pattern chokes on brings the tokens back.
    window.set_text("the cat")
    qtbot.waitUntil(lambda: panel.model.current, timeout=SAFETY_MS)


def test_the_training_panel_refuses_the_pattern_as_you_type(qtbot, window):
    panel = docked(window, "trainDock", TrainPanel)
    panel.set_pretokenizer("custom")
    panel.pattern.setText(CATASTROPHIC)
    qtbot.waitUntil(lambda: panel.pattern_error.isVisible(), timeout=SAFETY_MS)  # checked in a worker
    assert "takes too long" in panel.pattern_error.text()
    assert not panel.train_button.isEnabled()


def test_training_with_the_pattern_fails_with_the_error_and_stops(qtbot, window):
    panel = docked(window, "trainDock", TrainPanel)
    with qtbot.waitSignal(panel.run.failed, timeout=SAFETY_MS) as failed:
        panel.start(TrainSettings(HOSTILE_TEXT * 10, 300, pretokenizer=CATASTROPHIC))
    assert "takes too long" in failed.args[0]
    qtbot.waitUntil(lambda: not panel.running, timeout=SAFETY_MS)
    assert panel.error.isVisible() and "takes too long" in panel.error.text()


def test_a_run_stuck_in_a_slow_pattern_can_be_cancelled(qtbot, no_trial):
    job = TrainJob(TrainSettings(HOSTILE_TEXT * 100, 300, pretokenizer=CATASTROPHIC))
    with qtbot.waitSignal(job.progress, timeout=SAFETY_MS):
        job.start()
    qtbot.wait(300)  # inside the regex by now: no signal says a pattern started; it runs to its limit
    assert job.running
    with qtbot.waitSignals([job.cancelled, job.stopped], timeout=SAFETY_MS):
        job.cancel()
    assert not job.running and job.outcome is None and job.error is None


QUIT_WHILE_TRAINING = textwrap.dedent(
    """
    import sys
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QDockWidget
    from tokviz.core.pretok import pretokenize
    from tokviz.gui.panels.training.panel import TrainPanel
    from tokviz.gui.window.main_window import MainWindow
    from tokviz.gui.workers.training import TrainSettings

    # A pattern the trial lets through, stuck for 4 s in one regex call; the close waits 0.3 s.
    pretokenize._trial_texts = lambda pattern: []
    pretokenize.PATTERN_TIME_BASE = 4.0
    TrainPanel.shutdown.__defaults__ = (300,)
    app = QApplication(sys.argv)
    window = MainWindow()
    window.show()
    panel = window.findChild(QDockWidget, "trainDock").widget()
    job = panel.start(TrainSettings("a" * 40 + "b", 300, pretokenizer="(a|a)+$"))
    assert job is not None

    def close():
        window.close()
        app.quit()

    QTimer.singleShot(800, close)
    app.exec()
    print("quit cleanly")
    """
)


@pytest.mark.slow
def test_quitting_while_a_run_is_stuck_in_a_regex_does_not_abort(tmp_path):
    done = subprocess.run(
        [sys.executable, "-c", QUIT_WHILE_TRAINING],
        cwd=ROOT,
        env=dict(child_env(), QT_QPA_PLATFORM="offscreen", HOME=str(tmp_path)),
        capture_output=True,
        text=True,
        timeout=SAFETY_MS / 1000,
        stdin=subprocess.DEVNULL,
    )
    assert "Destroyed while thread" not in done.stderr, done.stderr
    assert done.returncode == 0, done.stderr
    assert "quit cleanly" in done.stdout


@pytest.mark.slow
def test_the_pretokenizer_view_shows_a_pattern_that_times_out_as_its_error(qtbot, no_trial):
    from tokviz.gui.models.tokenizers import TokenizerRegistryModel
    from tokviz.gui.panels.pretokenizer import PretokView

    view = PretokView(TokenizerRegistryModel())
    qtbot.addWidget(view)
    view.show()
    view.set_text(HOSTILE_TEXT)
    view.set_pattern(CATASTROPHIC)
    qtbot.waitUntil(lambda: view.error_message is not None, timeout=SAFETY_MS)
    assert "takes too long" in view.error_message
    table = view.view.table
    assert (table.start.tolist(), table.end.tolist()) == ([0], [len(HOSTILE_TEXT)])


def test_the_vocabulary_filter_stops_a_catastrophic_regex(monkeypatch):
    from tokviz.core.bpe.tokenizer import Tokenizer
    from tokviz.gui.models import vocabulary

    monkeypatch.setattr(vocabulary, "FILTER_TIME_LIMIT", 0.3)
    vocab = {i: bytes([i]) for i in range(256)}
    vocab[256] = HOSTILE_TEXT.encode()  # a long token the filter chokes on
    model = vocabulary.VocabModel()
    model.set_tokenizer(Tokenizer(vocab, []))
    model.set_filter(r"^a", use_regex=True)
    assert model.rowCount() == 2 and model.filter_error is None
    model.set_filter(CATASTROPHIC, use_regex=True)
    assert model.rowCount() == 0
    assert model.filter_error is not None and "takes too long" in model.filter_error


def test_cancelling_a_parallel_run_stops_its_counting_processes(qtbot, english_text):
    import os

    from ..cli.test_hangs import _assert_all_gone, _descendants

    text = (english_text * (5_000_000 // len(english_text) + 1))[:5_000_000]  # above the 4 MB threshold
    job = TrainJob(TrainSettings(text, 20_000, workers=2))
    phases: list[str] = []
    job.progress.connect(lambda status: phases.append(status.phase))
    # Processes that outlive any one job (the chat template's renderer) are not this run's.
    before = set(_descendants(os.getpid()))
    job.start()
    qtbot.waitUntil(lambda: "pre-tokenizing" in phases or not job.running, timeout=SAFETY_MS)
    workers = {pid for pid in _descendants(os.getpid()) if _parent(pid) != os.getpid()} - before
    assert job.running and workers, "no counting process was seen"
    with qtbot.waitSignal(job.stopped, timeout=SAFETY_MS):
        job.cancel()
    assert job.was_cancelled
    _assert_all_gone(workers)


def _parent(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as fh:
            return int(fh.read().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return -1
