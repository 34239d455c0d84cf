"""The streaming-decode panel: step through ids, see the text so far, the bytes held back, a naive decoder."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from tokviz.core.pretok.bytes_ import incomplete_tail_length
from tokviz.gui import MainWindow
from tokviz.gui.models.tokenizers import TokenizerRegistryModel
from tokviz.gui.panels.streaming import (
    LECTURE_EXAMPLE,
    StreamDecodeView,
    StreamTrace,
    describe_pending,
    parse_ids,
)

from ..strategies import hard_text
from .reach import dock, menu


def expected_state(tokenizer, ids: list[int], k: int) -> tuple[str, bytes]:
    """What a correct streaming decoder shows after ``k`` ids: the complete characters, and the rest."""
    data = b"".join(tokenizer.id_bytes(i) for i in ids[:k])
    tail = incomplete_tail_length(data)
    return data[: len(data) - tail].decode("utf-8"), data[len(data) - tail :]


@pytest.mark.parametrize("name", ["gpt2", "cl100k", "byte_tokenizer"])
def test_the_lecture_example_holds_back_exactly_the_incomplete_bytes(request, name):
    tok = request.getfixturevalue(name)
    ids = tok.encode(LECTURE_EXAMPLE)
    trace = StreamTrace(tok, ids)

    for k in range(len(ids) + 1):
        assert (trace.text_at(k), trace.pending_at(k)) == expected_state(tok, ids, k)
    assert trace.final_text() == LECTURE_EXAMPLE


def test_gpt2_splits_the_globe_over_three_ids_and_prints_it_after_the_third(gpt2):
    trace = StreamTrace(gpt2, gpt2.encode(LECTURE_EXAMPLE))

    assert [s.token_id for s in trace.steps[2:5]] == [12520, 234, 235]
    assert [s.pending for s in trace.steps[2:5]] == [b"\xf0\x9f", b"\xf0\x9f\x8c", b""]
    assert [s.emitted for s in trace.steps[2:5]] == [" ", "", "🌍"]
    assert [s.naive for s in trace.steps[2:5]] == [" \ufffd", "\ufffd", "\ufffd"]
    assert trace.first_error(5)[0] == 2 and "UnicodeDecodeError" in trace.first_error(5)[1]


@settings(max_examples=60, deadline=None)
@given(
    text=st.one_of(
        st.text(alphabet=st.sampled_from(list("ab 🌍你é\n")), max_size=20),
        hard_text(max_pieces=6, max_run=40),
    )
)
def test_any_text_under_the_byte_tokenizer_streams_back_whole(text):
    from tokviz.core.formats.registry import load_tokenizer

    tok = load_tokenizer("bytes")
    ids = tok.encode(text)
    trace = StreamTrace(tok, ids)

    for k in range(len(ids) + 1):
        assert (trace.text_at(k), trace.pending_at(k)) == expected_state(tok, ids, k)
    assert trace.final_text() == text


def test_typed_ids_are_checked_against_the_vocabulary():
    assert parse_ids("12520, 234 [235]", 50257, set(range(50257))) == [12520, 234, 235]
    with pytest.raises(ValueError, match="'x1' is not an id"):
        parse_ids("1 x1", 10, set(range(10)))
    with pytest.raises(ValueError, match="99 is not in the vocabulary"):
        parse_ids("99", 10, set(range(10)))


def test_the_pending_sentence_says_how_many_bytes_are_still_missing():
    assert describe_pending(b"\xf0\x9f").startswith("2 bytes held back: F0 9F")
    assert "4-byte character, waiting for 2 more bytes" in describe_pending(b"\xf0\x9f")
    assert describe_pending(b"").startswith("Nothing held back")


# ----------------------------------------------------------------------------- the panel
@pytest.fixture
def panel(qtbot, gpt2):
    registry = TokenizerRegistryModel()
    registry.load_builtin_now("gpt2")
    view = StreamDecodeView(registry)
    qtbot.addWidget(view)
    view.resize(700, 500)
    view.show()
    view.set_text(LECTURE_EXAMPLE)
    # The editor's text is encoded in the background.
    qtbot.waitUntil(lambda: view.trace is not None and not view.computing, timeout=10000)
    return view


def test_stepping_with_the_buttons_shows_text_and_held_back_bytes(qtbot, panel):
    assert panel.position == 12 and panel.decoded_text == LECTURE_EXAMPLE  # starts fully decoded

    qtbot.mouseClick(panel.first_button, Qt.MouseButton.LeftButton)
    for _ in range(3):
        qtbot.mouseClick(panel.next_button, Qt.MouseButton.LeftButton)

    assert panel.position == 3 and panel.slider.value() == 3
    assert panel.decoded_text == "Hello, " and panel.pending == b"\xf0\x9f"
    assert "F0 9F" in panel.decoded.text()
    assert panel.pending_label.text().startswith("Id 12520 (20 F0 9F) printed ' '. 2 bytes held back: F0 9F")
    assert panel.position_label.text() == "3 of 12 ids"

    qtbot.mouseClick(panel.next_button, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(panel.next_button, Qt.MouseButton.LeftButton)
    assert panel.decoded_text == "Hello, 🌍" and panel.pending == b""
    qtbot.mouseClick(panel.previous_button, Qt.MouseButton.LeftButton)
    assert panel.pending == b"\xf0\x9f\x8c"


def test_the_naive_decoder_prints_replacement_characters_or_raises(panel):
    panel.set_position(5)
    assert panel.naive_output() == "Hello, \ufffd\ufffd\ufffd"
    assert "\ufffd" in panel.naive.text()

    panel.naive_mode.setCurrentIndex(panel.naive_mode.findData("strict"))
    assert "UnicodeDecodeError" in panel.naive.text() and "12520" in panel.naive.text()

    panel.show_naive.setChecked(False)
    assert not panel.naive.isVisible()


def test_typed_ids_replace_the_editor_text(panel):
    panel.set_ids([12520, 234, 235])
    assert not panel.follow.isChecked() and not panel.ids_edit.isReadOnly()
    assert len(panel.trace) == 3 and panel.decoded_text == " 🌍"

    panel.ids_edit.setText("12520 99999999")
    panel._rebuild()
    assert panel.error.isVisible() and "99999999 is not in the vocabulary" in panel.error.text()


def test_clicking_an_id_decodes_up_to_it(qtbot, panel):
    rect = panel.chips.chip_rect(3)
    qtbot.mouseClick(panel.chips, Qt.MouseButton.LeftButton, pos=rect.center().toPoint())

    assert panel.position == 4 and panel.pending == b"\xf0\x9f\x8c"


def test_another_tokenizer_streams_the_same_text(qtbot, panel, cl100k):
    panel.registry.load_builtin_now("cl100k")
    panel.set_tokenizer("cl100k")
    qtbot.waitUntil(lambda: panel.trace.tokenizer is cl100k and not panel.computing, timeout=10000)

    assert panel.trace.tokenizer is cl100k and len(panel.trace) == len(cl100k.encode(LECTURE_EXAMPLE))
    assert panel.decoded_text == LECTURE_EXAMPLE


# ----------------------------------------------------------------------------- in the window
def test_the_window_dock_follows_the_editor_and_loads_the_lecture_example(qtbot, gpt2):
    window = MainWindow()
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(window.is_ready, timeout=20000)
    assert any(
        a.text() == LECTURE_EXAMPLE for a in menu(window, "samplesMenu").actions()
    )  # also in the Samples menu
    view = dock(window, "streamDock").widget()
    assert window.findChild(StreamDecodeView, "streamDecodeView") is view

    window.findChild(type(dock(window, "streamDock").toggleViewAction()), "actionStreamDock").trigger()
    qtbot.mouseClick(view.example_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(
        lambda: view.trace is not None and view.trace.ids == gpt2.encode(LECTURE_EXAMPLE), timeout=10000
    )

    qtbot.waitUntil(lambda: window.is_ready() and window.text == LECTURE_EXAMPLE, timeout=10000)
    assert view.picker.currentText() == "GPT-2" and view.position == 12
    assert view.chips.colors is window.appearance.colors
    window.close()
    QApplication.processEvents()
