"""The dependency pins in pyproject.toml keep out the Qt binding releases tokviz cannot run on.

PySide6 6.12 on CPython 3.11 returns None from every void method without a new reference; a
window painting token boxes drives None's count to zero within seconds and the interpreter aborts.
CPython 3.12 and later make None immortal, so there the release is fine. tokviz carries no
workaround for the pair: the pins are what keeps it out.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent


def allowed_qt_binding(version: str, python: str) -> bool:
    """Whether pip may install PySide6-Essentials ``version`` for tokviz on Python ``python``."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    environment = {"python_version": python, "python_full_version": f"{python}.0"}
    pins = [
        requirement
        for requirement in map(Requirement, config["project"]["dependencies"])
        if canonicalize_name(requirement.name) == "pyside6-essentials"
        and (requirement.marker is None or requirement.marker.evaluate(environment))
    ]
    assert pins, f"no PySide6-Essentials requirement applies on Python {python}"
    return all(pin.specifier.contains(version) for pin in pins)


@pytest.mark.parametrize("version", ["6.12.0", "6.12.1"])
def test_pyside6_6_12_is_kept_out_on_python_3_11(version: str) -> None:
    assert not allowed_qt_binding(version, "3.11")


@pytest.mark.parametrize(("version", "python"), [("6.11.3", "3.11"), ("6.12.0", "3.12"), ("6.12.0", "3.13")])
def test_every_other_pair_is_allowed(version: str, python: str) -> None:
    assert allowed_qt_binding(version, python)
