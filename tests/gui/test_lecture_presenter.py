"""The lecturer's side of a lecture: the presenter window, the overview grid by keys, the key hints,
the slide report a real-window check reads, and the main window's Lecture and File menus."""

from __future__ import annotations

import json
import re

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication

from tokviz.core.lecture.deck import default_deck
from tokviz.gui.lecture.presenter import PresenterWindow, start_lecture
from tokviz.gui.lecture.show import KEY_HINT, REPORT_ENV, LectureView
from tokviz.gui.widgets import file_dialogs

from .reach import action
from .reach import lecture as lecture_menu

pytestmark = [
    pytest.mark.gui,
    pytest.mark.qt_log_ignore(
        "This plugin does not support propagateSizeHints", "This plugin does not support raise"
    ),
]

DECK = default_deck()


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def settle(qtbot, *widgets) -> None:
    """Wait until no slide is being computed (a widget is not deleted under its own computation)."""
    qtbot.waitUntil(lambda: not any(w.job.busy for w in widgets), timeout=20000)


@pytest.fixture
def lecture(qtbot):
    view = LectureView(DECK)
    qtbot.addWidget(view)
    view.resize(1024, 768)
    view.show()
    qtbot.waitUntil(lambda: view.content is not None, timeout=20000)
    yield view
    qtbot.waitUntil(lambda: not view.job.busy, timeout=20000)  # no slide computing as it is deleted


def test_the_presenter_shows_this_slide_the_next_its_notes_and_the_time(qtbot, lecture):
    clock = FakeClock()
    presenter = PresenterWindow(lecture, clock=clock)
    qtbot.addWidget(presenter)
    presenter.show()
    assert presenter.elapsed.text() == "00:00"
    assert f"Slide 1 of {len(DECK.slides)}" in presenter.position.text()
    assert presenter.notes.toPlainText() == " ".join(DECK.slides[0].notes.split())
    qtbot.waitUntil(lambda: presenter.next.layout_ is not None, timeout=20000)
    assert presenter.next.layout_.content.title == DECK.slides[1].title
    clock.now += 754
    presenter.tick()
    assert presenter.elapsed.text() == "12:34"
    settle(qtbot, lecture, presenter)


def test_keys_pressed_in_the_presenter_drive_the_projected_deck(qtbot, lecture):
    presenter = PresenterWindow(lecture, clock=FakeClock())
    qtbot.addWidget(presenter)
    presenter.show()
    qtbot.keyClicks(presenter, "6")
    qtbot.keyClick(presenter, Qt.Key.Key_Return)
    qtbot.waitUntil(
        lambda: lecture.content is not None and lecture.content.title == DECK.slides[5].title, timeout=20000
    )
    assert f"Slide 6 of {len(DECK.slides)} · step 1 of 4" in presenter.position.text()
    assert presenter.notes.toPlainText() == " ".join(DECK.slides[5].notes.split())
    qtbot.waitUntil(
        lambda: presenter.next.layout_ is not None and presenter.next.layout_.content.step == 1, timeout=20000
    )
    assert presenter.next.layout_.content.figures["tokens"].endswith("16")  # the next click's merge
    qtbot.keyClick(presenter, Qt.Key.Key_End)
    qtbot.waitUntil(
        lambda: presenter.next.layout_ is None and presenter.next.message == "End of the deck", timeout=20000
    )
    settle(qtbot, lecture, presenter)


def test_on_a_slide_shown_in_pages_the_presenter_s_next_is_its_next_page(qtbot, lecture):
    stream = next(i for i, slide in enumerate(DECK.slides) if slide.kind == "stream")
    presenter = PresenterWindow(lecture, clock=FakeClock())
    qtbot.addWidget(presenter)
    presenter.show()
    lecture.state.go(stream)
    lecture.state.texts[stream] = (
        "The quick brown fox jumps over the lazy dog; 你好世界, 🌍 and numbers 12345 too!!"
    )
    lecture.refresh()
    qtbot.waitUntil(lambda: lecture.layout_ is not None and lecture.layout_.parts > 2, timeout=20000)
    settle(qtbot, lecture, presenter)
    following = presenter.next.layout_
    assert following is not None and following.content.title == DECK.slides[stream].title
    assert following.part == 1 and following.legible
    qtbot.keyClick(presenter, Qt.Key.Key_PageDown)
    settle(qtbot, lecture, presenter)
    assert (lecture.state.index, lecture.layout_.part) == (stream, 1)
    assert presenter.next.layout_ is not None and presenter.next.layout_.part == 2
    settle(qtbot, lecture, presenter)


def test_with_two_screens_the_deck_goes_on_the_second_and_the_presenter_on_the_first(qtbot):
    screen = QGuiApplication.primaryScreen()
    view = start_lecture(DECK, screens=[screen, screen])
    qtbot.addWidget(view)
    assert isinstance(view.presenter, PresenterWindow) and view.presenter.isVisible()
    qtbot.addWidget(view.presenter)
    assert view.isFullScreen() or view.windowState() & Qt.WindowState.WindowFullScreen
    settle(qtbot, view, view.presenter)
    with qtbot.waitSignal(view.left):
        qtbot.keyClick(view, Qt.Key.Key_Escape)
    assert not view.presenter.isVisible()


def test_with_one_screen_there_is_no_presenter_window(qtbot):
    view = start_lecture(DECK, screens=[QGuiApplication.primaryScreen()])
    qtbot.addWidget(view)
    assert view.presenter is None
    settle(qtbot, view)
    view.close()


def test_the_overview_is_walked_with_the_arrow_keys_and_enter_goes_there(qtbot, lecture):
    qtbot.keyClick(lecture, Qt.Key.Key_O)
    assert lecture.overview and lecture.picked == 0
    for key in (Qt.Key.Key_Down, Qt.Key.Key_Right, Qt.Key.Key_Right, Qt.Key.Key_Left):
        qtbot.keyClick(lecture, key)
    assert lecture.picked == 5 and lecture.overview
    qtbot.keyClick(lecture, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: lecture.content.title == DECK.slides[5].title, timeout=20000)
    assert not lecture.overview
    qtbot.keyClick(lecture, Qt.Key.Key_O)
    qtbot.keyClick(lecture, Qt.Key.Key_End)
    assert lecture.picked == len(DECK.slides) - 1
    qtbot.keyClick(lecture, Qt.Key.Key_Escape)
    assert not lecture.overview and lecture.isVisible()


def test_the_presenter_says_which_keys_change_the_slide_and_the_slide_itself_shows_no_keys(qtbot, lecture):
    presenter = PresenterWindow(lecture, clock=FakeClock())
    qtbot.addWidget(presenter)
    assert presenter.hint.text().startswith("E: edit the text · T: next tokenizer (now gpt2)\n")
    assert "?: keys" in presenter.hint.text()
    qtbot.keyClick(lecture, Qt.Key.Key_T)
    qtbot.waitUntil(lambda: "now cl100k" in presenter.hint.text(), timeout=20000)
    painted = [item.text for item in lecture.layout_.items]
    assert not any("T:" in text or "E:" in text for text in painted)  # the room sees no key hints
    qtbot.keyClick(lecture, Qt.Key.Key_End)
    qtbot.waitUntil(lambda: lecture.content.title == DECK.slides[-1].title, timeout=20000)
    qtbot.waitUntil(
        lambda: presenter.hint.text() == KEY_HINT, timeout=20000
    )  # nothing live on a slide of words
    settle(qtbot, lecture, presenter)


def test_question_mark_shows_the_keys_over_the_slide_until_the_next_key(qtbot, lecture):
    before = lecture.grab().toImage()
    qtbot.keyClicks(lecture, "?")
    assert lecture.keys_shown and lecture.grab().toImage() != before
    qtbot.keyClick(lecture, Qt.Key.Key_Escape)  # closes the keys, does not leave the lecture
    assert not lecture.keys_shown and lecture.isVisible() and lecture.state.index == 0


def test_the_report_names_each_slide_shown_with_its_scale_and_nothing_clipped(qtbot, tmp_path, monkeypatch):
    report = tmp_path / "slides.jsonl"
    monkeypatch.setenv(REPORT_ENV, str(report))
    view = LectureView(DECK)
    qtbot.addWidget(view)
    view.resize(1024, 768)
    view.show()
    qtbot.waitUntil(lambda: view.content is not None, timeout=20000)
    qtbot.keyClick(view, Qt.Key.Key_PageDown)
    qtbot.waitUntil(
        lambda: view.state.index == 1 and view.content.title == DECK.slides[1].title, timeout=20000
    )
    lines = [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines()]
    last = lines[-1]
    assert (last["slide"], last["step"], last["window"]) == (2, 1, [1024, 768])
    assert last["canvas"] == [1200.0, 900.0] and last["screen_scale"] == pytest.approx(1024 / 1200, abs=1e-3)
    assert last["clipped"] == [] and last["elided"] == [] and not last["overflow"]
    assert last["figures"]["bytes"] == "48 69 20 F0 9F 8C 8D"
    settle(qtbot, view)


@pytest.fixture
def main_window(make_window):
    return make_window(size=(1024, 768))


def test_escape_brings_back_the_main_window_as_it_was(qtbot, main_window):
    before = (main_window.geometry(), main_window.text, main_window.saveState())
    view = lecture_menu(main_window).start()
    qtbot.addWidget(view)
    qtbot.waitUntil(lambda: view.content is not None, timeout=20000)
    qtbot.keyClick(view, Qt.Key.Key_PageDown)
    with qtbot.waitSignal(view.left):
        qtbot.keyClick(view, Qt.Key.Key_Escape)
    settle(qtbot, view)
    assert not view.isVisible() and main_window.isVisible()
    assert (main_window.geometry(), main_window.text, main_window.saveState()) == before


def test_open_deck_is_in_the_file_menu_too(main_window):
    file_menu = action(main_window, "actionQuit").associatedObjects()
    titles = {
        menu.title().replace("&", "")
        for menu in lecture_menu(main_window).act_open.associatedObjects()
        if hasattr(menu, "title")
    }
    assert {"File", "Lecture"} <= titles, (titles, file_menu)


@pytest.mark.parametrize(
    "per_step, pages", [(False, len(DECK.slides)), (True, sum(slide.steps for slide in DECK.slides))]
)
def test_export_handout_writes_a_page_per_slide_or_per_step(
    main_window, monkeypatch, tmp_path, per_step, pages
):
    from tokviz.gui.window.lecture_menu import PDF_PER_SLIDE, PDF_PER_STEP

    chosen = tmp_path / "handout"
    kind = PDF_PER_STEP if per_step else PDF_PER_SLIDE
    monkeypatch.setattr(file_dialogs, "get_save_file_name", lambda *a, **k: (str(chosen), kind))
    out = lecture_menu(main_window).choose_handout()
    assert out == tmp_path / "handout.pdf"
    assert len(re.findall(rb"/Type\s*/Page(?![s\w])", out.read_bytes())) == pages


def test_export_slides_as_pictures_writes_svg_or_png_into_a_new_folder(main_window, monkeypatch, tmp_path):
    from tokviz.gui.window.lecture_menu import PICTURES

    svg = next(name for name, (fmt, per_step) in PICTURES.items() if fmt == "svg" and per_step)
    monkeypatch.setattr(
        file_dialogs, "get_save_file_name", lambda *a, **k: (str(tmp_path / "slides.svg"), svg)
    )
    written = lecture_menu(main_window).choose_pictures()
    assert len(written) == sum(slide.steps for slide in DECK.slides) and all(
        p.parent == tmp_path / "slides" and p.suffix == ".svg" for p in written
    )
    last = tmp_path / "slides" / f"slide-{len(DECK.slides):02d}.svg"
    assert DECK.slides[-1].title in last.read_text(encoding="utf-8")


def test_notes_broken_into_lines_in_the_deck_file_read_as_paragraphs():
    from tokviz.gui.lecture.presenter import reflow

    notes = "\nFirst line\nwraps here.\n\nSecond paragraph; a command:\n    tokviz replay --text x\n"
    assert (
        reflow(notes) == "First line wraps here.\n\nSecond paragraph; a command:\n    tokviz replay --text x"
    )
