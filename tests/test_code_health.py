"""The checks that keep the house standing, run with the rest of the suite (and so in CI).

Lint and format (ruff), the import contracts (import-linter: the core imports no Qt, the GUI's
layers point one way, panels are independent of each other), the type check of the whole package
(mypy, with a list of modules whose errors are not reported yet that may only shrink), function
complexity (ruff's C901, configured in pyproject.toml) and a module size limit.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from .environment import console_script

# These tests read the source (its syntax trees, imports and tools' reports); they do not run it,
# so coverage would only trace the reading, at twice its time (pytest-cov's no_cover).
pytestmark = pytest.mark.no_cover

ROOT = Path(__file__).resolve().parents[1]
# One job per module: the most lines (docstrings and comments included) a module of each part may
# have. A GUI or CLI module is a panel, a widget, a command; past its limit it has taken on a second
# job and is split along its concepts. A core module may hold a whole algorithm with the reasoning
# behind it (the Tokenizer and its encoding paths, the trainer, the count tables), so its limit is
# higher. CONTRIBUTING.md quotes these numbers; test_contributing_quotes_the_module_limits keeps it
# saying them. Function size is checked by C901, not here.
MODULE_LINE_LIMITS = {"tokviz/core": 1000, "tokviz/gui": 500, "tokviz/cli": 500}
# Modules over their limit while they are being restructured. The list may only shrink: each module
# on it must still be over its limit (one that fits comes off), and no other module may be over.
OVER_THE_LIMIT: tuple[str, ...] = ()
# pyproject.toml may name modules whose mypy errors are not reported yet (an override with
# ``ignore_errors = true``). That list may only shrink: it may name at most this many modules, each
# must exist, and each must still have errors, so a module that type-checks comes off the list and
# stays checked from then on. Lower this number whenever the list shrinks; never raise it.
MAX_MODULES_NOT_TYPE_CHECKED = 132
# Tests that read tokviz's private attributes (``obj._name``) break when the code is reorganised
# without a change a user could see. The reads left test what has no public surface (a cache to
# clear between runs, a failure injected into a write, an internal fast path checked against the
# plain one). This is a ratchet: the count may only fall. A new test uses a property, a public
# method, a signal or a widget found by objectName; when a change removes reads, lower the number.
MAX_PRIVATE_READS = 46
# The coverage floor (fail_under in [tool.coverage.report]) only rises: the README's test command
# fails under it, and this keeps it from being lowered to let a drop through. Raise both together.
LOWEST_COVERAGE_FLOOR = 90


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=600)


def tool(name: str) -> str:
    """This environment's own ``name``, as installed by '.[test]'."""
    script = console_script(name)
    if script is None:
        pytest.fail(f"{name} is not installed (python -m pip install '.[test]')")
    return str(script)


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


@pytest.mark.slow
def test_the_package_type_checks():
    done = run(sys.executable, "-m", "mypy")
    assert done.returncode == 0, done.stdout + done.stderr


def modules_not_type_checked() -> list[str]:
    """The modules of pyproject.toml's mypy override that hides their errors."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    overrides = config["tool"]["mypy"]["overrides"]
    return [module for o in overrides if o.get("ignore_errors") for module in o["module"]]


def module_file(module: str) -> Path:
    path = ROOT.joinpath(*module.split("."))
    return path / "__init__.py" if path.is_dir() else path.with_suffix(".py")


@pytest.mark.slow  # mypy over the package and the tests, every error reported
def test_the_list_of_modules_not_type_checked_only_shrinks(tmp_path):
    modules = modules_not_type_checked()
    assert len(modules) <= MAX_MODULES_NOT_TYPE_CHECKED, "type-check a module instead of hiding its errors"
    assert all("*" not in m for m in modules), "name each module: a pattern would hide new modules too"
    gone = [m for m in modules if not module_file(m).is_file()]
    assert not gone, f"take these off the list in pyproject.toml, they no longer exist: {gone}"

    if not modules:
        return  # the whole package type-checks; test_the_package_type_checks keeps it so
    # The same check with every module's errors reported: each listed module must still have some.
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert text.count("ignore_errors = true") == 1
    config = tmp_path / "pyproject.toml"
    config.write_text(text.replace("ignore_errors = true", "ignore_errors = false"), encoding="utf-8")
    done = run(sys.executable, "-m", "mypy", "--config-file", str(config))
    failing = {
        ".".join(Path(match).with_suffix("").parts).removesuffix(".__init__")
        for match in re.findall(r"^(\S+\.py):\d+: error:", done.stdout, re.MULTILINE)
    }
    type_checked = [m for m in modules if m not in failing]
    assert not type_checked, f"these type-check now: take them off the list in pyproject.toml: {type_checked}"


def module_sizes(package: str) -> dict[str, int]:
    """Lines of every module of ``package`` (a folder under the checkout), by path."""
    return {
        path.relative_to(ROOT).as_posix(): len(path.read_text(encoding="utf-8").splitlines())
        for path in (ROOT / package).rglob("*.py")
    }


@pytest.mark.parametrize("package", sorted(MODULE_LINE_LIMITS))
def test_modules_stay_one_job_long(package):
    limit = MODULE_LINE_LIMITS[package]
    sizes = module_sizes(package)
    too_big = {name: n for name, n in sizes.items() if n > limit and name not in OVER_THE_LIMIT}
    assert not too_big, f"split these along their concepts (at most {limit:,} lines each): {too_big}"
    fits = [name for name in OVER_THE_LIMIT if name in sizes and sizes[name] <= limit]
    assert not fits, f"take these off OVER_THE_LIMIT, they fit now: {fits}"


def test_every_module_over_the_limit_exists():
    gone = [name for name in OVER_THE_LIMIT if not (ROOT / name).is_file()]
    assert not gone, f"take these off OVER_THE_LIMIT, they no longer exist: {gone}"


def test_contributing_quotes_the_module_limits():
    """CONTRIBUTING.md says each limit in the sentence that names MODULE_LINE_LIMITS, as the test has it."""
    text = " ".join((ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8").split())
    (sentence,) = [s for s in re.split(r"(?<=\.) ", text) if "MODULE_LINE_LIMITS" in s]
    for package, limit in MODULE_LINE_LIMITS.items():
        quoted = re.search(rf"`{package}`[^.]*? under {limit:,} lines", sentence)
        assert quoted, (
            f"CONTRIBUTING.md should say {package} modules stay under {limit:,} lines: {sentence!r}"
        )
    numbers = {int(n.replace(",", "")) for n in re.findall(r"\b\d[\d,]*\b", sentence)}
    assert numbers == set(MODULE_LINE_LIMITS.values()), (
        f"a number CONTRIBUTING.md quotes is not a limit: {numbers}"
    )


def private_names_defined_in_tokviz() -> set[str]:
    """Every ``_name`` (not ``__dunder__``) that tokviz defines: functions, classes, attributes, globals.

    IPython's display hooks (``_repr_html_``, ``_repr_svg_``...) are a public protocol, not private names.
    """
    names: set[str] = set()
    for path in (ROOT / "tokviz").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names.add(node.name)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                names.add(node.attr)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
    display_hook = re.compile(r"_repr_\w+_")
    return {
        n for n in names if n.startswith("_") and not n.startswith("__") and not display_hook.fullmatch(n)
    }


def private_reads_in_tests() -> list[str]:
    """``file:line name`` for each ``obj._name`` in tests/ whose name tokviz defines (a test's own
    ``self._name`` is its own business)."""
    private = private_names_defined_in_tokviz()
    reads = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Attribute)
                and node.attr in private
                and not (isinstance(node.value, ast.Name) and node.value.id == "self")
            ):
                reads.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.attr}")
    return reads


def test_tests_read_no_more_private_attributes_than_before():
    reads = private_reads_in_tests()
    assert len(reads) <= MAX_PRIVATE_READS, "\n".join(reads)


def test_the_coverage_floor_only_rises():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    coverage = config["tool"]["coverage"]
    assert coverage["run"]["source"] == ["tokviz"] and coverage["run"]["branch"] is True
    assert coverage["report"]["fail_under"] >= LOWEST_COVERAGE_FLOOR
