"""Regex work of the docks runs in the background, and training with a custom pattern stops at once.

The streaming decoder encodes the editor's text and the pre-tokenizer view cuts it into chunks
(and tries a typed pattern) in worker threads: with a pattern that backtracks, the event loop keeps
turning (counted with a heartbeat, not timed) and the pattern's time limit becomes the panel's
one-line error. A training run with a custom pattern counts pre-tokens in worker processes, so
cancel terminates them instead of waiting for one long regex call to end.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator

import pytest
from pytestqt.exceptions import TimeoutError as QtTimeoutError

from tokviz.core.bpe.tokenizer import Tokenizer
from tokviz.core.pretok import pretokenize
from tokviz.gui.models.tokenizers import TokenizerRegistryModel
from tokviz.gui.panels.pretokenizer import PretokView
from tokviz.gui.panels.streaming import StreamDecodeView
from tokviz.gui.workers.training import TrainJob, TrainSettings, counting_mode

from .reach import exporter
from .test_hostile_patterns import CATASTROPHIC, HOSTILE_TEXT, SAFETY_MS, Heartbeat, _parent

# Passes the trial (short texts take microseconds) but, on one long line, every word looks ahead
# to the end of the line: hours on a megabyte without a newline, with no catastrophic backtracking.
SLOW_PATTERN = r"\w+(?=[^\n]*$)|\s+|\S"


@pytest.fixture
def no_trial(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The trial lets every pattern through; a run may take 2 s before it times out."""
    monkeypatch.setattr(pretokenize, "_trial_texts", lambda pattern: [])
    monkeypatch.setattr(pretokenize, "PATTERN_TIME_BASE", 2.0)
    pretokenize._checked_pattern.cache_clear()
    yield
    pretokenize._checked_pattern.cache_clear()


@pytest.mark.slow
def test_the_streaming_decoder_encodes_with_a_pattern_that_times_out_in_a_worker(qtbot, no_trial):
    registry = TokenizerRegistryModel()
    tok = Tokenizer({i: bytes([i]) for i in range(256)}, [], pretokenizer=CATASTROPHIC)
    key = registry.add_tokenizer("hostile", tok)
    view = StreamDecodeView(registry)
    qtbot.addWidget(view)
    view.show()
    view.set_tokenizer(key)
    qtbot.waitUntil(lambda: not view.computing, timeout=SAFETY_MS)
    heart = Heartbeat(lambda: view.computing)
    view.set_text(HOSTILE_TEXT)
    assert view.computing and "computing…" in view.position_label.text()
    qtbot.waitUntil(lambda: not view.computing, timeout=SAFETY_MS)
    heart.stop()
    assert heart.beats >= 5, "the text was encoded in the GUI thread"
    assert view.error.isVisibleTo(view) and "takes too long" in view.error.text()
    assert "\n" not in view.error.text() and "(a|a)+$" in view.error.text()
    assert view.trace is not None and len(view.trace) == 0
    assert "computing" not in view.position_label.text()
    # Text the pattern copes with brings the ids back and the error goes.
    view.set_text("the cat")
    qtbot.waitUntil(lambda: not view.computing, timeout=SAFETY_MS)
    assert not view.error.isVisibleTo(view) and view.decoded_text == "the cat"


def test_the_streaming_decoder_shows_only_the_latest_text(qtbot):
    registry = TokenizerRegistryModel()
    registry.load_builtin_now("gpt2")
    view = StreamDecodeView(registry)
    qtbot.addWidget(view)
    for n in range(1, 30):
        view.set_text("ab " * n)
    qtbot.waitUntil(lambda: not view.computing, timeout=SAFETY_MS)
    assert view.decoded_text == "ab " * 29


def test_the_pretokenizer_view_tries_a_typed_pattern_in_a_worker(qtbot):
    pretokenize._checked_pattern.cache_clear()  # the trial really runs (a quarter second per text)
    view = PretokView(TokenizerRegistryModel())
    qtbot.addWidget(view)
    view.show()
    view.set_text("the cat")
    qtbot.waitUntil(lambda: not view.computing, timeout=SAFETY_MS)
    before = view.view.table
    heart = Heartbeat(lambda: view.computing)
    assert view.set_pattern(CATASTROPHIC)  # it compiles; the trial runs in the background
    qtbot.waitUntil(lambda: view.error_message is not None and not view.computing, timeout=SAFETY_MS)
    heart.stop()
    assert heart.beats >= 3, "the pattern's trial ran in the GUI thread"
    assert "takes too long" in view.error_message and "(a|a)+$" in view.error_message
    assert view.view.table is before  # the last usable pattern's chunks stay
    assert view.stats.text().startswith("2 chunks")


def test_the_pretokenizer_view_shows_only_the_latest_text(qtbot):
    view = PretokView(TokenizerRegistryModel())
    qtbot.addWidget(view)
    for n in range(1, 30):
        view.set_text("ab " * n)
    qtbot.waitUntil(lambda: not view.computing, timeout=SAFETY_MS)
    assert view.view.table.text == "ab " * 29
    assert len(view.spans()) == len(pretokenize.resolve_pretokenizer("gpt2").split("ab " * 29))


def test_custom_patterns_are_counted_in_processes():
    assert counting_mode(SLOW_PATTERN) == "always"
    assert counting_mode("gpt2") == "auto" and counting_mode("none") == "auto"
    assert counting_mode(pretokenize.GPT2_PATTERN) == "auto"  # the named pattern, spelled out


def _counting_processes() -> set[int]:
    """Processes below this one that are not its own children: those the fork server started.

    A training job runs in a thread, so its pool always starts its workers from the fork server.
    """
    from ..cli.test_hangs import _descendants

    return {pid for pid in _descendants(os.getpid()) if _parent(pid) != os.getpid()}


# The counting processes start from a fork server at a low CPU priority: on two cores busy with the
# other test process's work they may take a while to appear. Cancel is timed once they run.
WORKERS_APPEAR_MS = 3 * SAFETY_MS


def test_training_with_a_slow_custom_pattern_is_cancelled_at_once(qtbot, monkeypatch):
    from ..cli.test_hangs import _assert_all_gone

    # In this thread the regex call over the whole megabyte could only end at its time limit, set to
    # an hour here: a run that stops within the safety timeout was stopped in the middle of it.
    monkeypatch.setattr(pretokenize, "PATTERN_TIME_BASE", 3600.0)
    text = ("lorem ipsum dolor sit amet " * 40_000)[:1_000_000]  # one line, below the 4 MB threshold
    before = _counting_processes()
    job = TrainJob(TrainSettings(text, 300, pretokenizer=SLOW_PATTERN))
    job.start()
    with contextlib.suppress(QtTimeoutError):  # the assertion below says what was seen instead
        qtbot.waitUntil(
            lambda: bool(_counting_processes() - before) or not job.running, timeout=WORKERS_APPEAR_MS
        )
    workers = _counting_processes() - before
    seen = f"running={job.running}, error={job.error}, threads={[t.name for t in threading.enumerate()]}"
    assert job.running and workers, f"no counting process was seen ({seen})"
    heart = Heartbeat(lambda: job.running, interval_ms=50)
    with qtbot.waitSignals([job.cancelled, job.stopped], timeout=SAFETY_MS):
        job.cancel()
    heart.stop()
    assert job.was_cancelled and job.outcome is None and job.error is None
    # A couple of seconds at most, counted in 50 ms beats (a slow machine counts fewer, not more).
    assert heart.beats <= 40, f"cancel took {heart.beats} beats of 50 ms"
    _assert_all_gone(workers)


# ----------------------------------------------------------------------------- exports
def test_exporting_the_views_draws_their_tables_without_encoding_again(
    qtbot, make_window, tmp_path, monkeypatch
):
    from types import SimpleNamespace

    from tokviz.gui.drawing import strips

    window = make_window(text="the cat in the hat")
    qtbot.waitUntil(
        lambda: all(p.model.current and not p.model.busy for p in window.panels), timeout=SAFETY_MS
    )
    encoded: list[str] = []
    real = strips.TokenTable

    def encode(tok, text):
        encoded.append(text)
        return real.encode(tok, text)

    monkeypatch.setattr(strips, "TokenTable", SimpleNamespace(encode=encode))
    written = exporter(window).write(exporter(window).target("views"), tmp_path / "views.png")
    assert written.exists() and encoded == []


@pytest.mark.slow
@pytest.mark.qt_log_ignore("This plugin does not support raise")
def test_exporting_a_view_whose_pattern_times_out_is_a_one_line_error(qtbot, make_window, tmp_path, no_trial):
    from tokviz.core.errors import ExportError

    window = make_window(text=HOSTILE_TEXT)
    panel = window.panels[0]
    tok = Tokenizer({i: bytes([i]) for i in range(256)}, [], pretokenizer=CATASTROPHIC)
    key = window.tokenizers.add_tokenizer("hostile", tok)
    with qtbot.waitSignal(panel.model.failed, timeout=SAFETY_MS):
        panel.model.set_tokenizer(key)  # the view's own encoding fails in a worker: no table
    assert not panel.model.current
    with pytest.raises(ExportError) as info:
        exporter(window).write(exporter(window).target("view:1"), tmp_path / "view.png")
    assert "takes too long" in str(info.value) and "\n" not in str(info.value)
    assert not (tmp_path / "view.png").exists()
    dialog = exporter(window).open_dialog()
    dialog.target_box.setCurrentIndex(dialog.target_box.findData("view:1"))
    assert dialog.save(tmp_path / "view.png") is None
    assert dialog.message.text().startswith("Export failed:") and "takes too long" in dialog.message.text()
    dialog.close()
