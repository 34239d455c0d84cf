"""The core stands on its own: no Qt, no GUI, no CLI, and no import cycle among its modules.

The import graph is read from the source (every ``import`` statement, also those inside
functions and ``TYPE_CHECKING`` blocks), so a cycle closed by a lazy import is caught as well.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import tokviz.core

CORE = Path(tokviz.core.__file__).resolve().parent
FORBIDDEN = ("PySide6", "pyqtgraph", "shiboken6", "tokviz.gui", "tokviz.cli")


def module_name(path: Path) -> str:
    parts = ["tokviz", "core", *path.relative_to(CORE).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def core_modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(CORE.rglob("*.py"))}


def imported_names(path: Path, name: str) -> set[str]:
    """Absolute names of everything the module at ``path`` imports (modules, or names in them)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                origin = ".".join(base + ([node.module] if node.module else []))
            else:
                origin = node.module or ""
            found.add(origin)
            found.update(f"{origin}.{alias.name}" for alias in node.names)
    return found


def import_graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    """Module -> the core modules it imports (``from .x import y`` is an edge to ``x``, or ``x.y`` if a module)."""
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets = {n for n in imported_names(path, name) if n in modules and n != name}
        graph[name] = targets
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle as a path ``[a, b, ..., a]``, or None (depth-first search)."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return path[path.index(nxt) :] + [nxt]
            if nxt not in state and (cycle := visit(nxt)) is not None:
                return cycle
        path.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (cycle := visit(start)) is not None:
            return cycle
    return None


def test_core_imports_no_qt():
    probe = (
        "import sys, tokviz.core, tokviz.core.training.train, tokviz.core.bpe.tokenizer, tokviz.core.bpe.stream;"
        "import tokviz.core.formats.registry, tokviz.core.formats, tokviz.core.analysis.metrics;"
        "print(sorted(m for m in sys.modules if m.startswith(('PySide6', 'pyqtgraph', 'shiboken'))))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_importing_every_core_module_loads_no_qt_gui_or_cli():
    names = sorted(core_modules())
    probe = (
        "import importlib, json, sys\n"
        f"for name in {names!r}:\n"
        "    importlib.import_module(name)\n"
        f"print(json.dumps(sorted(m for m in sys.modules if m.startswith({FORBIDDEN!r}))))\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_no_core_module_names_qt_gui_or_cli_even_lazily():
    offenders = {
        name: sorted(n for n in imported_names(path, name) if n.startswith(FORBIDDEN))
        for name, path in core_modules().items()
    }
    assert {name: found for name, found in offenders.items() if found} == {}


def test_the_core_has_no_import_cycle():
    graph = import_graph(core_modules())

    assert find_cycle(graph) is None, " -> ".join(find_cycle(graph) or [])
    # The graph is the real one: the modules that close the old cycle are in it.
    assert "tokviz.core.bpe.tokenizer" in graph["tokviz.core.formats.model_file"]
    assert "tokviz.core.bpe.merges" in graph["tokviz.core.training.train"]


@pytest.mark.parametrize(
    ("graph", "cycle"),
    [
        ({"a": {"b"}, "b": {"c"}, "c": {"a"}}, ["a", "b", "c", "a"]),
        ({"a": {"b"}, "b": {"b2"}, "b2": {"b"}}, ["b", "b2", "b"]),
        ({"a": {"b", "c"}, "b": {"c"}, "c": set()}, None),
    ],
)
def test_the_cycle_finder_finds_cycles(graph: dict[str, set[str]], cycle: list[str] | None):
    assert find_cycle(graph) == cycle


def test_a_lazy_import_inside_a_function_is_an_edge(tmp_path: Path):
    module = tmp_path / "late.py"
    module.write_text("def f():\n    from .bpe.tokenizer import Tokenizer\n    from . import formats\n")

    found = imported_names(module, "tokviz.core.late")

    assert {"tokviz.core.bpe.tokenizer", "tokviz.core.formats"} <= found
