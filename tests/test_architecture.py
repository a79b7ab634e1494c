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


#: Longer than this, a function no longer fits on a screen (issue 29).
MAX_FUNCTION_LINES = 80
#: The comment, on the line right above a function's first decorator (or its ``def``), that
#: keeps a longer function, followed by the reason.
LONG_MARK = "# long:"


def _long_functions(source: str, path: str) -> list[str]:
    """``path:line name (N lines)`` for every function of ``source``, methods and nested
    functions included, longer than :data:`MAX_FUNCTION_LINES` (from its ``def`` line to
    its last, decorators excluded) and not kept by a ``# long: <reason>`` comment on the
    line right above its first decorator or, undecorated, its ``def``.  Takes the source
    text, so the check itself can be tested on made-up functions."""
    lines = source.splitlines()
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        length = (node.end_lineno or node.lineno) - node.lineno + 1
        if length <= MAX_FUNCTION_LINES:
            continue
        first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        above = lines[first - 2].strip() if first >= 2 else ""
        if above.startswith(LONG_MARK) and above[len(LONG_MARK) :].strip():
            continue
        found.append((node.lineno, f"{path}:{node.lineno} {node.name} ({length} lines)"))
    return [text for _, text in sorted(found)]


def test_no_function_longer_than_a_screen() -> None:
    """A function past a screen is split into helpers that say why they exist, or says
    why it is not (``# long: <reason>`` right above it)."""
    found = [
        hit
        for path in MODULES.values()
        for hit in _long_functions(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
    ]
    assert not found, (
        f"functions over {MAX_FUNCTION_LINES} lines: split them, or state why not with a "
        f"'{LONG_MARK} <reason>' comment right above the first decorator or def:\n"
        + "\n".join(found)
    )


def _made_up(n_lines: int, *above: str, decorated: bool = False, nested: bool = False) -> str:
    """A module whose function ``big`` is ``n_lines`` long: a method of ``Box``, or with
    ``nested`` a function inside ``outer``; the lines ``above`` come right before its
    decorator (with ``decorated``) or its ``def``, which is on line 4 + their number
    (+ 1 decorated)."""
    head = ["import functools", "", "def outer() -> None:" if nested else "class Box:"]
    head += [f"    {line}" if line else "" for line in above]
    if decorated:
        head.append("    @functools.cache")
    body = ["        x = 0"] + ["        x += 1"] * (n_lines - 3) + ["        return x"]
    return "\n".join([*head, "    def big(self) -> int:", *body, ""])


def test_the_length_check_flags_a_long_function_without_a_reason() -> None:
    assert _long_functions(_made_up(90), "box.py") == ["box.py:4 big (90 lines)"]
    assert _long_functions(_made_up(90, decorated=True), "box.py") == ["box.py:5 big (90 lines)"]
    assert _long_functions(_made_up(81), "box.py") == ["box.py:4 big (81 lines)"]
    assert _long_functions(_made_up(80), "box.py") == []
    for comment in ("# long", "# long:", "# a flat table", "x = 1  # long: a flat table"):
        assert _long_functions(_made_up(90, comment), "box.py") == ["box.py:5 big (90 lines)"]
    # the reason is not right above the function
    apart = _made_up(90, "# long: a flat table", "")
    assert _long_functions(apart, "box.py") == ["box.py:6 big (90 lines)"]
    between = _made_up(90, "# long: a flat table").replace(
        "    # long: a flat table\n", "    @functools.cache\n    # long: a flat table\n"
    )
    assert _long_functions(between, "box.py") == ["box.py:6 big (90 lines)"]


def test_the_length_check_keeps_a_long_function_with_a_reason() -> None:
    assert _long_functions(_made_up(90, "# long: a flat table"), "box.py") == []
    assert _long_functions(_made_up(90, "# long: a flat table", decorated=True), "box.py") == []
    assert _long_functions(_made_up(90, "  # long: a flat table"), "box.py") == []


def test_the_length_check_sees_nested_functions() -> None:
    assert _long_functions(_made_up(85, nested=True), "f.py") == [
        "f.py:3 outer (86 lines)",
        "f.py:4 big (85 lines)",
    ]
    assert _long_functions(_made_up(85, "# long: a flat table", nested=True), "f.py") == [
        "f.py:3 outer (87 lines)"
    ]
