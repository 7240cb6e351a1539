"""tilec's packages form layers, each importing only the layers below it, and no module
imports itself back through others (docs/architecture.md):

    support < dialects < passes < compiler < runtime < tilec (api) < tools

Imports are read from the source (module level and inside functions alike). Imports
under `if TYPE_CHECKING:` count for cycles (an annotation that needs a module above it
is a cycle hidden, not broken) but not for the layer order of packages."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = {"support": "tilec.support", "dialects": "tilec.dialects", "passes": "tilec.passes",
           "compiler": "tilec.compiler", "runtime": "tilec.runtime", "api": "tilec", "tools": "tilec.tools"}
LAYERS = ["tilec.support", "tilec.dialects", "tilec.passes", "tilec.compiler", "tilec.runtime", "tilec",
          "tilec.tools"]


def _modules() -> dict[str, Path]:
    mods = {}
    for folder, pkg in FOLDERS.items():
        for f in (ROOT / folder).rglob("*.py"):
            parts = list(f.relative_to(ROOT / folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            mods[".".join([pkg, *parts])] = f
    return mods


def _type_checking_nodes(tree: ast.AST) -> set[ast.AST]:
    skip = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for inner in node.body:
                skip.update(ast.walk(inner))
    return skip


def import_graph(type_checking: bool = False) -> dict[str, set[str]]:
    """module -> the tilec modules it imports (with `type_checking`, also those imported
    under `if TYPE_CHECKING:`)."""
    mods = _modules()
    edges: dict[str, set[str]] = defaultdict(set)
    for name, path in mods.items():
        tree = ast.parse(path.read_text())
        skip = set() if type_checking else _type_checking_nodes(tree)
        here = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        for node in ast.walk(tree):
            if node in skip:
                continue
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = here[: len(here) - node.level + 1] if node.level else []
                mod = ".".join(base + ([node.module] if node.module else []))
                subs = [f"{mod}.{a.name}" for a in node.names if f"{mod}.{a.name}" in mods]
                targets = subs or [mod]
            else:
                continue
            edges[name].update(t for t in targets if t in mods and t != name)
    return edges


def _package(module: str) -> str:
    return max((p for p in LAYERS if module == p or module.startswith(p + ".")), key=len)


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in list(graph):
        if v not in index:
            visit(v)
    return out


@pytest.fixture(scope="module")
def graph():
    return import_graph()


def test_the_graph_is_read(graph):
    assert "tilec.passes.lower_to_gpu.kernel" in graph["tilec.passes.lower_to_gpu.outline"]
    assert "tilec.support.diagnostics" in graph["tilec.passes.tile"]


@pytest.fixture(scope="module")
def graph_with_annotations():
    return import_graph(type_checking=True)


def test_no_module_imports_itself_back(graph_with_annotations):
    assert _cycles(graph_with_annotations) == []


def test_imports_for_annotations_are_read():
    tree = ast.parse("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from x import y\n")
    assert len(_type_checking_nodes(tree)) > 0


def test_each_package_imports_only_layers_below_it(graph):
    wrong = sorted(
        f"{a} -> {b}" for a, bs in graph.items() for b in bs
        if LAYERS.index(_package(b)) > LAYERS.index(_package(a))
    )
    assert wrong == []


def test_the_cycle_finder_finds_cycles():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
