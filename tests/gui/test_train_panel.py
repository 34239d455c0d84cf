"""The Train panel: train in a worker thread, stream merges, cancel, report errors, save and export."""

from __future__ import annotations

import gc
import sys
import threading
from collections.abc import Iterator

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QComboBox, QDockWidget, QProgressBar, QPushButton, QSlider, QTableView

from tokviz.core.formats.registry import load_tokenizer
from tokviz.core.training.train import PHASES, Progress, train_bpe
from tokviz.gui import MainWindow
from tokviz.gui.models.tokenizers import TokenizerRegistryModel
from tokviz.gui.panels.timeline.panel import TimelineWidget
from tokviz.gui.panels.training.panel import SOURCE_EDITOR, SOURCE_FILES, SOURCE_PYDOC, TrainPanel
from tokviz.gui.workers import training
from tokviz.gui.workers.release import RELEASE_SLICE, release_gradually
from tokviz.gui.workers.training import GuiFirst, TrainJob, TrainSettings

from ..texts import CAT, CAT_MERGES, CAT_TOKEN_COUNTS
from .reach import dock, docked


class Editor:
    """Stands in for the main window's editor: the panel reads and (for the demo) sets its text."""

    def __init__(self, text: str = "") -> None:
        self.text = text
        self.followers: list = []

    def get(self) -> str:
        return self.text

    def set(self, text: str) -> None:
        self.text = text
        for follow in self.followers:
            follow(text)


@pytest.fixture
def editor(english_text) -> Editor:
    return Editor(english_text[:60_000])


@pytest.fixture
def panel(qtbot, editor):
    registry = TokenizerRegistryModel()
    panel = TrainPanel(registry, editor.get, editor.set)
    timeline = TimelineWidget(registry)
    panel.connect_timeline(timeline)
    editor.followers.append(timeline.set_text)  # the window's editor feeds the timeline
    qtbot.addWidget(panel)
    qtbot.addWidget(timeline)
    panel.show()
    timeline.show()
    yield panel
    panel.shutdown()


def configure(
    panel: TrainPanel, vocab: int, pretokenizer: str = "gpt2", tie: str = "lexicographic", specials: str = ""
) -> None:
    panel.set_source_kind(SOURCE_EDITOR)
    panel.vocab_size.setValue(vocab)
    panel.specials.setText(specials)
    panel.set_pretokenizer(pretokenizer)
    panel.set_tie_rule(tie)


def train(qtbot, panel: TrainPanel, timeout: int = 60000):
    with qtbot.waitSignal(panel.run.finished, timeout=timeout) as finished:
        qtbot.mouseClick(panel.train_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not panel.running, timeout=timeout)
    return finished.args


def test_training_through_the_panel_gives_the_cores_merges(qtbot, panel, editor):
    configure(panel, 420, "gpt2", "lexicographic", "<|endoftext|>")
    outcome, key = train(qtbot, panel)
    core = train_bpe(
        text=editor.text,
        vocab_size=420,
        special_tokens=["<|endoftext|>"],
        pretokenizer="gpt2",
        tie_break="lexicographic",
    )
    assert outcome.result.merges == core.merges
    assert outcome.result.history == core.history
    # The model is in the shared registry (every picker), under its name, and encodes like the core's.
    registry = panel.registry
    assert key in registry.keys() and registry.tokenizer(key) is outcome.tokenizer
    sample = "Training a tokenizer <|endoftext|> is fun."
    assert outcome.tokenizer.encode(sample) == core.tokenizer().encode(sample)
    assert panel.progress.value() == 1000
    assert "Now in every tokenizer picker" in panel.result.text()
    assert panel.save_button.isEnabled() and panel.export_button.isEnabled()
    assert not panel.cancel_button.isEnabled() and panel.train_button.isEnabled()


def test_progress_arrives_in_order_and_merges_stream_in_batches(qtbot, panel, editor):
    configure(panel, 1200)
    statuses, batches = [], []
    panel.run.progressChanged.connect(statuses.append)
    panel.run.mergesArrived.connect(batches.append)
    outcome, _key = train(qtbot, panel)
    phases = [PHASES.index(s.phase) for s in statuses]
    assert phases == sorted(phases) and statuses[-1].phase == "done"
    merging = [s.done for s in statuses if s.phase == "merging"]
    assert merging == sorted(merging)
    streamed = [r for batch in batches for r in batch]
    assert streamed == outcome.result.history  # every merge, once, in order
    assert len(batches) < len(streamed)  # batched, not one signal per merge
    fractions = [s.fraction for s in statuses]
    assert fractions == sorted(fractions)
    # The timeline ends up replaying the new model with its training history.
    timeline = panel.timeline
    qtbot.waitUntil(timeline.is_ready, timeout=20000)
    assert timeline.tokenizer is outcome.tokenizer
    assert timeline.model.rowCount() == len(streamed) + 1


class SimulatedClock:
    """Stands in for the worker's ``time`` module: time moves only when the test moves it."""

    def __init__(self) -> None:
        self.now = 0.0

    def perf_counter(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


def test_the_worker_sends_at_most_one_batch_per_interval(qtbot, monkeypatch, english_text):
    # Simulated time (a seam in the worker's module): one merge every 1/64 s, one batch per 1/8 s at
    # most, so the batches can be counted exactly instead of against a loaded machine's wall clock.
    history = train_bpe(text=english_text[:20_000], vocab_size=256 + 200).history
    assert len(history) == 200
    clock = SimulatedClock()
    monkeypatch.setattr(training, "time", clock)
    tick, interval = 1 / 64, 1 / 8

    def trainer():
        yield Progress("reading", 0, 1)
        yield Progress("pre-tokenizing", 1, 1)
        yield Progress("merging", 0, len(history))
        for i, step in enumerate(history, 1):
            clock.now += tick
            yield Progress("merging", i, len(history), (step,))
        yield Progress("done", len(history), len(history))
        return "the result"

    worker = training._Worker(TrainSettings("", 256), GuiFirst(threading.Event(), None), interval)
    batches: list[tuple] = []
    sent_at: list[float] = []
    worker.merges.connect(lambda batch: (batches.append(batch), sent_at.append(clock.now)))
    assert worker._drain(trainer()) == "the result"
    merging = len(history) * tick  # 3.125 simulated seconds
    # At most one batch per interval of merging (plus the last one, sent with "done") ...
    assert 2 <= len(batches) <= merging / interval + 2
    assert len(batches) == 25  # a batch every 8 merges: 200 / 8
    assert all(later - earlier >= interval for earlier, later in zip(sent_at, sent_at[1:]))
    # ... and every merge arrives exactly once, in order, in batches that never overlap.
    assert [r for b in batches for r in b] == history
    assert all(b and b[-1].step < nxt[0].step for b, nxt in zip(batches, batches[1:]))


def test_a_run_trains_with_collection_paused_and_gives_the_interpreter_back_when_it_fails(qtbot, monkeypatch):
    inside: list[tuple[bool, float]] = []

    def failing_trainer(*args: object, **kwargs: object) -> Iterator[Progress]:
        inside.append((gc.isenabled(), sys.getswitchinterval()))
        raise ValueError("the corpus is bad")
        yield Progress("reading", 0, 1)

    monkeypatch.setattr(training, "train_source_iter", failing_trainer)
    before = gc.isenabled(), sys.getswitchinterval()
    job = TrainJob(TrainSettings(CAT, 300))
    with qtbot.waitSignal(job.stopped, timeout=30000):
        job.start()
    assert job.error == "ValueError: the corpus is bad"
    assert inside == [(False, pytest.approx(min(before[1], training.SWITCH_INTERVAL)))]
    assert (gc.isenabled(), sys.getswitchinterval()) == before


def test_the_trainers_tables_are_freed_in_slices_and_what_is_shared_is_left_alone():
    size = RELEASE_SLICE
    shared = [[1], [2]]
    leftovers = [[[i] for i in range(3 * size)], {i: set(range(2 * size)) for i in range(3)}, shared]
    pauses: list[int] = []
    release_gradually(leftovers, lambda: pauses.append(1))
    assert leftovers == [] and shared == [[1], [2]]
    # Three slices of the word list, one of the pair index, then two of each of its three big sets.
    assert len(pauses) == 3 + 1 + 3 * 2


def test_a_real_run_streams_every_merge_once_and_in_order(qtbot, english_text):
    # An interval longer than the run: merges are sent only when merging starts and with "done".
    job = TrainJob(TrainSettings(english_text, 5000), interval=3600)
    batches: list[tuple] = []
    job.mergesBatch.connect(batches.append)
    with qtbot.waitSignal(job.stopped, timeout=60000):
        job.start()
    assert job.outcome is not None and not job.was_cancelled
    assert 1 <= len(batches) <= 2 and all(batches)
    assert [r for b in batches for r in b] == job.outcome.result.history


def test_cancel_stops_quickly_and_leaves_everything_as_before(qtbot, panel, editor, english_text):
    configure(panel, 300)
    first, first_key = train(qtbot, panel)
    timeline = panel.timeline
    qtbot.waitUntil(timeline.is_ready, timeout=20000)
    keys = panel.registry.keys()
    rows = timeline.model.rowCount()
    editor.text = english_text[:200_000] * 3
    configure(panel, 20_000)
    with qtbot.waitSignal(panel.run.mergesArrived, timeout=60000):
        qtbot.mouseClick(panel.train_button, Qt.MouseButton.LeftButton)
    assert panel.running and timeline.live
    # Counted, not timed: what arrives after "cancelled" (nothing), and how far training got.
    streamed: list = []
    after_cancel: list = []
    panel.run.mergesArrived.connect(streamed.extend)
    panel.run.mergesArrived.connect(lambda batch: after_cancel.append(batch) if cancelled else None)
    panel.run.progressChanged.connect(lambda status: after_cancel.append(status) if cancelled else None)
    cancelled: list = []
    panel.run.cancelled.connect(lambda: cancelled.append(True))
    with qtbot.waitSignal(panel.run.cancelled, timeout=5000):
        qtbot.mouseClick(panel.cancel_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not panel.running, timeout=5000)
    assert cancelled == [True] and after_cancel == []
    assert len(streamed) < 20_000 - 256 - 1000, "cancel let training run (nearly) to the end"
    assert panel.registry.keys() == keys
    assert panel.outcome is first and panel.key == first_key
    assert "Cancelled" in panel.status.text() and not panel.error.isVisible()
    assert panel.train_button.isEnabled() and not panel.cancel_button.isEnabled()
    qtbot.waitUntil(timeline.is_ready, timeout=20000)
    assert not timeline.live and timeline.tokenizer is first.tokenizer
    assert timeline.model.rowCount() == rows


def test_a_cancel_before_any_model_leaves_nothing_behind(qtbot, english_text):
    job = TrainJob(TrainSettings(english_text * 4, 30_000))
    with qtbot.waitSignal(job.progress, timeout=30000):
        job.start()
    with qtbot.waitSignals([job.cancelled, job.stopped], timeout=5000):
        job.cancel()
    assert job.was_cancelled and job.outcome is None and job.error is None


@pytest.mark.parametrize(
    ("setup", "expected"),
    [
        (lambda p, tmp: p.add_paths([str(tmp / "missing.txt")]), "not found"),
        (lambda p, tmp: p.add_paths([str(tmp / "latin1.txt")]), "UTF-8"),
        (lambda p, tmp: p.vocab_size.setValue(100), "too small"),
        (lambda p, tmp: (p.set_source_kind(SOURCE_EDITOR), p._set_editor_text("")), "empty"),
    ],
    ids=["missing-file", "invalid-utf8", "vocab-too-small", "empty-corpus"],
)
def test_training_errors_are_shown_in_the_panel(qtbot, panel, tmp_path, setup, expected):
    (tmp_path / "latin1.txt").write_bytes("café au lait\n".encode("latin-1"))
    panel.set_source_kind(SOURCE_EDITOR)
    setup(panel, tmp_path)
    keys = panel.registry.keys()
    with qtbot.waitSignal(panel.run.failed, timeout=30000) as failed:
        qtbot.mouseClick(panel.train_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not panel.running)
    assert expected.lower() in failed.args[0].lower()
    assert panel.error.isVisible() and expected.lower() in panel.error.text().lower()
    assert panel.registry.keys() == keys
    assert panel.train_button.isEnabled()


def test_a_bad_regex_is_reported_as_you_type_and_blocks_training(qtbot, panel):
    panel.set_pretokenizer("custom")
    assert panel.pattern.isVisible()
    qtbot.keyClicks(panel.pattern, r"\s?\w+|(")
    # The regex is checked in a worker; the error shows when it answers.
    qtbot.waitUntil(lambda: panel.pattern_error.isVisible())
    assert "regex" in panel.pattern_error.text()
    assert not panel.train_button.isEnabled()
    qtbot.keyClick(panel.pattern, Qt.Key.Key_Backspace)
    qtbot.keyClick(panel.pattern, Qt.Key.Key_Backspace)
    assert not panel.pattern_error.isVisible()
    assert panel.train_button.isEnabled()
    assert panel.pretokenizer_spec() == r"\s?\w+"


def test_the_corpus_shows_its_size_and_a_preview(qtbot, panel, tmp_path):
    panel.set_source_kind(SOURCE_PYDOC)
    assert "topics of the Python docs" in panel.corpus_info.text()
    assert panel.preview.toPlainText()
    (tmp_path / "a.txt").write_text("hello world\n" * 100, encoding="utf-8")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.txt").write_text("more text\n", encoding="utf-8")
    panel.add_paths([str(tmp_path)])
    assert panel.source_kind() == SOURCE_FILES
    qtbot.waitUntil(lambda: "2 files" in panel.corpus_info.text(), timeout=10000)
    assert panel.preview.toPlainText().startswith("hello world")


def test_save_and_every_export_round_trip(qtbot, panel, tmp_path, editor):
    configure(panel, 400, specials="<|endoftext|>")
    outcome, _key = train(qtbot, panel)
    sample = "Exported tokenizers encode the same. <|endoftext|>"
    expected = outcome.tokenizer.encode(sample)
    jobs = [
        (panel.save_model_to(tmp_path / "model.json"), tmp_path / "model.json"),
        (panel.export_to("gpt2", tmp_path / "gpt2"), tmp_path / "gpt2"),
        (panel.export_to("hf", tmp_path / "tokenizer.json"), tmp_path / "tokenizer.json"),
    ]
    for job, path in jobs:
        qtbot.waitUntil(lambda job=job: job.done, timeout=20000)
        assert job.error is None, job.error
        loaded = load_tokenizer(path)
        assert loaded.encode(sample) == expected, path
    job = panel.export_to("tiktoken", tmp_path / "model.tiktoken")
    qtbot.waitUntil(lambda: job.done, timeout=20000)
    assert job.error is None
    assert load_tokenizer(tmp_path / "model.tiktoken").encode_ordinary(
        "Exported text"
    ) == outcome.tokenizer.encode_ordinary("Exported text")
    assert not panel.error.isVisible()


def test_a_failed_export_is_shown_not_raised(qtbot, panel, tmp_path):
    configure(panel, 300)
    train(qtbot, panel)
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with qtbot.waitSignal(panel.fileJobDone, timeout=20000) as done:
        panel.save_model_to(blocker / "model.json")  # a path under a file cannot be written
    assert done.args[0]
    assert panel.error.isVisible()
    # The panel shows the reason and the path, and it is the message the job reported.
    assert panel.error.text() == done.args[0]
    assert panel.error.text() == f"{blocker / 'model.json'}: {blocker} is not a folder"


def test_a_missing_folder_is_reported_with_the_users_path_not_a_temporary_file(qtbot, panel, tmp_path):
    configure(panel, 300)
    train(qtbot, panel)
    target = tmp_path / "missing" / "model.json"
    with qtbot.waitSignal(panel.fileJobDone, timeout=20000) as done:
        panel.save_model_to(target)
    assert done.args[0] == f"{target}: the folder {tmp_path / 'missing'} does not exist"
    assert panel.error.text() == done.args[0] and ".tmp" not in panel.error.text()


def test_saving_or_exporting_over_the_corpus_is_refused(qtbot, panel, tmp_path):
    corpus = tmp_path / "notes.txt"
    corpus.write_text("the corpus to keep. " * 200, encoding="utf-8")
    panel.add_paths([str(corpus)])
    panel.vocab_size.setValue(300)
    train(qtbot, panel)
    for start in (lambda: panel.save_model_to(corpus), lambda: panel.export_to("hf", corpus)):
        with qtbot.waitSignal(panel.fileJobDone, timeout=20000) as done:
            start()
        assert done.args[0].startswith(f"{corpus} is the corpus")
    assert corpus.read_text(encoding="utf-8") == "the corpus to keep. " * 200
    assert "Saved" not in panel.status.text()


def test_the_lecture_demo_trains_three_merges_and_replays_them(qtbot, panel, editor):
    with qtbot.waitSignal(panel.run.finished, timeout=30000) as finished:
        panel.demo_none_button.click()
    outcome, key = finished.args
    assert editor.text == CAT
    assert [(a, b) for a, b in outcome.result.merges] == [(m.left, m.right) for m in CAT_MERGES]
    assert panel.registry.label(key) == "lecture (no pre-tokenizer)"
    timeline = panel.timeline
    qtbot.waitUntil(timeline.is_ready, timeout=20000)
    assert [timeline.trace.token_count(k) for k in range(4)] == CAT_TOKEN_COUNTS
    qtbot.waitUntil(lambda: not panel.running)
    with qtbot.waitSignal(panel.run.finished, timeout=30000) as finished:
        panel.demo_gpt2_button.click()
    outcome, _key = finished.args
    assert [a + b for a, b in outcome.result.merges] == [b"th", b"the", b"at"]


def test_the_main_window_has_the_training_docks_and_shares_the_model_with_every_picker(qtbot, tmp_path):
    window = MainWindow()
    qtbot.addWidget(window)
    window.resize(1360, 860)
    window.show()
    qtbot.waitUntil(window.is_ready, timeout=30000)
    docks = {d.objectName() for d in window.findChildren(QDockWidget)}
    assert {"trainDock", "timelineDock"} <= docks
    for cls, name in (
        (QPushButton, "trainButton"),
        (QPushButton, "cancelButton"),
        (QProgressBar, "trainProgress"),
        (QSlider, "timelineSlider"),
        (QTableView, "mergeTable"),
    ):
        assert window.findChild(cls, name) is not None, name
    panel = docked(window, "trainDock", TrainPanel)
    with qtbot.waitSignal(panel.run.finished, timeout=30000) as finished:
        window.findChild(QAction, "actionLectureDemo").trigger()
    _outcome, key = finished.args
    assert dock(window, "timelineDock").isVisible()
    label = window.tokenizers.label(key)
    for picker in window.findChildren(QComboBox, "tokenizerPicker"):
        assert label in [picker.itemText(i) for i in range(picker.count())]
    window.panels[1].select_tokenizer(key)
    qtbot.waitUntil(window.is_ready, timeout=10000)
    assert window.token_counts()[1] == 12
    qtbot.waitUntil(docked(window, "timelineDock", TimelineWidget).is_ready, timeout=20000)
    assert docked(window, "timelineDock", TimelineWidget).key == key
    window.close()


def test_closing_the_window_while_training_stops_the_thread(qtbot, english_text):
    window = MainWindow()
    qtbot.addWidget(window)
    window.show()
    panel = docked(window, "trainDock", TrainPanel)
    panel.set_source_kind(SOURCE_EDITOR)
    window.set_text(english_text * 3)
    panel.vocab_size.setValue(30_000)
    with qtbot.waitSignal(panel.run.progressChanged, timeout=30000):
        job = panel.start()
    window.close()
    assert not job.running or job.wait(5000)


def test_dropping_files_on_the_panel_adds_them_to_the_corpus(qtbot, panel, tmp_path):
    from PySide6.QtCore import QMimeData, QPointF, QUrl
    from PySide6.QtGui import QDropEvent

    corpus = tmp_path / "notes.txt"
    corpus.write_text("dropped text " * 50, encoding="utf-8")
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(corpus))])
    event = QDropEvent(
        QPointF(10, 10),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    panel.dropEvent(event)
    assert panel.source_kind() == SOURCE_FILES
    assert panel.corpus_paths() == [str(corpus)]
    qtbot.waitUntil(lambda: "1 file" in panel.corpus_info.text(), timeout=10000)
    assert panel.preview.toPlainText().startswith("dropped text")


def test_no_time_left_is_guessed_before_a_tenth_of_a_phase():
    from tokviz.gui.workers.rates import time_left

    assert time_left("merging", 500, 10_000, rate=100.0) is None, "5 % done: too early to tell"
    assert time_left("merging", 1_000, 10_000, rate=100.0) == 90.0
    assert time_left("pre-tokenizing", 9, 10, rate=1.0) == 1.0
    assert time_left("reading", 5, 10, rate=1.0) is None and time_left("merging", 5, 10, rate=0) is None
