"""Shared fixtures: a real `streamlit run` server and a real Chromium driven by Playwright."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
import torch

from lessons import charts

# The tests' tensors are tiny: one torch thread keeps them fast while the Streamlit server and Chromium share
# the 2 cores (with torch's default of 2 threads, one test file took 22 s instead of 5 s under contention).
torch.set_num_threads(1)

# Every figure the tests build (lesson builders, and pages under AppTest) is also built with Plotly's validation,
# which the app skips for speed, and must come out the same (lessons.charts.figure).
charts.CHECK_FIGURES = True

ROOT = Path(__file__).resolve().parent.parent
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


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def streamlit_server(tmp_path_factory):
    """A fresh `streamlit run app.py` on a free loopback port; yields its base URL."""
    port = _free_port()
    log = tmp_path_factory.mktemp("server") / "streamlit.log"
    with open(log, "w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
             "--server.address", "127.0.0.1", "--server.headless", "true"],
            cwd=ROOT, stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    break
        except OSError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            pytest.fail(f"streamlit did not start:\n{log.read_text()}")
        time.sleep(0.3)
    yield url
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()


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
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    pg = context.new_page()
    yield pg
    context.close()


@pytest.fixture(scope="session")
def screenshot_dir(tmp_path_factory):
    path = tmp_path_factory.mktemp("screenshots")
    print(f"\nscreenshots: {path}")
    return path
