"""After a tokenizer the timeline can replay, picking one it cannot (characters) says why and
leaves no stale numbers: the slider reads "/ 0", the plot is empty with fresh ranges."""

from __future__ import annotations

from pathlib import Path

from tokviz.core.registry import load_tokenizer
from tokviz.core.tokenizer import Tokenizer
from tokviz.core.train import train_bpe
from tokviz.gui.models.tokenizers import TokenizerRegistryModel
from tokviz.gui.panels.timeline.panel import TimelineWidget

TEXT = "the cat in the hat sat on the mat " * 4


def replaying_a_tiny_model(qtbot, palette=None) -> tuple[TimelineWidget, Tokenizer]:
    """A shown timeline replaying a model trained on ``TEXT`` (``palette``: the window's, e.g. dark)."""
    timeline = TimelineWidget(TokenizerRegistryModel(builtins=["characters"]))
    qtbot.addWidget(timeline)
    timeline.resize(1000, 360)
    timeline.show()
    if palette is not None:
        timeline.setPalette(palette)
    timeline.set_text(TEXT)
    model = train_bpe(text=TEXT, vocab_size=270).tokenizer("tiny")
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
    qtbot.wait(100)  # the corpus plot appears and is laid out

    last = model.merge_count
    for item in (plot.text_plot, plot.corpus_plot):
        low, high = item.viewRange()[0]
        assert low <= 0 < last <= high and high - low < last * 1.1, (
            item is plot.corpus_plot,
            low,
            high,
            last,
        )
    assert plot.corpus_plot.isVisible()


def test_a_trained_models_counts_come_before_the_id_and_empty_columns_are_hidden(qtbot) -> None:
    from tokviz.gui.models.merge_model import COLUMNS, COUNT, ID, TIES

    timeline, model = replaying_a_tiny_model(qtbot)
    table = timeline.table
    header = table.horizontalHeader()
    assert table.isColumnHidden(COUNT) and table.isColumnHidden(TIES), "no history: no empty columns"

    result = train_bpe(text=TEXT, vocab_size=270)
    timeline.set_tokenizer(result.tokenizer("with history"), result.history)
    qtbot.waitUntil(timeline.is_ready, timeout=30000)

    shown = [
        COLUMNS[header.logicalIndex(v)]
        for v in range(len(COLUMNS))
        if not table.isColumnHidden(header.logicalIndex(v))
    ]
    assert shown[:6] == ["Step", "Merge", "New token", "Count", "Ties", "Id"]
    assert header.visualIndex(ID) > header.visualIndex(TIES)
