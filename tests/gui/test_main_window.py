"""The main window, driven the way a student would: type, hover, select, switch tokenizers, open files."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt, QTimer
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QApplication, QComboBox, QMessageBox, QPlainTextEdit

from tokviz.gui import MainWindow
from tokviz.gui.models.tokenizers import KeyRole
from tokviz.gui.settings import TEXT
from tokviz.gui.text.display import details_html, plain_text
from tokviz.gui.widgets.token_view import TokenView

from ..texts import CAT
from .reach import action, dock, error_text, menu
from .waiting import settled


def set_text(qtbot, window: MainWindow, text: str) -> None:
    window.set_text(text)
    qtbot.waitUntil(lambda: window.is_ready() and window.text == text, timeout=60000)


def token_index_of(view: TokenView, token_id: int) -> int:
    assert view.table is not None
    hits = [i for i, t in enumerate(view.table.ids.tolist()) if t == token_id]
    assert hits, f"token {token_id} not in view"
    return hits[0]


def test_window_has_the_named_controls_and_opens_on_gpt2_and_cl100k(window):
    assert isinstance(window.findChild(QPlainTextEdit, "editor"), QPlainTextEdit)
    assert len(window.findChildren(TokenView, "tokenView")) == 2
    pickers = window.findChildren(QComboBox, "tokenizerPicker")
    assert sorted(p.currentText() for p in pickers) == ["GPT-2", "cl100k"]
    assert [p.picker.currentText() for p in window.panels] == ["GPT-2", "cl100k"]
    assert all(p.accessibleName() for p in pickers)
    assert "🌍" in window.text and "你好" in window.text and "<|endoftext|>" in window.text


def test_typing_updates_the_counts_exactly_as_the_core_computes_them(qtbot, window, gpt2, cl100k):
    editor = window.editor
    editor.clear()
    qtbot.keyClicks(editor, "Hello, world! ")
    editor.insertPlainText("🌍 你好")  # what an input method does; QTest types ASCII only
    qtbot.keyClicks(editor, " 1234567")
    qtbot.waitUntil(lambda: window.is_ready() and window.text == editor.toPlainText(), timeout=10000)
    text = window.text
    assert text == "Hello, world! 🌍 你好 1234567"
    assert window.token_counts() == [len(gpt2.encode(text)), len(cl100k.encode(text))]
    n_bytes = len(text.encode("utf-8"))
    status = window.status_label.text()
    assert f"{len(text)} characters" in status and f"{n_bytes} bytes" in status
    assert (
        f"GPT-2: {len(gpt2.encode(text))} tokens ({n_bytes / len(gpt2.encode(text)):.2f} bytes/token)"
        in status
    )
    # Delete a character: still exact.
    qtbot.keyClick(editor, Qt.Key.Key_Backspace)
    qtbot.waitUntil(lambda: window.is_ready() and window.text == editor.toPlainText(), timeout=10000)
    assert window.token_counts() == [len(gpt2.encode(window.text)), len(cl100k.encode(window.text))]
    assert list(window.panels[0].view.table.ids) == gpt2.encode(window.text)


def test_an_emoji_before_a_token_does_not_shift_its_box_or_its_editor_highlight(qtbot, window, gpt2):
    set_text(qtbot, window, "🌍🌍🌍 the cat")
    view = window.panels[0].view
    cat = token_index_of(view, gpt2.encode(" cat")[0])
    doc_text = view.document().toRawText()
    assert plain_text(doc_text[view.box_start[cat] : view.box_end[cat]]) == " cat"
    view.hover_token(cat)
    [selection] = window.editor.extraSelections()
    assert selection.cursor.selectedText() == " cat"
    # Same id, same colour: the box is painted like " cat" in a text without emoji.
    colour_with_emoji = view.paint_color(cat).name()
    view.hover_token(-1)
    set_text(qtbot, window, "a the cat")
    assert view.paint_color(token_index_of(view, gpt2.encode(" cat")[0])).name() == colour_with_emoji


def test_partial_utf8_tokens_show_their_bytes_and_specials_are_marked(qtbot, window, gpt2):
    set_text(qtbot, window, "Hi 🌍<|endoftext|>")
    view = window.panels[0].view
    table = view.table
    shown = plain_text(view.document().toRawText())
    assert "<F0 9F>" in shown and "\ufffd" not in shown
    assert table.partial.any()
    special = int(table.special.nonzero()[0][0])
    assert int(table.ids[special]) == 50256
    assert view.paint_color(special) == view.colors.special_fill


def test_hover_shows_id_bytes_text_length_rank_and_parents(qtbot, window, gpt2):
    set_text(qtbot, window, CAT)
    qtbot.waitUntil(lambda: window.tokenizers.merges_ready("gpt2"), timeout=30000)
    view = window.panels[0].view
    the = token_index_of(view, gpt2.encode(" the")[0])
    d = view.details(the)
    assert d.id == 262 and d.hex == "20 74 68 65" and d.text == "·the" and d.length == 4
    assert d.rank == gpt2.merge_rank_of_id[262]
    left, right = gpt2.parents_of_id[262]
    assert d.parents == ((left, "·t"), (right, "he"))
    html = details_html(d, "GPT-2")
    assert "262" in html and "20 74 68 65" in html
    assert f"merge step</td><td style='font-family:monospace'>{d.rank + 1:,}<" in html  # the timeline's step


def test_hovering_a_token_highlights_its_text_in_the_editor_and_the_other_view(qtbot, window, gpt2):
    set_text(qtbot, window, CAT)
    gpt_view, cl_view = (p.view for p in window.panels)
    hat = token_index_of(gpt_view, gpt2.encode(" hat")[0])
    # Move the real mouse over the box, as a user would.
    qtbot.waitUntil(lambda: bool(gpt_view.token_rects(hat)))
    centre = gpt_view.token_rects(hat)[0].center().toPoint()
    qtbot.mouseMove(gpt_view.viewport(), centre)
    qtbot.waitUntil(lambda: gpt_view.hovered == hat)
    assert window.editor.extraSelections()[0].cursor.selectedText() == " hat"
    first, stop = window.view_sync.selected_tokens(window.panels[1])
    assert cl_view.table.text[cl_view.table.start[first] : cl_view.table.end[stop - 1]] == " hat"


def test_selecting_text_in_the_editor_outlines_its_tokens(qtbot, window):
    set_text(qtbot, window, CAT)
    cursor = window.editor.textCursor()
    cursor.setPosition(5)
    cursor.setPosition(9, QTextCursor.MoveMode.KeepAnchor)  # "at i"
    window.editor.setTextCursor(cursor)
    view = window.panels[0].view
    first, stop = window.view_sync.selected_tokens(window.panels[0])
    assert [view.tokenizer.decode([int(i)]) for i in view.table.ids[first:stop]] == [" cat", " in"]


def test_display_toggles_show_ids_whitespace_glyphs_and_chunks(qtbot, window, gpt2):
    set_text(qtbot, window, "the cat\tin  the\nhat")
    view = window.panels[0].view
    action(window, "actionShowWhitespace").trigger()
    shown = plain_text(view.document().toRawText().replace("\u2029", "\n"))
    assert shown == "the·cat→in··the↵\nhat"
    action(window, "actionShowWhitespace").trigger()
    action(window, "actionShowIds").trigger()
    ids = gpt2.encode("the cat\tin  the\nhat")
    assert view.document().toRawText().split()[0] == str(ids[0])
    assert len(view.document().toRawText().split()) == len(ids)
    action(window, "actionShowIds").trigger()
    action(window, "actionShowChunks").trigger()
    assert view.show_chunks


def test_a_1mb_paste_keeps_the_window_responsive(qtbot, window, gpt2, cl100k, english_text):
    big = (english_text * 6)[:1_000_000]
    # Counted, not timed: how often the event loop turned while both views were still encoding.
    turns_while_busy = [0]

    def tick() -> None:
        if not window.is_ready():
            turns_while_busy[0] += 1

    timer = QTimer()
    timer.timeout.connect(tick)
    timer.start(0)  # fires on every turn of the event loop
    QApplication.clipboard().setText(big)
    window.editor.selectAll()
    window.editor.paste()
    assert not window.is_ready(), "the paste was encoded in the GUI thread, not in workers"
    qtbot.waitUntil(lambda: window.is_ready() and len(window.text) == len(big), timeout=120000)
    timer.stop()
    assert window.token_counts() == [len(gpt2.encode(big)), len(cl100k.encode(big))]
    # The event loop kept turning while both views were encoded in workers.
    assert turns_while_busy[0] >= 3, f"the event loop turned only {turns_while_busy[0]} times"
    # Typing into the big text is handled incrementally and stays exact.
    cursor = window.editor.textCursor()
    cursor.setPosition(500_000)
    window.editor.setTextCursor(cursor)
    qtbot.keyClicks(window.editor, "x")
    qtbot.waitUntil(lambda: window.is_ready() and len(window.text) == len(big) + 1, timeout=10000)
    assert window.token_counts()[0] == len(gpt2.encode(window.text))


def test_a_tokenizer_file_that_fails_to_load_shows_an_error_and_changes_nothing(qtbot, window, tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_text('{"format": "tokviz-model", "version": 99}', encoding="utf-8")
    panel = window.panels[1]
    rows = window.tokenizers.rowCount()
    counts = window.token_counts()
    with qtbot.waitSignal(window.tokenizers.loadFailed, timeout=10000):
        window.files.open_tokenizer_file(str(broken), panel)
    dialog = window.findChild(QMessageBox, "errorDialog")
    assert dialog is not None and dialog.isVisible() and "broken.json" in dialog.text()
    assert panel.picker.currentText() == "cl100k" and panel.model.key == "cl100k"
    assert window.tokenizers.rowCount() == rows
    assert window.token_counts() == counts
    dialog.close()


def test_opening_a_tokenizer_file_adds_it_to_every_picker(qtbot, window, tiny_bpe, tmp_path):
    from tokviz.core.formats import save_model

    path = tmp_path / "tiny.json"
    save_model(path, tiny_bpe)
    with qtbot.waitSignal(window.tokenizers.tokenizerLoaded, timeout=10000):
        window.files.open_tokenizer_file(str(path), window.panels[1])
    qtbot.waitUntil(window.is_ready)
    assert window.panels[1].model.tokenizer.vocab == tiny_bpe.vocab
    assert window.token_counts()[1] == len(tiny_bpe.encode(window.text))
    labels = [window.panels[0].picker.itemText(i) for i in range(window.panels[0].picker.count())]
    assert window.panels[1].picker.currentText() in labels


def test_a_trained_model_appears_in_every_picker_at_once(qtbot, window, tiny_bpe):
    key = window.tokenizers.add_tokenizer("my model", tiny_bpe)
    for panel in window.panels:
        assert panel.picker.findText("my model") >= 0
    window.panels[0].select_tokenizer(key)
    qtbot.waitUntil(window.is_ready)
    assert window.token_counts()[0] == len(tiny_bpe.encode(window.text))


def test_views_can_be_added_and_removed_and_scroll_together(qtbot, window):
    panel = window.add_view("bytes")
    qtbot.waitUntil(window.is_ready)
    assert len(window.findChildren(TokenView, "tokenView")) == 3
    assert window.token_counts()[2] == len(window.text.encode("utf-8"))
    set_text(qtbot, window, "\n".join(f"line {i} of a long text" for i in range(400)))
    window.panels[0].view.verticalScrollBar().setValue(200)
    top = window.panels[0].view.top_source_position()
    for p in window.panels[1:]:
        assert abs(p.view.top_source_position() - top) < 40
    window.remove_view(panel)
    assert len(window.panels) == 2


def test_zoom_and_theme_shortcuts(qtbot, window):
    size = window.appearance.point_size
    qtbot.keyClick(window, Qt.Key.Key_Equal, Qt.KeyboardModifier.ControlModifier)
    assert window.appearance.point_size == size + 1
    qtbot.keyClick(window, Qt.Key.Key_Minus, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClick(window, Qt.Key.Key_Minus, Qt.KeyboardModifier.ControlModifier)
    assert window.appearance.point_size == size - 1
    window.appearance.set_theme("dark")
    assert window.panels[0].view.colors.dark
    window.appearance.set_theme("light")
    assert not window.panels[0].view.colors.dark
    for command in window.actions():
        if command.text() and not command.isSeparator():
            assert not command.shortcut().isEmpty(), command.text()


def test_text_and_views_are_kept_across_restarts(qtbot, window):
    set_text(qtbot, window, "remember me 🌍")
    window.add_view("bytes")
    window.close()
    again = MainWindow()
    qtbot.addWidget(again)
    assert again.editor.toPlainText() == "remember me 🌍"
    assert [p.model.key for p in again.panels] == ["gpt2", "cl100k", "bytes"]
    again.close()


def test_hover_over_empty_space_clears_the_highlight(qtbot, window, gpt2):
    set_text(qtbot, window, CAT)
    view = window.panels[0].view
    # First hover a token, so that there is a highlight to clear.
    cat = token_index_of(view, gpt2.encode(" cat")[0])
    qtbot.waitUntil(lambda: bool(view.token_rects(cat)))
    qtbot.mouseMove(view.viewport(), view.token_rects(cat)[0].center().toPoint())
    qtbot.waitUntil(lambda: view.hovered == cat)
    assert window.editor.extraSelections()[0].cursor.selectedText() == " cat"
    qtbot.mouseMove(view.viewport(), QPoint(view.viewport().width() - 2, view.viewport().height() - 2))
    qtbot.waitUntil(lambda: view.hovered == -1)
    assert window.editor.extraSelections() == []


def test_opening_a_text_file_fills_the_editor_and_the_recent_menu(qtbot, window, tmp_path):
    path = tmp_path / "notes.txt"
    path.write_bytes("first line\r\nsecond line 🌍\r\n".encode())
    assert window.files.open_text_file(str(path))
    qtbot.waitUntil(window.is_ready)
    assert window.text == "first line\nsecond line 🌍\n"
    assert "notes.txt" in window.windowTitle()
    assert [a.text() for a in menu(window, "recentMenu").actions()] == ["&1 notes.txt"]
    assert not window.files.open_text_file(str(tmp_path / "missing.txt"))
    assert "missing.txt" in error_text(window)


def test_keyboard_users_step_through_tokens(qtbot, window, gpt2):
    set_text(qtbot, window, CAT)
    view = window.panels[0].view
    view.setFocus()
    qtbot.keyClick(view, Qt.Key.Key_Right)
    qtbot.keyClick(view, Qt.Key.Key_Right)
    assert view.hovered == 1
    assert window.editor.extraSelections()[0].cursor.selectedText() == " cat"
    assert "token 3797" in window.statusBar().currentMessage()
    qtbot.keyClick(view, Qt.Key.Key_Escape)
    assert view.hovered == -1


def test_a_panel_plugs_in_through_the_context_as_a_hidden_dock_with_a_shortcut(qtbot, window):
    from PySide6.QtGui import QKeySequence
    from PySide6.QtWidgets import QLabel

    dock = window.host.add_dock(
        QLabel("a new panel"), "New panel", "newPanelDock", shortcut="Ctrl+Alt+P", action_text="&New"
    )
    toggle = dock.toggleViewAction()
    assert toggle in menu(window, "viewMenu").actions()
    assert toggle.objectName() == "actionNewPanelDock" and toggle.text() == "&New"
    assert toggle.shortcut() == QKeySequence("Ctrl+Alt+P")
    assert dock.isHidden(), "a panel starts hidden until the user asks for it"
    toggle.trigger()
    assert not dock.isHidden() and toggle.isChecked()
    toggle.trigger()
    assert dock.isHidden()


def test_dropping_a_file_on_the_editor_opens_it(qtbot, window, tmp_path):
    from PySide6.QtCore import QMimeData, QPointF, QUrl
    from PySide6.QtGui import QDropEvent

    path = tmp_path / "dropped.py"
    path.write_text("print('hi')\n", encoding="utf-8")
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path))])
    event = QDropEvent(
        QPointF(10, 10),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    window.editor.dropEvent(event)
    qtbot.waitUntil(lambda: window.is_ready() and window.text == "print('hi')\n")


def test_a_huge_text_is_not_written_to_the_settings(qtbot, window, monkeypatch):
    import tokviz.gui.window.session as session

    monkeypatch.setattr(session, "MAX_SAVED_TEXT", 10)
    set_text(qtbot, window, "far more than ten characters")
    window.save_settings()
    assert not window.settings.contains(TEXT)


def test_every_sample_loads_and_is_tokenized(qtbot, window, gpt2):
    from tokviz.gui.text.samples import CATEGORY_SAMPLES, LECTURE_SAMPLES

    for sample in (*LECTURE_SAMPLES, *CATEGORY_SAMPLES):
        window.load_sample(sample)
        qtbot.waitUntil(lambda s=sample: window.is_ready() and window.text == s.load(), timeout=20000)
        assert window.token_counts()[0] == len(gpt2.encode(window.text))
    # The category samples are about 2 KB each.
    assert all(1800 <= len(s.load().encode("utf-8")) <= 2600 for s in CATEGORY_SAMPLES)


def test_a_closed_view_does_not_hear_about_new_tokenizers(qtbot, window, tiny_bpe):
    """A closed view's picker is gone: a tokenizer added later must not reach it (it once raised
    "Internal C++ object (TokenizerPicker) already deleted" in an error dialog)."""
    import gc

    window.add_view("bytes")
    closed = window.panels[-1]
    window.remove_view(closed)
    qtbot.waitUntil(lambda: not shiboken_valid(closed), timeout=5000)
    gc.collect()
    key = window.tokenizers.add_tokenizer("tiny", tiny_bpe)
    assert [p.picker.findData(key, KeyRole) >= 0 for p in window.panels] == [True] * len(window.panels)
    assert error_text(window) is None


def shiboken_valid(obj) -> bool:
    import shiboken6

    return shiboken6.isValid(obj)


def test_the_vocabulary_panel_follows_the_reference_view(qtbot, window):
    from PySide6.QtGui import QKeySequence

    vocabulary = dock(window, "vocabDock")
    browser = vocabulary.widget()
    assert not vocabulary.isHidden()
    assert vocabulary.toggleViewAction().shortcut() == QKeySequence("Ctrl+Shift+V")
    assert browser.key() == window.panels[0].model.key == "gpt2"
    window.panels[0].select_tokenizer("bytes")
    qtbot.waitUntil(lambda: browser.key() == "bytes", timeout=10000)
    window.panels[1].select_tokenizer("cl100k")
    window.remove_view(window.panels[0])  # the cl100k view becomes the reference
    qtbot.waitUntil(lambda: browser.key() == "cl100k", timeout=10000)


def test_every_panel_open_still_fits_a_1024_pixel_projector(qtbot, window):
    """Bottom docks share tabs and pickers elide long names, so the window's minimum stays small."""
    from PySide6.QtWidgets import QDockWidget

    for each in window.findChildren(QDockWidget):
        each.show()
    assert settled(qtbot, lambda: window.minimumSizeHint().width()) <= 1000
    window.presentation.set_active(True)
    smallest = settled(qtbot, lambda: window.minimumSizeHint().width())
    assert smallest <= 1000, "presentation mode's larger type fits too"
    window.presentation.set_active(False)


def test_a_panel_shortcut_brings_a_dock_behind_a_tab_to_the_front(qtbot, window):
    train = dock(window, "trainDock")
    toggle = train.toggleViewAction()
    assert not train.isHidden() and train.visibleRegion().isEmpty(), (
        "first launch: Train is behind Vocabulary"
    )
    toggle.trigger()
    qtbot.waitUntil(lambda: not train.visibleRegion().isEmpty(), timeout=2000)
    assert not train.isHidden() and toggle.isChecked()
    toggle.trigger()
    assert train.isHidden() and not toggle.isChecked()
    toggle.trigger()
    qtbot.waitUntil(lambda: not train.visibleRegion().isEmpty(), timeout=2000)
    assert toggle.isChecked()


def test_opening_a_tokenizer_file_adds_a_view_and_keeps_the_others(qtbot, window, tmp_path, tiny_bpe):
    from tokviz.core.formats import save_model

    path = tmp_path / "mine.tokviz.json"
    save_model(path, tiny_bpe)
    before = [p.model.key for p in window.panels]
    job = window.files.open_tokenizer_file(str(path))
    qtbot.waitUntil(lambda: job.done, timeout=20000)
    qtbot.waitUntil(lambda: len(window.panels) == len(before) + 1, timeout=5000)
    assert [p.model.key for p in window.panels][: len(before)] == before, "GPT-2 and cl100k stay"
    assert window.panels[-1].model.key == f"file:{path}"


def test_the_title_names_the_file_only_while_its_text_is_shown(qtbot, window, tmp_path):
    from tokviz.gui.text.samples import LECTURE_SAMPLES

    notes = tmp_path / "notes.txt"
    notes.write_text("my notes", encoding="utf-8")
    assert window.files.open_text_file(str(notes))
    assert window.windowTitle() == "notes.txt — tokviz"
    window.load_sample(LECTURE_SAMPLES[0])
    assert window.windowTitle() == f"{LECTURE_SAMPLES[0].title} — tokviz"
    window.set_text("typed by a panel")
    assert window.windowTitle() == "tokviz"


def test_a_status_message_shows_in_place_of_the_counts_for_a_moment(qtbot, window):
    """The counts fill the status bar; a message ("Sample: …", a token not in the text) must not be
    squeezed to nothing beside them."""
    window.show()
    qtbot.waitUntil(window.is_ready, timeout=10000)
    assert window.status_label.isVisible()

    window.statusBar().showMessage("'#' does not occur in the editor's text", 5000)

    assert not window.status_label.isVisible()
    window.statusBar().clearMessage()
    assert window.status_label.isVisible()
