"""What a window keeps between sessions: text, views, display options, theme, zoom and layout.

The window hands its :class:`SessionParts` to :func:`restore_session` while it is built (before its
panels are installed) and to :func:`save_session` when it closes; :func:`restore_dock_layout` runs
once more after the panels added their docks. The session touches those parts and nothing else.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMainWindow, QPlainTextEdit

from tokviz.gui.models.tokenizers import TokenizerRegistryModel
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
    Key,
    Settings,
)
from tokviz.gui.text.samples import DEFAULT_TEXT
from tokviz.gui.widgets.token_panel import TokenPanel
from tokviz.gui.window.appearance import Appearance
from tokviz.gui.window.files import FileOpener
from tokviz.gui.window.geometry import first_size
from tokviz.gui.window.menus import WindowMenus

# Texts longer than this are not written to the settings file (reopen the file instead).
MAX_SAVED_TEXT = TEXT.max_size


@dataclass(frozen=True)
class SessionParts:
    """The parts of a window its session is read from and written to.

    ``window`` keeps the geometry and the dock layout; ``views`` is the window's list of token views
    and ``add_view(key)`` adds one; ``text()`` is the text the views show and ``retokenize()``
    hands the editor's text to them at once. The View menu's check boxes carry the display options:
    checking one runs what the window wired to it.
    """

    settings: Settings
    window: QMainWindow
    editor: QPlainTextEdit
    views: list[TokenPanel]
    add_view: Callable[[str], object]
    text: Callable[[], str]
    retokenize: Callable[[], None]
    tokenizers: TokenizerRegistryModel
    appearance: Appearance
    menus: WindowMenus
    files: FileOpener


def _options(menus: WindowMenus) -> tuple[tuple[QAction, Key[bool]], ...]:
    """Each View menu check box and the setting that keeps it."""
    return (
        (menus.act_ids, SHOW_IDS),
        (menus.act_ids_with_text, SHOW_IDS_WITH_TEXT),
        (menus.act_ws, SHOW_WHITESPACE),
        (menus.act_chunks, SHOW_CHUNKS),
        (menus.act_sync, SYNC_SCROLL),
    )


def restore_session(parts: SessionParts) -> None:
    """Bring back the last session's theme, zoom, options, views, geometry and text."""
    s, look = parts.settings, parts.appearance
    look.set_theme(s.get(THEME))
    look.set_point_size(s.get(POINT_SIZE))
    for act, option in _options(parts.menus):
        act.setChecked(s.get(option))
    parts.menus.spelling_actions[s.get(SPELLING)].setChecked(True)
    parts.menus.act_specials_as_text.setChecked(s.get(SPECIALS_IN_TEXT) == "text")
    parts.files.restore_remembered_tokenizers()  # before the views: a view may show a remembered file
    keys = [k for k in s.get(VIEWS) if parts.tokenizers.row_of(k) >= 0] or list(VIEWS.default)
    for key in keys:
        parts.add_view(key)
    parts.files.fill_recent_menu()
    geometry = s.get(GEOMETRY)
    if geometry is not None:
        parts.window.restoreGeometry(geometry)
    else:
        parts.window.resize(first_size(parts.window))
    restore_dock_layout(parts)
    parts.editor.setPlainText(s.get(TEXT) or DEFAULT_TEXT)
    parts.retokenize()
    look.apply_theme()


def restore_dock_layout(parts: SessionParts) -> None:
    """Put every dock back where the user left it (docks are added after :func:`restore_session`)."""
    state = parts.settings.get(WINDOW_STATE)
    if state is not None:
        parts.window.restoreState(state)


def save_session(parts: SessionParts) -> None:
    """Remember text (unless huge), views, options, theme, zoom and window layout."""
    s = parts.settings
    text = parts.text()
    if len(text) <= MAX_SAVED_TEXT:
        s.set(TEXT, text)
    else:
        s.remove(TEXT)
    s.set(VIEWS, [p.model.key for p in parts.views if not p.model.key.startswith("model:")])
    s.set(THEME, parts.appearance.theme)
    s.set(POINT_SIZE, parts.appearance.point_size)
    for act, option in _options(parts.menus):
        s.set(option, act.isChecked())
    s.set(SPELLING, parts.menus.spelling())
    s.set(SPECIALS_IN_TEXT, parts.tokenizers.specials_in_text)
    s.set(GEOMETRY, parts.window.saveGeometry())
    s.set(WINDOW_STATE, parts.window.saveState())
    s.sync()
