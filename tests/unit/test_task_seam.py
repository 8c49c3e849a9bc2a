"""The seam between the shared machinery and the tasks, read from the source: the shared modules
name no task, the package has no import cycle, and the optional parts of the task protocol are
found by the protocol, not by attribute lookups.

The import graph counts every import of the package's modules, at module level or inside a
function (both are edges a reader has to follow), except those under ``if TYPE_CHECKING:``.
``from package import name`` is an edge to ``package.name`` when that is a module (the compiled
``_core`` included), else to ``package``.
"""

from __future__ import annotations

import argparse
import ast
from pathlib import Path

import pytest

import rapidgrade
from rapidgrade.tasks import BlockRun, ItemViewer, PairGrader, get_task, task_names

PACKAGE = Path(rapidgrade.__file__).resolve().parent

#: The shared job and the grading API: they reach a task only through the registry.
SHARED = ("grade", "report", "score", "__main__", "_ray_score", "aio", "serve")


def _modules() -> dict[str, Path | None]:
    found: dict[str, Path | None] = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    found["rapidgrade._core"] = None  # the extension module: imports nothing of the package
    return found


def _imports(name: str, path: Path, modules: dict[str, Path | None]) -> set[str]:
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()

    class Visitor(ast.NodeVisitor):
        def visit_If(self, node: ast.If) -> None:
            if "TYPE_CHECKING" in ast.unparse(node.test):
                for child in node.orelse:
                    self.visit(child)
                return
            self.generic_visit(node)

        def visit_Import(self, node: ast.Import) -> None:
            out.update(alias.name for alias in node.names)

        def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            for alias in node.names:
                sub = f"{module}.{alias.name}"
                out.add(sub if sub in modules else module)

    Visitor().visit(ast.parse(path.read_text(encoding="utf-8")))
    return {m for m in out if m in modules and m != name}


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: (_imports(name, path, modules) if path is not None else set()) for name, path in modules.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, with an
    explicit stack)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work: list[tuple[str, list[str]]] = [(root, sorted(graph[root]))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, todo = work[-1]
            if todo:
                nxt = todo.pop()
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, sorted(graph[nxt])))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component: list[str] = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    component.append(top)
                    if top == node:
                        break
                if len(component) > 1:
                    components.append(sorted(component))
    return components


def test_the_package_has_no_import_cycle() -> None:
    assert _cycles(_graph()) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert _cycles(graph) == [["a", "b", "c"]]


@pytest.mark.parametrize("shared", SHARED)
def test_shared_modules_import_no_task_module(shared: str) -> None:
    graph = _graph()
    name = f"rapidgrade.{shared}"
    assert name in graph
    tasks = {m for m in graph[name] if m.startswith("rapidgrade.tasks.") and m != "rapidgrade.tasks._base"}
    assert tasks == set(), f"{name} imports {sorted(tasks)}: reach a task through the registry"


def test_optional_protocol_parts_are_declared_where_tasks_have_them() -> None:
    math_task = get_task("math")
    assert isinstance(math_task.start(math_task.configure()), BlockRun)
    assert isinstance(get_task("physics"), PairGrader)
    assert not isinstance(math_task, PairGrader)  # math pairs are grade_many's own path
    viewers = {name for name in task_names() if isinstance(get_task(name), ItemViewer)}
    assert viewers == {"absa", "fredholm"}


def test_grade_many_reaches_a_task_through_the_registry() -> None:
    r = rapidgrade.grade_many(["9.8 m/s^2"], [r"$\boxed{980\ \mathrm{cm/s^2}}$"], task="physics")
    assert r.correct.tolist() == [True]
    with pytest.raises(ValueError, match=r"unknown task 'absa' \(tasks that grade pairs: math, physics\)"):
        rapidgrade.grade_many(["a"], ["b"], task="absa")


#: Concepts several tasks share, by the option's dest: the one name each has on every task's
#: command line (older spellings may stay as aliases after it).
SHARED_OPTIONS = {
    "threads": "--threads",
    "workers": "--workers",
    "rel_tol": "--rel-tol",
    "abs_tol": "--abs-tol",
    "timeout": "--timeout",
    "gold_key": "--gold-key",
    "response_key": "--response-key",
    "id_key": "--id-key",
}


def _task_options(name: str) -> list[argparse.Action]:
    parser = argparse.ArgumentParser(prog=f"score --task {name}")
    get_task(name).add_arguments(parser)
    return [a for a in parser._actions if a.option_strings and a.dest != "help"]


@pytest.mark.parametrize("name", task_names())
def test_shared_concepts_have_one_option_name_across_tasks(name: str) -> None:
    for action in _task_options(name):
        primary = action.option_strings[0]
        assert not primary.startswith(f"--{name}-"), f"{primary}: a task's options need no task prefix"
        if action.dest in SHARED_OPTIONS:
            assert primary == SHARED_OPTIONS[action.dest], (name, action.option_strings)
        words = set(primary.lstrip("-").split("-"))
        if words & {"tol", "tolerance", "threads", "workers", "timeout"}:
            assert action.dest in SHARED_OPTIONS, f"{name}: {primary} names a shared concept: use its name"


def test_shared_cpp_includes_no_task_header() -> None:
    """The C++ side of the wing: the core's shared sources, headers and bindings name no task
    (cpp/src/tasks/, cpp/include/rapidgrade/tasks/, cpp/bindings/tasks/ hold the tasks)."""
    root = Path(__file__).resolve().parents[2] / "cpp"  # the checkout's sources
    shared = [
        p
        for p in root.rglob("*")
        if p.suffix in {".cpp", ".hpp"} and "tasks" not in p.relative_to(root).parts and p.parent.name != "fuzz"
    ]
    assert len(shared) > 30
    naming = [p.relative_to(root).as_posix() for p in shared if '"rapidgrade/tasks/' in p.read_text(encoding="utf-8")]
    assert naming == []
