"""The layer order of parrot's packages, enforced (docs/architecture.md explains it).

Every module's imports of parrot are read with ``ast`` -- at the top, under ``TYPE_CHECKING`` and
inside functions -- and each import must go down (or sideways within one layer) in LAYERS. A
package cycle, a circle of files, an uncommented in-function import or a new function over 80
lines fails, naming the offenders. Entry points stand above everything and nothing imports them:
``parrot.cli``'s dispatcher loads each subcommand's module by name (``importlib``), and a
package's ``__main__.py`` (``python -m parrot.engines`` runs the servers' CLI) is left out.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import pytest

import parrot

ROOT = Path(parrot.__file__).parent
SKIP = ("check/generated",)  # ANTLR's generated parsers

# bottom to top: a unit (a package under parrot/, or a top-level module) imports only units of
# its own layer or of a lower one
LAYERS: list[list[str]] = [
    ["api", "parrot"],  # the ground floor: records, results I/O, secrets; parrot/__init__
    ["values", "tokens", "textfiles", "sqlfacts", "registry", "cachedir"],  # no parrot import
    ["dialects", "compare", "fixtures"],
    ["pairs"],
    ["engines"],  # one package per engine; knows nothing of servers
    ["cli"],  # the argparse helpers every tool shares (its dispatcher loads tools by name)
    ["servers"],  # managed PostgreSQL / MariaDB processes
    ["connect"],  # URL -> engine, starting a managed server when asked (above both)
    ["migrate", "check"],
    ["datasets"],
    ["solver"],  # bounded equivalence with z3 (optional): encodes queries, no engine
    ["translators"],
    ["scale"],  # where work runs: local processes or Ray
    ["report"],  # metrics and pages from results.jsonl
    ["eval"],  # dataset -> translator -> engines -> comparator -> outcome
    ["testsuite"],
    ["curate"],
    ["text2sql"],
    ["translate", "assess"],
    ["__main__"],
]
RANK = {unit: rank for rank, layer in enumerate(LAYERS) for unit in layer}

# in-function imports of parrot: only where a heavy dependency is deferred (ANTLR's parsers, scipy,
# matplotlib, jinja2, z3), each place commented ("# deferred: WHAT" above), at most this many in all
IN_FUNCTION_CEILING = 19

# functions over 80 lines that are being split elsewhere; the list only shrinks
LONG_FUNCTIONS_KNOWN: set[str] = set()
MAX_LINES = 80


def _modules() -> dict[str, Path]:
    modules = {}
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith(SKIP) or (path.name == "__main__.py" and rel != "__main__.py"):
            continue
        parts = ["parrot", *path.relative_to(ROOT).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


MODULES = _modules()
TREES = {module: ast.parse(path.read_text()) for module, path in MODULES.items()}


def _unit(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "parrot"


def _targets(module: str, node: ast.Import | ast.ImportFrom, package: bool) -> list[str]:
    """The parrot modules one import statement reads."""
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    else:
        base = node.module or ""
        if node.level:
            parts = module.split(".")[: None if package else -1]
            parts = parts[: len(parts) - node.level + 1]
            base = ".".join(parts + ([node.module] if node.module else []))
        names = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names]
    found = []
    for name in names:
        while name not in MODULES and "." in name:
            name = name.rsplit(".", 1)[0]
        if name in MODULES:
            found.append(name)
    return found


class Import:
    def __init__(self, source: str, target: str, line: int, in_function: bool):
        self.source, self.target, self.line, self.in_function = source, target, line, in_function

    def __repr__(self) -> str:
        where = " (in a function)" if self.in_function else ""
        return f"{self.source}:{self.line} imports {self.target}{where}"


def _walk(node: ast.AST, in_function: bool) -> Iterator[tuple[ast.AST, bool]]:
    for child in ast.iter_child_nodes(node):
        yield child, in_function
        nested = in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef)
        yield from _walk(child, nested)


def _imports() -> list[Import]:
    found = []
    for module, path in MODULES.items():
        package = path.name == "__init__.py"
        for node, in_function in _walk(TREES[module], False):
            if isinstance(node, ast.Import | ast.ImportFrom):
                for target in dict.fromkeys(_targets(module, node, package)):
                    if target != module:
                        found.append(Import(module, target, node.lineno, in_function))
    return found


IMPORTS = _imports()


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        top = stack.pop()
                        on_stack.discard(top)
                        component.append(top)
                        if top == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(graph.get(child, ())))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return found


def test_every_unit_has_a_layer() -> None:
    units = {_unit(module) for module in MODULES}
    assert sorted(units - set(RANK)) == [], "add the new package to LAYERS"
    assert sorted(set(RANK) - units) == [], "a unit in LAYERS no longer exists"


def test_no_import_goes_up() -> None:
    upward = [imp for imp in IMPORTS if RANK[_unit(imp.target)] > RANK[_unit(imp.source)]]
    assert not upward, "imports that go up:\n" + "\n".join(map(repr, upward))


def test_no_two_packages_import_each_other() -> None:
    graph: dict[str, set[str]] = defaultdict(set)
    for imp in IMPORTS:
        source, target = _unit(imp.source), _unit(imp.target)
        graph[source]
        if source != target:
            graph[source].add(target)
    cycles = _cycles(graph)
    assert not cycles, f"packages that import each other: {cycles}"


def test_no_circle_of_files() -> None:
    graph: dict[str, set[str]] = defaultdict(set)
    for imp in IMPORTS:
        graph[imp.source].add(imp.target)
        graph[imp.target]
    cycles = _cycles(graph)
    assert not cycles, f"circles of files: {cycles}"


def _commented(path: Path, line: int) -> bool:
    """A comment on the import's line, or above the run of imports it belongs to."""
    lines = path.read_text().splitlines()
    if "# deferred:" in lines[line - 1]:
        return True
    above = line - 2
    while lines[above].strip().startswith(("from ", "import ")):
        above -= 1
    return lines[above].strip().startswith("# deferred:")


def test_in_function_imports_are_few_and_say_what_they_defer() -> None:
    inside = [imp for imp in IMPORTS if imp.in_function]
    statements = {(imp.source, imp.line) for imp in inside}
    uncommented = sorted(
        {(imp.source, imp.line) for imp in inside if not _commented(MODULES[imp.source], imp.line)}
    )
    assert not uncommented, "say which heavy dependency each defers:\n" + "\n".join(
        f"{module}:{line}" for module, line in uncommented
    )
    assert len(statements) <= IN_FUNCTION_CEILING, sorted(statements)


def _long_functions() -> list[str]:
    found = []
    for module, path in MODULES.items():
        rel = path.relative_to(ROOT).as_posix()
        for node in ast.walk(TREES[module]):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                assert node.end_lineno is not None
                if node.end_lineno - node.lineno + 1 > MAX_LINES:
                    found.append(f"{rel}:{node.name}")
    return sorted(found)


def test_no_function_over_80_lines() -> None:
    long = sorted(set(_long_functions()) - LONG_FUNCTIONS_KNOWN)
    assert not long, f"split these (parse -> config -> run): {long}"


def test_the_known_long_functions_still_exist() -> None:
    """A split function leaves the list: the ceiling only goes down."""
    assert sorted(LONG_FUNCTIONS_KNOWN - set(_long_functions())) == []


@pytest.mark.parametrize(
    "source, target, expected",
    [
        ("parrot.eval.judge", "parrot.eval.suites", False),
        ("parrot.eval.judge", "parrot.api", False),
        ("parrot.api", "parrot.eval", True),
    ],
)
def test_the_layer_rule_itself(source: str, target: str, expected: bool) -> None:
    assert (RANK[_unit(target)] > RANK[_unit(source)]) is expected
