"""Narrow view headers and the status bar elide with "…" and keep the whole
text in a tooltip, instead of silently cutting digits ("5" for "59 tokens")."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from tokviz.gui.widgets.elided import ElidedLabel

from .fixture_types import MakeWindow
from .waiting import settled


def test_a_narrow_label_ends_in_an_ellipsis_and_keeps_the_text_in_its_tooltip(qtbot: QtBot) -> None:
    label = ElidedLabel("59 tokens · 3.21 bytes/token")
    qtbot.addWidget(label)
    label.resize(60, 20)
    label.show()

    assert label.is_elided() and label.displayed_text().endswith("…")
    assert label.displayed_text().startswith("59")
    assert label.toolTip() == "59 tokens · 3.21 bytes/token"
    label.resize(400, 20)
    assert not label.is_elided() and label.displayed_text() == label.text()
    label.setToolTip("more than the text")
    label.setText("60 tokens")
    assert label.toolTip() == "more than the text"


def test_six_views_at_1024_elide_their_headers_and_the_status_bar(
    qtbot: QtBot, make_window: MakeWindow
) -> None:
    window = make_window(text="The quick brown fox jumps over the lazy dog. " * 3, size=(1024, 768))
    for _ in range(4):
        window.add_view()
    qtbot.waitUntil(window.is_ready, timeout=20000)
    settled(qtbot, lambda: [p.stats.displayed_text() for p in window.panels])

    assert len(window.panels) == 6
    for panel in window.panels:
        h = panel.stats
        count = h.text().split()[0]
        assert h.text().endswith("bytes/token") and h.toolTip() == h.text()
        # The whole text, or "59 tokens…", or "59 tok…": the count is never cut to its first digit and
        # a shortened header says so; one with no room even for that shows the counts on its second line.
        shown = h.displayed_text()
        assert shown in (h.text(), f"{count} tokens…", f"{count} tok…") or (
            shown == "" and panel.lesson.isVisibleTo(window) and panel.lesson.text().startswith(h.text())
        )
    assert window.width() <= 1024, "six views still fit a 1024-pixel projector"
    status = window.status_label
    assert status.is_elided() and status.displayed_text().endswith("…")
    assert status.toolTip() == status.text()


def test_a_shortened_header_always_ends_in_an_ellipsis(qtbot: QtBot) -> None:
    """ "characters 63" would read as a complete header: any shorter form is marked as shortened."""
    label = ElidedLabel()
    qtbot.addWidget(label)
    label.set_text_forms("63 tokens · 1.00 bytes/token", "63 tokens", "63 tok")
    label.show()
    for width in range(4, 300, 3):
        label.resize(width, 30)
        shown = label.displayed_text()
        assert shown in ("", label.text()) or shown.endswith("…"), (width, shown)
