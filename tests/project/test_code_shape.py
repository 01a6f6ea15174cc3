"""The code keeps the shape a maintainer can live in: lessons in modules small enough to read whole, no import loop
anywhere, an import inside a function only with its reason beside it, no issue numbers in the code, the formatter
owning the layout, and every test in a folder named for what it covers."""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

from tests.helpers import ROOT

MAX_LESSON_MODULE_LINES = 400  # a lesson's section, or a shared lessons module, read whole on one screen or two
MAX_FMT_SKIPS = 40  # tables and equations whose layout says something; the formatter lays out the rest
CODE = ("app.py", "pages", "ui", "lessons", "minimodels", "store", "scripts", "bench", "tests")
ISSUE_NUMBER = re.compile(r"\bissues?\s*#?\d+|\(#\d+\)|\btasks?\s*#\d+", re.IGNORECASE)


def python_files(*names: str) -> list[Path]:
    found: list[Path] = []
    for name in names:
        path = ROOT / name
        found += sorted(path.rglob("*.py")) if path.is_dir() else [path]
    return [p for p in found if "__pycache__" not in p.parts]


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@functools.cache
def imports(path: Path) -> list[tuple[ast.stmt, str, bool]]:
    """Every import in ``path``: (node, the absolute module it names, whether it sits inside a function)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    inside = {
        id(node)
        for fn in ast.walk(tree)
        if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef)
        for node in ast.walk(fn)
        if node is not fn
    }
    package = module_name(path) if path.name == "__init__.py" else module_name(path).rpartition(".")[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node, alias.name, id(node) in inside) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(
                    [*package.split(".")[: len(package.split(".")) - node.level + 1], *filter(None, [base])]
                )
            found += [(node, f"{base}.{alias.name}", id(node) in inside) for alias in node.names]
            found.append((node, base, id(node) in inside))
    return found


def test_no_lessons_module_is_longer_than_a_section_should_be():
    long = {
        str(p.relative_to(ROOT)): n
        for p in python_files("lessons")
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LESSON_MODULE_LINES
    }
    assert not long, f"cut these by the page's sections (at most {MAX_LESSON_MODULE_LINES} lines): {long}"


def test_every_lesson_is_a_package_of_its_sections():
    from lessons.common.catalog import all_lessons

    for lesson in all_lessons():
        package = ROOT / "lessons" / lesson.slug
        assert (package / "__init__.py").is_file(), f"lessons/{lesson.slug}/ is the lesson's package"
        assert len(list(package.glob("*.py"))) > 1, f"lessons/{lesson.slug}/ holds a module per section"


def test_no_import_loop_in_the_project():
    files = python_files(*CODE)
    known = {module_name(p): p for p in files}

    def resolve(name: str) -> str | None:
        while name and name not in known:
            name = name.rpartition(".")[0]
        return name or None

    graph = {m: set() for m in known}
    for name, path in known.items():
        for _node, target, _inside in imports(path):
            to = resolve(target)
            if to and to != name and not name.startswith(f"{to}."):  # a package's module may import its package
                graph[name].add(to)
    loops = _strongly_connected(graph)
    assert not loops, f"import loops: {loops}"


def _strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm, iterative: the groups of two or more modules that import each other round a loop."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            step = next(edges, None)
            if step is not None:
                if step not in index:
                    index[step] = low[step] = len(index)
                    stack.append(step)
                    on_stack.add(step)
                    work.append((step, iter(sorted(graph[step]))))
                elif step in on_stack:
                    low[node] = min(low[node], index[step])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    groups.append(sorted(group))
    return groups


def test_the_loop_finder_finds_a_loop():
    assert _strongly_connected({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _strongly_connected({"a": {"b"}, "b": set()}) == []


def test_an_import_inside_a_function_says_why_it_is_there():
    unexplained = []
    for path in python_files(*CODE):
        if path.parts[len(ROOT.parts)] == "tests":
            continue  # a test imports what it checks where it checks it
        lines = path.read_text(encoding="utf-8").splitlines()
        for node, _target, inside in imports(path):
            if inside and "#" not in lines[node.lineno - 1] and not lines[node.lineno - 2].strip().startswith("#"):
                unexplained.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not sorted(set(unexplained)), f"say why each is inside its function (a comment): {sorted(set(unexplained))}"


def test_no_issue_numbers_in_the_code():
    found = [
        f"{p.relative_to(ROOT)}:{i}"
        for p in python_files(*CODE)
        for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if ISSUE_NUMBER.search(line)
    ]
    assert not found, f"say what the code does and why, not which issue asked for it: {found}"


def test_the_formatter_owns_the_layout():
    skips = [
        f"{p.relative_to(ROOT)}:{i}"
        for p in python_files(*CODE)
        for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if "fmt: skip" in line
    ]
    assert len(skips) <= MAX_FMT_SKIPS, f"{len(skips)} `# fmt: skip`: keep them for tables and equations: {skips}"


def test_every_test_lives_in_a_folder_named_for_what_it_covers():
    loose = sorted(p.name for p in (ROOT / "tests").glob("test_*.py"))
    assert not loose, f"move these into tests/<what they cover>/: {loose}"
    for lesson_tests in (ROOT / "tests" / "lessons").iterdir():
        if lesson_tests.is_dir() and lesson_tests.name not in {"common", "__pycache__"}:
            assert (ROOT / "lessons" / lesson_tests.name).is_dir(), f"tests/lessons/{lesson_tests.name} has no lesson"
