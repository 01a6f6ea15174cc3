"""Shared fixtures: a lesson page under AppTest, a real `streamlit run` server and a real Chromium driven by
Playwright. Shared plain functions live in ``tests/helpers.py``."""

from __future__ import annotations

import os
import zlib
from pathlib import Path

import pytest
import torch

from lessons.common import charts
from tests.helpers import open_page, streamlit_run

# The class store: every test session gets its own empty SQLite file (AppTest pages and the `streamlit run` servers
# the browser tests start inherit it), never the developer's var/attention_lab.sqlite3.
# The process that makes the folder (the pytest run, not its workers, which inherit the variable) removes it when
# it exits: one run's store is nothing to the next.
if not os.environ.get("ATTENTION_LAB_DB_URL"):
    import atexit
    import shutil
    import tempfile

    _store_folder = tempfile.mkdtemp(prefix="attention-lab-tests-")
    atexit.register(shutil.rmtree, _store_folder, ignore_errors=True)
    os.environ["ATTENTION_LAB_DB_URL"] = f"sqlite:///{_store_folder}/store.sqlite3"

# AppTest sessions of one test run in one process, one right after another: the class's reads shared across sessions
# for a second (ui.classroom._shared_read) would show a student the state of a moment ago. Tests that check the
# sharing itself set it back.
from ui import classroom as _classroom  # noqa: E402

_classroom.SHARED_READ_SECONDS = 0.0

# The tests' tensors are tiny: one torch thread keeps them fast while the Streamlit server and Chromium share
# the 2 cores (with torch's default of 2 threads, one test file took 22 s instead of 5 s under contention).
torch.set_num_threads(1)

# Every figure the tests build (lesson builders, and pages under AppTest) is also built with Plotly's validation,
# which the app skips for speed, and must come out the same (lessons.common.charts.figure).
charts.CHECK_FIGURES = True

CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


# Fixtures that need a real server or a real Chromium: a test that asks for one is a browser test, marked so
# whether or not its module says it (``-m "not browser"`` must never start a server).
BROWSER_FIXTURES = {"streamlit_server", "browser", "page", "screenshot_dir"}

# The fast loop (``make fast``: ``-m "not slow and not browser"``) checks all pure code and opens every page once
# under AppTest (tests/pages/test_every_page.py). It leaves out every other test under tests/pages/ (a page walked
# control by control, with live training runs: 5-15 s a file), marked here; a test elsewhere that trains a model or
# starts a Python process says so itself with ``@pytest.mark.slow``.
SLOW_FOLDER = "pages"
FAST_IN_SLOW_FOLDER = ("test_every_page.py",)


def _relative(item) -> str:
    """The test file's path under tests/, with forward slashes: the xdist group and the folder rule read it."""
    return item.path.relative_to(Path(__file__).parent).as_posix()


# CI runs the suite on two pytest-xdist workers (``-n 2``, with ``--dist loadgroup`` from pyproject.toml). A test
# goes to the worker running its group: the tests of the session's `streamlit run` server in two groups by page
# (``_server_groups``), so each worker keeps one server and its Chromium for half the pages (and the page visits the
# phone and accessibility tests share); each other file is a group of its own, so a module fixture (a trained model,
# a page, a server of its own) is made once, except the files of ``SHARED_READS``, one group together. A browser test
# with a server of its own (the live class) may run on either worker.
# tryfirst: pytest-xdist reads the groups in its own collection hook.
@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    groups = config.pluginmanager.hasplugin("xdist")
    servers = _server_groups(items) if groups else {}
    for item in items:
        callspec = getattr(item, "callspec", None)
        parametrized = set(callspec.params) if callspec else set()  # a parameter named `page` is not the fixture
        if BROWSER_FIXTURES.intersection(set(getattr(item, "fixturenames", ())) - parametrized):
            item.add_marker(pytest.mark.browser)
        file = _relative(item)
        folder, _, name = file.rpartition("/")
        if folder == SLOW_FOLDER and name not in FAST_IN_SLOW_FOLDER:
            item.add_marker(pytest.mark.slow)
        if groups:
            item.add_marker(pytest.mark.xdist_group(servers.get(item.nodeid, SHARED_READS.get(file, file))))


# The files that read every lesson page as a student (``tests.helpers.read_as_student``: each page opened once per
# process, every fold open): in one group they share those runs; apart, each worker opens every page again, which
# costs the fast loop about as much CPU as both files' own checks.
SHARED_READS = dict.fromkeys(
    ("lessons/common/test_notation.py", "lessons/common/test_lesson_order.py"), "pages_read_as_a_student"
)


SERVER_GROUPS = ("shared_server_a", "shared_server_b")


def _page_of(item) -> str:
    """What a shared-server test visits: its first parameter (a page's path, or a lesson's URL path), else itself."""
    callspec = getattr(item, "callspec", None)
    if not callspec or not callspec.params:
        return item.nodeid
    first = next(iter(callspec.params.values()))
    return str(getattr(first, "url_path", first))


def _server_groups(items) -> dict[str, str]:
    """The tests of the session's `streamlit run` server, cut into two groups (one server and one Chromium per
    worker): the pages alternate between the two in the order the tests first meet them, so the tests that read one
    page's visit (``tests/browser/audit.py``) stay on one worker, and each worker draws half the pages. xdist hands
    out the groups largest first, one more to a worker whenever it is nearly done, so the worker that takes one half
    is busy with it when the other half comes up: each worker runs one half, early in the run."""
    visits: dict[str, str] = {}
    out = {}
    for item in items:
        if "streamlit_server" in getattr(item, "fixturenames", ()):
            page = _page_of(item)
            group = visits.setdefault(page, SERVER_GROUPS[len(visits) % 2])
            out[item.nodeid] = group
    return out


# Every AppTest in a process runs under one session id (Streamlit's LocalScriptRunner), so what a page keeps in a
# session-scoped resource (ui.training's runs) is seen by every AppTest that comes after it: a masking page opened
# after another test's stopped run drew that run's panel. After each test file, that session ends, as a closed tab's
# does (its runs stopped), so a file does not depend on which files ran before it in the process (under -n 2 the order
# differs from one process's).
APPTEST_SESSION_ID = "test session id"


@pytest.fixture(autouse=True)
def _torch_draws_depend_on_the_test_alone(request):
    """torch's global generator seeded from the test's own name before each test: a test that draws without a
    generator of its own gets the same numbers whichever tests ran before it in its worker, so a draw that fails in
    CI fails again on a developer's machine."""
    torch.manual_seed(zlib.crc32(request.node.nodeid.encode()))


@pytest.fixture(scope="module", autouse=True)
def _apptest_session_ends_with_the_file():
    yield
    from streamlit.runtime.caching.cache_resource_api import clear_session_cache

    clear_session_cache(APPTEST_SESSION_ID)


@pytest.fixture
def at(request):
    """A fresh session on the test module's lesson page (its ``PAGE``, ``"pages/<slug>.py"``), under AppTest."""
    return open_page(request.module.PAGE)


@pytest.fixture(scope="session")
def streamlit_server(tmp_path_factory):
    """A fresh `streamlit run app.py` on a free loopback port; yields its base URL."""
    with streamlit_run("app.py", tmp_path_factory.mktemp("server")) as url:
        yield url


@pytest.fixture(scope="session")
def browser():
    if not Path(CHROMIUM).exists():
        message = f"Chromium not found at {CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)"
        if os.environ.get("CI"):
            pytest.fail(message)  # in CI the browser tests must run, never skip
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    from tests.helpers import EVERY_PART_DRAWN

    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    context.add_init_script(EVERY_PART_DRAWN)
    pg = context.new_page()
    yield pg
    context.close()


@pytest.fixture(scope="session")
def screenshot_dir(tmp_path_factory):
    path = tmp_path_factory.mktemp("screenshots")
    print(f"\nscreenshots: {path}")
    return path


# ------------------------------------------------------------------------------------------------ the class store
@pytest.fixture(scope="session")
def postgres_server():
    """A throwaway PostgreSQL cluster for the whole session (``store.throwaway``); yields its URL. Skipped only
    outside CI when the server binaries are missing: in CI (which installs Debian's postgresql) it must run."""
    from store import throwaway

    if throwaway.binaries() is None:
        message = "PostgreSQL server binaries not found (apt-get install postgresql)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    with throwaway.cluster() as url:
        yield url


_databases = iter(range(1, 10**6))


# The PostgreSQL half is `slow` (the full suite and CI run it; the fast loop keeps SQLite): starting the cluster and a
# database per test cost the fast loop ten seconds.
@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.slow)])
def store_url(request, tmp_path):
    """An empty store's URL: a fresh SQLite file, and a fresh database on the session's PostgreSQL cluster."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'store.sqlite3'}"
        return
    import sqlalchemy as sa

    server = request.getfixturevalue("postgres_server")
    name = f"test_{next(_databases)}"
    admin = sa.create_engine(server, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(sa.text(f"CREATE DATABASE {name}"))
    yield server.rsplit("/", 1)[0] + f"/{name}"
    with admin.connect() as conn:
        conn.execute(sa.text(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
    admin.dispose()
