"""Presentation mode hides the status bar, so its counts come back over the views in large type."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QFontMetricsF
from pytestqt.qtbot import QtBot

from tokviz.gui.window.counters import BigCounters

from .fixture_types import MakeWindow
from .reach import child

LECTURE_STRING = "Hello, 🌍! 你好!"


def test_the_lecture_string_under_gpt2_reads_20_bytes_and_12_tokens_in_big_counters(
    qtbot: QtBot, make_window: MakeWindow
) -> None:
    window = make_window(text=LECTURE_STRING, size=(1024, 768))
    assert window.tokenizers.label(window.panels[0].model.key) == "GPT-2"

    window.presentation.set_active(True)
    counters = child(window, BigCounters, "bigCounters")

    assert counters.isVisible()
    assert (counters.counts.characters, counters.counts.bytes) == (13, 20)
    gpt2 = counters.counts.views[0]
    assert (gpt2.name, gpt2.tokens) == ("GPT-2", 12)
    texts = counters.cell_texts()
    assert "13 characters · 20 bytes" in texts[0]
    assert texts[1] == "GPT-2 12 tokens · 1.67 bytes/token"
    assert len(texts) == 1 + len(window.panels)
    # Large: taller than the menus' and tables' type of presentation mode.
    sizes = window.presentation.sizes()
    assert counters.font().pointSizeF() == pytest.approx(sizes.counter)
    assert sizes.counter > sizes.ui
    number_line = QFontMetricsF(counters.cells[0].font()).height()
    qtbot.waitUntil(
        lambda: counters.height() >= number_line * 1.5, timeout=5000
    )  # a heading over the numbers

    window.presentation.set_active(False)

    assert not counters.isVisible() and window.statusBar().isVisible()


def test_the_counters_follow_the_text(qtbot: QtBot, make_window: MakeWindow) -> None:
    window = make_window(text=LECTURE_STRING, size=(1024, 768))
    window.presentation.set_active(True)
    counters = child(window, BigCounters, "bigCounters")

    window.set_text("the cat in the hat")
    qtbot.waitUntil(lambda: window.is_ready() and counters.counts.bytes == 18, timeout=20000)

    assert counters.counts.views[0].tokens == 5  # the, cat, in, the, hat


def test_every_counter_fits_its_share_of_a_1024_pixel_screen(qtbot: QtBot, make_window: MakeWindow) -> None:
    from tokviz.gui.window.counters import _value_line

    window = make_window(text=LECTURE_STRING, size=(1024, 768))
    window.presentation.set_active(True)
    window.resize(1024, 768)
    counters = child(window, BigCounters, "bigCounters")
    qtbot.waitUntil(lambda: counters.width() <= 1024, timeout=5000)

    for cell in counters.cells:
        if not cell.isHidden():
            bold = QFontMetricsF(cell.font())
            assert bold.horizontalAdvance(_value_line(cell.text())) * 1.08 <= cell.width(), cell.text()
