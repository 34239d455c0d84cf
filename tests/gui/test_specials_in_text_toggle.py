"""View ▸ Special tokens in text as plain text: the views and the vocabulary browser read
``<|endoftext|>`` typed in the text as the command line does, by default as the special token."""

from __future__ import annotations

from PySide6.QtWidgets import QDockWidget

from tokviz.core.bpe.tokenizer import Tokenizer
from tokviz.gui.panels.vocabulary import VocabBrowser
from tokviz.gui.settings import SPECIALS_IN_TEXT

from .reach import action

TEXT = "Hello world<|endoftext|>The cat sat.<|endoftext|>"


def _view_ids(window) -> list[int]:
    return [int(i) for i in window.panels[0].view.table.ids]


def _browser(window) -> VocabBrowser:
    dock = window.findChild(QDockWidget, "vocabDock")
    return dock.findChild(VocabBrowser)


def test_the_views_and_the_browser_follow_the_toggle_and_it_is_remembered(
    qtbot, make_window, gpt2: Tokenizer
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
