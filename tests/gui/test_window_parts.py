"""The window keeps nothing for tests: every public attribute it has is used by the app itself.

Tests reach the window's parts as the app does (its docks, actions and menus by object name, the
panel context) or through the parts the window itself works with; an attribute that only a test
reads would be a second door into the window. The app's uses are read from its source: an
attribute of ``self`` inside :class:`MainWindow`, or of a ``window`` / ``self.window`` /
``self._window`` elsewhere in ``tokviz/`` (the names the parts that receive the window give it).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from PySide6.QtWidgets import QDockWidget, QMainWindow

import tokviz
from tokviz.gui.window.main_window import MainWindow

# These tests read the package's syntax trees; the window they open is opened by many other tests,
# so coverage would only trace the reading, at twice its time (pytest-cov's no_cover).
pytestmark = pytest.mark.no_cover

PACKAGE = Path(tokviz.__file__).resolve().parent
WINDOW_NAMES = {"window", "_window", "main_window"}


def _is_window(node: ast.expr, in_main_window: bool) -> bool:
    if isinstance(node, ast.Name):
        return node.id in WINDOW_NAMES or (in_main_window and node.id == "self")
    return isinstance(node, ast.Attribute) and node.attr in WINDOW_NAMES


def window_attributes_the_app_reads() -> set[str]:
    """Every attribute name ``tokviz/`` reads on the main window."""
    used: set[str] = set()
    for path in PACKAGE.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        classes = [node for node in ast.walk(tree) if isinstance(node, ast.ClassDef)]
        inside = {id(node) for cls in classes if cls.name == MainWindow.__name__ for node in ast.walk(cls)}
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.ctx, ast.Load)
                and _is_window(node.value, id(node) in inside)
            ):
                used.add(node.attr)
    return used


def unused_window_attributes(window: MainWindow) -> set[str]:
    """The window's public attributes (beyond QMainWindow's) that nothing in ``tokviz/`` reads."""
    own = {name for name in set(dir(window)) - set(dir(QMainWindow)) if not name.startswith("_")}
    return own - window_attributes_the_app_reads()


def test_every_public_attribute_of_the_window_is_used_by_the_app(window: MainWindow) -> None:
    assert unused_window_attributes(window) == set()


def test_an_attribute_kept_only_for_tests_is_found(
    window: MainWindow, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A shortcut only a test would read.
    monkeypatch.setattr(window, "vocab_dock", window.findChild(QDockWidget, "vocabDock"), raising=False)
    assert unused_window_attributes(window) == {"vocab_dock"}
