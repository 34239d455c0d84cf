"""The README's set-up commands are the ones CI runs, so the documented path is the tested one."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from .texts import CAT_TABLE, HELLO

ROOT = Path(__file__).resolve().parent.parent


def setup_commands() -> list[str]:
    """The shell commands in the README's "Set-up" section, in order."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = re.search(r"^## Set-up\n(.*?)(?=^## )", readme, re.S | re.M)
    assert section, "README.md has no '## Set-up' section"
    blocks = re.findall(r"^```(?:sh|bash|console)?\n(.*?)^```", section.group(1), re.S | re.M)
    return [line.strip() for block in blocks for line in block.splitlines() if line.strip()]


def test_readme_shows_exactly_the_install_and_test_commands() -> None:
    assert setup_commands() == [
        "python3 -m venv .venv && .venv/bin/pip install . && .venv/bin/tokviz",
        'python3 -m venv .venv && .venv/bin/pip install \'.[test]\' && .venv/bin/python -m pytest -m "not slow" -n auto --maxprocesses 4 --dist loadfile --cov=tokviz --cov-report= && .venv/bin/python -m pytest -m "slow and not gui" -n auto --maxprocesses 4 --dist loadfile && .venv/bin/python -m pytest -m "slow and gui" -n auto --maxprocesses 4 --dist loadfile',
    ]


def test_setup_commands_work_where_the_system_python_is_externally_managed() -> None:
    """Debian 12 and Ubuntu 24.04 refuse ``pip install`` outside a venv and have no ``python`` command.

    So each command makes its own virtual environment with ``python3`` and runs pip, Python and
    tokviz from it, whatever else it runs (a test command split into lanes keeps to this too).
    """
    for command in setup_commands():
        steps = [step.strip() for step in command.split("&&")]
        assert steps[0] == "python3 -m venv .venv", command
        for step in steps[1:]:
            program = step.split()[0]
            assert program.startswith(".venv/bin/"), f"{step!r} should run from .venv/bin: {command}"


def test_ci_runs_the_readme_test_command() -> None:
    test_command = setup_commands()[1]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    ci_lines = [
        line.strip() for line in ci.splitlines() if line.strip() and not line.lstrip().startswith("#")
    ]
    assert test_command in ci_lines
    assert ci_lines[-1] == test_command, "the test command should be the last thing CI runs"


@pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")
def test_ci_script_is_executable_and_strict() -> None:
    script = ROOT / ".ci" / "run"
    assert os.access(script, os.X_OK)
    assert "set -euo pipefail" in script.read_text(encoding="utf-8")


def test_the_python_example_in_the_readme_runs_and_says_what_it_shows() -> None:
    """The core example in README.md runs, and its comments are the real results."""
    import re

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```python\n(.*?)```", readme, re.S)
    assert block is not None
    namespace: dict[str, object] = {}
    exec(block.group(1), namespace)  # noqa: S102 - our own README
    history = namespace["result"].history  # type: ignore[attr-defined]
    assert [(h.left, h.right, h.count, h.tokens_after) for h in history] == [
        (left, right, count, after) for left, right, _id, count, after in CAT_TABLE
    ]
    assert len(namespace["tok"].encode("the quick brown fox")) == 16  # type: ignore[attr-defined]
    assert len(namespace["gpt2"].encode(HELLO)) == 12  # type: ignore[attr-defined]


def test_the_notebook_example_in_the_readme_draws_the_tokens_it_names() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = re.search(r"^## In a notebook\n(.*?)(?=^## )", readme, re.S | re.M)
    assert section, "README.md has no '## In a notebook' section"
    block = re.search(r"```python\n(.*?)```", section.group(1), re.S)
    assert block is not None
    *setup, last = block.group(1).strip().splitlines()
    namespace: dict[str, object] = {}
    exec("\n".join(setup), namespace)  # noqa: S102 - our own README
    display = eval(last, namespace)  # noqa: S307 - our own README
    assert [len(row.tokens) for row in display.rows] == [12, 8]
    assert "(12)" in section.group(1) and "(8)" in section.group(1)


class _Test:
    """A collected test as :func:`tests.conftest.long_poles_first` sees it: its file and markers."""

    def __init__(self, path: str, *markers: str) -> None:
        self.path = Path(path)
        self.markers = markers

    def get_closest_marker(self, name: str) -> str | None:
        return name if name in self.markers else None


def test_the_files_of_long_tests_are_handed_out_first_each_kept_whole_and_in_order() -> None:
    from .conftest import long_poles_first

    collected = [
        _Test("cli/test_a.py"),
        _Test("cli/test_a.py"),
        _Test("core/test_b.py"),
        _Test("test_packaging.py"),
        _Test("test_packaging.py", "long_pole"),
        _Test("test_docs.py", "long_pole"),
        _Test("test_docs.py"),
    ]
    ordered = long_poles_first(collected)  # type: ignore[arg-type]
    assert [str(t.path) for t in ordered] == [
        "test_packaging.py",
        "test_packaging.py",
        "test_docs.py",
        "test_docs.py",
        "cli/test_a.py",
        "cli/test_a.py",
        "core/test_b.py",
    ]
    assert ordered[:4] == [*collected[3:5], *collected[5:7]]  # the same tests, each file's in order


@pytest.mark.oracle
def test_an_oracle_test_and_the_processes_it_starts_run_untraced(request: pytest.FixtureRequest) -> None:
    assert request.node.get_closest_marker("no_cover") is not None
    assert "COVERAGE_PROCESS_CONFIG" not in os.environ
