"""The compiled merge loop for a test run from a checkout.

The tests import tokviz from the checkout, whose source tree holds the compiled module only after
an editable install; so the run builds it there (git ignores it), as an editable install would,
when it is missing or older than its C source. Then the tests hold the compiled loop to the pure
one wherever a C compiler works.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import tokviz

ROOT = Path(__file__).resolve().parent.parent


def _build_ext() -> ModuleType:
    spec = importlib.util.spec_from_file_location("tokviz_build_ext", ROOT / "packaging" / "build_ext.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def build_in_checkout() -> str:
    """Build the compiled loop into the checkout when it needs it: "" when it is there, else why not."""
    package = Path(tokviz.__file__).resolve().parent
    if package != ROOT / "tokviz":
        return ""  # an installed tokviz carries its own build
    build_ext = _build_ext()
    source = ROOT / build_ext.SOURCE
    target = package / "core" / "training" / build_ext.module_name()
    if target.exists() and target.stat().st_mtime >= source.stat().st_mtime:
        return ""
    built, why = build_ext.build_merge_loop(ROOT, target.parent)
    return "" if built else str(why)
