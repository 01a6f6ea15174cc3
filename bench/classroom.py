"""A class on one server: simulated students over Streamlit's websocket protocol.

    python -m bench.classroom load [--students 10 30 60] [--trainers 4] [--seconds 60] [--write]
    python -m bench.classroom full [--students 30 60] [--seconds 60] [--write]
    python -m bench.classroom memory [--students 30] [--idle] [--write]
    python -m bench.classroom render      # bench/CLASSROOM.md from bench/classroom.json

``load``: for each N, a fresh ``streamlit run app.py``; N students open lessons (round robin over the built
ones) and, once all of them have, each moves a random slider of its page every 1–2 s for ``--seconds``;
``--trainers`` of them instead train the Bahdanau lesson's model again and again, answering the polling
fragment as a browser does. Printed: latency
of the non-training interactions (median, p90, p99; from sending the rerun to its ``script_finished``), of
the training students' fragment polls, the number of interactions, and errors (exceptions on a page, failed
or timed-out requests).

``full``: whole-page runs, as a page open or a control outside every fragment causes. Each lesson is
opened once first; then N students, each on a random lesson, every 1–2 s either open a random lesson in a fresh
tab or move a control of their page that no fragment holds. Printed: the latency of every such run (median, p90,
p99; page opens and controls apart), errors, and the server's CPU seconds per wall second.
Targets: N = 30 with p90 ≤ 400 ms; N = 60 with 0 errors, p90 reported.

``memory --idle``: one student opens every lesson, then N - 1 more open a random lesson each and stay
idle. Targets: ≤ 600 MB with the one student, ≤ 5 MB per further idle student.

``memory``: the server's resident memory (``/proc/PID/status`` VmRSS) with 1 session that trained once,
then with N sessions that all trained once, then at intervals after every session closed.

Targets (2 cores): N = 30 with p90 ≤ 150 ms and 0 errors; N = 60 with 0 errors; memory ≤ 600 MB
with 1 session, ≤ 25 MB per extra session, and back down within a few minutes after sessions close.
``--write`` stores the figures in ``bench/classroom.json`` (one entry per mode); ``render`` writes them, with
``bench.latency``'s, into ``bench/CLASSROOM.md`` beside the targets.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import time
import urllib.parse
from contextlib import ExitStack, contextmanager

from bench import classroom_report
from bench.classroom_report import SETTLE_S
from bench.harness import RESULTS, cpu_seconds, keep_figures, machine, percentile, rss_mb, server
from bench.replicas import database, nginx
from bench.same_weight import reference_query
from bench.streamlit_client import Student
from lessons.common.catalog import built_lessons
from store.db import ENV_URL

TRAIN_PAGE = "bahdanau_attention"
# The memory bench trains every session once: the dates model (a 15 s budget, ~10 s to its target) keeps 30
# runs, two at a time, within a few minutes; the page's default task has a 90 s budget.
MEMORY_QUERY = "task=dates"


# ------------------------------------------------------------------------------------------------ load
async def _browse(student: Student, page: str, seconds: float, rng: random.Random, arrived) -> None:
    await student.open(page)
    student.latencies.clear()  # the first page load is not an interaction
    await arrived()  # the class is measured once everyone has opened their lesson (the arrival is a storm)
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        await asyncio.sleep(rng.uniform(1.0, 2.0))
        sliders = student.sliders()
        if not sliders:
            continue
        slider = rng.choice(sliders)
        p = slider.proto
        steps = max(1, round((p.max - p.min) / (p.step or 1)))
        await student.change(slider.label, p.min + rng.randint(0, steps) * (p.step or 1))


async def _train(student: Student, seconds: float, arrived) -> None:
    await student.open(TRAIN_PAGE)
    student.latencies.clear()
    await arrived()
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        if student.widgets["Train"].proto.disabled:  # a run is going: the polling fragment redraws it
            await asyncio.sleep(0.5)
            if not student.polling:  # the run is over but this tab has not seen the page's own rerun yet
                await student.rerun()
            continue
        await student.click("Train")
    student.latencies.clear()  # a trainer's clicks are training, not the interactions measured


async def _load(url: str, students: int, trainers: int, seconds: float, seed: int) -> dict:
    pages = [lesson.url_path for lesson in built_lessons()]
    rng = random.Random(seed)
    crowd = [Student(url, name=f"s{i}") for i in range(students)]
    opened, everyone = 0, asyncio.Event()

    async def arrived() -> None:
        nonlocal opened
        opened += 1
        if opened == students:
            everyone.set()
        await everyone.wait()

    jobs = []
    for i, student in enumerate(crowd):
        if i < trainers:
            jobs.append(_train(student, seconds, arrived))
        else:
            jobs.append(_browse(student, pages[i % len(pages)], seconds, random.Random(rng.random()), arrived))
        await asyncio.sleep(0.05)  # students arrive over a few seconds, not in one instant
    outcomes = await asyncio.gather(*(asyncio.wait_for(job, seconds + 180) for job in jobs), return_exceptions=True)
    errors = [f"{s.name}: {o!r}" for s, o in zip(crowd, outcomes, strict=True) if isinstance(o, BaseException)]
    for student in crowd:
        errors += [f"{student.name}: {e}" for e in student.exceptions + student.errors]
        await student.close()
    interactions = [x for s in crowd[trainers:] for x in s.latencies]
    ticks = [x for s in crowd[:trainers] for x in s.tick_latencies]
    ms = lambda x: None if x is None else round(1000 * x, 1)  # noqa: E731
    return {
        "students": students,
        "trainers": trainers,
        "seconds": seconds,
        "interactions": len(interactions),
        "median_ms": ms(statistics.median(interactions)) if interactions else None,
        "p90_ms": ms(percentile(interactions, 0.9)),
        "p99_ms": ms(percentile(interactions, 0.99)),
        "training_polls": len(ticks),
        "poll_median_ms": ms(statistics.median(ticks)) if ticks else None,
        "errors": len(errors),
        "error_samples": errors[:5],
    }


# ------------------------------------------------------------------------------------------ full reruns
async def _full(url: str, name: str, seconds: float, rng: random.Random, pages: list[tuple[str, str]], arrived):
    """One student of the full-rerun mode: every 1–2 s either a fresh tab on a random lesson (a page open) or a
    control outside any fragment moved (a whole script run); both are full runs of the page's script.
    ``pages``: (page name, query string) pairs. A reference page has no control outside its fragment: there the
    whole run is the page's script run again with its values (``Student.rerun``)."""

    async def fresh_tab(errors: list[str]) -> tuple[Student, float]:
        page, query = rng.choice(pages)
        tab = Student(url, name=name, query=query, exceptions=errors)
        return tab, await tab.open(page)

    student, _ = await fresh_tab([])
    student.latencies.clear()
    await arrived()
    opens, changes = [], []
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        await asyncio.sleep(rng.uniform(1.0, 2.0))
        outside = [
            w
            for w in student.widgets.values()
            if not w.fragment_id
            and not w.proto.disabled
            and (w.kind == "slider" or (w.kind in ("selectbox", "radio") and len(w.proto.options) > 1))
        ]
        if rng.random() < 0.5 or not (outside or student.query):
            await student.close()
            student, seconds_taken = await fresh_tab(student.exceptions + student.errors)
            opens.append(seconds_taken)
            continue
        if not outside:  # a reference page: its whole script again
            changes.append(await student.rerun())
            continue
        widget = rng.choice(outside)
        p = widget.proto
        if widget.kind == "slider" and not p.options:
            steps = max(1, round((p.max - p.min) / (p.step or 1)))
            value = p.min + rng.randint(0, steps) * (p.step or 1)
        else:
            value = rng.randrange(len(p.options))
        changes.append(await student.change(widget.label, value))
    student.latencies[:] = opens + changes
    student.tick_latencies[:] = opens  # kept apart: which of the latencies were page opens
    return student


async def _full_load(url: str, students: int, seconds: float, seed: int, pages: list[tuple[str, str]] | None = None):
    pages = pages or [(lesson.url_path, "") for lesson in built_lessons()]
    rng = random.Random(seed)
    opened, everyone = 0, asyncio.Event()

    async def arrived() -> None:
        nonlocal opened
        opened += 1
        if opened == students:
            everyone.set()
        await everyone.wait()

    jobs = []
    for i in range(students):
        jobs.append(asyncio.create_task(_full(url, f"s{i}", seconds, random.Random(rng.random()), pages, arrived)))
        await asyncio.sleep(0.05)
    outcomes = await asyncio.gather(*(asyncio.wait_for(job, seconds + 180) for job in jobs), return_exceptions=True)
    errors, runs, opens = [], [], []
    for i, outcome in enumerate(outcomes):
        if isinstance(outcome, BaseException):
            errors.append(f"s{i}: {outcome!r}")
            continue
        errors += [f"{outcome.name}: {e}" for e in outcome.exceptions + outcome.errors]
        runs += outcome.latencies
        opens += outcome.tick_latencies
        await outcome.close()
    changes = list(runs)
    for x in opens:
        changes.remove(x)
    ms = lambda x: None if x is None else round(1000 * x, 1)  # noqa: E731
    return {
        "students": students,
        "seconds": seconds,
        "runs": len(runs),
        "page_opens": len(opens),
        "median_ms": ms(statistics.median(runs)) if runs else None,
        "p90_ms": ms(percentile(runs, 0.9)),
        "p99_ms": ms(percentile(runs, 0.99)),
        "open_p90_ms": ms(percentile(opens, 0.9)),
        "change_p90_ms": ms(percentile(changes, 0.9)),
        "errors": len(errors),
        "error_samples": errors[:5],
    }


def reference_pages(scale: float = 1.0) -> list[tuple[str, str]]:
    """Each lesson's same-weight reference page (``bench/weighted_page.py``, which computes nothing), with the
    weights ``bench.same_weight`` last stored: (page name, query string) pairs for :func:`_full_load`. ``scale``
    multiplies the paragraphs (the charts and tables stay): how the floor moves with a page's element count."""

    stored = json.loads(RESULTS.read_text())["same_weight"]["rows"]
    pages = []
    for row in stored:
        rows, cols = (int(x) for x in row["heatmap"].split("x"))
        query = dict(urllib.parse.parse_qsl(reference_query(row["weight"], rows, cols)[0]))
        query["static"] = str(round(int(query["static"]) * scale))
        query["queue"] = "1"  # through the lessons' own queue for whole-page runs
        pages.append(("", urllib.parse.urlencode(query)))
    return pages


@contextmanager
def replicated(count: int):
    """deploy/'s topology on loopback (``bench.replicas``): a throwaway PostgreSQL for the class store, ``count``
    ``streamlit run app.py`` replicas, Debian's nginx in front; yields ``(nginx's url, the replicas' urls, their
    pids)``. A fresh tab's websocket carries no route cookie, so nginx sends it to a replica at random."""

    with database() as (db_url, _how), ExitStack() as stack:
        saved = os.environ.get(ENV_URL)
        os.environ[ENV_URL] = db_url  # every replica's store
        try:
            started = [stack.enter_context(server("--server.address", "127.0.0.1")) for _ in range(count)]
        finally:
            if saved is None:
                os.environ.pop(ENV_URL, None)
            else:
                os.environ[ENV_URL] = saved
        url, _access = stack.enter_context(nginx([u.split("://", 1)[1] for u, _pid in started]))
        yield url, [u for u, _pid in started], [pid for _u, pid in started]


def _measure_full(args, n: int, url: str, servers: list[tuple[str, int]], pages=None) -> dict:
    """``n`` students in the full-rerun mode on ``url``, once each of ``servers`` (``(url, pid)``) is warmed: the
    latencies, and the servers' and the simulated tabs' CPU seconds per wall second."""
    warm = sum(asyncio.run(_warm(u, pages)) for u, _pid in servers)  # the first student of the day pays first runs
    pids = [pid for _u, pid in servers]
    before = machine()
    cpu0, clients0 = [cpu_seconds(pid) for pid in pids], time.process_time()
    start = time.monotonic()
    row = asyncio.run(_full_load(url, n, args.seconds, args.seed, pages))
    wall = time.monotonic() - start
    each = [cpu_seconds(pid) - c for pid, c in zip(pids, cpu0, strict=True)]
    return row | {
        "server_cpu_per_wall_s": round(sum(each) / wall, 2),
        "cpu_s_per_replica": [round(c, 1) for c in each],
        # the simulated tabs parse every message the server sends, on the same 2 cores
        "clients_cpu_per_wall_s": round((time.process_time() - clients0) / wall, 2),
        "rss_mb_end": round(sum(rss_mb(pid) for pid in pids)),
        "warm_s": round(warm, 1),
        **before,
    }


def _run_full_replicated(args, n: int) -> dict:
    with replicated(args.replicas) as (url, urls, pids):
        row = _measure_full(args, n, url, list(zip(urls, pids, strict=True)))
    return {**row, "pages": "lessons", "replicas": args.replicas}


def run_full(args) -> list[dict]:
    rows = []
    pages = reference_pages(args.scale) if args.reference else None
    for n in args.students:
        if args.replicas > 1:
            row = _run_full_replicated(args, n)
        else:
            with server(script="bench/weighted_page.py" if args.reference else "app.py") as (url, pid):
                row = _measure_full(args, n, url, [(url, pid)], pages)
            row |= {
                "pages": "same-weight references" if args.reference else "lessons",
                **({"paragraphs_scale": args.scale} if args.reference else {}),
            }
        print(json.dumps(row), flush=True)
        rows.append(row)
    return rows


async def _warm(url: str, pages: list[tuple[str, str]] | None = None) -> float:
    start = time.monotonic()
    for page, query in pages or [(lesson.url_path, "") for lesson in built_lessons()]:
        student = Student(url, name="warm", query=query)
        await student.open(page)
        await student.close()
    return round(time.monotonic() - start, 1)


def run_load(args) -> list[dict]:
    rows = []
    for n in args.students:
        with server() as (url, pid):
            before = machine()
            row = asyncio.run(_load(url, n, min(args.trainers, n), args.seconds, args.seed))
            row |= {"rss_mb_end": round(rss_mb(pid)), **before}
        print(json.dumps(row), flush=True)
        rows.append(row)
    return rows


# ---------------------------------------------------------------------------------------------- memory
async def _train_once(student: Student, page: str) -> None:
    await student.open(page)
    await student.click("Train")
    while student.widgets["Train"].proto.disabled:  # the page reruns itself when the run ends
        await asyncio.sleep(0.5)
        if not student.polling:
            await student.rerun()


async def _memory(url: str, pid: int, n: int) -> dict:
    first = Student(url, name="s0", query=MEMORY_QUERY)
    await _train_once(first, TRAIN_PAGE)
    one = rss_mb(pid)
    print(json.dumps({"sessions": 1, "rss_mb": round(one)}), flush=True)
    others = [Student(url, name=f"s{i}", query=MEMORY_QUERY) for i in range(1, n)]
    await asyncio.gather(*(_train_once(s, TRAIN_PAGE) for s in others))
    many = rss_mb(pid)
    print(json.dumps({"sessions": n, "rss_mb": round(many)}), flush=True)
    errors = [e for s in [first, *others] for e in s.exceptions + s.errors]
    for s in [first, *others]:
        await s.close()
    after = {}
    start = time.monotonic()
    for mark in (10, 60, 120, 180):
        await asyncio.sleep(max(0.0, start + mark - time.monotonic()))
        after[f"{mark}s"] = round(rss_mb(pid))
        print(json.dumps({"closed_for_s": mark, "rss_mb": after[f"{mark}s"]}), flush=True)
    return {
        "sessions": n,
        "rss_mb_1_session": round(one),
        "rss_mb_n_sessions": round(many),
        "mb_per_extra_session": round((many - one) / max(n - 1, 1), 1),
        "rss_mb_after_close": after,
        "errors": len(errors),
        "error_samples": errors[:5],
    }


async def _idle(url: str, pid: int, n: int, seed: int) -> dict:
    """Memory: one student walks every lesson (what is shared gets loaded: models, shipped results, the
    figures at their defaults), then ``n - 1`` more open a random lesson each and stay, tabs open, doing nothing."""
    lessons = [lesson.url_path for lesson in built_lessons()]
    first = Student(url, name="s0")
    await first.open(lessons[0])
    for page in lessons[1:]:
        await first.navigate(page)
    await asyncio.sleep(SETTLE_S)  # the server gives freed memory back every 30 s (ui.server._give_memory_back)
    one = rss_mb(pid)
    print(json.dumps({"students": 1, "rss_mb": round(one)}), flush=True)
    rng = random.Random(seed)
    others = [Student(url, name=f"s{i}") for i in range(1, n)]
    for student in others:
        await student.open(rng.choice(lessons))
    await asyncio.sleep(SETTLE_S)
    many = rss_mb(pid)
    print(json.dumps({"students": n, "rss_mb": round(many)}), flush=True)
    errors = [e for s in [first, *others] for e in s.exceptions + s.errors]
    for s in [first, *others]:
        await s.close()
    return {
        "students": n,
        "rss_mb_1_student": round(one),
        "rss_mb_n_students": round(many),
        "mb_per_extra_student": round((many - one) / max(n - 1, 1), 2),
        "errors": len(errors),
        "error_samples": errors[:5],
    }


def run_memory(args) -> dict:
    with server() as (url, pid):
        before = machine()
        if args.idle:
            row = asyncio.run(_idle(url, pid, args.students[0], args.seed)) | before
            print(json.dumps(row), flush=True)
            return row
        row = asyncio.run(_memory(url, pid, args.students[0])) | before
    print(json.dumps(row), flush=True)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=["load", "full", "memory", "render"])
    parser.add_argument("--students", type=int, nargs="+", default=None)
    parser.add_argument("--trainers", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--idle", action="store_true", help="memory: idle students, not trained ones")
    parser.add_argument(
        "--reference", action="store_true", help="full: the lessons' same-weight reference pages (compute nothing)"
    )
    parser.add_argument("--scale", type=float, default=1.0, help="full --reference: the paragraphs times this")
    parser.add_argument(
        "--replicas",
        type=int,
        default=1,
        help="full: this many replicas behind nginx, with PostgreSQL (deploy/'s topology)",
    )
    parser.add_argument("--write", action="store_true", help="store the figures in bench/classroom.json")
    args = parser.parse_args()
    if args.reference and args.replicas > 1:
        parser.error("--reference runs on one server: leave out --replicas")
    if args.mode == "render":
        classroom_report.write()
        return
    if args.students is None:
        args.students = [10, 30, 60] if args.mode == "load" else [30, 60] if args.mode == "full" else [30]
    result = {"load": run_load, "full": run_full, "memory": run_memory}[args.mode](args)
    if args.write:
        if args.mode == "full" and args.reference:  # rows of other sizes and scales are kept beside these
            stored = json.loads(RESULTS.read_text()).get("full_reference", []) if RESULTS.exists() else []
            new = {(r["students"], r["paragraphs_scale"]) for r in result}
            kept = [r for r in stored if (r["students"], r["paragraphs_scale"]) not in new]
            keep_figures("full_reference", sorted(kept + result, key=lambda r: (-r["paragraphs_scale"], r["students"])))
        elif args.mode == "full" and args.replicas > 1:
            keep_figures("full_replicas", result)
        else:
            keep_figures("memory_idle" if args.mode == "memory" and args.idle else args.mode, result)


if __name__ == "__main__":
    main()
