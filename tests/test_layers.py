"""The package's layers: every module imports only its own layer or the ones below, never in a circle.

    foundation (diagnostics, errors, text and its normalisation, linear-time regexes, loading, transport)
      ← corpus (the corpus layer, matchers, document schemas, what every layer knows of tool search,
        the near-duplicate index)
      ← rules / sandbox / scoring (and the retrieval fairness checks)
      ← engine / models / review / hub / stats / reporters / regenerate / runs / report / compare / leaderboard / inspect_task / synth
      ← commands / cli

The graph is read from the source (``ast``), lazy imports inside functions and imports for type
checking included: each is a dependency all the same.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "validator"

LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "foundation",
        ("validator", "validator.diagnostics", "validator.errors", "validator.text", "validator.textnorm", "validator.linear_regex", "validator.loading", "validator.transport", "validator.project", "validator.gitage"),
    ),
    ("corpus", ("validator.corpus", "validator.matchers", "validator.facts", "validator.schemas", "validator.toolsearch", "validator.similarity")),
    ("rules, sandbox, scoring", ("validator.rules", "validator.sandbox", "validator.scoring", "validator.retrieval_checks")),
    (
        "engine, models, review, hub, importers, runs and what is made of them",
        (
            "validator.engine", "validator.models", "validator.review", "validator.hub", "validator.importers", "validator.stats", "validator.reporters", "validator.regenerate",
            "validator.runs", "validator.report", "validator.compare", "validator.leaderboard", "validator.inspect_task", "validator.fixer", "validator.scaffold", "validator.synth",
        ),
    ),
    ("commands, cli", ("validator.commands", "validator.cli", "validator.__main__")),
)


def module_names() -> list[str]:
    names = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = ("validator", *path.relative_to(PACKAGE).with_suffix("").parts)
        names.append(".".join(parts[:-1]) if parts[-1] == "__init__" else ".".join(parts))
    return names


MODULES = module_names()


def source_of(module: str) -> Path:
    relative = Path(*module.split(".")[1:])
    package = PACKAGE / relative / "__init__.py"
    return package if package.is_file() else (PACKAGE / relative).with_suffix(".py")


def layer_of(module: str) -> int:
    """The layer of a module: the deepest prefix any layer names (``validator`` alone is only the package)."""
    best: tuple[int, int] | None = None  # (prefix length, layer)
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            named = module == prefix or (prefix != "validator" and module.startswith(prefix + "."))
            if named and (best is None or len(prefix) > best[0]):
                best = (len(prefix), index)
    if best is None:
        raise AssertionError(f"{module} is in no layer; add it to LAYERS in tests/test_layers.py")
    return best[1]


def imports_of(module: str) -> set[str]:
    """Every validator module the module's source imports, at any depth of its code."""
    tree = ast.parse(source_of(module).read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.split(".")[0] == "validator")
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0 and node.module.split(".")[0] == "validator":
            for alias in node.names:
                submodule = f"{node.module}.{alias.name}"
                found.add(submodule if submodule in MODULES else node.module)
    return found - {module}


GRAPH = {module: imports_of(module) for module in MODULES}


@pytest.mark.parametrize("module", MODULES)
def test_every_module_imports(module: str) -> None:
    importlib.import_module(module)


def test_every_module_is_in_a_layer() -> None:
    for module in MODULES:
        layer_of(module)


def test_no_module_imports_a_layer_above_its_own() -> None:
    upward = [
        f"{module} ({LAYERS[layer_of(module)][0]}) imports {target} ({LAYERS[layer_of(target)][0]})"
        for module, targets in GRAPH.items()
        for target in sorted(targets)
        if layer_of(target) > layer_of(module)
    ]
    assert upward == [], "upward imports:\n" + "\n".join(upward)


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each as a cycle path."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(_path(graph, set(component)))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def _path(graph: dict[str, set[str]], component: set[str]) -> list[str]:
    """One cycle through a strongly connected component, as module names (first = last)."""
    start = min(component)
    path, seen = [start], {start}
    node = start
    while True:
        following = sorted(t for t in graph[node] if t in component)
        back = start if start in following and len(path) > 1 else None
        if back is not None:
            return [*path, start]
        unseen = [t for t in following if t not in seen]
        node = unseen[0] if unseen else start
        if node == start:
            return [*path, start]
        path.append(node)
        seen.add(node)


def test_no_import_cycle() -> None:
    found = cycles(GRAPH)
    assert found == [], "import cycles:\n" + "\n".join(" → ".join(cycle) for cycle in found)


def test_the_checks_catch_what_they_are_for() -> None:
    graph = {"validator.a": {"validator.b"}, "validator.b": {"validator.c"}, "validator.c": {"validator.a"}, "validator.d": set()}
    assert cycles(graph) == [["validator.a", "validator.b", "validator.c", "validator.a"]]
    assert layer_of("validator.rules.cases") == 2 and layer_of("validator.corpus.index") == 1 and layer_of("validator") == 0
    assert layer_of("validator.commands.check") == 4
