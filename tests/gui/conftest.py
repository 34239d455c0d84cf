"""GUI test setup: Qt runs offscreen, settings go to a temporary folder, tokenizers load once."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest

from tokviz.core.bpe.tokenizer import Tokenizer
from tokviz.core.formats.registry import load_tokenizer

from .fixture_types import MakeWindow

if TYPE_CHECKING:  # the Qt-free tests in this folder run without Qt
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication
    from pytestqt.qtbot import QtBot

    from tokviz.gui.panels.training.panel import TrainPanel
    from tokviz.gui.settings import Settings
    from tokviz.gui.window.main_window import MainWindow


@pytest.fixture(scope="session")
def gpt2() -> Tokenizer:
    """GPT-2 from the bundled rank file, through the same registry the window uses."""
    return load_tokenizer("gpt2")


@pytest.fixture(scope="session")
def cl100k() -> Tokenizer:
    """cl100k_base from the bundled rank file."""
    return load_tokenizer("cl100k")


@pytest.fixture(scope="session")
def byte_tokenizer() -> Tokenizer:
    """The 256-byte tokenizer: one token per UTF-8 byte."""
    return load_tokenizer("bytes")


@pytest.fixture(scope="session")
def tiny_bpe() -> Tokenizer:
    """A small BPE trained here (exact core merge loop, no fast engine), with a special token."""
    from tokviz.core.training.train import train_bpe

    corpus = "the cat in the hat sat on the mat. " * 20 + "def f(x):\n    return x + 1\n" * 10
    return train_bpe(text=corpus, vocab_size=300, special_tokens=["<|endoftext|>"]).tokenizer("tiny")


@pytest.fixture(autouse=True)
def _garbage_collected_in_the_gui_thread(qapp: QApplication) -> None:
    """As in the app: a pool thread must never run Python's GC and destroy a widget (a deadlock)."""
    from tokviz.gui.workers.gc_guard import collect_garbage_in_gui_thread

    collect_garbage_in_gui_thread()


@pytest.fixture(autouse=True)
def _nothing_outlives_the_test(qapp: QApplication) -> Iterator[None]:
    """After each test: its background jobs have ended and its closed widgets are deleted.

    pytest-qt closes the test's widgets and asks Qt to delete them later; without this, that
    happened during whichever test next ran the event loop, and a job the test started (a
    vocabulary's merge tables) still ran in the pool and answered into that next test. Each test
    now starts from an empty pool and leaves no window behind, holding no memory for later ones.
    """
    yield
    from PySide6.QtCore import QCoreApplication, QEvent

    from tokviz.gui.workers.jobs import wait_for_all

    assert wait_for_all(120_000), "a background job still runs two minutes after its test"
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    QCoreApplication.processEvents()  # the jobs' results, delivered to nobody
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


@pytest.fixture(autouse=True)
def _isolated_settings(tmp_path: Path) -> Iterator[None]:
    """Every test gets empty QSettings so no state leaks between tests or from a real profile."""
    try:
        from PySide6.QtCore import QSettings
    except ImportError:  # the Qt-free tests in this folder do not need Qt
        yield
        return
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(tmp_path / "settings"))
    yield


@pytest.fixture
def train_panel(qtbot: QtBot) -> Iterator[TrainPanel]:
    """A Train panel on its own (an empty registry), shown; its run is stopped after the test."""
    from tokviz.gui.models.tokenizers import TokenizerRegistryModel
    from tokviz.gui.panels.training.panel import TrainPanel

    panel = TrainPanel(TokenizerRegistryModel())
    qtbot.addWidget(panel)
    panel.show()
    yield panel
    panel.shutdown()


@pytest.fixture
def make_window(qtbot: QtBot) -> Iterator[MakeWindow]:
    """Open real main windows (shown, tokenized, closed after the test): ``make_window(text=..., size=...)``."""
    from tokviz.gui.window.main_window import MainWindow

    windows: list[MainWindow] = []

    def make(
        text: str | None = None,
        size: tuple[int, int] = (1280, 800),
        settings: QSettings | Settings | None = None,
    ) -> MainWindow:
        w = MainWindow(settings)
        qtbot.addWidget(w)
        w.resize(*size)
        w.show()
        qtbot.waitUntil(w.is_ready, timeout=20000)
        if text is not None:
            w.set_text(text)
            qtbot.waitUntil(lambda: w.is_ready() and w.text == text, timeout=60000)
        windows.append(w)
        return w

    yield make
    for w in windows:
        w.close()


@pytest.fixture
def window(make_window: MakeWindow) -> MainWindow:
    """The tokviz window at 1280 × 800 with its default text, every view tokenized."""
    return make_window()
