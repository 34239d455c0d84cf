"""The shared tokenizer picker: picking emits the key, "Open tokenizer…" asks for a file."""

from __future__ import annotations

from PySide6.QtWidgets import QStyle, QStyleOptionComboBox
from pytestqt.qtbot import QtBot

from tokviz.gui.models.tokenizers import OPEN_KEY, KeyRole, TokenizerRegistryModel
from tokviz.gui.widgets.picker import TokenizerPicker

from .fixture_types import MakeWindow


def test_picking_and_opening(qtbot: QtBot) -> None:
    registry = TokenizerRegistryModel()
    picker = TokenizerPicker(registry)
    qtbot.addWidget(picker)
    picker.show_key("gpt2")
    assert picker.itemData(picker.currentIndex(), KeyRole) == "gpt2"

    cl100k = registry.row_of("cl100k")
    with qtbot.waitSignal(picker.picked) as picked:
        picker.activated.emit(cl100k)
    assert picked.args == ["cl100k"]

    open_row = next(i for i in range(picker.count()) if picker.itemData(i, KeyRole) == OPEN_KEY)
    with qtbot.waitSignal(picker.openRequested):
        picker.setCurrentIndex(open_row)
        picker.activated.emit(open_row)
    # The selection goes back to the tokenizer in use until a file actually loads.
    assert picker.itemData(picker.currentIndex(), KeyRole) == "gpt2"


# ----------------------------------------------------------------
# A narrow picker elides a long name in the middle (its ends tell names apart) and keeps it whole
# where its view's header has room.


def test_a_picker_elides_names_in_the_middle_so_their_ends_tell_them_apart(qtbot: QtBot) -> None:
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


def test_a_view_picker_shows_a_long_name_whole_when_its_header_has_room(
    qtbot: QtBot, make_window: MakeWindow
) -> None:
    window = make_window(size=(1366, 768))
    model = window.tokenizers.load_builtin_now("gpt2")
    key = window.tokenizers.add_tokenizer("botchan_en_bpe_1000", model)
    window.panels[0].select_tokenizer(key)

    picker = window.panels[0].picker
    assert picker.sizeHint().width() > picker.fontMetrics().horizontalAdvance("botchan_en_bpe_1000")
    # Two views at 1366: room for the whole name, once the header is laid out again.
    qtbot.waitUntil(lambda: picker.width() >= picker.sizeHint().width())
