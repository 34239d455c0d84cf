"""The checks that keep the house standing, run with the rest of the suite (and so in CI).

Lint and format (ruff), the import contracts (import-linter: the core imports no Qt, the GUI's
layers point one way, panels are independent of each other), the type check of the core and the
CLI (mypy), function complexity (ruff's C901, configured in pyproject.toml) and a module size limit.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# One job per module, for every part of the package. The largest modules (core/tokenizer.py, the
# Tokenizer and its encoding paths; core/train.py; core/formats/hf_engine.py) run to 730-780 lines
# with their docstrings and each still do one thing; a module past 1,000 lines has taken on a
# second job and should be split by responsibility. Function size is checked by C901, not here.
MAX_MODULE_LINES = 1000


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=600)


def tool(name: str) -> str:
    path = shutil.which(name) or str(Path(sys.executable).with_name(name))
    if not Path(path).exists():
        pytest.fail(f"{name} is not installed (python -m pip install '.[test]')")
    return path


def test_ruff_finds_nothing_to_fix():
    done = run(tool("ruff"), "check", "tokviz", "tests", "benchmarks")
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_code_is_formatted():
    done = run(tool("ruff"), "format", "--check", "tokviz", "tests", "benchmarks")
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_import_contracts_hold():
    done = run(tool("lint-imports"), "--no-cache")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


def test_the_core_and_the_cli_type_check():
    done = run(sys.executable, "-m", "mypy", "tokviz/core", "tokviz/cli")
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("package", ["tokviz/core", "tokviz/gui", "tokviz/cli"])
def test_modules_stay_one_job_long(package):
    sizes = {
        str(path.relative_to(ROOT)): len(path.read_text(encoding="utf-8").splitlines())
        for path in (ROOT / package).rglob("*.py")
    }
    too_big = {name: n for name, n in sizes.items() if n > MAX_MODULE_LINES}
    assert not too_big, f"split these by responsibility: {too_big}"
