"""File ▸ Export web page…: the text in every token view, saved as a page a browser draws."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QMenu

from tokviz.gui.widgets import file_dialogs
from tokviz.gui.window.export_page import PageExporter

from ..texts import HELLO
from .reach import action, child, exporter

pytestmark = [
    pytest.mark.gui,
    pytest.mark.qt_log_ignore(
        "This plugin does not support propagateSizeHints", "This plugin does not support raise"
    ),
]


@pytest.fixture
def window(make_window):
    return make_window(text=HELLO)


def test_the_page_holds_every_view_with_the_same_ids_as_the_views(window, tmp_path, monkeypatch):
    chosen = tmp_path / "lesson"
    monkeypatch.setattr(file_dialogs, "get_save_file_name", lambda *a, **k: (str(chosen), PAGE))
    action(window, "actionExportPage").trigger()

    page = (tmp_path / "lesson.html").read_text(encoding="utf-8")
    names = [name for name, _ in window.named_views()]
    assert f"<title>tokviz: {', '.join(names)}</title>" in page
    for panel in window.panels:
        ids = [int(i) for i in panel.view.table.ids]
        for token_id in ids:
            assert f'title="id {token_id} ·' in page
    assert "Saved the token views as" in window.statusBar().currentMessage()


def test_the_menu_offers_it_beside_the_other_exports(window):
    (menu,) = [m for m in exporter(window).act_export.associatedObjects() if isinstance(m, QMenu)]
    actions = [a.objectName() for a in menu.actions()]
    assert actions.index("actionExportPage") == actions.index("actionExportPanel") - 1


def test_a_page_that_cannot_be_written_is_reported_not_raised(window, tmp_path, monkeypatch):
    folder = tmp_path / "taken.html"
    folder.mkdir()
    monkeypatch.setattr(file_dialogs, "get_save_file_name", lambda *a, **k: (str(folder), PAGE))
    assert child(window, PageExporter).choose_and_write() is None
    assert window.statusBar().currentMessage().startswith("Could not save the page:")
    assert folder.is_dir()


PAGE = "Web page (*.html)"
