"""At 1024 × 768 the vocabulary dock's histogram still says which bars are which, and the id box
next to "Regex" says what it does."""

from __future__ import annotations

from PySide6.QtWidgets import QDockWidget, QLabel

from tokviz.gui.panels.vocabulary.usage import LengthHistogram


def test_the_vocabulary_dock_explains_itself_at_1024(qtbot, make_window) -> None:
    window = make_window(size=(1024, 768))
    dock = window.findChild(QDockWidget, "vocabDock")
    histogram = dock.findChild(LengthHistogram)
    qtbot.waitUntil(lambda: histogram.width() > 0)

    title = histogram.shown_title()
    assert "pale = vocab" in title and "solid = used" in title and not title.endswith("…")
    jump = next(label for label in dock.findChildren(QLabel) if label.text() == "Go to")
    assert jump.buddy().objectName() == "vocabJump" and jump.isVisible()


def test_a_wide_histogram_shows_the_whole_title_and_a_very_narrow_one_elides(qtbot) -> None:
    histogram = LengthHistogram()
    qtbot.addWidget(histogram)
    histogram.resize(900, 80)
    assert (
        histogram.shown_title() == "Token lengths in bytes (log scale): pale = vocabulary, solid = used here"
    )
    histogram.resize(80, 80)
    assert histogram.shown_title().endswith("…")


def test_a_few_used_tokens_stay_visible_beside_a_large_vocabulary() -> None:
    full = 60.0
    used, vocabulary = (
        LengthHistogram.bar_height(97, 50_257, full),
        LengthHistogram.bar_height(50_257, 50_257, full),
    )
    assert vocabulary == full and used > full / 3  # linear: 0.1 px
    assert (
        LengthHistogram.bar_height(0, 50_257, full) == 0.0 and LengthHistogram.bar_height(1, 1, full) == full
    )
