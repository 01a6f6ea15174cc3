"""Interaction latency in a real browser, and cold start, against a bare Streamlit page.

    python -m bench.latency [--moves 4] [--write]

Latency: for each built lesson, Chromium (Playwright) opens the page, then moves every slider and select box
that redraws a figure with the keyboard, ``--moves`` times each (a slider one step right and left, a select
box one option down and up). One interaction lasts from the key press that changes the value (a slider's
arrow; a select box's Enter, its list already opened at the option: opening it is the student choosing, not
the app answering) to the page settled: the script is done and every figure, chart and table has finished
redrawing (no change inside any Plotly figure, Vega chart or data frame for 150 ms). Only changes after the
server's first message since the key count: a chart redrawn as it scrolled into view is not the app's answer.
The lesson's figure is the median over all its controls' moves; controls that redraw none of them (a training
budget) are left out.
The same is measured on ``bench/bare_heatmap.py``: a bare page whose slider redraws one heatmap of the
lesson's own size (rows × columns of the lesson's first heatmap). Printed: the median of each and their
ratio (target: ≤ 1.15×), each control's median, and how many of the lesson's Plotly figures were drawn in
one pass (their labels fit the margins they were given: ``lessons.common.margins.fit_margins``).

Cold start: ``streamlit run app.py`` from process start to the home page drawn in Chromium, against the bare
page (target ≤ 1.2×), five times each (one start varies by ±0.5 s here), medians. ``--write`` stores the
figures in ``bench/classroom.json``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
import urllib.request
from functools import partial

from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import sync_playwright

from bench.harness import ROOT, free_port, keep_figures, machine
from lessons.common.catalog import built_lessons

SCRIPT_DONE = "[data-testid=stApp][data-test-script-state=notRunning]"
# Each message from the server, timed: a figure that changes before the server has answered a key press (a chart
# redrawn as it scrolled into view, say) is not the app's answer to it. Installed before the page loads.
MESSAGES = """(() => {
  const Original = window.WebSocket;
  function Timed(...args) {
    const socket = new Original(...args);
    socket.addEventListener('message', () => window.__messages.push(performance.now()));
    return socket;
  }
  Timed.prototype = Original.prototype;
  Object.assign(Timed, {CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3});
  window.__messages = [];
  window.WebSocket = Timed;
})();"""
DRAWN = ".js-plotly-plot, [data-testid=stVegaLiteChart], [data-testid=stDataFrame]"  # figures, charts, tables
WATCH = (
    """() => {
  const DRAWN = '"""
    + DRAWN
    + """';
  window.__lastChange = performance.now();
  const observer = new MutationObserver(records => {
    if (records.some(r => r.target.closest && r.target.closest(DRAWN))) {
      window.__lastChange = performance.now();
    }
  });
  observer.observe(document.body, {subtree: true, childList: true, attributes: true});
}"""
)


def start(script: str):
    port = free_port()
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", script, "--server.port", str(port)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    while True:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=1):
                return proc, url, t0
        except OSError:
            time.sleep(0.02)


def stop(*procs) -> None:
    """Stop the servers a bench started."""
    for proc in procs:
        proc.terminate()
        proc.wait(timeout=10)


def with_ratio(row: dict, rows: list[dict], measured: str) -> None:
    """Add a row's ratio (its ``measured`` ms over the bare page's), print it and keep it."""
    row["ratio"] = round(row[measured] / row["bare_ms"], 2)
    print(json.dumps(row), flush=True)
    rows.append(row)


def settle(page, quiet_ms: float = 150.0) -> float:
    """Wait until the script is done and no Plotly figure changed for ``quiet_ms``; returns that moment."""
    page.wait_for_selector(SCRIPT_DONE, timeout=180_000)
    while True:
        now, last = page.evaluate("() => [performance.now(), window.__lastChange]")
        if now - last >= quiet_ms:
            return last
        page.wait_for_timeout(20)


ANSWERED = """before => {
  const answer = window.__messages.find(t => t > before);
  return answer !== undefined && window.__lastChange > answer;
}"""


def _timed(page, act, prepare=None) -> float | None:
    """Do ``prepare()`` (the student choosing: opening a select box's list), then ``act()`` (the change itself);
    seconds from ``act`` until the page settled, or None if nothing drawn changed within 5 s."""
    settle(page)
    if prepare is not None:
        prepare()
        page.wait_for_timeout(100)  # the list has opened and drawn
    before = page.evaluate("() => performance.now()")
    act()
    try:  # a fragment's rerun does not mark the app as running: a figure redrawn once the server answered
        page.wait_for_function(ANSWERED, arg=before, timeout=5_000, polling=5)
    except PlaywrightTimeout:
        return None
    return max(0.0, settle(page) - before) / 1000


def _slider_moves(page, slider, moves: int) -> list[float]:
    """Press → then ← (or the other way round at the maximum) ``moves`` times; [] if no figure changes."""
    thumb = slider.get_by_role("slider")
    thumb.scroll_into_view_if_needed()
    keys = ["ArrowRight", "ArrowLeft"]
    first = _timed(page, partial(thumb.press, keys[0]))
    if first is None:  # at its maximum, or not a figure's control: try the other way once
        keys.reverse()
        first = _timed(page, partial(thumb.press, keys[0]))
    if first is None:
        return []
    times = [first]
    for j in range(1, moves):
        seconds = _timed(page, partial(thumb.press, keys[j % 2]))
        if seconds is not None:
            times.append(seconds)
    return times


def _option_moves(page, box, moves: int) -> list[float]:
    """Pick the next option, then the previous one, ``moves`` times in all; [] if no figure changes."""
    box.scroll_into_view_if_needed()

    def open_at(key: str) -> None:  # the student opens the list and moves to the option: not the app's time
        box.click()
        page.keyboard.press(key)

    times = []
    for j in range(moves):
        seconds = _timed(
            page, partial(page.keyboard.press, "Enter"), partial(open_at, "ArrowUp" if j % 2 else "ArrowDown")
        )
        if seconds is None and not times:
            page.keyboard.press("Escape")
            return []
        if seconds is not None:
            times.append(seconds)
    return times


def figure_controls(page, moves: int, most: int = 8) -> dict[str, list[float]]:
    """Every slider and select box of the lesson (``most`` of each) whose change redraws a figure:
    label -> seconds of each move. Controls that redraw no figure (a training budget) are left out."""
    page.evaluate(WATCH)
    found = {}
    for kind, measure in (("stSlider", _slider_moves), ("stSelectbox", _option_moves)):
        controls = page.locator(f"[data-testid=stMain] [data-testid={kind}]")
        for i in range(min(controls.count(), most)):
            control = controls.nth(i)
            try:
                # its text, drawn or not: a part out of sight is not drawn yet (ui.style), and its innerText is empty
                label = control.locator("[data-testid=stWidgetLabel]").text_content().strip() or f"{kind} {i + 1}"
                times = measure(page, control, moves)
            except PlaywrightTimeout:  # an earlier control's change removed or disabled this one: not measured
                continue
            if times:
                found[label] = times
    return found


def seed_moves(browser, url: str, moves: int) -> list[float]:
    """Seconds of each move of the "Seed" slider of a one-slider page (the bare page and its variants)."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.add_init_script(MESSAGES)
    page.goto(url)
    page.wait_for_selector(".js-plotly-plot", timeout=60_000)
    times = figure_controls(page, moves)["Seed"]
    page.close()
    return times


def heatmap_size(page) -> tuple[int, int]:
    """Rows × columns of the page's first heatmap, once Plotly has drawn one (figures draw one after another)."""
    first = """() => [...document.querySelectorAll('.js-plotly-plot')]
                 .find(g => g.calcdata && g.calcdata.some(c => c[0].trace.type === 'heatmap'))"""
    page.wait_for_function(f"() => Boolean(({first})())", timeout=60_000)
    return tuple(
        page.evaluate(
            f"""() => {{ const z = ({first})().calcdata.find(c => c[0].trace.type === 'heatmap')[0].z;
                       return [z.length, z[0].length]; }}"""  # rows × columns
        )
    )


ONE_PASS = """() => [...document.querySelectorAll('.js-plotly-plot')].map(g => {
  if (!g._fullLayout) return false;
  const given = g.layout.margin || {}, drawn = g._fullLayout._size;
  return ['l', 'r', 't', 'b'].every(side => drawn[side] <= (given[side] ?? 80));
})"""


def drawn_once(page) -> tuple[int, int]:
    """How many of the page's Plotly figures kept the margins they were given (``lessons.common.margins.fit_margins``):
    Plotly.js drew those once; a figure whose labels pushed its margins out was drawn a second time. (k, of n)."""
    once = page.evaluate(ONE_PASS)
    return sum(once), len(once)


def latency(browser, moves: int, only: list[str] | None = None) -> list[dict]:
    rows = []
    app, app_url, _ = start("app.py")
    bare, bare_url, _ = start("bench/bare_heatmap.py")
    try:
        for lesson in built_lessons():
            if only and lesson.url_path not in only:
                continue
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.add_init_script(MESSAGES)
            page.goto(f"{app_url}/{lesson.url_path}")
            page.wait_for_selector(SCRIPT_DONE, timeout=120_000)
            page.wait_for_selector(".js-plotly-plot", timeout=60_000)
            r, c = heatmap_size(page)
            controls = figure_controls(page, moves)
            once = drawn_once(page)
            page.close()
            if not controls:  # no slider or select box on the page redraws a figure
                print(json.dumps({"lesson": lesson.url_path, "skipped": "no control redraws a figure"}), flush=True)
                continue
            bare_times = seed_moves(browser, f"{bare_url}/?rows={r}&cols={c}", 2 * moves)
            every = [t for times in controls.values() for t in times]
            row = {
                "lesson": lesson.url_path,
                "heatmap": f"{r}x{c}",
                "controls": {label: round(1000 * statistics.median(t), 1) for label, t in controls.items()},
                "lesson_ms": round(1000 * statistics.median(every), 1),
                "bare_ms": round(1000 * statistics.median(bare_times), 1),
                "drawn_once": f"{once[0]}/{once[1]}",
            }
            with_ratio(row, rows, "lesson_ms")
    finally:
        stop(app, bare)
    return rows


def cold_start(browser, repeats: int = 5) -> dict:
    figures = {"app.py": [], "bench/bare_heatmap.py": []}
    for _ in range(repeats):
        for script in figures:
            proc, url, t0 = start(script)
            page = browser.new_page()
            page.goto(url)
            page.get_by_role("heading", name="Attention Lab").wait_for(timeout=60_000)
            page.wait_for_selector(SCRIPT_DONE, timeout=180_000)
            figures[script].append(time.perf_counter() - t0)
            page.close()
            stop(proc)
    row = {name: round(statistics.median(times), 2) for name, times in figures.items()}
    row["ratio"] = round(row["app.py"] / row["bench/bare_heatmap.py"], 2)
    print(json.dumps({"cold_start_s": row}), flush=True)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--moves", type=int, default=4, help="moves per control")
    parser.add_argument("--lessons", nargs="*", help="url paths (default: every built lesson; --write needs all)")
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    if args.lessons and args.write:
        parser.error("--write stores a run over every lesson: leave out --lessons")

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-gpu"])
        before = machine()
        if args.lessons:
            latency(browser, args.moves, args.lessons)
            return
        result = {"latency": latency(browser, args.moves), "cold_start": cold_start(browser), **before}
        browser.close()
    if args.write:
        keep_figures("browser", result)


if __name__ == "__main__":
    main()
