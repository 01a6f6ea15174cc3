"""Imports run one way, ``pages/ -> ui/ -> lessons/ -> minimodels/``: only pages/, app.py and the UI layer import
streamlit, lessons/ never imports the UI layer, minimodels/ neither; and every chart on a page goes through the
UI layer's one presenter path (``ui.plotly``, ``ui.vega``, ``ui.altair``), never straight to Streamlit's chart calls;
a page's cached functions are made through ``ui.cached`` / ``ui.cached_resource``, once per server."""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import ROOT

PURE = ("lessons", "minimodels", "store")  # store: the class store, SQLAlchemy only
UI = ("ui",)  # the UI layer: the ui/ package
STREAMLIT_ALLOWED = ("app.py", "pages", *UI)
OUTSIDE_THE_APP = ("tests", "bench")  # test and bench code may drive Streamlit; it is no part of the app
# Streamlit's chart calls: the first three take a figure or a spec; the last four build a Vega-Lite chart themselves.
CHART_CALLS = {
    "plotly_chart",
    "altair_chart",
    "vega_lite_chart",
    "line_chart",
    "bar_chart",
    "area_chart",
    "scatter_chart",
}


def python_files(*names: str) -> list[Path]:
    """Every .py file of these top-level files or folders (folders walked to any depth)."""
    found: list[Path] = []
    for name in names:
        path = ROOT / name
        found += sorted(path.rglob("*.py")) if path.is_dir() else [path] if path.exists() else []
    return found


def app_files() -> list[Path]:
    """Every .py file of the app: the repository less its tests, benches and hidden or virtual-env folders."""
    return [
        path
        for path in sorted(ROOT.rglob("*.py"))
        if not any(part.startswith(".") for part in path.relative_to(ROOT).parts)
        and path.relative_to(ROOT).parts[0] not in OUTSIDE_THE_APP
    ]


def _imported_modules(path: Path) -> set[str]:
    """The top-level names of every absolute import in ``path``, at any depth (a function's own imports too)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def _importers(files: list[Path], module: str) -> list[str]:
    return [str(path.relative_to(ROOT)) for path in files if module in _imported_modules(path)]


def _chart_calls(source: str, name: str) -> list[str]:
    """Where ``source`` (the file ``name``) calls one of Streamlit's chart functions itself: ``st.plotly_chart(…)``,
    ``cols[0].altair_chart(…)``, ``(box or st).vega_lite_chart(…)``, or one imported by name from streamlit."""
    tree = ast.parse(source)
    imported = {
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "streamlit"
        for alias in node.names
        if alias.name in CHART_CALLS
    }
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if (isinstance(func, ast.Attribute) and func.attr in CHART_CALLS) or (
            isinstance(func, ast.Name) and func.id in imported
        ):
            found.append(f"{name}:{node.lineno} {ast.unparse(func)}")
    return found


def test_the_scans_reach_nested_packages():
    pure = set(python_files(*PURE))
    for folder in ("lessons/common", "minimodels/train"):  # packages inside packages are scanned too
        inside = set((ROOT / folder).glob("*.py"))
        assert inside and inside <= pure, folder
    assert pure <= set(app_files())


def test_no_streamlit_import_in_pure_packages():
    assert _importers(python_files(*PURE), "streamlit") == []


def test_only_pages_app_and_the_ui_layer_import_streamlit():
    allowed = set(python_files(*STREAMLIT_ALLOWED))
    assert _importers([p for p in app_files() if p not in allowed], "streamlit") == []


def test_lessons_never_import_the_ui_layer():
    assert _importers(python_files("lessons"), "ui") == []


def test_minimodels_never_imports_lessons_or_the_ui_layer():
    files = python_files("minimodels")
    assert _importers(files, "lessons") == []
    assert _importers(files, "ui") == []


def test_the_store_stands_alone_and_only_the_ui_layer_and_pages_open_it():
    """The class store is reached through ``ui.classroom`` (``st.connection``); lessons and models never see it."""
    files = python_files("store")
    assert [m for m in ("lessons", "minimodels", "ui") if _importers(files, m)] == []
    assert _importers(python_files("lessons", "minimodels"), "store") == []


def test_the_chart_scan_finds_every_way_a_page_can_draw_a_chart():
    page = (
        "import streamlit as st\nfrom streamlit import altair_chart as draw\n"
        "st.plotly_chart(fig)\ncols[0].altair_chart(chart)\n(box or st).vega_lite_chart(spec)\ndraw(chart)\n"
        "st.line_chart(df)\nui.plotly(fig, key='k')\nst.markdown('st.plotly_chart(fig)')\n"
    )
    assert sorted(int(call.split(":")[1].split()[0]) for call in _chart_calls(page, "page.py")) == [3, 4, 5, 6, 7]


def test_every_chart_on_a_page_goes_through_the_ui_layer():
    """A page hands its figure to the UI layer, which alone sends it to Streamlit: presenter sizes, the download
    menu, one key scheme. Only ``ui/`` may call Streamlit's chart functions."""
    calls = [
        call
        for path in python_files("app.py", "pages")
        for call in _chart_calls(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
    ]
    assert calls == [], "call ui.plotly / ui.vega / ui.altair instead:\n" + "\n".join(calls)


@pytest.mark.slow  # starts a Python process
def test_importing_every_pure_module_does_not_load_streamlit():
    modules = [
        ".".join(path.relative_to(ROOT).with_suffix("").parts)
        for path in python_files(*PURE)
        if path.name != "__main__.py"
    ]
    code = (
        f"import importlib, sys\nfor m in {modules!r}: importlib.import_module(m)\nprint('streamlit' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


@pytest.mark.slow  # starts a Python process
def test_importing_the_ui_layer_starts_no_work():
    """``import ui`` (the home page does it) starts no thread and loads no torch: the server's one-off work (freezing
    the collector, warming up training, handing memory back) starts on the first lesson page's run."""
    code = (
        "import sys, threading\nbefore = threading.active_count()\nimport ui\n"
        "print(threading.active_count() - before, 'torch' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["0", "False"]


def _cache_calls(source: str, name: str) -> list[str]:
    """Where ``source`` uses Streamlit's caches itself: ``st.cache_data``/``st.cache_resource`` as a call or as a
    decorator (``@st.cache_data``, ``@st.cache_data(...)``)."""
    return [
        f"{name}:{node.lineno} st.{node.attr}"
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Attribute)
        and node.attr in ("cache_data", "cache_resource")
        and isinstance(node.value, ast.Name)
        and node.value.id == "st"
    ]


def test_the_cache_scan_finds_a_call_and_both_decorators():
    page = (
        "@st.cache_data\ndef f(): ...\n@st.cache_resource(ttl=1)\ndef g(): ...\nh = st.cache_data(max_entries=1)(k)\n"
    )
    assert [call.split(":")[1].split()[0] for call in _cache_calls(page, "page.py")] == ["1", "3", "5"]
    assert _cache_calls("h = ui.cached(k, max_entries=1)\n", "page.py") == []


def test_pages_make_their_cached_functions_once_per_server():
    """A page runs again on every rerun, and Streamlit makes a cache wrapper by reading and tokenizing the
    function's source: a page's ``st.cache_data(...)(fn)`` did it on every run, for every student. ``ui.cached``
    and ``ui.cached_resource`` make each once per server."""
    calls = [
        call
        for path in python_files("app.py", "pages")
        for call in _cache_calls(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
    ]
    assert calls == [], "use ui.cached / ui.cached_resource instead:\n" + "\n".join(calls)
