"""No import cycle in any Blockyard package.

Every ``import`` of a Blockyard module, at module level or inside a function
(where a cycle hides behind a late import), is an edge; imports under
``if TYPE_CHECKING:`` are not (they never run). The graph of each package —
``core/`` (``blockyard``), ``plugins/``, ``frontend/`` and every subpackage found
in them (``blockyard.server``, its migrations…) — must have no cycle among its
own modules. ``from . import name`` counts as an import of the package's
``__init__`` unless ``name`` is a module of the package.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Mapping, Set
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TOP = {"blockyard": ROOT / "core", "blockyard.frontend": ROOT / "frontend",
       "blockyard.plugins": ROOT / "plugins"}


def _packages() -> dict[str, Path]:
    """Each Blockyard package (a folder with an ``__init__.py``) → its folder."""
    out: dict[str, Path] = {}
    for top, folder in TOP.items():
        for init in sorted(folder.rglob("__init__.py")):
            parts = init.parent.relative_to(folder).parts
            out[".".join((top, *parts))] = init.parent
    return out


PACKAGES = _packages()


def _modules() -> dict[str, Path]:
    out: dict[str, Path] = {}
    for package, folder in PACKAGES.items():
        for path in sorted(folder.glob("*.py")):
            name = package if path.stem == "__init__" else f"{package}.{path.stem}"
            out[name] = path
    return out


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    found: list[ast.Import | ast.ImportFrom] = []

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _type_checking(child):
                for other in child.orelse:
                    visit_node(other)
                continue
            visit_node(child)

    def visit_node(node: ast.AST) -> None:
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.append(node)
        visit(node)
    visit(tree)
    return found


@functools.cache
def import_graph() -> dict[str, frozenset[str]]:
    """Each Blockyard module of core, plugins and frontend → the Blockyard modules
    it imports (at any level but TYPE_CHECKING); read once per process (every
    test here asks for it, and reading parses every module)."""
    modules = _modules()
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        package = name if path.stem == "__init__" else name.rpartition(".")[0]
        for node in _imports(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                if node.level:
                    base = package
                    for _ in range(node.level - 1):
                        base = base.rpartition(".")[0]
                    base = f"{base}.{node.module}" if node.module else base
                else:
                    base = node.module or ""
                targets = []
                for alias in node.names:
                    sub = f"{base}.{alias.name}"
                    targets.append(sub if sub in modules else base)
            for target in targets:
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if target and target != name:
                    graph[name].add(target)
    return {name: frozenset(targets) for name, targets in graph.items()}


def find_cycle(graph: Mapping[str, Set[str]], within: str) -> list[str] | None:
    """A cycle among the modules of ``within`` (a package and its modules), or None."""
    nodes = {n for n in graph if n == within or (n.startswith(within + ".")
             and not any(n.startswith(p + ".") or n == p
                         for p in PACKAGES if p != within and p.startswith(within)))}
    state: dict[str, int] = {}
    stack: list[str] = []

    def walk(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node] & nodes):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt):], nxt]
            if nxt not in state:
                cycle = walk(nxt)
                if cycle:
                    return cycle
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(nodes):
        if node not in state:
            cycle = walk(node)
            if cycle:
                return cycle
    return None


def test_the_graph_sees_module_and_function_level_imports() -> None:
    graph = import_graph()
    assert "blockyard.errors" in graph["blockyard.ruleset"]
    assert "blockyard.game" in graph["blockyard.tray"]
    assert "blockyard" in graph["blockyard.frontend.app"]


def test_the_cycle_finder_finds_a_cycle() -> None:
    graph = {"blockyard": set(), "blockyard.a": {"blockyard.b"}, "blockyard.b": {"blockyard.a"}}
    assert find_cycle(graph, "blockyard") == ["blockyard.a", "blockyard.b", "blockyard.a"]


def test_core_has_no_import_cycle() -> None:
    assert find_cycle(import_graph(), "blockyard") is None


def test_frontend_has_no_import_cycle() -> None:
    assert find_cycle(import_graph(), "blockyard.frontend") is None


def test_the_subpackages_are_in_the_graph() -> None:
    assert {"blockyard.server", "blockyard.server.routes",
            "blockyard.server.migrations"} <= set(PACKAGES)
    graph = import_graph()
    assert "blockyard.server.routes.tables" in graph["blockyard.server.routes"]
    assert "blockyard.server.settings" in graph["blockyard.server"]  # a late import


def test_a_cycle_hidden_in_a_subpackage_is_found() -> None:
    graph = {"blockyard.server": set(), "blockyard.server.app": {"blockyard.server.social"},
             "blockyard.server.social": {"blockyard.server.app"}}
    assert find_cycle(graph, "blockyard.server") == [
        "blockyard.server.app", "blockyard.server.social", "blockyard.server.app"]


def test_no_subpackage_has_an_import_cycle() -> None:
    graph = import_graph()
    cycles = {package: find_cycle(graph, package) for package in PACKAGES
              if package not in TOP}
    assert {package: cycle for package, cycle in cycles.items() if cycle} == {}
