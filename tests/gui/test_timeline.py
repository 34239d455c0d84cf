"""The merge-history timeline: replaying BPE step by step on a text, as a student would use it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import Qt

from tokviz.core.bpe.tokenizer import Tokenizer
from tokviz.core.formats.registry import load_tokenizer
from tokviz.core.training.replay import ReplayTrace
from tokviz.core.training.train import train_bpe
from tokviz.gui.models.merge_model import MERGE, NEW, STEP, TEXT_TOKENS, TIES, MergeTableModel, StepRole
from tokviz.gui.models.tokenizers import TokenizerRegistryModel
from tokviz.gui.panels.timeline.panel import TimelineWidget
from tokviz.gui.panels.timeline.replayer import SYNC_CHARS

from ..texts import CAT, CAT_TOKEN_COUNTS, CAT_TOKENS, CAT_TRAINING
from .reach import dock, docked
from .waiting import settled


@pytest.fixture(scope="module")
def lecture_model():
    """The lecture's worked example: 3 merges, no pre-tokenizer, first-seen ties."""
    return train_bpe(text=CAT, **CAT_TRAINING)


@pytest.fixture
def timeline(qtbot):
    widget = TimelineWidget(TokenizerRegistryModel())
    qtbot.addWidget(widget)
    widget.resize(1200, 360)
    widget.show()
    return widget


def replay(qtbot, timeline: TimelineWidget, tokenizer, text: str, history=(), initial=None) -> None:
    timeline.set_text(text)
    with qtbot.waitSignal(timeline.traceReady, timeout=30000):
        timeline.set_tokenizer(tokenizer, history, initial)
    qtbot.waitUntil(timeline.is_ready, timeout=30000)


def go_to(qtbot, timeline: TimelineWidget, step: int) -> None:
    timeline.set_step(step)
    qtbot.waitUntil(lambda: timeline.is_ready() and timeline.step == step, timeout=30000)


def shown_ids(timeline: TimelineWidget) -> list[int]:
    assert timeline.view.table is not None
    return [int(i) for i in timeline.view.table.ids]


def cell(model: MergeTableModel, row: int, column: int) -> str:
    return model.index(row, column).data()


def test_the_lecture_demo_shows_the_seed_table(qtbot, timeline, lecture_model):
    tok = lecture_model.tokenizer("lecture")
    replay(qtbot, timeline, tok, CAT, lecture_model.history, lecture_model.initial_tokens)
    model = timeline.model
    assert timeline.total_steps == 3 and timeline.slider.maximum() == 3
    assert [cell(model, r, TEXT_TOKENS) for r in range(4)] == [str(n) for n in CAT_TOKEN_COUNTS]
    assert [cell(model, r, NEW) for r in range(1, 4)] == ["th", "the", "the·"]
    assert [cell(model, r, MERGE) for r in range(1, 4)] == ["t + h", "th + e", "the + ·"]
    assert cell(model, 0, STEP) == "start"
    go_to(qtbot, timeline, 3)
    table = timeline.view.table
    assert [tok.vocab[i] for i in shown_ids(timeline)] == CAT_TOKENS
    # The two tokens made by merge 3 are outlined, nothing else.
    assert np.flatnonzero(timeline.view.marked).tolist() == [0, 8]
    assert int(table.ids[0]) == int(table.ids[8]) == 258
    caption = timeline.caption.text()
    assert "Step 3" in caption and "12</b> tokens" in caption and "1.50 bytes/token" in caption


def test_with_gpt2_chunks_the_space_never_joins_the_word_before_it(qtbot, timeline):
    result = train_bpe(text=CAT, vocab_size=259, pretokenizer="gpt2", tie_break="first-seen")
    replay(qtbot, timeline, result.tokenizer("gpt2 chunks"), CAT, result.history, result.initial_tokens)
    news = [cell(timeline.model, r, NEW) for r in range(1, 4)]
    assert news == ["th", "the", "at"]
    assert "the·" not in news
    go_to(qtbot, timeline, 3)
    assert timeline.view.table.chunk_starts().sum() == 4  # "the", " cat", " in", " the", " hat"


def test_step_k_shows_exactly_the_core_encoding_with_k_merges(qtbot, timeline, english_text):
    result = train_bpe(text=english_text[:30_000], vocab_size=600)
    tok = result.tokenizer("english")
    text = english_text[40_000:41_500]
    replay(qtbot, timeline, tok, text, result.history, result.initial_tokens)
    trace = ReplayTrace(tok, text)
    for k in [0, 1, 7, 100, trace.events[len(trace.events) // 2].step, tok.merge_count]:
        go_to(qtbot, timeline, k)
        ids = tok.encode_with_merges(text, k)
        assert shown_ids(timeline) == ids
        assert timeline.model.index(k, TEXT_TOKENS).data() == f"{len(ids):,}"
        if k and trace.changes_text(k):
            new_id = tok.id_of_merge(k - 1)
            assert timeline.view.marked.tolist() == [i == new_id for i in ids]
        else:
            assert not timeline.view.marked.any()
    assert shown_ids(timeline) == tok.encode(text)


def test_gpt2_replay_reaches_tiktokens_encoding_at_the_last_step(qtbot, gpt2_tiktoken):
    registry = TokenizerRegistryModel()
    timeline = TimelineWidget(registry)
    qtbot.addWidget(timeline)
    timeline.show()
    text = "Hello, 🌍! 你好! The quick brown fox jumps over the lazy dog."
    timeline.set_text(text)
    with qtbot.waitSignal(timeline.traceReady, timeout=60000):
        timeline.set_tokenizer_key("gpt2")  # loads, recovers the 50,000 merges, traces: all in workers
    assert timeline.picker.currentText() == "GPT-2"
    assert timeline.total_steps == 50_000
    go_to(qtbot, timeline, 50_000)
    assert shown_ids(timeline) == gpt2_tiktoken.encode(text)
    # Only the merges that change the text are events: the step buttons jump straight between them.
    events = timeline.trace.events
    assert len(events) <= len(text.encode("utf-8"))
    go_to(qtbot, timeline, 0)
    timeline.forward_button.click()
    qtbot.waitUntil(timeline.is_ready)
    assert timeline.step == events[0].step
    assert timeline.view.marked.any()
    timeline.back_button.click()
    qtbot.waitUntil(timeline.is_ready)
    assert timeline.step == 0
    # One merge on and back, as Ctrl+] and Ctrl+[ go, changed text or not.
    timeline.playback.step_forward()
    qtbot.waitUntil(timeline.is_ready)
    assert timeline.step == 1
    timeline.playback.step_back()
    qtbot.waitUntil(timeline.is_ready)
    assert timeline.step == 0


def test_a_100k_merge_table_is_lazy(qtbot, qtmodeltester, cl100k, monkeypatch):
    timeline = TimelineWidget()
    qtbot.addWidget(timeline)
    timeline.show()
    text = "Tokenizers turn text into integers. " * 20
    replay(qtbot, timeline, cl100k, text)
    model = timeline.model
    assert model.rowCount() == 100_001
    assert cell(model, 99_999, STEP) == "99,999"
    # Lazy: a jump asks the model only for the rows on screen, never for all 100,001 of them.
    asked: list[int] = []
    display = model._display
    monkeypatch.setattr(model, "_display", lambda step, col: asked.append(step) or display(step, col))
    for step in (1, 50_000, 99_000, 3, 100_000, 0):
        go_to(qtbot, timeline, step)
        timeline.table.grab()  # paint the table as the screen would
    assert 0 < len(set(asked)) < 2_000, f"the jumps rendered {len(set(asked)):,} distinct rows"
    assert shown_ids(timeline) == cl100k.encode_with_merges(text, 0)
    timeline.changes_only.setChecked(True)
    assert model.rowCount() == len(timeline.trace.events) + 1
    qtmodeltester.check(model)


def test_the_merge_table_passes_the_model_tester_in_every_mode(qtbot, qtmodeltester, lecture_model, tiny_bpe):
    model = MergeTableModel()
    qtmodeltester.check(model)
    tok = lecture_model.tokenizer("lecture")
    model.set_source(tok, lecture_model.history, ReplayTrace(tok, CAT), lecture_model.initial_tokens)
    qtmodeltester.check(model)
    model.set_changes_only(True)
    qtmodeltester.check(model)
    model.begin_live()
    with qtbot.waitSignal(model.rowsInserted):
        model.append_merges(lecture_model.history[:2])
    model.append_merges(lecture_model.history[2:])
    assert model.rowCount() == 4
    assert cell(model, 1, TIES) == "4"  # t+h, h+e, e+space and a+t all occur twice
    qtmodeltester.check(model)
    model.set_source(tiny_bpe, (), ReplayTrace(tiny_bpe, "the cat sat"))
    qtmodeltester.check(model)


def test_clicking_a_row_jumps_to_that_step_and_the_plot_follows(qtbot, timeline, lecture_model):
    tok = lecture_model.tokenizer("lecture")
    replay(qtbot, timeline, tok, CAT, lecture_model.history, lecture_model.initial_tokens)
    index = timeline.model.index(2, MERGE)
    assert index.data(StepRole) == 2
    rect = timeline.table.visualRect(index)
    qtbot.mouseClick(timeline.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.waitUntil(lambda: timeline.is_ready() and timeline.step == 2)
    assert timeline.slider.value() == 2 and timeline.step_box.value() == 2
    timeline.plot.build()
    x, y = timeline.plot.curve_data()
    assert y[0] == CAT_TOKEN_COUNTS[0] and y[-1] == CAT_TOKEN_COUNTS[-1] and x[-1] == 3
    assert timeline.plot.step_line.value() == 2
    timeline.plot.step_line.setValue(1)  # dragging the cursor moves the replay
    qtbot.waitUntil(lambda: timeline.is_ready() and timeline.step == 1)
    xs, ys = timeline.plot.corpus_data()
    assert ys.tolist() == CAT_TOKEN_COUNTS


def test_play_visits_each_change_then_stops(qtbot, timeline, lecture_model):
    replay(qtbot, timeline, lecture_model.tokenizer("lecture"), CAT)
    timeline.speed.setCurrentIndex(timeline.speed.count() - 1)
    shown: list[int] = []
    timeline.stepShown.connect(shown.append)
    timeline.playback.play()
    assert timeline.playback.playing
    qtbot.waitUntil(lambda: not timeline.playback.playing, timeout=5000)
    assert shown == [0, 1, 2, 3] or shown == [1, 2, 3]
    assert timeline.step == 3


def test_a_long_text_is_encoded_in_a_worker_and_still_exact(qtbot, timeline, english_text):
    result = train_bpe(text=english_text[:20_000], vocab_size=500)
    tok = result.tokenizer("english")
    text = english_text[: SYNC_CHARS * 3]
    replay(qtbot, timeline, tok, text)
    with qtbot.waitSignal(timeline.stepShown, timeout=30000):
        timeline.set_step(120)
    assert shown_ids(timeline) == tok.encode_with_merges(text, 120)


def test_a_tokenizer_without_merges_says_so(qtbot, timeline, byte_tokenizer):
    timeline.set_tokenizer(byte_tokenizer)
    assert "no merges" in timeline.message.text()
    assert not timeline.slider.isEnabled()


def test_editing_the_text_retraces_it(qtbot, timeline, lecture_model):
    tok = lecture_model.tokenizer("lecture")
    replay(qtbot, timeline, tok, CAT)
    go_to(qtbot, timeline, 3)
    with qtbot.waitSignal(timeline.traceReady, timeout=10000):
        timeline.set_text("the hat")
    qtbot.waitUntil(timeline.is_ready)
    assert timeline.step == 3
    assert shown_ids(timeline) == tok.encode("the hat")
    assert cell(timeline.model, 0, TEXT_TOKENS) == "7"


def test_in_the_window_the_timeline_follows_the_editor_and_keeps_its_place(qtbot):
    from tokviz.gui import MainWindow

    window = MainWindow()
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(window.is_ready, timeout=30000)
    assert dock(window, "timelineDock").isHidden()  # opens on demand, the editor keeps its room
    dock(window, "timelineDock").show()
    timeline = docked(window, "timelineDock", TimelineWidget)
    qtbot.waitUntil(timeline.is_ready, timeout=60000)
    assert timeline.key == window.panels[0].model.key == "gpt2"
    assert timeline.trace.text == window.text
    window.set_text(CAT)
    qtbot.waitUntil(lambda: timeline.is_ready() and timeline.trace.text == CAT, timeout=30000)
    window.close()
    again = MainWindow()
    qtbot.addWidget(again)
    again.show()
    assert dock(again, "timelineDock").isVisible()  # the saved layout brings it back
    again.close()


def test_a_reopened_model_keeps_its_merge_statistics(qtbot, window, tmp_path):
    """Counts, ties and the corpus-tokens plot come back from the model file's history."""
    from tokviz.core.formats import save_model
    from tokviz.gui.models.merge_model import COUNT

    result = train_bpe(text=CAT, vocab_size=259, pretokenizer="none", tie_break="first-seen")
    path = tmp_path / "cat.tokviz.json"
    save_model(path, result.tokenizer("cat"), history=result.history)
    job = window.files.open_tokenizer_file(str(path))
    qtbot.waitUntil(lambda: job.done, timeout=20000)
    key = f"file:{path}"
    timeline = docked(window, "timelineDock", TimelineWidget)
    dock(window, "timelineDock").show()
    timeline.set_tokenizer_key(key)
    qtbot.waitUntil(lambda: timeline.is_ready() and timeline.model.rowCount() == 4, timeout=20000)
    assert [cell(timeline.model, row, COUNT) for row in (1, 2, 3)] == ["2", "2", "2"]
    assert cell(timeline.model, 1, TIES) == "4"
    assert timeline.plot._corpus_visible, "the corpus-tokens plot is back"


def test_the_transport_is_visible_in_the_dark_theme(qtbot):
    """The play and step glyphs are drawn in the palette's text colour, not near-black on dark grey."""
    from PySide6.QtGui import QColor, QPalette

    from tokviz.gui.style.theme import app_palette

    timeline = TimelineWidget()
    qtbot.addWidget(timeline)
    timeline.setPalette(app_palette(dark=True))
    timeline.show()
    background = timeline.palette().color(QPalette.ColorRole.Button)

    def glyphs_stand_out() -> None:
        for button in (timeline.play_button, timeline.first_button, timeline.forward_button):
            image = button.icon().pixmap(24, 24).toImage()
            inked = [
                QColor(image.pixel(x, y))
                for x in range(image.width())
                for y in range(image.height())
                if QColor.fromRgba(image.pixel(x, y)).alpha() > 200
            ]
            assert inked, button.objectName()
            brightest = max(c.lightness() for c in inked)
            assert brightest - background.lightness() > 100, (
                button.objectName(),
                brightest,
                background.lightness(),
            )

    qtbot.waitUntil(glyphs_stand_out)


def test_long_runs_fit_the_step_box_the_counts_and_the_axis_titles(qtbot):
    from PySide6.QtGui import QFontMetrics

    from tokviz.gui.models.merge_model import COUNT

    timeline = TimelineWidget()
    qtbot.addWidget(timeline)
    timeline.resize(900, 520)
    timeline.show()
    timeline.playback.set_total(100_000)
    timeline.step_box.setValue(50_000)
    box = timeline.step_box
    needed = QFontMetrics(box.font()).horizontalAdvance(box.text())
    room = settled(qtbot, box.lineEdit().width)
    assert needed <= room, f"'{box.text()}' needs {needed} px, has {room}"
    table = timeline.table
    assert table.isColumnHidden(COUNT), "no training history: no empty Count column"
    timeline.begin_live(100_000)  # a run streams its merges: their counts are shown
    assert not table.isColumnHidden(COUNT)
    count = QFontMetrics(table.font()).horizontalAdvance("1,990,624")
    assert count < table.columnWidth(COUNT) - 6, "a seven-digit count is shown whole"
    timeline.end_live()
    plot = timeline.plot
    plot.build()
    trained = train_bpe(text=CAT, vocab_size=259, pretokenizer="none", tie_break="first-seen")
    plot.set_corpus(trained.history, trained.initial_tokens)  # both plots, one above the other
    plot.flush()
    text_label, corpus_label = settled(
        qtbot,
        lambda: tuple(
            item.getAxis("left").label.sceneBoundingRect() for item in (plot.text_plot, plot.corpus_plot)
        ),
    )
    assert plot.corpus_plot.isVisible() and not text_label.isEmpty() and not corpus_label.isEmpty()
    assert not text_label.intersects(corpus_label), (text_label, corpus_label)


# ----------------------------------------------------------------
# After a tokenizer the timeline can replay, picking one it cannot (characters) says why and
# leaves no stale numbers: the slider reads "/ 0", the plot is empty with fresh ranges.


TINY_TEXT = "the cat in the hat sat on the mat " * 4


def replaying_a_tiny_model(qtbot, palette=None) -> tuple[TimelineWidget, Tokenizer]:
    """A shown timeline replaying a model trained on ``TINY_TEXT`` (``palette``: the window's, e.g. dark)."""
    timeline = TimelineWidget(TokenizerRegistryModel(builtins=["characters"]))
    qtbot.addWidget(timeline)
    timeline.resize(1000, 360)
    timeline.show()
    if palette is not None:
        timeline.setPalette(palette)
    timeline.set_text(TINY_TEXT)
    model = train_bpe(text=TINY_TEXT, vocab_size=270).tokenizer("tiny")
    with qtbot.waitSignal(timeline.traceReady, timeout=30000):
        timeline.set_tokenizer(model)
    qtbot.waitUntil(timeline.is_ready, timeout=30000)
    return timeline, model


def test_a_tokenizer_without_merges_resets_the_slider_and_the_plot(qtbot) -> None:
    timeline, model = replaying_a_tiny_model(qtbot)
    plot = timeline.plot
    plot.curve_data()  # builds the plot and applies pending data
    assert timeline.playback.total_label.text() == f"/ {model.merge_count}"
    assert plot.text_plot.viewRange()[1][1] > 50  # the text's token count

    timeline.set_tokenizer(load_tokenizer("characters"))
    plot.curve_data()  # builds the plot and applies pending data

    assert "characters" in timeline.pane.message.text()
    assert timeline.playback.total_label.text() == "/ 0"
    assert timeline.playback.slider.maximum() == 0 and timeline.playback.step_box.maximum() == 0
    assert plot.curve_data()[0].size == 0
    assert plot.text_plot.viewRange()[1] == [0.0, 1.0]
    assert plot.text_plot.getAxis("left").labelText == "tokens"


def test_every_axis_title_is_readable_in_the_dark_theme(qtbot) -> None:
    from PySide6.QtGui import QColor

    from tokviz.gui.style.theme import app_palette

    timeline, _model = replaying_a_tiny_model(qtbot, app_palette(True))
    plot = timeline.plot
    plot.curve_data()  # builds the plot and lays out its titles
    plot.apply_palette()
    plot.flush()

    for item in (plot.text_plot, plot.corpus_plot):
        for side in ("left", "bottom", "right"):
            axis = item.getAxis(side)
            if axis.labelText:
                color = QColor(axis.labelStyle.get("color", "#000000"))
                assert color.lightness() > 150, (
                    f"{side} title {axis.labelText!r} is {color.name()} on a dark plot"
                )


def test_the_plot_shows_every_step_after_switching_to_a_model_with_its_history(qtbot) -> None:
    """From GPT-2 (50,000 merges) to a trained model whose history adds the corpus plot: both plots
    show steps 0 to the last, aligned (they once showed 124-959 of 1,047, step 0 off the plot)."""
    corpus = Path(__file__).read_text(encoding="utf-8") * 3
    result = train_bpe(text=corpus, vocab_size=700)
    model = result.tokenizer("trained")
    timeline = TimelineWidget(TokenizerRegistryModel(builtins=["gpt2"]))
    qtbot.addWidget(timeline)
    timeline.resize(1000, 400)
    timeline.show()
    timeline.set_text(corpus[:2000])
    timeline.set_tokenizer_key("gpt2")
    qtbot.waitUntil(timeline.is_ready, timeout=60000)
    plot = timeline.plot
    plot.curve_data()

    timeline.set_tokenizer(model, result.history)
    qtbot.waitUntil(timeline.is_ready, timeout=60000)
    plot.curve_data()
    last = model.merge_count

    def both_plots_span_the_run() -> None:  # the corpus plot appears and is laid out
        assert plot.corpus_plot.isVisible()
        for item in (plot.text_plot, plot.corpus_plot):
            low, high = item.viewRange()[0]
            assert low <= 0 < last <= high and high - low < last * 1.1, (
                item is plot.corpus_plot,
                low,
                high,
                last,
            )

    qtbot.waitUntil(both_plots_span_the_run)


def test_a_trained_models_counts_come_before_the_id_and_empty_columns_are_hidden(qtbot) -> None:
    from tokviz.gui.models.merge_model import COLUMNS, COUNT, ID, TIES

    timeline, model = replaying_a_tiny_model(qtbot)
    table = timeline.table
    header = table.horizontalHeader()
    assert table.isColumnHidden(COUNT) and table.isColumnHidden(TIES), "no history: no empty columns"

    result = train_bpe(text=TINY_TEXT, vocab_size=270)
    timeline.set_tokenizer(result.tokenizer("with history"), result.history)
    qtbot.waitUntil(timeline.is_ready, timeout=30000)

    shown = [
        COLUMNS[header.logicalIndex(v)]
        for v in range(len(COLUMNS))
        if not table.isColumnHidden(header.logicalIndex(v))
    ]
    assert shown[:6] == ["Step", "Merge", "New token", "Count", "Ties", "Id"]
    assert header.visualIndex(ID) > header.visualIndex(TIES)


def test_the_merge_keys_work_from_the_editor_one_merge_or_the_next_change(qtbot, make_window) -> None:
    from .reach import action, docked

    window = make_window(size=(1024, 768))
    timeline = docked(window, "timelineDock", TimelineWidget)
    with qtbot.waitSignal(timeline.traceReady, timeout=30000):
        action(window, "actionLectureDemo").trigger()
    qtbot.waitUntil(timeline.is_ready, timeout=30000)
    timeline.set_step(0)
    qtbot.waitUntil(timeline.is_ready, timeout=10000)
    window.editor.setFocus()
    control, alt = Qt.KeyboardModifier.ControlModifier, Qt.KeyboardModifier.AltModifier
    for key, modifier, step in (
        (Qt.Key.Key_BracketRight, control, 1),  # one merge on
        (Qt.Key.Key_BracketRight, alt, 2),  # the next merge that changes the text (every one here)
        (Qt.Key.Key_BracketLeft, control, 1),  # one merge back
        (Qt.Key.Key_BracketLeft, alt, 0),
    ):
        qtbot.keyClick(window.editor, key, modifier)
        qtbot.waitUntil(lambda step=step: timeline.step == step and timeline.is_ready(), timeout=10000)
