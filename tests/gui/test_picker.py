"""The shared tokenizer picker: picking emits the key, "Open tokenizer…" asks for a file."""

from __future__ import annotations

from tokviz.gui.models.tokenizers import OPEN_KEY, KeyRole, TokenizerRegistryModel
from tokviz.gui.widgets.picker import TokenizerPicker


def test_picking_and_opening(qtbot):
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
