"""The chart's words promise only what it draws: axis titles follow the labels shown, titles fit, the
vocabulary view's labels stay clear, and a chart still loading says so."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QRectF, QSize
from PySide6.QtGui import QFont, QFontMetricsF

from tokviz.core.analysis.exchange import ExchangeTable
from tokviz.gui.drawing.chart_canvas import ChartCanvas, render_canvas
from tokviz.gui.drawing.chart_style import EDITOR_LABEL, ChartStyle, sample_inputs
from tokviz.gui.drawing.chart_text import EMPTY_HINT
from tokviz.gui.models.tokenizers import TokenizerRegistryModel
from tokviz.gui.panels.chart import ExchangeChart

from ..texts import HELLO

pytestmark = pytest.mark.qt_log_ignore("This plugin does not support raise")
PROJECTOR_DOCK = QSize(1024, 330)  # the chart docked in presentation mode at 1024 × 768
WIDE = QSize(2400, 900)


@pytest.fixture(scope="module")
def table(gpt2, cl100k, byte_tokenizer) -> ExchangeTable:
    from tokviz.core.bpe.lecture_tokenizers import CharacterTokenizer, WordTokenizer
    from tokviz.core.formats.registry import load_tokenizer

    texts = {EDITOR_LABEL: HELLO, **{s.label: s.text for s in sample_inputs()}}
    o200k = load_tokenizer("o200k")
    toks = [byte_tokenizer, gpt2, cl100k, o200k, CharacterTokenizer(), WordTokenizer.from_text("hello there")]
    return ExchangeTable.measure(texts, toks, ["bytes", "GPT-2", "cl100k", "o200k", "characters", "words"])


def _canvas(qtbot, table, view: str, size: QSize, large: bool = True) -> ChartCanvas:
    canvas = render_canvas(table, view=view, style=ChartStyle(large=large), size=size)
    qtbot.addWidget(canvas)
    return canvas


def _bottom_title(canvas: ChartCanvas) -> str:
    return canvas.plot.getAxis("bottom").labelText


def test_the_attention_view_names_token_counts_only_when_its_labels_show_them(qtbot, table):
    crowded = _canvas(qtbot, table, "attention", PROJECTOR_DOCK)
    roomy = _canvas(qtbot, table, "attention", WIDE, large=False)

    assert crowded.bars.label_angle == 90 and "token count" not in _bottom_title(crowded)
    assert "cost multiplier" in _bottom_title(crowded)
    assert roomy.bars.label_angle == 0 and "then token count" in _bottom_title(roomy)
    assert any(f"{table.tokens(0, 1):,}" in t[0] for t in roomy.bars.label_texts)


def test_the_bytes_view_names_the_inputs_sizes_only_when_its_ticks_show_them(qtbot, table):
    crowded = _canvas(qtbot, table, "bytes", PROJECTOR_DOCK)
    roomy = _canvas(qtbot, table, "bytes", WIDE, large=False)

    ticks = [t for _x, t in crowded.plot.getAxis("bottom")._tickLevels[0]]
    assert not any("bytes" in t for t in ticks) and "UTF-8 bytes" not in _bottom_title(crowded)
    roomy_ticks = [t for _x, t in roomy.plot.getAxis("bottom")._tickLevels[0]]
    assert all("bytes" in t for t in roomy_ticks) and "UTF-8 bytes" in _bottom_title(roomy)


@pytest.mark.parametrize("view", ["bytes", "attention", "vocab"])
def test_the_y_title_fits_beside_a_short_plot(qtbot, table, view):
    canvas = _canvas(qtbot, table, view, PROJECTOR_DOCK)
    axis = canvas.plot.getAxis("left")
    font = QFont()
    font.setPointSizeF(float(axis.labelStyle["font-size"].removesuffix("pt")))

    assert QFontMetricsF(font).horizontalAdvance(axis.labelText) <= canvas.plot.vb.height()


def test_vocabulary_labels_stay_in_the_plot_and_off_the_other_markers(qtbot, table):
    canvas = _canvas(qtbot, table, "vocab", PROJECTOR_DOCK)
    area = canvas.plot.vb.sceneBoundingRect()
    markers = canvas.mark_scene_positions()
    radius = 7.0
    named = [label for (item, label) in canvas.vocab.marks if item.isVisible() and label.isVisible()]
    assert len(named) >= 3, "the others are named by the legend, in their colours"

    for (item, label), j in zip(canvas.vocab.marks, canvas.vocab.columns):
        if not (item.isVisible() and label.isVisible()):
            continue
        box = label.mapRectToScene(label.boundingRect())
        assert area.adjusted(-1, -1, 1, 1).contains(box), table.tokenizers[j]
        for name, at in markers:
            if name != table.tokenizers[j]:
                mark = QRectF(at.x() - radius, at.y() - radius, 2 * radius, 2 * radius)
                assert not box.intersects(mark), (table.tokenizers[j], name)


def test_a_chart_waiting_for_its_tokenizers_says_measuring_not_nothing_to_measure(qtbot, byte_tokenizer):
    registry = TokenizerRegistryModel(builtins=("bytes", "gpt2"))
    registry.load_builtin_now("bytes")
    registry.ensure_loaded = lambda key: None  # GPT-2 stays on its way
    chart = ExchangeChart(registry)
    qtbot.addWidget(chart)
    chart.resize(900, 420)
    chart.set_hidden_series(["bytes"])
    chart.show()
    chart.set_text(HELLO)

    qtbot.waitUntil(lambda: chart.table is not None, timeout=20000)

    assert chart.canvas.hint.toPlainText() == "Measuring…" != EMPTY_HINT


@pytest.mark.parametrize("view", ["bytes", "attention", "vocab"])
def test_the_conclusion_stays_on_screen_in_a_chart_docked_at_a_projectors_size(qtbot, table, view):
    canvas = render_canvas(
        table, view=view, style=ChartStyle(large=True), size=PROJECTOR_DOCK, show_title=False
    )
    qtbot.addWidget(canvas)

    assert canvas.caption.isVisible()
    assert canvas.caption.geometry().bottom() <= canvas.height()
    assert canvas.graphics.height() >= canvas.graphics.minimumHeight() >= 150


def centred_along_its_axis(axis) -> bool:  # noqa: ANN001 - a pyqtgraph AxisItem
    title = axis.label.mapRectToScene(axis.label.boundingRect())
    along = axis.mapRectToScene(axis.boundingRect())
    return (
        along.top() <= title.top()
        and title.bottom() <= along.bottom()
        and (abs(title.center().y() - along.center().y()) <= 2)
    )


@pytest.mark.parametrize("view", ["bytes", "attention", "vocab"])
def test_a_new_y_title_is_centred_along_its_axis_not_left_where_the_old_one_was(qtbot, table, view):
    canvas = _canvas(qtbot, table, view, QSize(1024, 420), large=False)
    axis = canvas.plot.getAxis("left")
    assert centred_along_its_axis(axis), axis.labelText
    # A title changed with the axis's size unchanged (a view switched, a short form chosen).
    for title in ("attention cost (×)", "cost (×)", "bytes per token, all inputs"):
        canvas.set_axis_labels(title, "input")
        assert centred_along_its_axis(axis), title


def test_the_docks_title_names_the_view_shown(qtbot, make_window):
    from .reach import dock

    window = make_window(size=(1024, 768))
    chart_dock = dock(window, "exchangeChartDock")
    chart_dock.show()
    chart = chart_dock.widget()
    assert chart_dock.windowTitle() == "Exchange rate: bytes per token"
    chart.set_view("attention")
    assert chart_dock.windowTitle() == "Exchange rate: attention cost"
    chart.set_view("vocab")
    assert chart_dock.windowTitle() == "Exchange rate: vocabulary vs embedding size"


@pytest.mark.parametrize("large", [True, False], ids=["presentation", "normal"])
@pytest.mark.parametrize("view", ["bytes", "attention"])
def test_a_tick_at_the_very_top_of_the_plot_keeps_its_label_whole(qtbot, table, view, large):
    from tokviz.gui.window.layout_plots import axis_problems

    canvas = _canvas(qtbot, table, view, PROJECTOR_DOCK, large=large)
    axis = canvas.plot.getAxis("left")
    # Data whose range ends on a round number: the top of the range is the highest labelled tick.
    top = canvas.plot.vb.viewRange()[1][1]
    _spacing, labelled = axis.tickValues(0, top, axis.height())[0]
    highest = max(labelled)
    canvas.plot.setYRange(0, highest, padding=0)

    problems = axis_problems(axis, canvas.graphics, "chart")
    assert not [p for p in problems if p.kind == "outside plot"], problems
