"""Imports run one way, pages -> lessons -> minimodels: lessons/ and minimodels/ never import streamlit."""

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PURE = ("lessons", "minimodels")


def _imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_no_streamlit_import_in_pure_packages():
    offenders = [
        str(path.relative_to(ROOT))
        for package in PURE
        for path in (ROOT / package).rglob("*.py")
        if "streamlit" in _imported_modules(path)
    ]
    assert offenders == []


def test_minimodels_never_imports_lessons():
    offenders = [p.name for p in (ROOT / "minimodels").rglob("*.py") if "lessons" in _imported_modules(p)]
    assert offenders == []


def test_importing_every_pure_module_does_not_load_streamlit():
    modules = [
        ".".join(path.relative_to(ROOT).with_suffix("").parts)
        for package in PURE
        for path in (ROOT / package).rglob("*.py")
        if path.name != "__main__.py"
    ]
    code = (
        f"import importlib, sys\nfor m in {modules!r}: importlib.import_module(m)\nprint('streamlit' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"
