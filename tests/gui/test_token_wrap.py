"""A token's box stays on one line: views wrap between tokens, and inside one only when it alone is too wide."""

from __future__ import annotations

from collections import defaultdict

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QFontMetricsF

from tokviz.gui.drawing.strips import strip_sheet
from tokviz.gui.style.fonts import mono_font
from tokviz.gui.text.display import plain_text
from tokviz.gui.text.token_table import TokenTable
from tokviz.gui.widgets.token_view import TokenView

TEXTS = [
    "Hello, 🌍! 你好!",
    "The quick brown fox jumps over the lazy dog, again and again.",
    "东京是日本的首都，也是世界上人口最多的城市之一。",
    "def tokenize(text):\n    return [t for t in text.split('-') if t]\n",
]


def broken_tokens(view: TokenView) -> list[str]:
    """Tokens drawn on two lines (not because they hold a newline) that would fit on one."""
    margin = view.document().documentMargin()
    line = view.viewport().width() - 2 * margin
    pieces = defaultdict(list)
    for box in view.visible_boxes():
        pieces[box.token].append(box)
    table = view.table
    assert table is not None
    broken = []
    for token, boxes in pieces.items():
        text = table.text[int(table.start[token]) : int(table.end[token])]
        if "\n" in text or len({round(b.y) for b in boxes}) < 2:
            continue
        if sum(b.w for b in boxes) <= line:
            broken.append(text)
    return broken


def laid_out_view(qtbot, tokenizer, text: str, width: int) -> TokenView:
    view = TokenView()
    qtbot.addWidget(view)
    view.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen)
    view.setFont(mono_font(22))
    view.set_content(TokenTable.encode(tokenizer, text), tokenizer)
    view.resize(width, 600)
    view.show()
    return view


@pytest.mark.parametrize("name", ["gpt2", "cl100k", "byte_tokenizer"])
def test_no_token_view_breaks_a_token_that_fits_on_a_line(qtbot, request, name):
    tok = request.getfixturevalue(name)
    for text in TEXTS:
        view = laid_out_view(qtbot, tok, text, 100)
        for width in range(110, 520, 9):
            view.resize(width, 600)
            assert broken_tokens(view) == [], (text, width)


def test_the_headless_strips_keep_every_token_on_one_line(gpt2, cl100k):
    for width in range(140, 420, 20):
        sheet = strip_sheet(TEXTS[0], [("GPT-2", gpt2), ("cl100k", cl100k)], max_width=width, point_size=22)
        try:
            for view in sheet.views:
                assert broken_tokens(view) == [], width
        finally:
            sheet.deleteLater()


def test_a_token_wider_than_the_line_wraps_with_a_mark_at_the_break(qtbot, byte_tokenizer, gpt2):
    view = laid_out_view(qtbot, gpt2, "🌍🌍🌍🌍🌍🌍🌍🌍", 110)  # one token's label is wider than the view
    boxes = view.visible_boxes()
    continued = [b for b in boxes if b.continued]
    assert continued, "a token cut by the line's end says so"
    assert all(not b.first for b in continued)


def label_ink_and_boxes(view: TokenView) -> list[tuple[str, float, float]]:
    """(label, width of its ink, width of its box) for every byte label on screen."""
    metrics = QFontMetricsF(view.font())
    table = view.table
    assert table is not None
    units = view.document().toPlainText().encode("utf-16-le", "surrogatepass")
    out = []
    for box in view.visible_boxes():
        if not table.partial[box.token]:
            continue
        a, b = int(view.box_start[box.token]), int(view.box_end[box.token])
        label = plain_text(units[2 * a : 2 * b].decode("utf-16-le", "surrogatepass")).strip()
        out.append((label, metrics.horizontalAdvance(label), box.w))
    return out


@pytest.mark.parametrize("point_size", [11, 16, 26])
def test_byte_labels_keep_clear_of_their_box_borders(qtbot, gpt2, point_size):
    """Neighbouring labels such as <8C><8D> never touch: each box is wider than its label's ink."""
    view = laid_out_view(qtbot, gpt2, "Hello, 🌍! 你好!", 2000)
    view.setFont(mono_font(point_size))
    labels = label_ink_and_boxes(view)
    assert {label for label, _, _ in labels} >= {"<8C>", "<8D>", "<E4 BD>"}
    for label, ink, box in labels:
        assert box - ink >= 6, label


def row_tops(view: TokenView) -> list[tuple[float, float]]:
    """(top, height) of each row of boxes, top to bottom."""
    return sorted({(round(b.y, 1), round(b.h, 1)) for b in view.visible_boxes()})


def test_side_by_side_views_put_their_rows_on_the_same_lines(make_window):
    """A line holding a CJK or emoji glyph is no taller than a Latin one, so rows line up across views."""
    window = make_window(text="Hello, 🌍! 你好!\nplain words\n你好 again\n🌍 and more\nend", size=(1366, 768))
    first, second = (p.view for p in window.panels)
    rows = row_tops(first)
    assert len(rows) >= 5
    assert rows[:5] == row_tops(second)[:5]
    assert len({h for _, h in rows}) == 1, "every row has the same height"
