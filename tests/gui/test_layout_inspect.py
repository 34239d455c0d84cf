"""The layout inspector finds what a window shows cut off, and only that.

Each test builds the smallest widget that shows one defect (a label narrower than its text, a
number elided in a table cell, a token box broken across lines) next to its fixed form, and checks
that :func:`layout_problems` names the first and not the second. The real window is checked at
projector sizes by tests/journeys/test_layout_check.py with these same functions.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QStandardItem, QStandardItemModel
from PySide6.QtWidgets import (
    QComboBox,
    QGraphicsScene,
    QGraphicsView,
    QLabel,
    QPushButton,
    QTableView,
    QWidget,
)

from tokviz.gui.text.token_table import TokenTable
from tokviz.gui.widgets.elided import ElidedLabel
from tokviz.gui.widgets.fitted_columns import FittingDelegate
from tokviz.gui.widgets.highlighter import Box
from tokviz.gui.widgets.token_view import TokenView
from tokviz.gui.window.layout_inspect import layout_problems, shown
from tokviz.gui.window.layout_problem import cuts_a_number


def shown_alone(qtbot, widget: QWidget, width: int, height: int) -> QWidget:
    """``widget`` as a window of its own, ``width`` × ``height`` pixels, on screen."""
    qtbot.addWidget(widget)
    widget.resize(width, height)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def placed(widget: QWidget, x: int, y: int, width: int, height: int) -> QWidget:
    """``widget`` shown at ``(x, y)`` in its (already shown) parent, ``width`` × ``height`` pixels."""
    widget.setGeometry(x, y, width, height)
    widget.show()
    return widget


def kinds(widget: QWidget) -> list[tuple[str, str]]:
    return [(p.kind, p.text) for p in layout_problems(widget)]


def test_a_label_narrower_than_its_text_is_clipped_and_a_wide_one_is_not(qtbot):
    box = shown_alone(qtbot, QWidget(), 300, 100)
    narrow = QLabel("1,234,567 tokens counted", box)
    placed(narrow, 0, 0, 60, 30)
    wide = QLabel("1,234,567 tokens counted", box)
    placed(wide, 0, 40, 290, 30)

    problems = layout_problems(box)

    assert [(p.kind, p.text, p.has) for p in problems] == [("clipped", "1,234,567 tokens counted", 60)]
    assert problems[0].needs > 60


def test_a_wrapped_label_too_short_for_its_lines_is_clipped(qtbot):
    box = shown_alone(qtbot, QWidget(), 300, 100)
    label = QLabel("a long sentence that has to wrap onto three or four lines here", box)
    label.setWordWrap(True)
    placed(label, 0, 0, 80, 20)

    assert ("clipped height", label.text()) in kinds(box)
    label.setGeometry(0, 0, 80, 100)
    assert kinds(box) == []


def test_text_elided_with_an_ellipsis_is_fine_unless_it_cuts_a_number(qtbot):
    box = shown_alone(qtbot, QWidget(), 300, 100)
    label = ElidedLabel("59 tokens · 3.21 bytes/token", box)
    placed(label, 0, 0, 70, 30)
    assert label.displayed_text().endswith("…")

    assert kinds(box) == []
    assert cuts_a_number("59 tokens · 3.21 bytes/token", "59 tokens · 3.…")
    assert cuts_a_number("1,234,567", "1,23…")
    assert not cuts_a_number("59 tokens · 3.21 bytes/token", "59 tok…")
    assert not cuts_a_number("Merge timeline", "Merge tim…")
    assert not cuts_a_number("12 tokens", "12 tokens")


def test_a_combo_box_and_a_button_narrower_than_their_text_are_clipped(qtbot):
    box = shown_alone(qtbot, QWidget(), 400, 100)
    combo = QComboBox(box)
    combo.addItem("First seen: earliest pair wins (the lecture's rule)")
    placed(combo, 0, 0, 120, 30)
    button = QPushButton("Save counts as a table…", box)
    placed(button, 0, 40, 60, 30)
    roomy = QPushButton("OK", box)
    placed(roomy, 100, 40, 80, 30)

    assert sorted(kinds(box)) == [
        ("clipped", "First seen: earliest pair wins (the lecture's rule)"),
        ("clipped", "Save counts as a table…"),
    ]


def table_of(rows: list[list[str]], headers: list[str]) -> QStandardItemModel:
    model = QStandardItemModel(len(rows), len(headers))
    model.setHorizontalHeaderLabels(headers)
    for r, row in enumerate(rows):
        for c, value in enumerate(row):
            model.setItem(r, c, QStandardItem(value))
    return model


def test_a_number_elided_in_a_cell_is_a_problem_a_word_elided_is_not(qtbot):
    view = QTableView()
    view.setModel(table_of([["1234567890", "an elided description"]], ["n", "what"]))
    view.setWordWrap(False)
    shown_alone(qtbot, view, 300, 200)
    view.setColumnWidth(0, 40)
    view.setColumnWidth(1, 60)

    problems = [(p.kind, p.text) for p in layout_problems(view)]

    assert problems == [("number elided", "1234567890")]


def test_a_header_narrower_than_its_title_is_clipped(qtbot):
    view = QTableView()
    view.setModel(table_of([["1"]], ["joined per-id decodes == s"]))
    shown_alone(qtbot, view, 300, 200)
    view.setColumnWidth(0, 60)

    assert ("clipped", "joined per-id decodes == s") in kinds(view)
    view.resizeColumnsToContents()
    assert kinds(view) == []


def wrapped_view(qtbot, tokenizer, text: str, width: int) -> TokenView:
    view = TokenView()
    view.set_content(TokenTable.encode(tokenizer, text), tokenizer)
    return shown_alone(qtbot, view, width, 200)


def test_a_token_box_broken_across_lines_is_reported(qtbot, gpt2, monkeypatch):
    # Token views break lines only between tokens now, so the break inside " hat" is made by hand:
    # its box is cut in two, the second half on the next line, as a view that wrapped inside it would.
    text = "the cat in the hat sat on the mat " * 3
    view = wrapped_view(qtbot, gpt2, text, 170)
    boxes = view.visible_boxes()
    assert all(len({b.y for b in boxes if b.token == t}) == 1 for t in {b.token for b in boxes})
    hat = next(b for b in boxes if b.token == 4)
    half = hat.w / 2
    cut = [b for b in boxes if b.token != 4] + [
        Box(hat.x, hat.y, half, hat.h, 4, True),
        Box(0.0, hat.y + hat.h, half, hat.h, 4, False),
    ]
    monkeypatch.setattr(view, "visible_boxes", lambda: cut)

    problems = layout_problems(view)

    assert {p.kind for p in problems} == {"split token"}
    assert {int(p.where.rsplit("#", 1)[1]) for p in problems} == {4}


def test_a_token_crossing_a_newline_is_not_split(qtbot, gpt2):
    view = wrapped_view(qtbot, gpt2, "one\n\n\ntwo\n\n\nthree", 400)
    assert any(len({b.y for b in view.visible_boxes() if b.token == t}) > 1 for t in range(3, 6))

    assert layout_problems(view) == []


def test_plot_text_reaching_past_the_view_is_outside(qtbot):
    scene = QGraphicsScene()
    inside = scene.addText("inside")
    outside = scene.addText("reaches past the right edge of the plot")
    view = QGraphicsView(scene)
    view.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    view.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    shown_alone(qtbot, view, 150, 120)
    view.setSceneRect(0, 0, 140, 110)
    inside.setPos(0, 0)
    outside.setPos(20, 40)

    assert kinds(view) == [("outside plot", "reaches past the right edge of the plot")]


def test_hidden_and_scrolled_away_widgets_are_not_checked(qtbot):
    box = shown_alone(qtbot, QWidget(), 200, 100)
    hidden = QLabel("a hidden label far too long for its width", box)
    placed(hidden, 0, 0, 30, 20).hide()
    away = QLabel("a label moved outside its parent, too long too", box)
    placed(away, 0, 500, 30, 20)

    assert not shown(hidden) and not shown(away)
    assert layout_problems(box) == []


@pytest.mark.parametrize("pixels", [0, 1])
def test_a_label_with_no_text_has_no_problem(qtbot, pixels):
    box = shown_alone(qtbot, QWidget(), 100, 100)
    placed(QLabel("", box), 0, 0, pixels, pixels)
    assert layout_problems(box) == []


def test_a_number_cut_by_the_edge_of_a_table_scrolled_sideways_is_reported(qtbot):
    model = table_of([["a word", "123456"]], ["name", "count"])
    model.item(0, 1).setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    view = QTableView()
    view.setModel(model)
    shown_alone(qtbot, view, 200, 120)
    # The right edge of the view falls in the middle of the right-aligned number.
    edge, digits = view.viewport().width(), view.fontMetrics().horizontalAdvance("123456")
    view.setColumnWidth(0, edge - 100 + digits // 2)
    view.setColumnWidth(1, 100)

    assert kinds(view) == [("number cut by the edge", "123456")]
    view.horizontalScrollBar().setValue(view.horizontalScrollBar().maximum())
    assert kinds(view) == []


def test_a_fitted_number_column_draws_in_the_part_on_screen_and_is_not_reported(qtbot):
    model = table_of([["a word", "123456"]], ["name", "count"])
    model.item(0, 1).setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    view = QTableView()
    view.setModel(model)
    view.setItemDelegate(FittingDelegate(view))
    shown_alone(qtbot, view, 200, 120)
    edge, digits = view.viewport().width(), view.fontMetrics().horizontalAdvance("123456")
    view.setColumnWidth(0, edge - 100 + digits // 2)
    view.setColumnWidth(1, 100)

    assert kinds(view) == []


def test_axis_labels_drawn_over_each_other_are_reported(qtbot):
    import pyqtgraph as pg

    plot = pg.PlotWidget()
    shown_alone(qtbot, plot, 300, 80)
    axis = plot.getAxis("left")
    axis.setTicks([[(y / 10, f"{y / 10:.1f}") for y in range(11)]])
    plot.setYRange(0, 1, padding=0)

    qtbot.waitUntil(lambda: "overlapping text" in {kind for kind, _text in kinds(plot)})
    axis.setTicks([[(0, "0"), (1, "1")]])
    assert "overlapping text" not in {kind for kind, _text in kinds(plot)}


def test_the_window_writes_its_layout_report_where_the_environment_says(make_window, tmp_path, monkeypatch):
    import json

    from tokviz.gui.window.layout_report import LAYOUT_REPORT_ENV, LayoutReporter

    path = tmp_path / "layout.json"
    monkeypatch.setenv(LAYOUT_REPORT_ENV, str(path))
    window = make_window(text="Hello, 🌍! 你好!", size=(1024, 768))
    reporter = LayoutReporter.from_environment(window)
    assert reporter is not None
    reporter.write()

    report = json.loads(path.read_text(encoding="utf-8"))
    assert report["window"] == [window.width(), window.height()]
    assert report["presentation"] is False and isinstance(report["dark"], bool)
    assert report["font_pixels"]["tokens"] > 0 and report["font_pixels"]["interface"] > 0
    assert isinstance(report["problems"], list)
    assert all({"kind", "where", "text", "needs", "has"} <= set(p) for p in report["problems"])
    monkeypatch.delenv(LAYOUT_REPORT_ENV)
    assert LayoutReporter.from_environment(window) is None
