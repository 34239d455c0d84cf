"""After a tokenizer the timeline can replay, picking one it cannot (characters) says why and
leaves no stale numbers: the slider reads "/ 0", the plot is empty with fresh ranges."""

from __future__ import annotations

from tokviz.core.registry import load_tokenizer
from tokviz.core.train import train_bpe
from tokviz.gui.models.tokenizers import TokenizerRegistryModel
from tokviz.gui.panels.timeline.panel import TimelineWidget

TEXT = "the cat in the hat sat on the mat " * 4


def test_a_tokenizer_without_merges_resets_the_slider_and_the_plot(qtbot) -> None:
    timeline = TimelineWidget(TokenizerRegistryModel(builtins=["characters"]))
    qtbot.addWidget(timeline)
    timeline.resize(1000, 360)
    timeline.show()
    timeline.set_text(TEXT)
    model = train_bpe(text=TEXT, vocab_size=270).tokenizer("tiny")
    with qtbot.waitSignal(timeline.traceReady, timeout=30000):
        timeline.set_tokenizer(model)
    qtbot.waitUntil(timeline.is_ready, timeout=30000)
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

    timeline = TimelineWidget(TokenizerRegistryModel(builtins=["characters"]))
    qtbot.addWidget(timeline)
    timeline.resize(1000, 360)
    timeline.show()
    timeline.setPalette(app_palette(True))
    timeline.set_text(TEXT)
    model = train_bpe(text=TEXT, vocab_size=270).tokenizer("tiny")
    with qtbot.waitSignal(timeline.traceReady, timeout=30000):
        timeline.set_tokenizer(model)
    qtbot.waitUntil(timeline.is_ready, timeout=30000)
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
