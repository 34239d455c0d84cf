"""Narrow view headers, the status bar and the tokenizer pickers elide with "…" and keep the whole
text in a tooltip, instead of silently cutting digits ("5" for "59 tokens")."""

from __future__ import annotations

from PySide6.QtWidgets import QStyle, QStyleOptionComboBox

from tokviz.gui.models.tokenizers import TokenizerRegistryModel
from tokviz.gui.widgets.elided import ElidedLabel
from tokviz.gui.widgets.picker import TokenizerPicker


def test_a_narrow_label_ends_in_an_ellipsis_and_keeps_the_text_in_its_tooltip(qtbot) -> None:
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


def test_six_views_at_1024_elide_their_headers_and_the_status_bar(qtbot, make_window) -> None:
    window = make_window(text="The quick brown fox jumps over the lazy dog. " * 3, size=(1024, 768))
    for _ in range(4):
        window.add_view()
    qtbot.waitUntil(window.is_ready, timeout=20000)
    qtbot.wait(50)

    assert len(window.panels) == 6
    for panel in window.panels:
        h = panel.stats
        count = h.text().split()[0]
        assert h.text().endswith("bytes/token") and h.toolTip() == h.text()
        # The whole text, or "59 tokens", or "59": the count is never cut to its first digit; a
        # header with no room even for that shows the counts on its second line.
        shown = h.displayed_text()
        assert shown in (h.text(), f"{count} tokens", count) or (
            shown == "" and panel.lesson.isVisibleTo(window) and panel.lesson.text().startswith(h.text())
        )
    assert window.width() <= 1024, "six views still fit a 1024-pixel projector"
    status = window.status_label
    assert status.is_elided() and status.displayed_text().endswith("…")
    assert status.toolTip() == status.text()


def test_a_picker_elides_names_in_the_middle_so_their_ends_tell_them_apart(qtbot) -> None:
    registry = TokenizerRegistryModel(builtins=["gpt2"])
    registry.add_tokenizer("botchan_en_bpe_1000", registry.load_builtin_now("gpt2"))
    picker = TokenizerPicker(registry)
    qtbot.addWidget(picker)
    picker.show_key("model:botchan_en_bpe_1000")
    picker.setMinimumContentsLength(4)
    picker.resize(picker.minimumSizeHint().width(), 28)
    picker.show()
    option = QStyleOptionComboBox()
    picker.initStyleOption(option)
    field = picker.style().subControlRect(
        QStyle.ComplexControl.CC_ComboBox, option, QStyle.SubControl.SC_ComboBoxEditField, picker
    )
    assert picker.fontMetrics().horizontalAdvance("botchan_en_bpe_1000") > field.width()
    picker.repaint()  # paints without error, eliding "botc…1000"
    assert picker.currentText() == "botchan_en_bpe_1000"


def test_a_view_picker_shows_a_long_name_whole_when_its_header_has_room(qtbot, make_window) -> None:
    window = make_window(size=(1366, 768))
    model = window.tokenizers.load_builtin_now("gpt2")
    key = window.tokenizers.add_tokenizer("botchan_en_bpe_1000", model)
    window.panels[0].select_tokenizer(key)
    qtbot.wait(20)

    picker = window.panels[0].picker
    assert picker.sizeHint().width() > picker.fontMetrics().horizontalAdvance("botchan_en_bpe_1000")
    assert picker.width() >= picker.sizeHint().width()  # two views at 1366: room for the whole name
