"""Each lesson against a page of its own weight that computes nothing.

    python -m bench.same_weight [--opens 3] [--moves 3] [--runs 5] [--lessons SLUG …] [--write]

The reference (``bench/weighted_page.py``) is given the lesson's counts as the lesson opens, read off the lesson
page by AppTest: its Plotly figures, Vega-Lite charts and tables, and enough paragraphs (a header every ten) that
it holds as many elements as the lesson (blocks and columns included, counted the same way); its one control, a
slider in a fragment, redraws one heatmap of the lesson's first heatmap's size. Its fixed figures are prepared
once per server and handed to Streamlit serialised (``?prepared=1``), as a lesson's figures at their defaults are:
the true floor of a page of that weight. Both are served by their own ``streamlit run``, one after the other, in
the same Chromium.

Whole-page run: the server's time for the page's run, from a fresh session's request to its ``script_finished``
(``bench.streamlit_client``, no browser), median of ``--runs`` taken in turn with the reference's, while one other
session stays connected to each server (as in a class: Streamlit keeps a compiled page script only while some
session is connected); the ratio is the lesson's cost over the floor's. Target: ≤ 1.3×.

Page open (item 1): a fresh tab, from the navigation to the page fully drawn: the script done, no skeleton left,
and nothing in any figure, chart or table changed for 300 ms (the last change is the moment taken); and to the
lesson's title on screen ("first text"). The title is also timed from a click on the lesson's link on the course
map, drawn in its tab (a student's way in: Streamlit's scripts are loaded already, as they are for every page
after the first). ``--opens`` times each, medians. Targets: the lessons' median ratio ≤ 1.1×, none above 1.25×;
first text within 1 s of the click.

Controls (item 2): every slider and select box of the lesson that redraws a figure, moved ``--moves`` times as
``bench/latency.py`` moves them, each control's median against the reference's slider (median of twice as many
moves). Targets: every control ≤ 1.25× the reference's median, none above 1.5×.

``--write`` stores the figures in ``bench/classroom.json`` (``same_weight``); with ``--lessons``, their rows replace
those lessons' rows and the others stay as they were measured (each row holds its own load and speed).
``python -m bench.classroom render`` writes them into ``bench/CLASSROOM.md``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
import urllib.parse
from concurrent.futures import ThreadPoolExecutor

from playwright.sync_api import sync_playwright
from streamlit.testing.v1 import AppTest

from bench.harness import RESULTS, ROOT, keep_figures, machine
from bench.latency import DRAWN, MESSAGES, SCRIPT_DONE, figure_controls, heatmap_size, seed_moves, start, stop
from bench.page_weight import element_count
from bench.streamlit_client import Student
from lessons.common.catalog import built_lessons
from tests.helpers import open_page

OPENED = (
    """(() => {
  window.__lastChange = 0; window.__title = null;
  const DRAWN = '"""
    + DRAWN
    + """';
  document.addEventListener('DOMContentLoaded', () => {
    new MutationObserver(records => {
      const now = performance.now();
      if (window.__title === null) {
        const h1 = document.querySelector('[data-testid=stMain] h1');
        if (h1 && h1.textContent.trim() && h1.getBoundingClientRect().height > 0) window.__title = now;
      }
      if (records.some(r => r.target.closest && r.target.closest(DRAWN))) window.__lastChange = now;
    }).observe(document.body, {subtree: true, childList: true, attributes: true, characterData: true});
  });
})();"""
)
QUIET_MS = 300
NO_HEATMAP = (12, 12)  # the reference's heatmap for a lesson that opens without one


def weight(at) -> dict:
    """What a page holds as it opens, under AppTest: every element (blocks included), its charts and tables."""
    return {
        "elements": element_count(at._tree.main),
        "plotly": len(at.get("plotly_chart")),
        "vega": len(at.get("vega_lite_chart")),
        "tables": len(at.dataframe) + len(at.table),
    }


def reference_query(lesson_weight: dict, rows: int, cols: int) -> tuple[str, dict]:
    """The reference page's query for a lesson's weight: its charts and tables, and the paragraphs that bring its
    element count to the lesson's (found by counting the reference itself). Returns (query, its weight)."""

    params = {
        "prepared": 1,
        "rows": rows,
        "cols": cols,
        "plotly": max(0, lesson_weight["plotly"] - 1),
        "vega": lesson_weight["vega"],
        "tables": lesson_weight["tables"],
    }
    static = max(0, lesson_weight["elements"] - lesson_weight["plotly"] - lesson_weight["vega"] - 6)
    got = None
    for _ in range(6):
        at = AppTest.from_file(str(ROOT / "bench" / "weighted_page.py"), default_timeout=60)
        at.query_params.update({k: str(v) for k, v in {**params, "static": static}.items()})
        at.run()
        got = weight(at)
        gap = lesson_weight["elements"] - got["elements"]
        if gap == 0:
            break
        static = max(0, static + round(gap * 10 / 11))
    return urllib.parse.urlencode({**params, "static": static}), got


def open_times(browser, url: str, opens: int) -> tuple[float, float]:
    """Medians over ``opens`` fresh tabs: (seconds to fully drawn, seconds to the title on screen)."""
    drawn, title = [], []
    for _ in range(opens):
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.add_init_script(OPENED)
        page.goto(url, wait_until="commit")
        page.wait_for_selector(SCRIPT_DONE, timeout=180_000)
        page.wait_for_function("!document.querySelector('[data-testid=stSkeleton]')", timeout=120_000)
        while True:
            now, last = page.evaluate("() => [performance.now(), window.__lastChange]")
            if now - last >= QUIET_MS:
                break
            page.wait_for_timeout(25)
        drawn.append(last / 1000)
        title.append((page.evaluate("() => window.__title") or last) / 1000)
        page.close()
    return statistics.median(drawn), statistics.median(title)


CLICKED = """title => new Promise(resolve => {
  const seen = () => [...document.querySelectorAll('[data-testid=stMain] h1')]
    .some(h => h.textContent.trim() === title && h.getBoundingClientRect().height > 0);
  const link = [...document.querySelectorAll('[data-testid=stMain] [data-testid=stPageLink] a')]
    .find(a => a.textContent.includes(title));
  const observer = new MutationObserver(() => {
    if (seen()) { observer.disconnect(); resolve(performance.now() - start); }
  });
  observer.observe(document.body, {subtree: true, childList: true, characterData: true, attributes: true});
  const start = performance.now();
  link.click();
})"""


def click_times(browser, app_url: str, title: str, clicks: int) -> float:
    """Median seconds from a click on the lesson's link on the course map (the home page, drawn) to the lesson's
    title on screen: a student's way in, without a fresh tab's loading of Streamlit's scripts."""
    times = []
    for _ in range(clicks):
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(app_url)
        page.wait_for_selector(SCRIPT_DONE, timeout=120_000)
        page.wait_for_selector("[data-testid=stMain] [data-testid=stPageLink] a", timeout=60_000)
        times.append(page.evaluate(CLICKED, title) / 1000)
        page.wait_for_selector(SCRIPT_DONE, timeout=180_000)
        page.close()
    return statistics.median(times)


def run_times(app_url: str, ref_url: str, lesson_path: str, query: str, runs: int) -> tuple[float, float]:
    """Medians over ``runs`` fresh sessions each, taken in turn: (the lesson's whole-page run, the reference's), in
    seconds from the request to ``script_finished`` on the server."""

    async def one(url: str, page: str, query: str = "") -> float:
        tab = Student(url, query=query)
        try:
            seconds = await tab.open(page)
        finally:
            await tab.close()
        if tab.exceptions or tab.errors:  # a run cut short by an error is no measure of the page's weight
            raise RuntimeError(f"{url}/{page}?{query} failed: {(tab.exceptions + tab.errors)[0]}")
        return seconds

    async def both() -> tuple[float, float]:
        # A class always has another student connected: Streamlit compiles a page's script once and keeps it while
        # any session is connected, and forgets it when the last one leaves. One idle session on each server keeps
        # both scripts compiled, as in a class; without it each fresh session here would pay the compile alone.
        present = [Student(app_url), Student(ref_url, query=query)]
        await present[0].open("")
        await present[1].open("")
        try:
            lesson, ref = [], []
            for _ in range(runs):
                lesson.append(await one(app_url, lesson_path))
                ref.append(await one(ref_url, "", query))
            return statistics.median(lesson), statistics.median(ref)
        finally:
            for tab in present:
                await tab.close()

    # a thread of its own: Playwright's sync API keeps an event loop in this one
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(lambda: asyncio.run(both())).result()


def measure(browser, app_url: str, ref_url: str, lesson, opens: int, moves: int, runs: int) -> dict:

    lesson_weight = weight(open_page(lesson.page))
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.add_init_script(MESSAGES)
    page.goto(f"{app_url}/{lesson.url_path}")
    page.wait_for_selector(SCRIPT_DONE, timeout=120_000)
    if lesson_weight["plotly"]:
        page.wait_for_selector(".js-plotly-plot", state="attached", timeout=120_000)  # out of sight: not "visible"
        r, c = heatmap_size(page)
        controls = figure_controls(page, moves)
    else:  # no Plotly figure until the student trains (induction heads): the reference's own is a default size
        (r, c), controls = NO_HEATMAP, {}
    page.close()
    query, ref_weight = reference_query(lesson_weight, r, c)
    ref = f"{ref_url}/?{query}"
    lesson_open, lesson_title = open_times(browser, f"{app_url}/{lesson.url_path}", opens)
    clicked_title = click_times(browser, app_url, lesson.title, opens)
    ref_open, ref_title = open_times(browser, ref, opens)
    ref_ms = 1000 * statistics.median(seed_moves(browser, ref, 2 * moves))
    lesson_run, ref_run = run_times(app_url, ref_url, lesson.url_path, query, runs)
    each = {label: round(1000 * statistics.median(t), 1) for label, t in controls.items()}
    row = {
        "lesson": lesson.url_path,
        "weight": lesson_weight,
        "reference": ref_weight,
        "heatmap": f"{r}x{c}",
        "open_s": round(lesson_open, 2),
        "reference_open_s": round(ref_open, 2),
        "open_ratio": round(lesson_open / ref_open, 2),
        "title_s": round(lesson_title, 2),
        "click_title_s": round(clicked_title, 2),
        "reference_title_s": round(ref_title, 2),
        "controls_ms": each,
        "reference_control_ms": round(ref_ms, 1),
        "control_ratios": {label: round(ms / ref_ms, 2) for label, ms in each.items()},
        "run_ms": round(1000 * lesson_run, 1),
        "reference_run_ms": round(1000 * ref_run, 1),
        "run_ratio": round(lesson_run / ref_run, 2),
        "floor": "figures prepared once",
    }
    print(json.dumps(row), flush=True)
    return row


def _at_least(least: int):
    """An argparse type: a whole number no smaller than ``least`` (``--opens 0`` ended in a traceback, no median of
    nothing)."""

    def read(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < least:
            raise argparse.ArgumentTypeError(f"{value} is less than {least}: each figure is a median of at least one")
        return value

    return read


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--opens", type=_at_least(1), default=3, help="fresh tabs of each (a median needs one)")
    parser.add_argument("--moves", type=int, default=3)
    parser.add_argument("--runs", type=_at_least(1), default=5, help="whole-page runs of each, lesson and reference")
    parser.add_argument("--lessons", nargs="*", help="url paths (default: every built lesson)")
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()

    before = machine()
    start_s = time.monotonic()
    rows = []
    app, app_url, _ = start("app.py")
    ref, ref_url, _ = start("bench/weighted_page.py")
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-gpu"])
            warm = browser.new_page()
            chosen = [lesson for lesson in built_lessons() if not args.lessons or lesson.url_path in args.lessons]
            for lesson in chosen:  # each lesson's first run (its models, its results) is not a page open
                warm.goto(f"{app_url}/{lesson.url_path}")
                warm.wait_for_selector(SCRIPT_DONE, timeout=180_000)
            warm.close()
            for lesson in chosen:
                rows.append(measure(browser, app_url, ref_url, lesson, args.opens, args.moves, args.runs))
            browser.close()
    finally:
        stop(app, ref)
    for row in rows:
        row.update(before)  # the machine each row was measured on: a row kept from another run keeps its own
    result = {"rows": rows, "seconds": round(time.monotonic() - start_s), **before}
    if args.write:
        keep_figures("same_weight", merged(result, args.lessons))


def merged(result: dict, lessons: list[str] | None) -> dict:
    """What ``--write`` keeps: this run whole, or with ``--lessons`` the stored run with those lessons' rows
    replaced or added (in the catalog's order)."""
    if not lessons:
        return result
    stored = json.loads(RESULTS.read_text()).get("same_weight", {}) if RESULTS.exists() else {}
    kept = {row["lesson"]: row for row in stored.get("rows", [])}
    for row in stored.get("rows", []):  # rows from a run over every lesson: that run's machine
        for key in ("load_before", "speed_ms", "date"):
            row.setdefault(key, stored.get(key))
    kept.update({row["lesson"]: row for row in result["rows"]})
    order = [lesson.url_path for lesson in built_lessons()]
    return {**stored, "rows": sorted(kept.values(), key=lambda row: order.index(row["lesson"]))}


if __name__ == "__main__":
    main()
