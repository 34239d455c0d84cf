"""Lecture mode: clicker keys walk the deck, slides are live, and every screen shows the same composition."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QImage, QPainter

from tokviz.core.lecture.deck import default_deck
from tokviz.core.lecture.slides import slide_content
from tokviz.gui.lecture.paint import SlideLayout, canvas_size
from tokviz.gui.lecture.show import DeckState, LectureView
from tokviz.gui.style.theme import token_colors

pytestmark = [pytest.mark.gui]

DECK = default_deck()


@pytest.fixture
def lecture(qtbot):
    view = LectureView(DECK)
    qtbot.addWidget(view)
    view.resize(1024, 768)
    view.show()
    qtbot.waitUntil(lambda: view.content is not None, timeout=20000)
    yield view
    qtbot.waitUntil(lambda: not view.job.busy, timeout=20000)  # no slide computing as it is deleted


def press(qtbot, view, *keys):
    for key in keys:
        if isinstance(key, str):
            qtbot.keyClicks(view, key)
        else:
            qtbot.keyClick(view, key)


def wait_for(qtbot, view, index, step=0):
    qtbot.waitUntil(lambda: (view.state.index, view.state.step) == (index, step) and view.content is not None
                    and view.content.title == DECK.slides[index].title and view.content.step == step, timeout=20000)  # fmt: skip


def test_the_clicker_keys_walk_the_deck_one_step_at_a_time(qtbot, lecture):
    press(qtbot, lecture, Qt.Key.Key_PageDown, Qt.Key.Key_Right, Qt.Key.Key_Space)
    wait_for(qtbot, lecture, 3)
    press(qtbot, lecture, Qt.Key.Key_PageUp, Qt.Key.Key_Backspace)
    wait_for(qtbot, lecture, 1)
    press(qtbot, lecture, Qt.Key.Key_End)
    wait_for(qtbot, lecture, len(DECK.slides) - 1)
    press(qtbot, lecture, Qt.Key.Key_Home)
    wait_for(qtbot, lecture, 0)


def test_a_merge_slide_takes_one_click_per_merge_and_shows_its_counts(qtbot, lecture):
    press(qtbot, lecture, "6", Qt.Key.Key_Return)
    wait_for(qtbot, lecture, 5, 0)
    counts = []
    for step in range(4):
        wait_for(qtbot, lecture, 5, step)
        counts.append(lecture.content.figures["tokens"].split(" → ")[-1])
        press(qtbot, lecture, Qt.Key.Key_Enter)
    assert counts == ["18", "16", "14", "12"]
    wait_for(qtbot, lecture, 6)
    assert lecture.content.figures["tokens"] == "16"


def test_b_blacks_the_screen_and_the_next_click_brings_it_back(qtbot, lecture):
    press(qtbot, lecture, Qt.Key.Key_B)
    assert lecture.black and lecture.grab().toImage().pixelColor(500, 400).name() == "#000000"
    press(qtbot, lecture, Qt.Key.Key_PageDown)
    assert not lecture.black and lecture.state.index == 0
    press(qtbot, lecture, ".")
    assert lecture.black


def test_o_shows_every_slide_and_a_click_jumps_to_one(qtbot, lecture):
    press(qtbot, lecture, Qt.Key.Key_O)
    assert lecture.overview
    cell = lecture.cells(lecture.rect().toRectF())[8]
    qtbot.mouseClick(lecture, Qt.MouseButton.LeftButton, pos=cell.center().toPoint())
    wait_for(qtbot, lecture, 8)
    assert not lecture.overview


def test_e_edits_the_slide_text_and_every_figure_follows(qtbot, lecture):
    press(qtbot, lecture, "9", Qt.Key.Key_Return)
    wait_for(qtbot, lecture, 8)
    assert lecture.content.figures["GPT-2 tokens"] == "12"
    press(qtbot, lecture, Qt.Key.Key_E)
    assert lecture.editor.isVisible()
    lecture.editor.setText("the cat in the hat")
    qtbot.keyClick(lecture.editor, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: lecture.content.figures.get("bytes") == "18", timeout=20000)
    assert lecture.content.figures["GPT-2 tokens"] == "5"


def test_t_moves_the_slide_to_the_next_tokenizer(qtbot, lecture):
    state = DeckState(DECK)
    state.go(0)
    assert state.cycle_tokenizer() == ["cl100k"]
    press(qtbot, lecture, Qt.Key.Key_T)
    qtbot.waitUntil(lambda: "cl100k ids" in lecture.content.figures, timeout=20000)


def test_escape_leaves_the_lecture(qtbot, lecture):
    with qtbot.waitSignal(lecture.left):
        press(qtbot, lecture, Qt.Key.Key_Escape)
    assert not lecture.isVisible()


@pytest.mark.parametrize("size", [(1024, 768), (1366, 768), (1920, 1080)])
def test_every_slide_and_step_fits_its_canvas_with_nothing_clipped(size):
    aspect = size[0] / size[1]
    canvas = canvas_size(aspect)
    colors = token_colors(False)
    for slide in DECK.slides:
        for step in range(slide.steps):
            layout = SlideLayout(slide_content(slide, DECK, step), canvas, colors, "1 / 12")
            assert not layout.overflow, slide.title
            assert layout.clipped() == [], (slide.title, step)


def test_screens_of_the_same_shape_show_the_same_composition():
    content = slide_content(DECK.slides[5], DECK, 3)
    layout = SlideLayout(content, canvas_size(16 / 9), token_colors(False))

    def draw(width: int, height: int) -> QImage:
        from tokviz.gui.lecture.paint import paint_scaled

        image = QImage(width, height, QImage.Format.Format_RGB32)
        painter = QPainter(image)
        paint_scaled(painter, layout, QRectF(0, 0, width, height), token_colors(False).base)
        painter.end()
        return image.scaled(
            320, 180, Qt.AspectRatioMode.IgnoreAspectRatio, Qt.TransformationMode.SmoothTransformation
        )

    small, large = draw(1366, 768), draw(1920, 1080)
    difference = sum(
        abs(small.pixelColor(x, y).lightness() - large.pixelColor(x, y).lightness())
        for x in range(0, 320, 4)
        for y in range(0, 180, 4)
    ) / (80 * 45)
    assert difference < 6  # the same picture, up to anti-aliasing


def test_a_slide_too_wide_even_at_the_smallest_size_says_it_overflows():
    from tokviz.core.lecture.slides import SlideContent, Table

    wide = Table(("x",), (("9" * 400,),), (True,))
    layout = SlideLayout(SlideContent("t", (wide,)), canvas_size(4 / 3), token_colors(False))
    assert layout.overflow and layout.scale == pytest.approx(0.4)
