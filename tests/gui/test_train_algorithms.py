"""The Train panel trains Unigram, SentencePiece BPE and WordPiece beside byte-level BPE: the options
that apply to each, a library run in a worker (progress, cancel, one-line errors), the model in the
pickers, its exports, and a Unigram run's pruning rounds in the timeline."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QTimer
from pytestqt.qtbot import QtBot

from tokviz.core.training.engine_options import ALGORITHMS, options_for
from tokviz.core.training.engine_run import EngineProgress
from tokviz.gui.models.tokenizers import TokenizerRegistryModel
from tokviz.gui.panels.chart import ExchangeChart
from tokviz.gui.panels.timeline.panel import TimelineWidget
from tokviz.gui.panels.timeline.rounds import RoundsPane
from tokviz.gui.panels.training.algorithm import BPE_ONLY_WHY
from tokviz.gui.panels.training.panel import SOURCE_EDITOR, TrainPanel
from tokviz.gui.workers.engine_training import EngineOutcome

from .fixture_types import MakeWindow
from .reach import dock, docked

ENGINE_ALGORITHMS = [a for a in ALGORITHMS if a != "bpe"]


@pytest.fixture
def corpus(english_text: str) -> str:
    return english_text[:60_000]


@pytest.fixture
def panel(qtbot: QtBot, corpus: str) -> Iterator[TrainPanel]:
    registry = TokenizerRegistryModel()
    panel = TrainPanel(registry, lambda: corpus)
    timeline = TimelineWidget(registry)
    panel.connect_timeline(timeline, lambda: corpus)
    qtbot.addWidget(panel)
    qtbot.addWidget(timeline)
    panel.show()
    timeline.show()
    panel.set_source_kind(SOURCE_EDITOR)
    panel.specials.setText("")
    yield panel
    panel.shutdown()


def choose(panel: TrainPanel, algorithm: str, vocab: int) -> None:
    panel.algorithm_rows.set_algorithm(algorithm)
    panel.vocab_size.setValue(vocab)


def train(qtbot: QtBot, panel: TrainPanel, timeout: int = 60000) -> tuple[EngineOutcome, str]:
    with qtbot.waitSignal(panel.run.engineFinished, timeout=timeout) as finished:
        qtbot.mouseClick(panel.train_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not panel.running, timeout=timeout)
    outcome, key = finished.args
    return outcome, key


def trained_unigram_rounds(qtbot: QtBot, panel: TrainPanel) -> tuple[EngineOutcome, RoundsPane]:
    """A Unigram model of 1,000 pieces trained from the panel, and the timeline's list of its rounds."""
    choose(panel, "unigram", 1000)
    outcome, _key = train(qtbot, panel)
    assert panel.timeline is not None
    return outcome, panel.timeline.rounds


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_each_algorithm_offers_the_options_that_apply_and_says_why_the_others_do_not(
    panel: TrainPanel, algorithm: str
) -> None:
    rows = panel.algorithm_rows
    rows.set_algorithm(algorithm)
    applies = set(options_for(algorithm))
    for option, widget in rows.widgets.items():
        assert widget.isEnabled() == (option in applies), option
        if option not in applies:
            assert "does not apply" in widget.toolTip()
        if option != "normalizer":  # the library options are hidden for byte-level BPE, which has none
            assert panel.form.isRowVisible(widget) == (algorithm != "bpe")
    assert panel.algorithm_rows.normalizer.isEnabled()  # every algorithm takes a normalizer
    for name, widget in rows.bpe_only.items():
        assert widget.isEnabled() == (algorithm == "bpe") or name == "pattern"
        if algorithm != "bpe":
            assert widget.toolTip() == BPE_ONLY_WHY[name]


def test_the_form_describes_the_library_run_with_its_options(panel: TrainPanel) -> None:
    rows = panel.algorithm_rows
    choose(panel, "unigram", 1500)
    panel.specials.setText("<sep>")
    rows.set_normalizer("nfkc")
    rows.coverage.setValue(0.9995)
    rows.byte_fallback.setChecked(True)
    rows.max_piece.setValue(12)
    options = panel.engine_settings().options
    assert (options.algorithm, options.vocab_size, options.normalizer) == ("unigram", 1500, "nfkc")
    assert options.character_coverage == pytest.approx(0.9995)
    assert options.byte_fallback is True and options.split_digits is None  # unchecked: the library's default
    assert options.max_piece_length == 12
    assert options.user_symbols == ("<sep>",)
    assert panel.name.placeholderText().startswith("unigram-1500 ")
    assert "all pieces: &lt;unk&gt; &lt;s&gt; &lt;/s&gt; + 1 symbol included" in panel.vocab_hint.text()


def test_byte_level_bpe_has_no_library_default_normalizer(panel: TrainPanel) -> None:
    rows = panel.algorithm_rows
    rows.set_algorithm("unigram")
    rows.set_normalizer(None)
    assert rows.normalizer_spec() is None
    rows.set_algorithm("bpe")
    assert rows.normalizer_spec() == "none"


def test_a_unigram_run_keeps_the_window_turning_and_lands_in_the_pickers_and_the_timeline(
    qtbot: QtBot, panel: TrainPanel
) -> None:
    choose(panel, "unigram", 1000)
    beats = []
    timer = QTimer(panel)
    timer.timeout.connect(lambda: beats.append(panel.running))
    timer.start(5)
    progress: list[EngineProgress] = []
    panel.run.engineProgress.connect(progress.append)
    outcome, key = train(qtbot, panel)
    timer.stop()
    assert any(beats)  # the event loop turned while the library trained
    pruning = [p for p in progress if p.stage == "pruning"]  # the EM rounds, from the library's log
    assert pruning and "pieces" in pruning[-1].message
    assert panel.registry.tokenizer(key) is outcome.tokenizer
    assert outcome.tokenizer.vocab_size == 1000
    assert "Unigram" in panel.result.text() and "1,000" in panel.result.text()
    assert panel.save_button.isEnabled()
    timeline = panel.timeline
    assert timeline is not None and timeline.rounds.isVisibleTo(timeline)
    rounds = outcome.model.rounds
    assert rounds and timeline.rounds.table.rowCount() == len(rounds) + 1
    first = timeline.rounds.table.item(0, 1)
    assert first is not None and first.text() == f"{rounds[0].size:,}"


def test_a_round_is_shown_by_a_model_trained_to_its_size_once_then_from_the_cache(
    qtbot: QtBot, panel: TrainPanel
) -> None:
    outcome, pane = trained_unigram_rounds(qtbot, panel)
    last = len(outcome.model.rounds) - 1
    with qtbot.waitSignal(pane.segmented, timeout=60000, check_params_cb=lambda row: row == last):
        pane.pick(last)
    size = outcome.model.rounds[last].size
    assert "a model trained to this size" in pane.note.text()
    assert pane.models[size].vocab_size == size
    trained = pane.models[size]
    with qtbot.waitSignal(pane.segmented, timeout=10000):
        pane.pick(len(outcome.model.rounds))  # the model itself: no training
    assert not pane.training()
    assert pane.view.reference is not None  # its cuts are marked where they differ from the last round's
    assert f"cut differently from round {outcome.model.rounds[last].index}" in pane.note.text()
    with qtbot.waitSignal(pane.segmented, timeout=10000):
        pane.pick(last)
    assert not pane.training() and pane.models[size] is trained


def test_cancel_stops_a_library_run_mid_way_and_leaves_nothing(qtbot: QtBot, panel: TrainPanel) -> None:
    choose(panel, "unigram", 2000)
    before = panel.registry.keys()
    panel.run.engineProgress.connect(lambda _p: panel.cancel())
    with qtbot.waitSignal(panel.run.cancelled, timeout=60000):
        qtbot.mouseClick(panel.train_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not panel.running, timeout=30000)
    assert panel.registry.keys() == before
    assert panel.run.engine_outcome is None and not panel.save_button.isEnabled()
    assert "Cancelled" in panel.status.text()
    assert panel.progress.format() == "cancelled · nothing changed"  # in view on a short screen too


def test_a_library_error_is_one_line_and_changes_nothing(qtbot: QtBot, panel: TrainPanel) -> None:
    choose(panel, "unigram", 5)  # fewer pieces than the corpus has characters
    before = panel.registry.keys()
    with qtbot.waitSignal(panel.run.failed, timeout=60000) as failed:
        qtbot.mouseClick(panel.train_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not panel.running, timeout=30000)
    (message,) = failed.args
    assert message and "\n" not in message
    assert panel.error.isVisible() and panel.error.text() == message
    assert panel.registry.keys() == before


@pytest.mark.parametrize("algorithm", ENGINE_ALGORITHMS)
def test_each_library_model_offers_the_exports_that_apply_with_the_reason_for_the_others(
    qtbot: QtBot, panel: TrainPanel, algorithm: str
) -> None:
    from tokviz.core.formats.exports import export_problem

    choose(panel, algorithm, 800)
    outcome, _key = train(qtbot, panel)
    assert panel.export_button.isEnabled()
    for kind, act in panel.export_actions.items():
        problem = export_problem(outcome.tokenizer, kind)
        assert act.isEnabled() == (problem is None)
        if problem is not None:
            assert act.toolTip() == problem


@pytest.mark.slow
def test_unigram_and_bpe_of_one_size_on_one_corpus_side_by_side_in_the_window(
    qtbot: QtBot, make_window: MakeWindow, corpus: str
) -> None:
    window = make_window(text=corpus)
    panel = docked(window, "trainDock", TrainPanel)
    panel.set_source_kind(SOURCE_EDITOR)
    panel.specials.setText("")
    choose(panel, "unigram", 1000)
    _unigram, unigram_key = train(qtbot, panel)
    choose(panel, "bpe", 1000)
    with qtbot.waitSignal(panel.run.finished, timeout=60000) as finished:
        qtbot.mouseClick(panel.train_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not panel.running, timeout=60000)
    bpe_key = finished.args[1]
    window.panels[0].select_tokenizer(unigram_key)
    window.panels[1].select_tokenizer(bpe_key)
    qtbot.waitUntil(window.is_ready, timeout=60000)
    shown = [p.model.tokenizer for p in window.panels[:2]]
    assert shown == [window.tokenizers.tokenizer(unigram_key), window.tokenizers.tokenizer(bpe_key)]
    assert all(p.model.table is not None and len(p.model.table) > 0 for p in window.panels[:2])
    dock(window, "exchangeChartDock").show()
    chart = docked(window, "exchangeChartDock", ExchangeChart)
    qtbot.waitUntil(chart.is_ready, timeout=60000)
    assert {unigram_key, bpe_key} <= set(chart.keys)  # the exchange chart measures both


def test_a_unigram_model_saves_and_exports_as_files_its_library_loads(
    qtbot: QtBot, panel: TrainPanel, tmp_path: Path, corpus: str
) -> None:
    import sentencepiece

    choose(panel, "unigram", 800)
    outcome, _key = train(qtbot, panel)
    assert panel.export_actions["spm"].isEnabled() and panel.export_actions["hf"].isEnabled()
    assert not panel.export_actions["tiktoken"].isEnabled()
    saved = tmp_path / "unigram.model"
    with qtbot.waitSignal(panel.fileJobDone, timeout=30000) as done:
        panel.save_model_to(saved)
    assert done.args == [""]
    record = json.loads((tmp_path / "unigram.model.json").read_text(encoding="utf-8"))
    assert record["trainer"]["options"] == outcome.model.library_options  # the run, repeatable
    assert record["provenance"]["corpus"]  # and what it was trained on
    exported = tmp_path / "exported.model"
    with qtbot.waitSignal(panel.fileJobDone, timeout=30000) as done:
        panel.export_to("spm", exported)
    assert done.args == [""]
    held_out = corpus[-2000:]
    for path in (saved, exported):
        library = sentencepiece.SentencePieceProcessor(model_file=str(path))
        assert library.encode(held_out) == outcome.tokenizer.encode(held_out)


def test_the_algorithm_its_normalizer_and_options_come_back_in_the_next_panel(
    qtbot: QtBot, panel: TrainPanel
) -> None:
    from tokviz.gui.panels.training.memory import follow_train_settings
    from tokviz.gui.settings import Settings

    store = Settings()
    follow_train_settings(panel, store)
    rows = panel.algorithm_rows
    rows.set_algorithm("wordpiece")
    rows.set_normalizer("lowercase+strip-accents")
    rows.split_digits.setChecked(True)
    store.sync()
    again = TrainPanel(TokenizerRegistryModel())
    qtbot.addWidget(again)
    follow_train_settings(again, Settings())
    options = again.algorithm_rows.engine_options(1000, ())
    assert (options.algorithm, options.normalizer, options.split_digits) == (
        "wordpiece",
        "lowercase+strip-accents",
        True,
    )
    again.shutdown()


def test_byte_level_bpe_trains_through_the_chosen_normalizer(qtbot: QtBot, panel: TrainPanel) -> None:
    choose(panel, "bpe", 400)
    panel.algorithm_rows.set_normalizer("nfkc")
    assert panel.name.placeholderText().endswith("(gpt2, nfkc)")
    with qtbot.waitSignal(panel.run.finished, timeout=60000) as finished:
        qtbot.mouseClick(panel.train_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not panel.running, timeout=60000)
    tokenizer = finished.args[0].tokenizer
    assert tokenizer.normalizer.name == "nfkc"
    assert tokenizer.encode("ﬁne １２３") == tokenizer.encode("fine 123")  # a ligature, full-width digits
    assert not panel.export_actions["tiktoken"].isEnabled()  # tiktoken runs no normalizer
    assert "normalizer" in panel.export_actions["tiktoken"].toolTip()


def test_a_round_the_library_cannot_train_to_says_so_and_shows_no_stale_segmentation(
    qtbot: QtBot, panel: TrainPanel
) -> None:
    outcome, pane = trained_unigram_rounds(qtbot, panel)
    # The first round holds the seed pieces: more than a run on this corpus can be asked to keep.
    with qtbot.waitSignal(pane.roundFailed, timeout=60000) as failed:
        pane.pick(0)
    row, message = failed.args
    assert row == 0 and "\n" not in message and "Vocabulary size too high" in message
    assert pane.view.table is not None and len(pane.view.table) == 0
    assert f"no model of {outcome.model.rounds[0].size:,} pieces" in pane.note.text()
