"""A class's arrival on a cold server: what a lesson's first page runs cost, two versions of the code side by side.

    python -m bench.arrival [--lesson masking] [--students 30] [--window 10] [--rounds 1] [--trees DIR …]

For each checkout in ``--trees`` (default: this one; name ``/work/main`` and this checkout to set the code before a
change beside the code after it), in turn, ``--rounds`` times:

- **one student**: a fresh ``streamlit run app.py``, timed from its start to its health check (the server's
  start); then one tab opens the lesson (the server's first page run: its imports, results files, figures), then
  a second tab opens it (a warm run), then a third. Each open timed to the title, the first paragraph (a Markdown
  element of 80 characters or more) and the whole page (the last element of the run), as
  ``bench.class_scenario`` times them.
- **a class**: another fresh server; ``--students`` tabs each open the lesson at a uniformly random moment of the
  first ``--window`` seconds after its health check (no class, no joins: the lesson's own page runs alone), the
  same three times read for each; p50 and p90, and the server's CPU seconds per page run.

Printed: one JSON row per tree and round, each with the machine's load before it and its speed (``speed_ms``): on
a shared machine only rows of the same run, taken in turn, compare.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import time
from pathlib import Path

from bench.class_scenario import _open_times
from bench.harness import ROOT, cpu_seconds, percentile, server, speed_ms
from bench.streamlit_client import Student


def _ms(value: float | None) -> float | None:
    return None if value is None else round(1000 * value, 1)


async def _one_open(url: str, lesson: str) -> dict:
    s = Student(url)
    try:
        await s.open(lesson)
        return {k: _ms(v) for k, v in _open_times(s).items()}
    finally:
        await s.close()


async def _class(url: str, lesson: str, n: int, window: float, seed: int) -> tuple[dict, int]:
    rng = random.Random(seed)

    async def student(delay: float) -> dict:
        await asyncio.sleep(delay)
        s = Student(url)
        try:
            await s.open(lesson)
            return _open_times(s) if not s.exceptions else {"error": 1.0}
        finally:
            await s.close()

    rows = await asyncio.gather(*(student(rng.uniform(0, window)) for _ in range(n)), return_exceptions=True)
    errors = sum(1 for r in rows if isinstance(r, BaseException) or "error" in r)
    times: dict[str, dict] = {}
    for name in ("title", "paragraph", "whole"):
        values = [r[name] for r in rows if isinstance(r, dict) and name in r]
        times[name] = {"p50_ms": _ms(percentile(values, 0.5)), "p90_ms": _ms(percentile(values, 0.9))}
    return times, errors


def measure(tree: Path, lesson: str, n: int, window: float, seed: int) -> dict:
    row: dict = {"tree": str(tree), "load_before": round(os.getloadavg()[0], 2), "speed_ms": speed_ms()}
    started = time.monotonic()
    with server(root=tree) as (url, _pid):
        row["server_start_s"] = round(time.monotonic() - started, 2)
        row["cold_open"] = asyncio.run(_one_open(url, lesson))
        row["warm_opens"] = [asyncio.run(_one_open(url, lesson)) for _ in range(2)]
    with server(root=tree) as (url, pid):
        cpu = cpu_seconds(pid)
        row["class"], row["errors"] = asyncio.run(_class(url, lesson, n, window, seed))
        row["server_cpu_s_per_open"] = round((cpu_seconds(pid) - cpu) / n, 3)
    row["load_after"] = round(os.getloadavg()[0], 2)
    return row


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lesson", default="masking")
    parser.add_argument("--students", type=int, default=30)
    parser.add_argument("--window", type=float, default=10.0)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--trees", nargs="+", type=Path, default=[ROOT])
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    for r in range(args.rounds):
        for tree in args.trees:
            row = measure(tree.resolve(), args.lesson, args.students, args.window, args.seed + r)
            print(json.dumps({"round": r, "lesson": args.lesson, "students": args.students, **row}), flush=True)


if __name__ == "__main__":
    main()
