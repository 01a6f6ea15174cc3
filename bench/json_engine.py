"""Does orjson earn its place in requirements.txt? A lesson's whole-page run, its CPU with Plotly writing its JSON
through orjson and through Python's json, side by side in one process.

    python -m bench.json_engine [--runs 12] [--lessons SLUG ...]

Streamlit hands every Plotly figure to ``plotly.io.to_json`` on every page run, and Plotly uses orjson when it is
installed (its "auto" engine); nothing else in the server's path looks for it. Each lesson is opened under AppTest
(the page's script, its elements serialized as a server does), warmed up with two runs, then run ``--runs`` times
with each engine, the two engines taking turns, so that the machine's speed changing from second to second falls
on both alike. The figure is the process's CPU time a run: the median, and the spread as the 10th-90th percentile.
"""

from __future__ import annotations

import argparse
import statistics
import time

import plotly.io

from bench.harness import machine
from lessons.common.catalog import built_lessons
from tests.helpers import open_page

ENGINES = ("json", "orjson")


def cpu_ms_a_run(at, engine: str) -> float:
    plotly.io.json.config.default_engine = engine
    start = time.process_time()
    at.run()
    took = 1000 * (time.process_time() - start)
    if at.exception:
        raise RuntimeError(f"{at.exception[0].value}")
    return took


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", type=int, default=12, help="page runs with each engine, the engines taking turns")
    p.add_argument("--lessons", nargs="+", default=[lesson.slug for lesson in built_lessons()])
    args = p.parse_args(argv)
    try:
        plotly.io.json.config.validate_orjson()
    except ValueError:
        print("orjson is not installed here: `pip install orjson`, then run this again to compare.")
        return 2
    print(machine())
    print(f"{'lesson':<24} {'figures':>7} {'json ms':>16} {'orjson ms':>16} {'saved ms':>9}")
    saved_all = []
    for slug in args.lessons:
        at = open_page(f"pages/{slug}.py")
        figures = len(at.get("plotly_chart"))
        for engine in ENGINES:  # warm-up: every figure prepared once, both engines' code loaded
            cpu_ms_a_run(at, engine)
        times: dict[str, list[float]] = {engine: [] for engine in ENGINES}
        for i in range(args.runs):
            for engine in ENGINES if i % 2 == 0 else ENGINES[::-1]:
                times[engine].append(cpu_ms_a_run(at, engine))
        med = {engine: statistics.median(times[engine]) for engine in ENGINES}
        cells = [f"{med[e]:7.1f} ({percentile(times[e], 0.1):.0f}-{percentile(times[e], 0.9):.0f})" for e in ENGINES]
        saved = med["json"] - med["orjson"]
        saved_all.append(saved)
        print(f"{slug:<24} {figures:>7} {cells[0]:>16} {cells[1]:>16} {saved:9.1f}")
    print(f"median saving a whole-page run: {statistics.median(saved_all):.1f} ms; machine after: {machine()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
