"""The house keeps its shape (DESIGN.md): floors import only downwards, no module imports
itself back through others, and no function grows past a screen without saying why.

Read from the source with :mod:`ast`, so every import counts: at the top of a module,
inside a function, and under ``if TYPE_CHECKING:`` (a type-only circle is still a circle
a reader has to untangle).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: The floors, lowest first: a module may import its own floor and those below it.
FLOORS = ("infra", "corpora", "systems", "bench")


def _modules() -> dict[str, Path]:
    """Every module of the four packages, by dotted name (a package by its own name)."""
    out = {}
    for floor in FLOORS:
        for path in sorted((ROOT / floor).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join(parts)] = path
    return out


MODULES = _modules()


def _imports(path: Path) -> set[str]:
    """The project modules a file imports, anywhere in it: ``from a.b import c`` is an
    import of ``a.b.c`` where that is a module, else of ``a.b``."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                name = alias.name
                while name and name not in MODULES:
                    name = name.rpartition(".")[0]
                if name:
                    found.add(name)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                if full in MODULES:
                    found.add(full)
                elif node.module in MODULES:
                    found.add(node.module)
    return found


GRAPH = {name: _imports(path) - {name} for name, path in MODULES.items()}


def _cycles(graph: dict[str, set[str]]) -> Iterator[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()

    def visit(v: str) -> Iterator[list[str]]:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                yield from visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                yield sorted(component)

    for v in sorted(graph):
        if v not in index:
            yield from visit(v)


def test_the_graph_is_read_from_every_package() -> None:
    assert {name.split(".")[0] for name in MODULES} == set(FLOORS)
    assert "bench.run.plan" in GRAPH["bench.run.runner"]  # an import the graph must see


def test_no_module_imports_itself_back() -> None:
    circles = list(_cycles(GRAPH))
    assert not circles, "import circles (type-only imports count): " + "; ".join(
        " <-> ".join(c) for c in circles
    )


def test_floors_import_only_downwards() -> None:
    rank = {floor: i for i, floor in enumerate(FLOORS)}
    upward = sorted(
        f"{module} imports {target}"
        for module, targets in GRAPH.items()
        for target in targets
        if rank[target.split(".")[0]] > rank[module.split(".")[0]]
    )
    assert not upward, "\n".join(upward)


def test_nothing_imports_the_command_line() -> None:
    """The CLI is the top of the house: only its own modules (and ``python -m bench``)
    import it, so a library user never pulls argparse plumbing in."""
    importers = sorted(
        module
        for module, targets in GRAPH.items()
        if any(t == "bench.cli" or t.startswith("bench.cli.") for t in targets)
        and not (module == "bench.cli" or module.startswith("bench.cli."))
        and module != "bench.__main__"
    )
    assert not importers, importers


def _kept_results(path: Path) -> Iterator[str]:
    """What a module keeps in memory outside :mod:`infra.memo`: a function decorated with
    :func:`functools.lru_cache` or :func:`functools.cache`, or an empty dict made at module
    level to fill later."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for deco in node.decorator_list:
                target = deco.func if isinstance(deco, ast.Call) else deco
                name = ast.unparse(target)
                if name.rsplit(".", 1)[-1] in ("lru_cache", "cache"):
                    yield f"{path.relative_to(ROOT)}:{node.lineno} @{name} {node.name}"
    for node in tree.body:
        value = node.value if isinstance(node, ast.Assign | ast.AnnAssign) else None
        empty = isinstance(value, ast.Dict) and not value.keys
        made = isinstance(value, ast.Call) and ast.unparse(value.func) in ("dict", "OrderedDict")
        if (empty or made) and not (isinstance(value, ast.Call) and value.args):
            yield f"{path.relative_to(ROOT)}:{node.lineno} {ast.unparse(node).split('=')[0]}"


def test_every_module_keeps_its_results_in_the_memo() -> None:
    """One memo mechanism (infra/memo.py): bounded, listed, released with its documents."""
    found = [hit for path in MODULES.values() for hit in _kept_results(path)]
    assert not found, "use infra.memo.memoize or a Memo instead:\n" + "\n".join(found)
