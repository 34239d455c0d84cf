"""The import contracts catch what they promise to, the core names no GUI or CLI module in a string,
and no module of tokviz is part of an import cycle.

pyproject.toml's import-linter contracts are only as good as what they would refuse. Each case below
copies the package into a scratch folder, adds one import that breaks the architecture and checks
that the contract meant to stop it reports it broken. import-linter reads ``import`` statements only:
``importlib.import_module("tokviz.gui...")`` in the core is found by :func:`gui_or_cli_string_imports`.
The contracts leave out imports under ``if TYPE_CHECKING:``; :func:`import_cycles` counts them, and
imports inside functions, because a cycle of types is still two modules that cannot be read apart.
"""

from __future__ import annotations

import ast
import json
import re
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

import grimp
import pytest

from .environment import console_script

# These tests read the source (its syntax trees, imports and tools' reports); they do not run it,
# so coverage would only trace the reading, at twice its time (pytest-cov's no_cover).
pytestmark = pytest.mark.no_cover

ROOT = Path(__file__).resolve().parents[1]
FORBIDDEN_FROM_CORE = ("tokviz.gui", "tokviz.cli")
MAX_CORE_TOP_LEVEL_MODULES = 10
"""``__init__.py`` and a few modules every layer shares; everything else is in a sub-package."""


def gui_or_cli_string_imports(core: Path) -> list[str]:
    """Every ``import_module("tokviz.gui...")`` or ``__import__("tokviz.cli...")`` under ``core``.

    Each finding reads ``path:line: name``. Strings are all import-linter cannot follow, so this is
    the core-imports-no-GUI contract's second half.
    """
    found = []
    for path in sorted(core.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and _is_dynamic_import(node.func)):
                continue
            for arg in [*node.args, *(keyword.value for keyword in node.keywords)]:
                if (
                    isinstance(arg, ast.Constant)
                    and isinstance(arg.value, str)
                    and _names_gui_or_cli(arg.value)
                ):
                    found.append(f"{path.relative_to(core.parent)}:{node.lineno}: {arg.value}")
    return found


def _is_dynamic_import(func: ast.expr) -> bool:
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return name in {"import_module", "__import__"}


def _names_gui_or_cli(module: str) -> bool:
    return any(module == banned or module.startswith(banned + ".") for banned in FORBIDDEN_FROM_CORE)


def test_the_core_imports_no_gui_or_cli_module_by_name():
    assert gui_or_cli_string_imports(ROOT / "tokviz" / "core") == []


def contract(contract_id: str) -> dict:
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    return next(c for c in contracts["contracts"] if c.get("id") == contract_id)


def layer_members(contract_id: str) -> set[str]:
    return {name.strip() for layer in contract(contract_id)["layers"] for name in re.split(r"[|:]", layer)}


def children(package: Path) -> set[str]:
    """The modules and subpackages directly inside ``package``, by name."""
    modules = {p.stem for p in package.glob("*.py") if p.name != "__init__.py"}
    return modules | {p.name for p in package.iterdir() if (p / "__init__.py").exists()}


def test_every_gui_module_and_package_sits_in_a_layer():
    placed = {name.removeprefix("tokviz.gui.") for name in layer_members("gui-layers")}
    assert placed == children(ROOT / "tokviz" / "gui")


def test_every_core_module_and_package_sits_in_a_layer():
    placed = {name.removeprefix("tokviz.core.") for name in layer_members("core-layers")}
    assert placed == children(ROOT / "tokviz" / "core")


def test_the_core_top_level_is_an_index_of_concepts():
    """At most ten modules stand directly in tokviz/core: the rest live in a sub-package by concept."""
    modules = {p.name for p in (ROOT / "tokviz" / "core").glob("*.py")}
    assert len(modules) <= MAX_CORE_TOP_LEVEL_MODULES, sorted(modules)


def test_every_panel_is_in_the_panel_contract():
    assert layer_members("panels-independent") == children(ROOT / "tokviz" / "gui" / "panels")


@dataclass(frozen=True)
class Violation:
    """One import that breaks the architecture, and the contract that must catch it."""

    module: str  # path of the module the line is added to, from the project root
    line: str
    caught_by: str  # a contract id, or "string-imports" for gui_or_cli_string_imports


VIOLATIONS = {
    "chart imports the timeline": Violation(
        "tokviz/gui/panels/chart/__init__.py", "import tokviz.gui.panels.timeline.panel", "panels-independent"
    ),
    "chart imports the vocabulary's usage view": Violation(
        "tokviz/gui/panels/chart/__init__.py",
        "import tokviz.gui.panels.vocabulary.usage",
        "panels-independent",
    ),
    "the dock helpers import a panel": Violation(
        "tokviz/gui/panels/docking.py", "import tokviz.gui.panels.roundtrip", "panels-independent"
    ),
    "gui/text imports Qt": Violation("tokviz/gui/text/utf16.py", "import PySide6.QtCore", "gui-text-qt-free"),
    "preflight imports the window": Violation(
        "tokviz/gui/preflight.py", "import tokviz.gui.window.main_window", "gui-layers"
    ),
    "the core imports shiboken6": Violation(
        "tokviz/core/pretok/bytes_.py", "import shiboken6", "core-qt-free"
    ),
    "the core imports the GUI by name": Violation(
        "tokviz/core/pretok/bytes_.py", 'importlib.import_module("tokviz.gui.app")', "string-imports"
    ),
    "the core imports the CLI by name": Violation(
        "tokviz/core/formats/registry.py", '__import__("tokviz.cli.info")', "string-imports"
    ),
    "the pre-tokenizer imports the sweep": Violation(
        "tokviz/core/pretok/pretokenize.py", "import tokviz.core.analysis.sweep", "core-layers"
    ),
    "the trainer imports a file format": Violation(
        "tokviz/core/training/train.py", "import tokviz.core.formats.model_file", "core-layers"
    ),
    "the atomic writer imports the tokenizer": Violation(
        "tokviz/core/io/atomic.py", "import tokviz.core.bpe.tokenizer", "core-layers"
    ),
    "the corpus reader imports the tokenizer": Violation(
        "tokviz/core/corpus/reading.py", "from tokviz.core.bpe import tokenizer", "core-layers"
    ),
    "drawing imports the panel context": Violation(
        "tokviz/gui/drawing/chips.py", "import tokviz.gui.context", "gui-layers"
    ),
    "widgets import drawing": Violation(
        "tokviz/gui/widgets/elided.py", "import tokviz.gui.drawing.chips", "gui-layers"
    ),
    "models import drawing": Violation(
        "tokviz/gui/models/words.py", "import tokviz.gui.drawing.sheet", "gui-layers"
    ),
    "settings import drawing": Violation(
        "tokviz/gui/settings.py", "import tokviz.gui.drawing.sheet", "gui-layers"
    ),
}


def copy_of_the_project(root: Path) -> Path:
    shutil.copytree(ROOT / "tokviz", root / "tokviz", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy2(ROOT / "pyproject.toml", root / "pyproject.toml")
    return root


def lint_imports(root: Path, *contract_ids: str) -> subprocess.CompletedProcess[str]:
    """Run import-linter on the copy at ``root`` (that copy, not the installed tokviz, is analysed)."""
    # This environment's own, not whatever PATH finds first: the run below has an empty PATH,
    # where a wrapper script (pyenv's shims) cannot even find its shell.
    lint = console_script("lint-imports")
    assert lint is not None, "lint-imports is not installed (python -m pip install '.[test]')"
    selected = [arg for cid in contract_ids for arg in ("--contract", cid)]
    env = {"PATH": "", "PYTHONPATH": str(root), "PYTHONDONTWRITEBYTECODE": "1", "COLUMNS": "200"}
    return subprocess.run(
        [lint, "--no-cache", *selected], cwd=root, env=env, capture_output=True, text=True, timeout=300
    )


def test_an_untouched_copy_keeps_every_contract(tmp_path):
    done = lint_imports(copy_of_the_project(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr
    assert gui_or_cli_string_imports(tmp_path / "tokviz" / "core") == []


@pytest.mark.parametrize("violation", VIOLATIONS.values(), ids=VIOLATIONS.keys())
def test_each_contract_catches_the_import_it_forbids(tmp_path, violation):
    root = copy_of_the_project(tmp_path)
    with (root / violation.module).open("a", encoding="utf-8") as module:
        module.write(f"\nimport importlib  # noqa\n{violation.line}\n")
    if violation.caught_by == "string-imports":
        assert gui_or_cli_string_imports(root / "tokviz" / "core"), violation
        return
    done = lint_imports(root, violation.caught_by)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "0 kept, 1 broken" in done.stdout


# ----------------------------------------------------------------------------- import cycles
def import_cycles(package: str = "tokviz") -> list[str]:
    """Every import cycle among the modules of ``package``, one line each: ``a -> b -> a``.

    Imports under ``if TYPE_CHECKING:`` and imports inside functions count. Modules that import
    each other, directly or through others, form a strongly connected part of the import graph;
    each such part is reported as its shortest cycle through its first module.
    """
    graph = grimp.build_graph(package, exclude_type_checking_imports=False, cache_dir=None)
    imports = {m: graph.find_modules_directly_imported_by(m) & graph.modules for m in graph.modules}
    cycles = []
    for part in _strongly_connected(imports):
        first = min(part)
        if len(part) == 1 and first not in imports[first]:
            continue
        step = min(imports[first] & part)
        back = graph.find_shortest_chain(importer=step, imported=first) or (step, first)
        cycles.append(" -> ".join((first, *back)))
    return sorted(cycles)


def _strongly_connected(imports: dict[str, set[str]]) -> list[set[str]]:
    """Tarjan's algorithm, without recursion: the sets of modules that reach each other."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    parts: list[set[str]] = []
    for start in sorted(imports):
        if start in index:
            continue
        work = [(start, iter(sorted(imports[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            module, following = work[-1]
            nxt = next(following, None)
            if nxt is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[module])
                if low[module] == index[module]:
                    part = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        part.add(member)
                        if member == module:
                            break
                    parts.append(part)
            elif nxt not in index:
                index[nxt] = low[nxt] = len(index)
                stack.append(nxt)
                on_stack.add(nxt)
                work.append((nxt, iter(sorted(imports[nxt]))))
            elif nxt in on_stack:
                low[module] = min(low[module], index[nxt])
    return parts


def test_no_module_of_tokviz_is_part_of_an_import_cycle():
    assert import_cycles() == []


CYCLES = {
    "a type named under TYPE_CHECKING": (
        "tokviz/gui/text/utf16.py",
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from tokviz.gui.text.token_table import TokenTable",
        "tokviz.gui.text.token_table -> tokviz.gui.text.utf16 -> tokviz.gui.text.token_table",
    ),
    "an import inside a function": (
        "tokviz/gui/window/session.py",
        "def _window() -> object:\n    from tokviz.gui.window.main_window import MainWindow\n    return MainWindow",
        "tokviz.gui.window.main_window -> tokviz.gui.window.session -> tokviz.gui.window.main_window",
    ),
    "two commands of the CLI": (
        "tokviz/cli/command.py",
        "import tokviz.cli.options",
        "tokviz.cli.command -> tokviz.cli.options -> tokviz.cli.command",
    ),
}


@pytest.mark.parametrize(("module", "lines", "cycle"), CYCLES.values(), ids=CYCLES.keys())
def test_a_planted_import_cycle_is_found(tmp_path, module, lines, cycle):
    root = copy_of_the_project(tmp_path)
    with (root / module).open("a", encoding="utf-8") as planted:
        planted.write(f"\n{lines}\n")
    # The copy, not the installed tokviz, is analysed: this file run as a script, on the copy's path.
    env = {"PYTHONPATH": str(root), "PYTHONDONTWRITEBYTECODE": "1"}
    # The tests package comes from this checkout, last on the path, after the copy's tokviz.
    probe = (
        f"import json, sys; sys.path.append({str(ROOT)!r}); "
        "from tests.test_architecture import import_cycles; print(json.dumps(import_cycles()))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=root, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [cycle]
