"""Lecture mode: clicker keys walk the deck, slides are live, and every screen shows the same composition."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QFontMetricsF, QImage, QPainter

from tokviz.core.formats.registry import BUILTIN_TOKENIZERS
from tokviz.core.lecture.deck import SLIDE_KINDS, default_deck
from tokviz.core.lecture.slides import Table, slide_content
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


LIVE_TOKENIZERS = [i for i, slide in enumerate(DECK.slides) if "tokenizers" in SLIDE_KINDS[slide.kind]]


def test_t_leaves_a_slide_that_shows_no_tokenizer_as_it_is():
    for index in set(range(len(DECK.slides))) - set(LIVE_TOKENIZERS):
        state = DeckState(DECK)
        state.go(index)
        assert state.cycle_tokenizer() == state.current_tokenizers() and state.tokenizers == {}


@pytest.mark.parametrize("index", LIVE_TOKENIZERS, ids=lambda i: f"slide {i + 1}")
@pytest.mark.parametrize("direction", [1, -1], ids=["T", "Shift+T"])
def test_t_cycles_one_place_through_the_tokenizers_not_on_the_slide_and_comes_back(index, direction):
    state = DeckState(DECK)
    state.go(index)
    start = state.current_tokenizers()
    free = set(BUILTIN_TOKENIZERS) - set(start[1:])
    shown = []
    for _press in range(2 * len(BUILTIN_TOKENIZERS)):
        names = state.cycle_tokenizer(direction)
        assert len(set(names)) == len(names), names  # never the same tokenizer twice
        assert names[1:] == start[1:]  # the other places stay
        shown.append(names[0])
    cycle = len(free)
    assert set(shown[:cycle]) == free and shown[cycle - 1] == start[0]  # each free one once, then back
    assert shown[cycle:] == shown[: len(shown) - cycle]  # and round again
    state.cycle_tokenizer(-direction)
    assert state.cycle_tokenizer(direction) == names  # Shift+T undoes T


def test_t_and_shift_t_on_the_exchange_slide_never_show_a_tokenizer_twice(qtbot, lecture):
    press(qtbot, lecture, "9", Qt.Key.Key_Return)
    wait_for(qtbot, lecture, 8)
    for key, modifier in [(Qt.Key.Key_T, Qt.KeyboardModifier.NoModifier)] * 5 + [
        (Qt.Key.Key_T, Qt.KeyboardModifier.ShiftModifier)
    ] * 3:
        expected = DeckState(DECK)
        expected.go(8)
        expected.tokenizers = {8: list(lecture.state.current_tokenizers())}
        names = expected.cycle_tokenizer(-1 if modifier else 1)
        qtbot.keyClick(lecture, key, modifier)
        qtbot.waitUntil(lambda names=names: lecture.content.figures.get(f"{_label(names[0])} tokens") is not None
                        and _table_names(lecture) == [_label(n) for n in names], timeout=20000)  # fmt: skip
        assert len(set(_table_names(lecture))) == 3


def _label(name: str) -> str:
    return {"gpt2": "GPT-2"}.get(name, name)


def _table_names(view: LectureView) -> list[str]:
    table = next(block for block in view.content.blocks if isinstance(block, Table))
    return [row[0] for row in table.rows]


def test_escape_on_a_black_screen_brings_the_slide_back_and_stays_in_the_lecture(qtbot, lecture):
    press(qtbot, lecture, "3", Qt.Key.Key_Return)
    wait_for(qtbot, lecture, 2)
    press(qtbot, lecture, Qt.Key.Key_B)
    assert lecture.black
    press(qtbot, lecture, Qt.Key.Key_Escape)
    assert not lecture.black and lecture.isVisible() and lecture.state.index == 2
    press(qtbot, lecture, ".", Qt.Key.Key_E)  # any key brings it back, and only that
    assert not lecture.black and not lecture.editor.isVisible()


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


def test_a_table_wider_than_the_slide_wraps_its_text_column_between_tokens_before_it_shrinks():
    from tokviz.core.lecture.slides import SlideContent
    from tokviz.gui.lecture.text_styles import text_font

    tokens = " ".join(f"<{b:02X}>" for b in "Hi 🌍 你好 zyzzyva, again and again".encode())
    rows = tuple((f"{256 + k} = {k} + {k + 1}", tokens, str(40 - k)) for k in range(3))
    wide = Table(("in order", "tokens", "n"), rows, (False, False, True))
    layout = SlideLayout(SlideContent("A replay", (wide,)), canvas_size(4 / 3), token_colors(False))
    assert layout.scale == 1.0 and not layout.clipped() and not layout.overflow
    cells = [item for item in layout.items if item.text == tokens]
    line = QFontMetricsF(text_font("table", layout.scale)).height()
    assert len(cells) == 3 and all(cell.rect.height() >= 2 * line for cell in cells)  # wrapped, not cut
    assert max(cell.rect.right() for cell in cells) <= layout.size.width()


LONG_TEXT = "The quick brown fox jumps over the lazy dog; 你好世界, 🌍 and numbers 12345 too!!"


def test_a_table_too_long_for_a_legible_slide_is_shown_a_page_of_rows_at_a_time():
    content = slide_content(DECK.slides[10], DECK, text=LONG_TEXT)
    (full,) = [block for block in content.blocks if isinstance(block, Table)]
    canvas, colors = canvas_size(4 / 3), token_colors(False)
    assert not SlideLayout(content, canvas, colors).legible  # one page would shrink it under 20 px
    first = SlideLayout(content, canvas, colors, paged=True)
    pages = [SlideLayout(content, canvas, colors, paged=True, part=k) for k in range(first.parts)]
    assert first.parts > 1 and all(
        page.legible and not page.overflow and not page.clipped() for page in pages
    )
    rows = [
        row
        for page in pages
        for block in page.content.blocks
        if isinstance(block, Table)
        for row in block.rows
    ]
    assert rows == list(full.rows)  # every row once, in order
    assert f"of {len(full.rows)}; more on the next page" in pages[0].content.blocks[1].text
    assert SlideLayout(content, canvas, colors, paged=True, part=-1).part == first.parts - 1


def test_the_clicker_turns_the_pages_of_a_long_slide_before_the_next_slide(qtbot, lecture):
    press(qtbot, lecture, "1", "1", Qt.Key.Key_Return)
    wait_for(qtbot, lecture, 10)
    lecture.state.texts[10] = LONG_TEXT
    lecture.refresh()
    qtbot.waitUntil(lambda: lecture.layout_.parts > 1, timeout=20000)
    parts = lecture.layout_.parts
    for part in range(1, parts):
        press(qtbot, lecture, Qt.Key.Key_PageDown)
        assert (lecture.state.index, lecture.layout_.part) == (10, part) and lecture.layout_.legible
    press(qtbot, lecture, Qt.Key.Key_PageDown)
    wait_for(qtbot, lecture, 11)
    press(qtbot, lecture, Qt.Key.Key_PageUp)  # back onto its last page
    qtbot.waitUntil(lambda: lecture.state.index == 10 and lecture.layout_.part == parts - 1, timeout=20000)
