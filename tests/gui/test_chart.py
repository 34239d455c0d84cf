"""The exchange-rate chart: its bars are the core's metrics, it follows new tokenizers, it exports."""

from __future__ import annotations

import csv
import math
from pathlib import Path
from xml.dom import minidom

import pytest
from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer
from PySide6.QtWidgets import QComboBox, QDockWidget, QWidget

from tokviz.core.analysis.exchange import ExchangeTable, caption, format_factor
from tokviz.core.analysis.metrics import TextMetrics, attention_multiplier
from tokviz.core.bpe.tokenizer import Tokenizer
from tokviz.gui.drawing.chart_canvas import render_canvas
from tokviz.gui.drawing.chart_style import EDITOR_LABEL, EXPORT_SIZE, ChartStyle, byte_color, sample_inputs
from tokviz.gui.drawing.svg_flatten import flatten_svg
from tokviz.gui.models.tokenizers import TokenizerRegistryModel
from tokviz.gui.panels.chart import ExchangeChart
from tokviz.gui.style.theme import token_colors

from ..texts import CAT, HELLO
from .reach import menu
from .waiting import settled

pytestmark = pytest.mark.qt_log_ignore("This plugin does not support raise")


@pytest.fixture
def registry(qtbot, byte_tokenizer, gpt2, cl100k) -> TokenizerRegistryModel:
    model = TokenizerRegistryModel(builtins=("bytes", "gpt2", "cl100k"))
    for key in model.keys():
        model.load_builtin_now(key)
    return model


@pytest.fixture
def chart(qtbot, registry) -> ExchangeChart:
    widget = ExchangeChart(registry)
    qtbot.addWidget(widget)
    widget.resize(1200, 560)
    widget.show()
    widget.set_text(HELLO)
    qtbot.waitUntil(widget.is_ready, timeout=20000)
    return widget


def expected_inputs() -> dict[str, str]:
    return {EDITOR_LABEL: HELLO, **{s.label: s.text for s in sample_inputs()}}


def test_the_panel_has_its_name_and_the_five_samples(chart: ExchangeChart) -> None:
    assert chart.objectName() == "compareChart"
    assert isinstance(chart.findChild(QComboBox, "chartViewPicker"), QComboBox)
    assert chart.table is not None
    assert chart.table.inputs == (
        EDITOR_LABEL,
        "English prose",
        "Python source",
        "JSON",
        "Chinese",
        "Digits (π)",
    )
    assert chart.table.tokenizers == ("bytes", "GPT-2", "cl100k")


def test_bar_heights_are_the_core_bytes_per_token(
    chart: ExchangeChart, gpt2: Tokenizer, cl100k: Tokenizer
) -> None:
    heights = chart.canvas.bar_heights()

    assert list(heights) == ["GPT-2", "cl100k"]  # bytes is the floor line, not bars
    for name, tok in (("GPT-2", gpt2), ("cl100k", cl100k)):
        assert heights[name] == [
            TextMetrics.of(tok, text).bytes_per_token for text in expected_inputs().values()
        ]
    assert heights["GPT-2"][0] == 20 / 12  # the lecture's demo string


def test_the_byte_tokenizer_is_the_floor_at_exactly_one(chart: ExchangeChart) -> None:
    table = chart.table
    assert table is not None

    assert chart.canvas.floor_level() == 1.0
    assert {table.bytes_per_token(i, 0) for i in range(len(table.inputs))} == {1.0}


def test_attention_view_shows_the_squared_length_ratio(
    chart: ExchangeChart, byte_tokenizer, gpt2, cl100k
) -> None:
    chart.set_view("attention")

    heights = chart.canvas.bar_heights()
    assert list(heights) == ["bytes", "GPT-2", "cl100k"]
    for i, text in enumerate(expected_inputs().values()):
        counts = [len(tok.encode(text)) for tok in (byte_tokenizer, gpt2, cl100k)]
        best = min(counts)
        assert [heights[name][i] for name in heights] == [attention_multiplier(n, best) for n in counts]
    assert "(n / n<sub>best</sub>)²" in chart.canvas.plot_title()


def test_vocabulary_view_plots_v_times_d(qtbot, chart: ExchangeChart) -> None:
    chart.set_view("vocab")
    chart.dim_spin.setValue(1024)

    assert chart.dim_spin.isVisible()
    table = chart.table
    assert table is not None
    names = [name for name, _at in chart.canvas.mark_scene_positions()]
    assert names == ["bytes", "GPT-2", "cl100k"]
    text = chart.canvas.describe_point(1)
    assert "V × d = 50,257 × 1,024 = 51,463,168 parameters" in text
    assert f"{table.overall_bytes_per_token(1):.2f} bytes per token over all inputs" in text
    gpt2_at = dict(chart.canvas.mark_scene_positions())["GPT-2"]
    chart.canvas.graphics.scene().sigMouseMoved.emit(gpt2_at + QPointF(3, -2))
    assert chart.canvas.hover_html == text
    assert "d = 1,024" in chart.canvas.plot_title()
    assert chart.canvas.caption.text().startswith("At d = 1,024, cl100k")


def test_the_caption_is_computed_from_the_table(chart: ExchangeChart) -> None:
    table = chart.table
    assert table is not None
    spread = table.spread(table.tokenizers.index("GPT-2"))
    assert spread is not None

    assert chart.canvas.caption.text() == caption(table)
    assert f"Chinese needs {format_factor(spread.token_ratio)}× as many tokens per byte" in caption(table)


def test_the_caption_states_what_tiktoken_counts(chart: ExchangeChart, gpt2_tiktoken) -> None:
    """The sentence under the chart, checked against GPT-2's published encoding, not against tokviz."""
    bytes_per_token = {
        label: len(text.encode("utf-8")) / len(gpt2_tiktoken.encode(text, disallowed_special=()))
        for label, text in expected_inputs().items()
    }
    dearest = min(bytes_per_token, key=bytes_per_token.__getitem__)
    cheapest = max(bytes_per_token, key=bytes_per_token.__getitem__)
    ratio = bytes_per_token[cheapest] / bytes_per_token[dearest]
    assert (dearest, cheapest) == ("Chinese", "English prose")
    assert chart.canvas.caption.text() == (
        f"With GPT-2, Chinese needs {ratio:.1f}× as many tokens per byte as English prose "
        f"({bytes_per_token[dearest]:.2f} vs {bytes_per_token[cheapest]:.2f} bytes/token) "
        f"→ {ratio**2:.1f}× the attention compute, and a context window fits {ratio:.1f}× fewer of its bytes."
    )


def test_adding_a_trained_tokenizer_adds_a_series(
    qtbot, chart: ExchangeChart, registry, tiny_bpe: Tokenizer
) -> None:
    with qtbot.waitSignal(chart.tableChanged, timeout=20000):
        registry.add_tokenizer("tiny", tiny_bpe)
    qtbot.waitUntil(chart.is_ready, timeout=20000)

    heights = chart.canvas.bar_heights()
    assert list(heights) == ["GPT-2", "cl100k", "tiny"]
    assert heights["tiny"] == [
        TextMetrics.of(tiny_bpe, text).bytes_per_token for text in expected_inputs().values()
    ]
    colors = {chart.canvas.color_of(j).name() for j in range(3)}
    assert len(colors) == 3 and byte_color(False).name() not in {
        chart.canvas.color_of(j).name() for j in (1, 2, 3)
    }


def test_the_chart_follows_the_text_after_a_pause(qtbot, chart: ExchangeChart, gpt2: Tokenizer) -> None:
    chart.set_text(CAT)
    chart.set_text("the cat in the hat sat on the mat")
    qtbot.waitUntil(chart.is_ready, timeout=20000)

    assert (
        chart.canvas.bar_heights()["GPT-2"][0]
        == TextMetrics.of(gpt2, "the cat in the hat sat on the mat").bytes_per_token
    )


def test_empty_text_shows_a_hint_not_a_division_by_zero(qtbot, chart: ExchangeChart) -> None:
    chart.set_samples_shown(False)
    chart.set_text("")
    qtbot.waitUntil(chart.is_ready, timeout=20000)

    assert chart.table is not None and chart.table.empty
    assert chart.canvas.bar_heights() == {}
    assert chart.canvas.hint.toPlainText().startswith("Nothing to measure yet")
    assert chart.canvas.caption.text().startswith("Nothing to measure yet")
    for view in ("attention", "vocab"):
        chart.set_view(view)
        assert chart.canvas.bar_heights() == {}


def test_an_empty_editor_leaves_a_gap_among_the_samples(qtbot, chart: ExchangeChart) -> None:
    chart.set_text("")
    qtbot.waitUntil(chart.is_ready, timeout=20000)

    heights = chart.canvas.bar_heights()
    assert math.isnan(heights["GPT-2"][0])
    assert all(not math.isnan(h) for h in heights["GPT-2"][1:])


def test_hover_shows_the_exact_numbers(chart: ExchangeChart) -> None:
    canvas = chart.canvas
    table = chart.table
    assert table is not None
    x0, x1, height, i, j = next(g for g in canvas.bars.geometry if g[3] == 0 and g[4] == 1)
    scene = canvas.plot.vb.mapViewToScene(QPointF((x0 + x1) / 2, height / 2))

    canvas.graphics.scene().sigMouseMoved.emit(scene)

    assert canvas.hover_html is not None
    assert "<b>GPT-2</b> on <b>Editor text</b>" in canvas.hover_html
    assert "20 bytes (13 code points) → 12 tokens" in canvas.hover_html
    assert "1.67 bytes per token" in canvas.hover_html
    fewest = table.fewest_tokens(0)
    assert f"attention cost ×{attention_multiplier(12, fewest):.2f} = (12 / {fewest})²" in canvas.hover_html
    assert canvas.describe_at(-0.45, 0.01) is None


def test_added_files_become_groups(qtbot, chart: ExchangeChart, tmp_path: Path) -> None:
    notes = tmp_path / "notes.md"
    notes.write_text("# Notes\n\nBytes per token is the exchange rate.\n", encoding="utf-8")

    chart.add_file(notes)
    chart.add_file(notes)
    qtbot.waitUntil(chart.is_ready, timeout=20000)

    assert chart.table is not None
    assert chart.table.inputs[-2:] == ("notes.md", "notes.md (2)")
    chart.remove_files()
    qtbot.waitUntil(chart.is_ready, timeout=20000)
    assert "notes.md" not in chart.table.inputs


def test_exports_write_valid_png_svg_and_csv(chart: ExchangeChart, tmp_path: Path) -> None:
    png = chart.export_png(tmp_path / "chart.png")
    png2 = chart.export_png(tmp_path / "chart@2x.png", 2.0)
    svg = chart.export(tmp_path / "chart.svg", "svg")
    table_csv = chart.export(tmp_path / "chart.csv", "csv")

    assert png.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    assert QImage(str(png)).size() == EXPORT_SIZE
    assert QImage(str(png2)).size() == EXPORT_SIZE * 2
    assert QSvgRenderer(str(svg)).isValid()
    doc = minidom.parse(str(svg))
    texts = " ".join(t.firstChild.data for t in doc.getElementsByTagName("text") if t.firstChild)
    assert "GPT-2" in texts and "Chinese" in texts and "1.67" in texts
    assert "non-scaling-stroke" not in svg.read_text(encoding="utf-8")
    assert not doc.getElementsByTagName("image")
    with table_csv.open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    assert chart.table is not None
    assert len(rows) == len(chart.table.inputs) * len(chart.table.tokenizers)
    demo_gpt2 = next(r for r in rows if r["input"] == EDITOR_LABEL and r["tokenizer"] == "GPT-2")
    # Rounded as `tokviz compare --format csv` rounds them (the same columns too).
    assert (demo_gpt2["bytes"], demo_gpt2["tokens"], demo_gpt2["bytes_per_token"]) == ("20", "12", "1.667")


def test_exports_follow_the_theme(qtbot, chart: ExchangeChart, tmp_path: Path) -> None:
    from tokviz.gui.style.theme import app_palette

    chart.setPalette(app_palette(True))
    assert chart.canvas.style_.dark

    image = QImage(str(chart.export_png(tmp_path / "dark.png")))
    assert QColor(image.pixel(2, 2)) == token_colors(True).base


def test_large_text_is_bigger(chart: ExchangeChart) -> None:
    normal = chart.canvas.caption.font().pointSizeF()
    chart.set_large_text(True)
    assert chart.canvas.caption.font().pointSizeF() > normal * 1.4


def test_a_canvas_renders_offscreen_without_a_panel(qtbot, byte_tokenizer, gpt2) -> None:
    table = ExchangeTable.measure({"demo": HELLO}, [byte_tokenizer, gpt2])
    canvas = render_canvas(table, style=ChartStyle(dark=False, large=True))
    qtbot.addWidget(canvas)

    assert canvas.size() == EXPORT_SIZE
    assert canvas.bar_heights() == {"GPT-2": [20 / 12]}
    assert canvas.title.isVisible()


def test_svg_flattening_bakes_plot_coordinates_into_pixels() -> None:
    svg = (
        b'<svg xmlns="http://www.w3.org/2000/svg"><g transform="matrix(100,0,0,-50,10,200)">'
        b'<rect vector-effect="non-scaling-stroke" x="0" y="0" width="0.5" height="2"/>'
        b'<path vector-effect="non-scaling-stroke" d="M-0.5,1 L0.5,1 "/></g>'
        b'<g transform="matrix(1,0,0,1,3,4)"><text>kept</text></g></svg>'
    )
    doc = minidom.parseString(flatten_svg(svg))
    rect = doc.getElementsByTagName("rect")[0]
    assert [rect.getAttribute(a) for a in ("x", "y", "width", "height")] == ["10", "100", "50", "100"]
    assert doc.getElementsByTagName("path")[0].getAttribute("d") == "M-40,150 L60,150 "
    groups = doc.getElementsByTagName("g")
    assert groups[0].getAttribute("transform") == "matrix(1,0,0,1,0,0)"
    assert groups[1].getAttribute("transform") == "matrix(1,0,0,1,3,4)"


def test_the_window_has_a_chart_dock_in_the_view_menu(qtbot) -> None:
    from tokviz.gui import MainWindow

    window = MainWindow()
    qtbot.addWidget(window)
    window.resize(1280, 900)
    window.show()
    qtbot.waitUntil(window.is_ready, timeout=20000)
    dock = window.findChild(QDockWidget, "exchangeChartDock")
    assert isinstance(dock, QDockWidget) and not dock.isVisible()
    action = dock.toggleViewAction()
    assert action in menu(window, "viewMenu").actions()
    assert action.shortcut().toString() == "Ctrl+Shift+B"

    action.trigger()
    chart = window.findChild(QWidget, "compareChart")
    assert isinstance(chart, ExchangeChart) and dock.isVisible()
    window.set_text(CAT)
    qtbot.waitUntil(lambda: chart.is_ready() and chart.inputs()[0].text == CAT, timeout=20000)
    assert chart.table is not None
    assert chart.table.metric(0, chart.table.tokenizers.index("GPT-2")).bytes == 18
    window.close()


def x_axis_labels(chart: ExchangeChart) -> tuple[list[tuple[QRectF, str]], QRectF]:
    """The rectangles and texts pyqtgraph draws under the bars, and the axis's own rectangle."""
    axis = chart.canvas.plot.getAxis("bottom")
    image = QImage(10, 10, QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    _axis, _ticks, texts = axis.generateDrawSpecs(painter)
    painter.end()
    return [(rect, text) for rect, _flags, text in texts], axis.boundingRect()


def test_docked_x_labels_never_overlap_at_any_width(qtbot, chart: ExchangeChart) -> None:
    inputs = len(chart.table.inputs)
    for width, height in [(w, h) for w in range(360, 1500, 40) for h in (340, 480)]:
        chart.resize(width, height)
        labels, axis = settled(qtbot, lambda: x_axis_labels(chart))
        for k, (rect, text) in enumerate(labels):
            assert axis.left() - 1 <= rect.left() and rect.right() <= axis.right() + 1, (width, text)
            for other, other_text in labels[k + 1 :]:
                assert not rect.intersects(other), f"at {width} px {text!r} runs into {other_text!r}"
        assert len(labels) == inputs, f"at {width} px only {[t for _r, t in labels]} are labelled"
        caption, graphics = chart.canvas.caption.geometry(), chart.canvas.graphics.geometry()
        assert not caption.intersects(graphics), f"at {width} px the summary runs into the plot"
        if width >= 800:
            assert labels[1][1] == "English prose\n2,169 bytes", "wide enough for the whole label"


def test_the_summary_compares_the_samples_not_whatever_the_editor_holds(qtbot, chart: ExchangeChart) -> None:
    chart.set_text("a" * 4000)  # GPT-2 packs this into very few tokens: the "cheapest" input
    qtbot.waitUntil(lambda: chart.is_ready() and chart.inputs()[0].text == "a" * 4000, timeout=20000)
    summary = chart.canvas.caption.text()
    assert "Editor text" not in summary and "as English prose" in summary, summary
    chart.set_samples_shown(False)  # with nothing else to compare, the editor's text is measured
    qtbot.waitUntil(lambda: chart.is_ready() and len(chart.table.inputs) == 1, timeout=20000)
    assert chart.canvas.caption.text().startswith("On Editor text")


def test_a_bar_that_lost_text_to_unk_is_hatched_and_says_so(qtbot, gpt2) -> None:
    from PySide6.QtCore import Qt

    from tokviz.core.bpe.lecture_tokenizers import WordTokenizer

    words = WordTokenizer.from_text("hello there")
    table = ExchangeTable.measure(
        {"chinese": "你好世界 hello there", "english": "hello there"}, [words, gpt2], names=["words", "GPT-2"]
    )
    canvas = render_canvas(table, style=ChartStyle(dark=False, large=False))
    qtbot.addWidget(canvas)
    columns = canvas.bar_columns()
    words_bars = canvas.bars.items[columns.index(0)]
    gpt2_bars = canvas.bars.items[columns.index(1)]

    styles = [b.style() for b in words_bars.opts["brushes"]]
    assert styles == [Qt.BrushStyle.BDiagPattern, Qt.BrushStyle.SolidPattern], "lossy on Chinese only"
    assert {b.style() for b in gpt2_bars.opts["brushes"]} == {Qt.BrushStyle.SolidPattern}
    lost = table.metric(0, 0)
    assert f"<b>lossy:</b> {lost.unknown} of the {lost.tokens} tokens are &lt;unk&gt;" in canvas.describe_bar(
        0, 0
    )
    assert "lossy" not in canvas.describe_bar(1, 0)
    assert "lossy" in canvas.bars.label_texts[0][0] and "lossy" not in canvas.bars.label_texts[1][0]
    assert "▨</span>&nbsp;lossy: text lost to &lt;unk&gt; or a normalizer" in canvas.legend.text(), (
        "the key stays when labels cannot"
    )


def test_a_short_chart_keeps_its_plot_and_shows_the_summary_whole_or_in_a_tooltip(
    qtbot, byte_tokenizer, gpt2
) -> None:
    """Docked in presentation mode at 768 px the chart is ~300 px tall: the summary once showed only
    its last word, cut, under the axis title. Now it shows whole or moves to the legend's tooltip,
    the input names take one line and the y title its short form."""
    table = ExchangeTable.measure({s.label: s.text for s in sample_inputs()}, [byte_tokenizer, gpt2])
    canvas = render_canvas(table, style=ChartStyle(dark=False, large=True))
    qtbot.addWidget(canvas)
    canvas.show()
    assert canvas.caption.isVisible() and canvas.legend.toolTip() == "", "an export has room for everything"

    canvas.resize(1000, 290)
    qtbot.waitUntil(lambda: canvas.caption.isHidden(), timeout=3000)
    assert canvas.legend.toolTip() == canvas.caption.text() != ""
    ticks = canvas.plot.getAxis("bottom")._tickLevels[0]
    assert all("\n" not in text for _x, text in ticks), ticks
    assert canvas.plot.getAxis("left").labelText == "bytes/token"

    canvas.resize(1000, 700)
    qtbot.waitUntil(lambda: canvas.caption.isVisible(), timeout=3000)
    assert canvas.plot.getAxis("left").labelText == "bytes per token"
