"""The segmentation lattice panel: a word's lattice, its N best and sampled segmentations, in the window."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest
import sentencepiece
from PySide6.QtCore import QPointF
from PySide6.QtGui import QAction, QFont
from PySide6.QtWidgets import QTableWidget, QToolButton

from tokviz.core.analysis.lattice import Lattice, lattice_problem, segment_lattice
from tokviz.core.formats.registry import load_tokenizer
from tokviz.core.io.resources import resource_path
from tokviz.gui.drawing.images import is_vector, write_image
from tokviz.gui.drawing.lattice import LatticeDrawing, cut_points, fill_colour
from tokviz.gui.panels.lattice import LECTURE_UNIGRAM, LatticeView, segmentation_text
from tokviz.gui.panels.lattice.canvas import lattice_fonts
from tokviz.gui.style.theme import TokenColors, token_colors
from tokviz.gui.window.presentation_colors import contrast_ratio, presentation_colors

from .fixture_types import MakeWindow
from .reach import child, docked

if TYPE_CHECKING:
    from PySide6.QtWidgets import QApplication
    from pytestqt.qtbot import QtBot

    from tokviz.core.bpe.tokenizer import Tokenizer

UNIGRAM = resource_path(*LECTURE_UNIGRAM)
THEMES = {
    "light": token_colors(False),
    "dark": token_colors(True),
    "presentation light": presentation_colors(False),
    "presentation dark": presentation_colors(True),
}


@pytest.fixture(scope="module")
def unigram() -> Tokenizer:
    return load_tokenizer(str(UNIGRAM))


def drawing(lattice: Lattice, width: float, colors: TokenColors | None = None) -> LatticeDrawing:
    return LatticeDrawing(lattice, lattice_fonts(QFont()), colors or THEMES["light"], width)


def test_the_best_path_is_the_first_row_and_covers_the_word_once(
    unigram: Tokenizer, qapp: QApplication
) -> None:
    lattice = segment_lattice(unigram, "reassignment")
    drawn = drawing(lattice, 2000)

    first_row = min(box.rect.top() for box in drawn.boxes)
    on_top = sorted((box for box in drawn.boxes if box.rect.top() == first_row), key=lambda b: b.rect.left())
    assert [lattice.pieces[box.index].piece for box in on_top] == ["▁re", "assignment"]
    assert all(box.best for box in on_top) and sum(box.best for box in drawn.boxes) == 2
    assert len(drawn.boxes) == len(lattice.pieces) and len(drawn.chars) == len("▁reassignment")


def test_every_piece_sits_under_the_characters_it_covers(unigram: Tokenizer, qapp: QApplication) -> None:
    lattice = segment_lattice(unigram, "multiplication")
    drawn = drawing(lattice, 2000)
    chars = [rect for _label, rect in drawn.chars]

    for box in drawn.boxes:
        piece = lattice.pieces[box.index]
        assert box.rect.left() == chars[piece.start].left()
        assert box.rect.right() == pytest.approx(chars[piece.end - 1].right())
        assert box.rect.top() > chars[0].bottom()


def test_a_long_text_wraps_between_words_never_inside_a_piece(unigram: Tokenizer, qapp: QApplication) -> None:
    lattice = segment_lattice(unigram, "the reassignment of immutable iterators")
    wide, narrow = drawing(lattice, 4000), drawing(lattice, 400)
    tops = {rect.top() for _label, rect in narrow.chars}

    assert len({rect.top() for _label, rect in wide.chars}) == 1 and len(tops) > 1
    assert narrow.width <= 400 and narrow.height > wide.height
    assert {at for at, ch in enumerate(lattice.text) if ch == "▁"} <= set(cut_points(lattice))
    for box in narrow.boxes:  # a box stays on its characters' line
        piece = lattice.pieces[box.index]
        line = narrow.chars[piece.start][1].top()
        assert narrow.chars[piece.end - 1][1].top() == line and box.rect.top() > line


def test_every_label_fits_its_box_and_the_box_under_a_point_is_found(
    unigram: Tokenizer, qapp: QApplication
) -> None:
    lattice = segment_lattice(unigram, "unpacking")
    drawn = drawing(lattice, 2000)

    assert all(need <= rect.width() + 0.5 for _text, rect, _font, need in drawn.texts)
    box = drawn.boxes[3]
    assert drawn.piece_at(box.rect.center()) == box.index
    assert drawn.piece_at(QPointF(-5, -5)) == -1


@pytest.mark.parametrize("theme", sorted(THEMES))
def test_text_on_every_fill_keeps_4_5_to_1_in_every_style(theme: str, qapp: QApplication) -> None:
    colors = THEMES[theme]
    for value in (0.0, 0.5, 1.0):
        assert contrast_ratio(colors.text, fill_colour(colors, value, 0.0, 1.0)) >= 4.5


def test_more_probable_pieces_are_filled_more_strongly(qapp: QApplication) -> None:
    colors = THEMES["light"]
    likely, unlikely = fill_colour(colors, -1.0, -10.0, -1.0), fill_colour(colors, -10.0, -10.0, -1.0)

    assert contrast_ratio(likely, colors.base) > contrast_ratio(unlikely, colors.base)


def segmentations(table: QTableWidget) -> list[str]:
    """The segmentations a table lists, in order."""
    items = [table.item(row, 1) for row in range(table.rowCount())]
    return [item.text() if item is not None else "" for item in items]


def lattice_view(make_window: MakeWindow) -> LatticeView:
    window = make_window(size=(1024, 740))
    child(window, QAction, "actionLatticeDock").trigger()
    return docked(window, "latticeDock", LatticeView)


def test_the_lectures_unigram_shows_the_library_s_n_best_and_repeatable_samples(
    make_window: MakeWindow, qtbot: QtBot
) -> None:
    view = lattice_view(make_window)
    with qtbot.waitSignal(view.updated, timeout=20000):
        child(view, QToolButton, "latticeLectureModel").click()
    qtbot.waitUntil(lambda: view.result is not None and view.result.lattice is not None, timeout=20000)

    library = sentencepiece.SentencePieceProcessor(model_file=str(UNIGRAM))
    expected = [" | ".join(p) for p in library.nbest_encode_as_pieces("reassignment", 5)]
    assert segmentations(view.best_table) == expected
    assert view.canvas.drawing is not None and not view.problem.isVisible()
    assert view.smoothing_label.text() == "alpha" and view.samples_table.rowCount() == 8
    first = segmentations(view.samples_table)

    view.best_table.selectRow(3)  # ▁re | as | sign | ment: dashed on the lattice
    lattice = view.canvas.lattice
    assert lattice is not None
    assert sorted(lattice.pieces[i].piece for i in view.canvas.marked) == ["as", "ment", "sign", "▁re"]

    with qtbot.waitSignal(view.updated, timeout=20000):
        view.resample.click()
    assert view.seed.value() == 1
    with qtbot.waitSignal(view.updated, timeout=20000):
        view.seed.setValue(0)
    assert segmentations(view.samples_table) == first


def test_a_bpe_model_says_why_it_has_no_lattice_and_samples_dropout(
    make_window: MakeWindow, qtbot: QtBot, gpt2: Tokenizer
) -> None:
    view = lattice_view(make_window)
    view.set_text("reassignment")
    qtbot.waitUntil(lambda: view.result is not None and not view.computing, timeout=20000)

    assert view.problem.text() == lattice_problem(gpt2) and view.canvas.drawing is None
    assert view.smoothing_label.text() == "dropout p" and view.best_table.rowCount() == 0
    assert view.samples_table.rowCount() == 8 and view.tabs.currentIndex() == 1  # the samples in front
    unbroken = segmentation_text(view.result.samples[0]) if view.result else ""
    assert unbroken.replace(" | ", "") == "reassignment"


def test_the_editor_selection_is_segmented(make_window: MakeWindow, qtbot: QtBot) -> None:
    window = make_window(text="an immutable object", size=(1024, 740))
    child(window, QAction, "actionLatticeDock").trigger()
    view = docked(window, "latticeDock", LatticeView)
    window.editor.setFocus()
    cursor = window.editor.textCursor()
    cursor.setPosition(3)
    cursor.setPosition(12, cursor.MoveMode.KeepAnchor)
    window.editor.setTextCursor(cursor)

    view.selection_button.click()

    assert view.text_edit.text() == "immutable"


def test_the_dock_takes_the_selection_when_it_appears(make_window: MakeWindow, qtbot: QtBot) -> None:
    window = make_window(text="an immutable object", size=(1024, 740))
    cursor = window.editor.textCursor()
    cursor.setPosition(13)
    cursor.setPosition(19, cursor.MoveMode.KeepAnchor)
    window.editor.setTextCursor(cursor)
    view = docked(window, "latticeDock", LatticeView)

    child(window, QAction, "actionLatticeDock").trigger()

    qtbot.waitUntil(lambda: view.text_edit.text() == "object", timeout=20000)


def test_the_panel_exports_as_svg(make_window: MakeWindow, qtbot: QtBot, tmp_path: Path) -> None:
    view = lattice_view(make_window)
    with qtbot.waitSignal(view.updated, timeout=20000):
        child(view, QToolButton, "latticeLectureModel").click()
    qtbot.waitUntil(
        lambda: view.canvas.drawing is not None and view.canvas.height() >= view.canvas.sizeHint().height(),
        timeout=20000,
    )

    assert is_vector(view)
    svg = write_image(view, tmp_path / "lattice.svg").read_text(encoding="utf-8")
    assert "assignment" in svg and "−6.8" in svg


def test_a_unigram_trained_in_the_window_replaces_a_bpe_model_in_the_panel(
    make_window: MakeWindow, qtbot: QtBot, unigram: Tokenizer
) -> None:
    view = lattice_view(make_window)
    view.set_text("reassignment")
    qtbot.waitUntil(lambda: view.result is not None and not view.computing, timeout=20000)
    assert (
        view.tokenizer is not None and lattice_problem(view.tokenizer) is not None
    )  # the first view's GPT-2
    assert view.tabs.currentIndex() == 1  # no N best for GPT-2: its dropout samples in front

    key = view.registry.add_tokenizer("unigram-2000", unigram)

    assert view.key == key
    qtbot.waitUntil(lambda: view.result is not None and view.result.lattice is not None, timeout=20000)
    assert view.tabs.currentIndex() == 0  # the Unigram's N best in front again
    another = view.registry.add_tokenizer("another-bpe", load_tokenizer("gpt2"))
    assert view.key == key != another  # a model with no lattice does not take the panel from one that has one
