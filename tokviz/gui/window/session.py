"""What a window keeps between sessions: text, views, display options, theme, zoom and layout.

:func:`restore_session` runs while the window is built (before its panels are installed), and
:func:`restore_dock_layout` once more after them; :func:`save_session` runs when it closes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tokviz.gui.settings import (
    GEOMETRY,
    POINT_SIZE,
    SHOW_CHUNKS,
    SHOW_IDS,
    SHOW_IDS_WITH_TEXT,
    SHOW_WHITESPACE,
    SPECIALS_IN_TEXT,
    SPELLING,
    SYNC_SCROLL,
    TEXT,
    THEME,
    VIEWS,
    WINDOW_STATE,
)
from tokviz.gui.text.samples import DEFAULT_TEXT
from tokviz.gui.window.geometry import first_size

if TYPE_CHECKING:
    from tokviz.gui.window.main_window import MainWindow

# Texts longer than this are not written to the settings file (reopen the file instead).
MAX_SAVED_TEXT = TEXT.max_size


def restore_session(window: MainWindow) -> None:
    """Bring back the last session's theme, zoom, options, views, geometry and text."""
    s, look = window.settings, window.appearance
    look.set_theme(s.get(THEME))
    look.set_point_size(s.get(POINT_SIZE))
    for act, option in (
        (window.act_ids, SHOW_IDS),
        (window.menus.act_ids_with_text, SHOW_IDS_WITH_TEXT),
        (window.act_ws, SHOW_WHITESPACE),
        (window.act_chunks, SHOW_CHUNKS),
        (window.act_sync, SYNC_SCROLL),
    ):
        act.setChecked(s.get(option))
    window.menus.spelling_actions[s.get(SPELLING)].setChecked(True)
    look.set_show_chunks(window.act_chunks.isChecked())
    window.act_specials_as_text.setChecked(s.get(SPECIALS_IN_TEXT) == "text")
    window.view_sync.set_scroll_together(window.act_sync.isChecked())
    window.files.restore_remembered_tokenizers()  # before the views: a view may show a remembered file
    keys = [k for k in s.get(VIEWS) if window.tokenizers.row_of(k) >= 0] or list(VIEWS.default)
    for key in keys:
        window.add_view(key)
    window.files.fill_recent_menu()
    geometry = s.get(GEOMETRY)
    if geometry is not None:
        window.restoreGeometry(geometry)
    else:
        window.resize(first_size(window))
    restore_dock_layout(window)
    window.editor.setPlainText(s.get(TEXT) or DEFAULT_TEXT)
    window.retokenize_now()
    look.apply_theme()


def restore_dock_layout(window: MainWindow) -> None:
    """Put every dock back where the user left it (docks are added after :func:`restore_session`)."""
    state = window.settings.get(WINDOW_STATE)
    if state is not None:
        window.restoreState(state)


def save_session(window: MainWindow) -> None:
    """Remember text (unless huge), views, options, theme, zoom and window layout."""
    s = window.settings
    text = window.text
    if len(text) <= MAX_SAVED_TEXT:
        s.set(TEXT, text)
    else:
        s.remove(TEXT)
    s.set(VIEWS, [p.model.key for p in window.panels if not p.model.key.startswith("model:")])
    s.set(THEME, window.appearance.theme)
    s.set(POINT_SIZE, window.appearance.point_size)
    s.set(SHOW_IDS, window.act_ids.isChecked())
    s.set(SHOW_IDS_WITH_TEXT, window.menus.act_ids_with_text.isChecked())
    s.set(SPELLING, window.menus.spelling())
    s.set(SHOW_WHITESPACE, window.act_ws.isChecked())
    s.set(SHOW_CHUNKS, window.act_chunks.isChecked())
    s.set(SYNC_SCROLL, window.act_sync.isChecked())
    s.set(SPECIALS_IN_TEXT, window.tokenizers.specials_in_text)
    s.set(GEOMETRY, window.saveGeometry())
    s.set(WINDOW_STATE, window.saveState())
    s.sync()
