"""What docs/python.md names is imported from ``tokviz.core``, wherever in the sub-packages it lives."""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

import tokviz.core

PYTHON_DOC = Path(__file__).resolve().parents[2] / "docs" / "python.md"


def documented_functions() -> dict[str, str]:
    """Function name -> the module docs/python.md says it lives in (``(in `tokviz.core.x.y`)``)."""
    found: dict[str, str] = {}
    for item in re.split(r"\n- ", PYTHON_DOC.read_text(encoding="utf-8")):
        for module_name in re.findall(r"\(in `(tokviz\.core\.[\w.]+)`", item):
            module = importlib.import_module(module_name)
            for name in re.findall(r"`([a-z_]+)\(", item):
                if inspect.isfunction(getattr(module, name, None)):
                    found[name] = module_name
    return found


def test_every_function_the_guide_places_in_a_module_is_imported_from_the_core() -> None:
    documented = documented_functions()

    assert {"audit_vocabulary", "sweep_files", "measure_parity", "reading_specials"} <= set(documented)
    for name, module_name in documented.items():
        assert getattr(tokviz.core, name) is getattr(importlib.import_module(module_name), name), name
        assert name in tokviz.core.__all__


def test_every_public_name_resolves_and_an_unknown_one_is_an_attribute_error() -> None:
    for name in tokviz.core.__all__:
        assert getattr(tokviz.core, name) is not None

    try:
        tokviz.core.no_such_name  # noqa: B018
    except AttributeError as error:
        assert "no_such_name" in str(error)
    else:
        raise AssertionError("an unknown name must raise AttributeError")
