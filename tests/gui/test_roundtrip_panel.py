"""The round-trip panel: ``decode(encode(s)) == s`` live for the editor's text under every view."""

from __future__ import annotations

from PySide6.QtGui import QAction

from tokviz.gui import MainWindow
from tokviz.gui.panels.roundtrip import check_round_trip

from ..texts import CAT, HELLO
from .reach import dock
from .waiting import settled


def test_gpt2_round_trips_the_lecture_example_but_per_id_decoding_does_not(gpt2):
    r = check_round_trip(gpt2, HELLO)

    assert r.holds and (r.characters, r.bytes_in, r.tokens, r.bytes_out) == (13, 20, 12, 20)
    assert not r.per_id_holds and r.split_ids == 7  # 3 ids for 🌍, 2 each for 你 and 好
    assert r.first_difference is None


def test_ascii_decodes_id_by_id_too(byte_tokenizer):
    r = check_round_trip(byte_tokenizer, CAT)

    assert r.holds and r.per_id_holds and r.split_ids == 0 and r.tokens == r.bytes_in == 18


def test_ids_that_do_not_spell_the_text_break_the_contract(gpt2):
    ids = gpt2.encode("Hello, world")

    r = check_round_trip(gpt2, "Hello, World", ids)

    assert not r.holds and r.first_difference == 7


def test_the_dock_checks_every_view_after_each_edit(qtbot):
    window = MainWindow()
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(window.is_ready, timeout=20000)
    panel = dock(window, "roundTripDock").widget()
    action = window.findChild(QAction, "actionRoundTripDock")

    with qtbot.waitSignal(panel.updated, timeout=20000):
        action.trigger()
        window.set_text(HELLO)
    qtbot.waitUntil(
        lambda: panel.is_idle() and panel.results and panel.results[0].characters == 13, timeout=20000
    )

    assert panel.table.rowCount() == len(window.panels) == 2
    assert [panel.table.item(row, 6).text() for row in range(2)] == ["✓ true", "✓ true"]
    assert panel.table.item(0, 7).text() == "✗ false (7 split ids)"
    assert "✓ true" in panel.summary.text() and "20 bytes in, 20 bytes out" in panel.summary.text()
    window.close()


def test_every_column_title_reads_whole_at_1024(qtbot, make_window):
    window = make_window(size=(1008, 680))
    dock(window, "roundTripDock").show()
    dock(window, "roundTripDock").raise_()
    panel = dock(window, "roundTripDock").widget()
    qtbot.waitUntil(lambda: panel.table.rowCount() > 0 and panel.is_idle(), timeout=20000)
    header = panel.table.horizontalHeader()
    settled(
        qtbot, lambda: (header.viewport().width(), [header.sectionSize(c) for c in range(header.count())])
    )
    room = header.viewport().width()
    for col in range(header.count()):
        title = panel.table.horizontalHeaderItem(col).text()
        needed = header.fontMetrics().horizontalAdvance(title) + 8
        left = header.sectionViewportPosition(col)
        assert left >= 0 and min(header.sectionSize(col), room - left) >= needed, title
