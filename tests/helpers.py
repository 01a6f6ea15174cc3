"""What more than one test file needs: opening a page under AppTest and reading its charts, waiting for a
training panel's run, reading an SVG drawing, and driving a page in a real Chromium.

Fixtures live in ``tests/conftest.py``; these are plain functions and constants, imported by name.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import pickle
import re
import time
from pathlib import Path
from xml.etree import ElementTree

import numpy as np
import pyarrow as pa
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT = 60  # s: AppTest's limit for one script run (a lesson's first run loads its pretrained models)


# --- AppTest: open a page, read its charts ----------------------------------------------------------------
def open_page(page: str | None = None, params: dict[str, str] | None = None) -> AppTest:
    """A new session: the home page, then ``page`` (``"pages/<slug>.py"``) when given, as a student opens them.

    ``params`` are the link's query parameters, there from the session's first run (the first page decides
    presenter mode; a lesson reads its settings from them)."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    at.query_params.update(params or {})
    at.run()
    assert not at.exception, at.exception
    if page is not None:
        at.switch_page(page).run()
        assert not at.exception, at.exception
    return at


def folded_key(expander) -> str | None:
    """The key of a folded expander (``ui.folded``: built only while open), read off its element id; None for an
    expander that always holds its content."""
    parts = expander.proto.id.split("-", 2)
    return parts[2] if len(parts) == 3 and parts[2] else None


def unfold(at: AppTest, *labels: str, strict: bool = True) -> AppTest:
    """Open the folded expanders whose labels start with one of ``labels``, as a student's clicks do, and rerun:
    their content is then on the page. Fails on a label the page does not have (unless not ``strict``)."""
    assert labels, "name the expanders to open"
    keys = {}
    for expander in at.expander:
        key = folded_key(expander)
        if key and any(expander.label.startswith(label) for label in labels):
            keys[key] = expander.label
    missing = [label for label in labels if not any(name.startswith(label) for name in keys.values())]
    assert not (strict and missing), f"no folded expander starts with {missing}: {sorted(keys.values())}"
    for key in keys:
        at.session_state[key] = True
    at.run()
    assert not at.exception, at.exception
    return at


def opened_unanswered(page: str) -> AppTest:
    """``page`` in a new session, nothing answered and every fold a student may open open (a prediction's answer,
    folded until its question is answered, is not there yet)."""
    at = open_page(page)
    return unfold(at, "") if any(map(folded_key, at.expander)) else at  # every label starts with ""


_read: dict[str, AppTest] = {}


def read_as_student(page: str) -> AppTest:
    """:func:`opened_unanswered`, once per test process: the tests that only read a page share it, and must not
    change it."""
    if page not in _read:
        _read[page] = opened_unanswered(page)
    return _read[page]


def spec_text(chart) -> str:
    """A chart's spec as text with every character as itself: what a test searches, whichever serializer Streamlit
    used (plain json writes "ᵀ" as "\\u1d40", orjson as "ᵀ")."""
    return json.dumps(json.loads(chart.proto.spec), ensure_ascii=False) if chart.proto.spec else ""


def plotly_specs(at: AppTest) -> list[dict]:
    """Every Plotly figure on the page, as its JSON (AppTest returns Plotly charts as unknown elements)."""
    return [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]


def vega_specs(at: AppTest) -> list[dict]:
    """Every Vega-Lite chart's spec on the page (its data comes apart: :func:`vega_rows`)."""
    return [json.loads(chart.proto.spec) for chart in at.get("vega_lite_chart")]


def plotly_array(value) -> np.ndarray:
    """A trace's array from a figure's JSON: Plotly 6 sends numpy arrays as base64 typed arrays ("bdata", with
    their shape when they have more than one dimension), lists as they are."""
    if isinstance(value, dict):
        flat = np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"])
        return flat.reshape([int(n) for n in value["shape"].split(",")]) if "shape" in value else flat
    return np.asarray(value, dtype=float)


def vega_rows(chart) -> list[dict]:
    """The rows of a Vega-Lite chart under AppTest: Streamlit sends a chart's data apart from its spec, as Arrow."""
    return pa.ipc.open_stream(chart.proto.data.data).read_all().to_pylist()


def gone(pid: int, timeout: float = 30.0) -> bool:
    """Whether process ``pid`` has ended, waiting up to ``timeout`` seconds for it."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.1)
    return False


def as_read(text: str) -> str:
    """Text escaped for Markdown (``ui.charts.plain``) as a student reads it: each escaped character as itself."""
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", text)


def table_as_read(table):
    """A static table's data frame as a student reads it (``ui.text_table`` escapes every character Markdown would
    read; the browser shows each cell as it was written: tests/browser/test_own_data.py)."""
    return table.value.rename(columns=as_read).map(lambda v: as_read(v) if isinstance(v, str) else v)


def markdown_starting(at: AppTest, start: str) -> str:
    """The first paragraph of the page that starts with ``start`` (a summary, an output line)."""
    found = [m.value for m in at.markdown if m.value.startswith(start)]
    assert found, f"no paragraph starting {start!r}"
    return found[0]


def predicted(at: AppTest) -> AppTest:
    """The page as a student sees it once every question on it has an answer (as ``ui.exercise`` keeps them, so
    no feedback is shown): the parts that open after a prediction (``ui.after_answering``, ``ui.reveal``'s
    ``after``) are then drawn. Repeats until no new question appears (an opened part may ask one)."""
    seen: set[str] = set()
    while True:
        keys = {
            w.key.removesuffix(".answer") for w in (*at.number_input, *at.radio) if (w.key or "").endswith(".answer")
        }
        if keys <= seen:
            return at
        seen |= keys
        answers = dict(at.session_state["learner.answers"]) if "learner.answers" in at.session_state else {}
        at.session_state["learner.answers"] = answers | {k: ("0", False) for k in keys if k not in answers}
        at.run()
        assert not at.exception, at.exception


def answer_exercise(at: AppTest, key: str, value) -> AppTest:
    """Answer the check-yourself question ``key`` (``"<lesson>.exN"``) with ``value`` and press its Check: the
    answer box is ``{key}.answer`` (a number box or a radio) in the form ``{key}.form`` (``ui.exercise``)."""
    box = next((w for w in (*at.number_input, *at.radio) if w.key == f"{key}.answer"), None)
    assert box is not None, f"no answer box {key}.answer"
    box.set_value(value)
    at.button(key=f"FormSubmitter:{key}.form-Check").click().run()
    assert not at.exception, at.exception
    return at


def svg_parts(svg: str) -> tuple[list[str], int]:
    """The texts and the number of arrows of an SVG drawing, which must be well-formed XML."""
    root = ElementTree.fromstring(svg)
    texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    return texts, sum(1 for element in root.iter() if element.get("marker-end"))


# --- AppTest: a lesson's training panel (``ui.training_panel``) ---------------------------------------------
# AppTest does not tick the panel's polling fragment, so a test reruns the page itself until the run has
# reported, or is over, reading the panel's progress bar as a student would.
RUN_OVER = ("done", "stopped", "failed")  # how the progress bar's text starts once a run has ended


def recipe_of(run):
    """What a run's worker would build, built here: ``(model, train_fn)`` from its pickled recipe."""
    return pickle.loads(run.recipe)()


def progress_text(at: AppTest) -> str:
    bars = at.get("progress")
    return bars[0].proto.text if bars else ""


def rerun_until(at: AppTest, done, timeout: float = 240.0, what: str = "the run did not end") -> str:
    """Rerun the page every half second until ``done(at)``; returns the progress bar's text then."""
    deadline = time.monotonic() + timeout
    while not done(at):
        assert time.monotonic() < deadline, f"{what}: {progress_text(at)!r}"
        time.sleep(0.5)
        at.run()
        assert not at.exception, at.exception
    return progress_text(at)


def wait_for_run(at: AppTest, timeout: float = 240.0) -> str:
    """Rerun until the run is over; returns the progress bar's text ("done …", "stopped …" or "failed …")."""
    return rerun_until(at, lambda at: progress_text(at).startswith(RUN_OVER), timeout)


def wait_for_report(at: AppTest, timeout: float = 240.0) -> str:
    """Rerun until the run has made its first training report (the bar shows its step)."""
    return rerun_until(at, lambda at: "step" in progress_text(at), timeout, "no training report")


def train_and_stop_at_once(at: AppTest, panel: str, timeout: float = 60.0) -> None:
    """Press the panel's Train, then Stop at once: the run ends "stopped" and the panel offers Train again.

    ``panel`` is the key given to ``ui.training_panel`` (its buttons are ``{panel}.train`` and ``{panel}.stop``).
    """
    at.button(key=f"{panel}.train").click().run()
    at.button(key=f"{panel}.stop").click().run()
    assert not at.exception
    assert wait_for_run(at, timeout=timeout).startswith("stopped")
    at.run()  # the panel drew its buttons before the stop took effect: the next rerun offers Train again
    assert at.button(key=f"{panel}.train").disabled is False
    assert at.button(key=f"{panel}.stop").disabled


# --- a real Chromium (Playwright's sync API; the ``page`` and ``streamlit_server`` fixtures) -------------------
SCRIPT_DONE = "[data-testid=stApp][data-test-script-state=notRunning]"
HEATMAP = ".js-plotly-plot g.hm image"  # plotly.js draws a heatmap's cells as one image per trace
BROWSER_WAIT = 120_000  # ms: generous, the 2 cores are shared with the server, Chromium and other test runs


def goto(page, url: str, timeout: float = BROWSER_WAIT) -> None:
    """Open ``url`` and wait until its script has finished."""
    page.goto(url)
    page.wait_for_selector(SCRIPT_DONE, timeout=timeout)


def browser_cookie(context, name: str, present: bool = True, timeout: float = BROWSER_WAIT) -> str | None:
    """A cookie's value in the browser ``context`` (None once gone, with ``present=False``). The page writes and
    forgets its cookies with a script that runs after the page's text is drawn (a test that reloads the moment a text
    shows can outrun it, as a person never does): wait until ``name`` is there, or gone."""
    deadline = time.monotonic() + timeout / 1000
    while time.monotonic() < deadline:
        found = [c["value"] for c in context.cookies() if c["name"] == name]
        if bool(found) == present:
            return found[0] if found else None
        time.sleep(0.2)
    raise AssertionError(f"the cookie {name} is {'still missing' if present else 'still there'}")


def assert_no_exception(page) -> None:
    errors = page.locator("[data-testid=stException]")
    assert errors.count() == 0, errors.first.inner_text()


def plotly_heatmap(page, title: str):
    """The Plotly figure that draws a heatmap and shows ``title`` (a locator)."""
    return page.locator(".js-plotly-plot", has=page.locator("g.hm")).filter(has_text=title)


def watch_redraws(page, live, click_elsewhere, wanted: int = 3, timeout: float = 120.0) -> list[str]:
    """While a run trains: the texts of ``live`` (a locator of the live figure's titles) each time they change,
    until ``wanted`` states were seen; ``click_elsewhere()`` once after the second (the run must survive it)."""
    seen: list[str] = []
    clicked = False
    deadline = time.monotonic() + timeout
    while len(seen) < wanted and time.monotonic() < deadline:
        state = " | ".join(t for t in live.all_text_contents() if t)
        if state and (not seen or state != seen[-1]):
            seen.append(state)
        if len(seen) == 2 and not clicked:
            click_elsewhere()
            clicked = True
        page.wait_for_timeout(250)
    return seen


def train_live_and_replay(page, live, click_elsewhere, what: str) -> list[str]:
    """In a real browser: press Train once the page is idle, see the live figure (``live``, a locator of its titles)
    redrawn at least three times while ``click_elsewhere()`` moves another control, then wait for the finished
    run's replay. No exception on the page at any point. Returns the live states seen."""
    from playwright.sync_api import expect

    page.wait_for_timeout(500)
    page.wait_for_selector(SCRIPT_DONE, timeout=60_000)
    page.get_by_role("button", name="Train").click()
    seen = watch_redraws(page, live, click_elsewhere)
    assert len(seen) >= 3, f"{what} were redrawn only for {seen}"
    assert_no_exception(page)
    replay = page.locator("[data-testid=stSlider]", has_text="Replay the run")
    replay.first.wait_for(timeout=120_000)  # while Streamlit swaps the panel, the old slider may still be shown
    page.wait_for_selector(SCRIPT_DONE, timeout=60_000)
    expect(replay).to_have_count(1, timeout=10_000)  # once settled: one replay, the finished run's
    assert_no_exception(page)
    return seen


def open_without_results(slug: str, monkeypatch, tmp_path) -> AppTest:
    """The lesson's page with its catalog entry's shipped results pointing at a file that does not exist."""
    import dataclasses

    from lessons.common import catalog

    real = catalog.lesson
    moved = dataclasses.replace(real(slug), results=(str(tmp_path / f"{slug}.json"),))
    monkeypatch.setattr(catalog, "lesson", lambda name: moved if name == slug else real(name))
    return open_page(f"pages/{slug}.py")


def answer_every_exercise(at: AppTest, exercises) -> dict:
    """Answer each exercise right (its choice, or its number to three decimals) and check that each is marked right
    on its own; returns ``{key: the answer given}``."""
    right = {ex.key: ex.choices[ex.answer] if ex.is_choice else round(ex.answer, 3) for ex in exercises}
    for key, value in right.items():
        assert any(s.value.startswith("Right") for s in answer_exercise(at, key, value).success), key
    return right


# --- a real `streamlit run` (the conftest's server, the accessibility test's bare page) -------------------------------
def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def streamlit_run(script: str, log_dir: Path, what: str = "streamlit"):
    """``streamlit run <script>`` from the repository root (the app's config) on a free loopback port; yields its
    base URL once it answers its health check, and stops it afterwards. The test fails with the server's log when
    it does not start within a minute."""
    import subprocess
    import sys
    import urllib.request

    import pytest

    port = free_port()
    log = log_dir / "streamlit.log"
    with open(log, "w") as out:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "streamlit",
                "run",
                script,
                "--server.port",
                str(port),
                "--server.address",
                "127.0.0.1",
                "--server.headless",
                "true",
            ],
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
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
            pytest.fail(f"{what} did not start:\n{log.read_text()}")
        time.sleep(0.3)
    try:
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


# For the tests of what a page does, every part drawn at once, as a student who scrolled to it sees it. The app draws
# a part out of sight only near the screen (ui.style, content-visibility), and Playwright counts a part not drawn
# yet as hidden: a wait for a heatmap's label below the fold timed out or not by where the page happened to be.
# What the rule itself does is tested on the page as shipped (test_browser.py, and the phone and axe-core audits).
EVERY_PART_DRAWN = """document.addEventListener('DOMContentLoaded', () => {
  const style = document.createElement('style');
  style.textContent = '[data-testid=stMain] * { content-visibility: visible !important; }';
  document.head.appendChild(style);
});"""


# What a student reads of a page under AppTest: the elements of prose, and the widgets whose labels (and options)
# it reads; shared by the tests that read a page as a student does (the order test, the answer-leak test).
PROSE_ELEMENTS = ("markdown", "caption", "header", "subheader", "title", "info", "warning", "success", "error")
WIDGET_KINDS = (
    "radio",
    "selectbox",
    "multiselect",
    "slider",
    "select_slider",
    "text_input",
    "text_area",
    "number_input",
    "checkbox",
    "toggle",
    "button",
)


def chart_titles(spec: dict) -> list[str]:
    """A chart's titles (and Plotly annotations), which a student reads like a caption."""
    out = []
    for node in (spec, spec.get("layout", {})):
        title = node.get("title")
        out.append(title.get("text", "") if isinstance(title, dict) else title or "")
    out += [a.get("text", "") for a in spec.get("layout", {}).get("annotations", [])]
    return [re.sub(r"<br\s*/?>", " ", t) for t in out if isinstance(t, str) and t]
