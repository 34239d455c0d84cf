"""View ▸ Special tokens in text as plain text: the views and the vocabulary browser read
``<|endoftext|>`` typed in the text as the command line does, by default as the special token."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from tokviz.core.bpe.tokenizer import Tokenizer
from tokviz.gui.panels.vocabulary import VocabBrowser
from tokviz.gui.settings import SPECIALS_IN_TEXT
from tokviz.gui.window.main_window import MainWindow

from .fixture_types import MakeWindow
from .reach import action, child, dock

TEXT = "Hello world<|endoftext|>The cat sat.<|endoftext|>"


def _view_ids(window: MainWindow) -> list[int]:
    table = window.panels[0].view.table
    assert table is not None, "the first view shows no tokens yet"
    return [int(i) for i in table.ids]


def _browser(window: MainWindow) -> VocabBrowser:
    return child(dock(window, "vocabDock"), VocabBrowser)


def test_the_views_and_the_browser_follow_the_toggle_and_it_is_remembered(
    qtbot: QtBot, make_window: MakeWindow, gpt2: Tokenizer
) -> None:
    window = make_window(text=TEXT)
    browser = _browser(window)
    browser.show_tokenizer("gpt2")
    assert not action(window, "actionSpecialsAsText").isChecked()
    assert _view_ids(window) == gpt2.encode(TEXT)
    qtbot.waitUntil(
        lambda: browser.usage.result is not None and browser.usage.result.usage.counts[50256] == 2,
        timeout=20000,  # a count in the background, as the other waits here: a busy machine is slow
    )

    action(window, "actionSpecialsAsText").setChecked(True)

    qtbot.waitUntil(
        lambda: window.is_ready() and _view_ids(window) == gpt2.encode_ordinary(TEXT), timeout=20000
    )
    qtbot.waitUntil(
        lambda: (
            browser.usage.result is not None
            and browser.usage.result.usage.counts[50256] == 0
            and browser.usage.result.usage.counted.tokens == len(gpt2.encode_ordinary(TEXT))
        ),
        timeout=20000,
    )
    assert "read as plain text" in browser.headline.toolTip()
    window.save_settings()
    assert window.settings.get(SPECIALS_IN_TEXT) == "text"

    again = make_window(text=TEXT, settings=window.settings)
    assert action(again, "actionSpecialsAsText").isChecked()
    qtbot.waitUntil(
        lambda: again.is_ready() and _view_ids(again) == gpt2.encode_ordinary(TEXT), timeout=20000
    )
