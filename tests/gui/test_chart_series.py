"""The exchange-rate chart's series: the user picks them (remembered), a lossy bar does not set the scale,
every bar keeps a readable value, and up to eight series have colours one can tell apart, light and dark."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QToolButton

from tokviz.core.analysis.exchange import ExchangeTable
from tokviz.gui.drawing.chart_canvas import render_canvas
from tokviz.gui.drawing.chart_style import ChartStyle, byte_color, series_color
from tokviz.gui.models.tokenizers import TokenizerRegistryModel
from tokviz.gui.panels.chart import ExchangeChart
from tokviz.gui.settings import CHART_HIDDEN_SERIES
from tokviz.gui.style.theme import token_colors

from ..texts import HELLO
from .reach import dock

pytestmark = pytest.mark.qt_log_ignore("This plugin does not support raise")


def _lab(colour: QColor) -> np.ndarray:
    rgb = np.array([colour.redF(), colour.greenF(), colour.blueF()])
    lin = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    xyz = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]]) @ lin
    n = xyz / np.array([0.95047, 1.0, 1.08883])
    f = np.where(n > 0.008856, np.cbrt(n), 7.787 * n + 16 / 116)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def delta_e(a: QColor, b: QColor) -> float:
    """CIE76 colour difference: about 2.3 is just noticeable, above 20 two categories."""
    return float(np.linalg.norm(_lab(a) - _lab(b)))


@pytest.mark.parametrize("dark", [False, True])
def test_eight_series_and_the_byte_floor_have_colours_far_apart(dark):
    colours = [series_color(slot, dark) for slot in range(8)] + [byte_color(dark)]
    background = token_colors(dark).base

    closest = min(delta_e(a, b) for a, b in itertools.combinations(colours, 2))

    assert closest >= 25.0
    assert min(delta_e(c, background) for c in colours) >= 40.0


@pytest.fixture
def registry(qtbot, byte_tokenizer, gpt2, cl100k) -> TokenizerRegistryModel:
    model = TokenizerRegistryModel(builtins=("bytes", "gpt2", "cl100k"))
    for key in model.keys():
        model.load_builtin_now(key)
    return model


def test_the_user_picks_which_tokenizers_the_chart_compares(qtbot, registry):
    chart = ExchangeChart(registry)
    qtbot.addWidget(chart)
    chart.resize(1200, 560)
    chart.show()
    chart.set_text(HELLO)
    qtbot.waitUntil(chart.is_ready, timeout=20000)
    button = chart.findChild(QToolButton, "chartSeries")
    assert button is not None and set(chart.table.tokenizers) == {"bytes", "GPT-2", "cl100k"}
    chart.fill_series_menu()
    actions = {a.text(): a for a in button.menu().actions() if a.isCheckable()}
    assert set(actions) == {"bytes", "GPT-2", "cl100k"} and all(a.isChecked() for a in actions.values())

    with qtbot.waitSignal(chart.seriesChanged):
        actions["cl100k"].trigger()

    qtbot.waitUntil(lambda: chart.is_ready() and "cl100k" not in chart.table.tokenizers, timeout=20000)
    assert chart.hidden_series() == ["cl100k"]


def test_the_chosen_series_are_remembered(qtbot, make_window):
    window = make_window(size=(1280, 800))
    chart = dock(window, "exchangeChartDock").widget()
    chart.set_hidden_series(["words", "characters"])

    assert sorted(window.settings.get(CHART_HIDDEN_SERIES)) == ["characters", "words"]

    from tokviz.gui.window.main_window import MainWindow

    second = MainWindow(window.settings)
    qtbot.addWidget(second)
    assert sorted(dock(second, "exchangeChartDock").widget().hidden_series()) == ["characters", "words"]
    second.close()


def _lossy_table(gpt2) -> ExchangeTable:
    from tokviz.core.bpe.lecture_tokenizers import WordTokenizer

    words = WordTokenizer.from_text("hello there")
    chinese = "你好世界今天天气很好我们学习分词器" * 3  # one unknown word: one <unk> for 153 bytes
    return ExchangeTable.measure(
        {"Chinese": chinese, "English": "hello there hello there"}, [gpt2, words], names=["GPT-2", "words"]
    )


def test_a_lossy_bar_does_not_set_the_scale_and_keeps_its_value_in_its_label(qtbot, gpt2):
    table = _lossy_table(gpt2)
    lossy = table.bytes_per_token(0, 1)
    honest = max(table.bytes_per_token(i, 0) for i in range(2))
    assert table.metric(0, 1).unknown and lossy > 3 * honest

    canvas = render_canvas(table, style=ChartStyle(dark=False, large=False))
    qtbot.addWidget(canvas)

    y_top = canvas.plot.vb.viewRange()[1][1]
    assert y_top < lossy / 2, "the scale is the honest bars', not the lossy one's"
    drawn = canvas.bar_heights()["words"][0]
    assert drawn < y_top
    assert canvas.bars.clipped == [(0, 1, pytest.approx(lossy))]
    label = next(
        label
        for label, (_x0, _x1, _h, i, j) in zip(canvas.bars.labels, canvas.bars.geometry)
        if (i, j) == (0, 1)
    )
    assert label.isVisible() and f"{lossy:.1f}" in label.textItem.toPlainText()


def test_crowded_bars_keep_their_values_turned_on_their_side(qtbot, gpt2, cl100k, byte_tokenizer):
    texts = {f"input {k}": "Hello, world! " * (k + 1) for k in range(8)}
    table = ExchangeTable.measure(texts, [gpt2, cl100k, gpt2, cl100k, gpt2], names=["a", "b", "c", "d", "e"])
    from PySide6.QtCore import QSize

    canvas = render_canvas(table, style=ChartStyle(large=True), size=QSize(900, 420))
    qtbot.addWidget(canvas)

    shown = [label for label in canvas.bars.labels[: len(canvas.bars.geometry)] if label.isVisible()]
    assert len(shown) == len(canvas.bars.geometry) == 40
    assert all(math.isclose(label.angle, 90) for label in shown)


@pytest.mark.parametrize("height", [300, 420, 540])
def test_a_cut_bar_keeps_its_label_inside_a_short_plot_in_a_large_font(qtbot, gpt2, height):
    from PySide6.QtCore import QSize

    from tokviz.gui.window.layout_plots import plot_text_problems

    canvas = render_canvas(_lossy_table(gpt2), style=ChartStyle(large=True), size=QSize(400, height))
    qtbot.addWidget(canvas)

    assert canvas.bars.label_angle == 90, "narrow bars: values on their side"
    outside = [p for p in plot_text_problems(canvas.graphics) if p.kind == "outside plot"]
    assert not outside, outside
