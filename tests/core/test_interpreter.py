"""Garbage collection and the GIL switch interval change in one place and always come back.

The tests compare with the state before them rather than with Python's defaults: in a run with GUI
tests, the window's garbage collector may already hold collection off.
"""

from __future__ import annotations

import ast
import gc
import sys
from pathlib import Path

import pytest

from tokviz.core.io.interpreter import pause_automatic_gc, shorten_switch_interval

PACKAGE = Path(__file__).resolve().parents[2] / "tokviz"
OWNER = PACKAGE / "core" / "io" / "interpreter.py"
SETTERS = {("gc", "disable"), ("gc", "enable"), ("gc", "freeze"), ("sys", "setswitchinterval")}


def state() -> tuple[bool, float]:
    return gc.isenabled(), sys.getswitchinterval()


def test_a_with_block_changes_both_settings_and_puts_them_back_after_an_exception():
    before = state()
    with pytest.raises(RuntimeError), pause_automatic_gc(), shorten_switch_interval(0.0001):
        assert not gc.isenabled()
        assert sys.getswitchinterval() == pytest.approx(min(before[1], 0.0001))
        raise RuntimeError("the work failed")
    assert state() == before


def test_an_inner_release_leaves_collection_off_for_the_outer_user():
    before = state()
    outer = pause_automatic_gc()
    with pause_automatic_gc():
        pass
    assert not gc.isenabled(), "the inner user must not switch collection back on under the outer one"
    outer.release()
    assert state() == before


def test_holds_may_be_released_in_any_order_and_only_once():
    before = gc.isenabled()
    first, second = pause_automatic_gc(), pause_automatic_gc()
    first.release()
    first.release()
    assert not gc.isenabled(), "a second release of the same hold counts once"
    second.release()
    assert gc.isenabled() == before


def test_the_shortest_requested_interval_wins_until_its_hold_ends():
    before = sys.getswitchinterval()
    longer = shorten_switch_interval(0.001)
    shorter = shorten_switch_interval(0.0002)
    assert sys.getswitchinterval() == pytest.approx(min(before, 0.0002))
    shorter.release()
    assert sys.getswitchinterval() == pytest.approx(min(before, 0.001))
    longer.release()
    assert sys.getswitchinterval() == before


def test_a_switch_interval_must_be_positive():
    with pytest.raises(ValueError, match="positive"):
        shorten_switch_interval(0)


def interpreter_setting_calls(path: Path) -> list[str]:
    """``gc.disable()``-style calls in a module, however gc or sys was imported."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module in ("gc", "sys"):
            found += [
                f"from {node.module} import {a.name}" for a in node.names if (node.module, a.name) in SETTERS
            ]
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            if (node.value.id, node.attr) in SETTERS:
                found.append(f"{node.value.id}.{node.attr} (line {node.lineno})")
    return found


@pytest.mark.no_cover  # reads the package's source rather than runs it
def test_no_module_but_the_owner_changes_collection_or_the_switch_interval():
    offenders = {
        str(path.relative_to(PACKAGE.parent)): calls
        for path in sorted(PACKAGE.rglob("*.py"))
        if path != OWNER and (calls := interpreter_setting_calls(path))
    }
    assert not offenders, f"use tokviz.core.io.interpreter instead: {offenders}"
    assert interpreter_setting_calls(OWNER), "the scan finds the owner's own calls"
