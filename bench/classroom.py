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
import datetime
import json
import os
import random
import statistics
import subprocess
import sys
import time
import urllib.request
from contextlib import ExitStack, contextmanager
from pathlib import Path

from bench.streamlit_client import Student
from lessons.common.catalog import built_lessons

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "classroom.json"
TRAIN_PAGE = "bahdanau_attention"
# The memory bench trains every session once: the dates model (a 15 s budget, ~10 s to its target) keeps 30
# runs, two at a time, within a few minutes; the page's default task has a 90 s budget.
MEMORY_QUERY = "task=dates"
SETTLE_S = 35  # seconds before reading an idle server's memory: one of its 30 s give-back rounds has run


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def server(*extra: str, script: str = "app.py"):
    """A fresh ``streamlit run app.py`` (or another ``script``) with the shipped config; yields ``(url, pid)``."""
    port = free_port()
    log = Path(f"/tmp/attention-lab-bench-{port}.log")  # the server's log: the errors students see redacted
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", script, "--server.port", str(port), *extra],
        cwd=ROOT,
        stdout=log.open("w"),
        stderr=subprocess.STDOUT,
    )
    print(f"server log: {log}", file=sys.stderr)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2):
                break
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                raise RuntimeError("streamlit did not start") from None
            time.sleep(0.2)
    try:
        yield url, proc.pid
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process ``pid`` so far, every thread included."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime (fields 14, 15)


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def store(section: str, figures) -> None:
    """Put one bench's figures into ``bench/classroom.json`` under ``section``, keeping the other benches' entries."""
    stored = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    stored[section] = figures
    RESULTS.write_text(json.dumps(stored, indent=1) + "\n")


def speed_ms(repeats: int = 5) -> float:
    """How fast this machine runs Python now: a fixed workload of the kind a Streamlit server does for each element
    of a page (small dicts built, serialized and hashed), its best time of ``repeats``, in milliseconds.

    The machine a session gets is not the same from one day to the next: on 2026-11-28 a page that computes nothing
    cost the server 75-89 ms of CPU a run (a 40 s and a 60 s run), where it had cost 37 ms the day before. Stored
    beside every row, this says which rows were measured on a machine of the same speed. It is the thread's CPU
    time, not the wall clock's, and the best of several runs after one that is not counted: the two cores may be busy
    with the server and the simulated tabs when it is taken, and a core that has been idle runs the first pass at
    about half speed (measured here: 165-200 ms for a pass after half a second's rest, 94-98 ms for passes back to
    back). Even so it reads ~95 or ~165 ms from one second to the next on this virtual machine (8 calls a second
    apart: 165, 107, 98, 164, 95, 163, 99, 99): the host gives its cores less at times, which the benches' latencies
    feel too."""

    def once() -> float:
        start = time.thread_time()
        for i in range(20_000):
            element = {"id": i, "kind": "markdown", "body": f"Paragraph {i}", "args": [i, i + 1, i + 2]}
            hash(json.dumps(element, sort_keys=True))
        return time.thread_time() - start

    once()  # the warm-up
    return round(1000 * min(once() for _ in range(repeats)), 1)


def machine() -> dict:
    load = os.getloadavg()[0]
    return {
        "nproc": os.cpu_count(),
        "load_before": round(load, 2),
        "speed_ms": speed_ms(),
        "date": datetime.date.today().isoformat(),
    }


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
    import urllib.parse

    from bench.same_weight import reference_query

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
    from bench.replicas import database, nginx
    from store.db import ENV_URL

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


def _ok(met: bool) -> str:
    return "met" if met else "**not met**"


def render(stored: dict) -> str:
    """``bench/CLASSROOM.md``: every stored figure, the machine it was measured on, and the targets."""
    lines = ["# Classroom benchmarks", ""]
    lines += [
        "Written by `python -m bench.classroom render` from `bench/classroom.json`, which",
        "`python -m bench.classroom load|full|memory --write` and `python -m bench.latency --write` fill.",
        "`load before` is the machine's 1-minute load average when the run started (2 cores; 0 is idle).",
        "`speed ms` is how fast the machine ran Python then (`bench.classroom.speed_ms`: a fixed workload of the kind",
        "a server does for each element, the best of 5, in CPU time): the machine a session gets changes from day to",
        "day, and a row's latencies compare with another's only beside it. Blank: stored before it was.",
        "",
    ]
    if "load" in stored:
        lines += ["## Load: simulated students over Streamlit's websocket protocol", ""]
        lines += [
            "Each student opens a lesson (round robin over the built ones) and moves a random slider every 1–2 s;",
            "the trainers train the Bahdanau lesson's model again and again and answer its polling fragment.",
            "Latency: sending the rerun to its `script_finished`, non-training interactions only.",
            "",
            "| students | trainers | seconds | interactions | median ms | p90 ms | p99 ms | polls | poll median ms "
            "| errors | RSS MB | load before | date |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        for r in stored["load"]:
            lines.append(
                f"| {r['students']} | {r['trainers']} | {r['seconds']:g} | {r['interactions']} | {r['median_ms']} "
                f"| {r['p90_ms']} | {r['p99_ms']} | {r['training_polls']} | {r['poll_median_ms']} | {r['errors']} "
                f"| {r['rss_mb_end']} | {r['load_before']} | {r['date']} |"
            )
        by_n = {r["students"]: r for r in stored["load"]}
        lines.append("")
        if 30 in by_n:
            r = by_n[30]
            met = r["p90_ms"] is not None and r["p90_ms"] <= 150 and r["errors"] == 0
            figures = f"p90 {r['p90_ms']} ms, {r['errors']} errors"
            lines.append(f"- N = 30: p90 ≤ 150 ms and 0 errors: {_ok(met)} ({figures})")
        if 60 in by_n:
            r = by_n[60]
            lines.append(f"- N = 60: 0 errors: {_ok(r['errors'] == 0)} ({r['errors']} errors)")
        for r in stored["load"]:
            if r["error_samples"]:
                lines.append(f"- N = {r['students']}, first errors: {'; '.join(r['error_samples'][:3])}")
        lines.append("")
    if "full" in stored:
        lines += [
            "## A class at once: whole-page runs",
            "",
            "`python -m bench.classroom full --students 30 60 --write`: a fresh `streamlit run app.py`, each lesson",
            "opened once first (the first student of the day pays a lesson's first run: its models, its shipped",
            "results). Then N students over Streamlit's websocket protocol, each on a random lesson; every 1–2 s",
            "each either opens a random lesson in a fresh tab (a page open) or moves a control of its page that is",
            "outside every fragment (a slider or a select box, to a random value): both run the page's whole",
            "script. Latency: the request to its `script_finished`. Server CPU: the server process's CPU seconds",
            "per wall second while the students act (one Python process: a whole core is about what it can use), and",
            "per run: what a run costs the server, steadier from one bench run to the next than the latencies.",
            "",
            "| students | seconds | runs | page opens | median ms | p90 ms | p99 ms | open p90 ms | control p90 ms "
            "| errors | server CPU s / s | server CPU ms a run | RSS MB | load before | speed ms | date |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        for r in stored["full"]:
            lines.append(
                f"| {r['students']} | {r['seconds']:g} | {r['runs']} | {r['page_opens']} | {r['median_ms']} "
                f"| {r['p90_ms']} | {r['p99_ms']} | {r['open_p90_ms']} | {r['change_p90_ms']} | {r['errors']} "
                f"| {r['server_cpu_per_wall_s']} | {_cpu_ms_per_run(r)} | {r['rss_mb_end']} | {r['load_before']} "
                f"| {r.get('speed_ms', '')} | {r['date']} |"
            )
        by_n = {r["students"]: r for r in stored["full"]}
        lines.append("")
        if 30 in by_n:
            r = by_n[30]
            met = r["p90_ms"] is not None and r["p90_ms"] <= 400 and r["errors"] == 0
            lines.append(f"- N = 30: p90 ≤ 400 ms: {_ok(met)} (p90 {r['p90_ms']} ms, {r['errors']} errors)")
        if 60 in by_n:
            r = by_n[60]
            lines.append(
                f"- N = 60: 0 errors, p90 reported: {_ok(r['errors'] == 0)} (p90 {r['p90_ms']} ms, "
                f"{r['errors']} errors)"
            )
        for r in stored["full"]:
            if r["error_samples"]:
                lines.append(f"- N = {r['students']}, first errors: {'; '.join(r['error_samples'][:3])}")
        lines += _floor_lines(stored.get("full_reference", []), by_n)
        lines += _replica_lines(stored.get("full_replicas", []))
        notes = ROOT / "bench" / "classroom_full.md"  # where the time went: written by hand from py-spy runs
        if notes.exists():
            lines += ["", *notes.read_text(encoding="utf-8").rstrip("\n").split("\n")]
        lines.append("")
    if "memory_idle" in stored:
        m = stored["memory_idle"]
        lines += [
            "## Memory with idle students",
            "",
            "`python -m bench.classroom memory --idle --students 30 --write`: one student opens every lesson in turn",
            "(what every student shares is then loaded: models, shipped results, the figures at their defaults);",
            f"then {m['students'] - 1} more each open a random lesson and stay, doing nothing. The server's VmRSS",
            f"{SETTLE_S} s after each step (it gives freed memory back every 30 s).",
            "",
            f"- the server with that one student: **{m['rss_mb_1_student']} MB** (target ≤ 600 MB: "
            f"{_ok(m['rss_mb_1_student'] <= 600)})",
            f"- with {m['students']} students: {m['rss_mb_n_students']} MB, **{m['mb_per_extra_student']} MB per "
            f"further idle student** (target ≤ 5 MB: {_ok(m['mb_per_extra_student'] <= 5)})",
            f"- errors: {m['errors']}; load before: {m['load_before']}; date: {m['date']}",
            "",
        ]
    if "memory" in stored:
        m = stored["memory"]
        after = ", ".join(f"{k}: {v} MB" for k, v in m["rss_mb_after_close"].items())
        lines += [
            "## Memory: the server's resident set (VmRSS)",
            "",
            f"- 1 session that trained once: **{m['rss_mb_1_session']} MB** (target ≤ 600 MB: "
            f"{_ok(m['rss_mb_1_session'] <= 600)})",
            f"- {m['sessions']} sessions that all trained once: {m['rss_mb_n_sessions']} MB, "
            f"**{m['mb_per_extra_session']} MB per extra session** (target ≤ 25 MB: "
            f"{_ok(m['mb_per_extra_session'] <= 25)})",
            f"- after every session closed: {after}",
            f"- errors: {m['errors']}; load before: {m['load_before']}; date: {m['date']}",
            "",
        ]
    if "browser" in stored:
        b = stored["browser"]
        lines += [
            "## Interaction latency in Chromium, against a bare Streamlit page",
            "",
            "Key press on a control to the page settled (script done; no Plotly figure, Vega chart or data frame",
            "changed for 150 ms): every slider and select box of the lesson that redraws one of them, moved a few",
            "times each; the lesson's median is over all those moves. The bare page (`bench/bare_heatmap.py`)",
            "redraws one heatmap of the lesson's size. `drawn once`: the lesson's Plotly figures whose labels fit",
            "the margins they were given, so Plotly.js drew them in one pass (`lessons.common.charts.fit_margins`).",
            "",
            "| lesson | heatmap | lesson ms | bare ms | ratio | drawn once | each control's median ms |",
            "|---|---|---|---|---|---|---|",
        ]
        for r in b["latency"]:
            each = "; ".join(f"{label}: {ms}" for label, ms in r.get("controls", {}).items())
            lines.append(
                f"| {r['lesson']} | {r['heatmap']} | {r['lesson_ms']} | {r['bare_ms']} | {r['ratio']} "
                f"| {r.get('drawn_once', '')} | {each} |"
            )
        ratios = [r["ratio"] for r in b["latency"]]
        if ratios:
            median = statistics.median(ratios)
            lines.append("")
            lines.append(f"- median ratio {median:.2f} (target ≤ 1.15×: {_ok(median <= 1.15)})")
        if "page_weight" in stored:
            w = stored["page_weight"]
            sizes = sorted(w["lesson_elements"].values())
            lines += [
                "",
                "### What the rest of the page costs (`python -m bench.page_weight`)",
                "",
                "Streamlit's browser side re-renders every element of a page when a fragment reruns, not only the",
                "fragment's (Chromium's JS profile: the markdown and styling work grows with the page; Streamlit's",
                "streamlit#12090 is about large pages). The bare page's own slider and heatmap, in a fragment, among",
                "N markdown paragraphs that never change, with a header every ten (`bench/weighted_page.py`),",
                "against the bare page:",
                "",
                "| paragraphs around | page ms | bare ms | ratio |",
                "|---|---|---|---|",
                *(f"| {r['static']} | {r['page_ms']} | {r['bare_ms']} | {r['ratio']} |" for r in w["rows"]),
                "",
                f"A lesson page holds {sizes[0]}–{sizes[-1]} elements when it opens (median "
                f"{statistics.median(sizes):.0f}; blocks and columns included, counted by AppTest): "
                + ", ".join(f"{name} {n}" for name, n in w["lesson_elements"].items())
                + f". Load before: {w['load_before']}; date: {w['date']}.",
            ]
        c = b["cold_start"]
        lines += [
            "",
            "## Cold start",
            "",
            f"`streamlit run` to the home page drawn in Chromium: app {c['app.py']} s, bare page "
            f"{c['bench/bare_heatmap.py']} s, ratio **{c['ratio']}** (target ≤ 1.2×: {_ok(c['ratio'] <= 1.2)}).",
            f"Load before: {b['load_before']}; date: {b['date']}.",
            "",
        ]
    if "same_weight" in stored:  # written by bench.same_weight
        lines += _same_weight_lines(stored["same_weight"])
        notes = ROOT / "bench" / "same_weight.md"  # where the browser's time went: written by hand from its profiles
        if notes.exists():
            lines += [*notes.read_text(encoding="utf-8").rstrip("\n").split("\n"), ""]
    if "class_session" in stored:  # written by bench.class_session
        from bench.class_session import section_lines

        lines += section_lines(stored["class_session"], stored.get("class_session_profile"))
    if "replicas" in stored:  # written by bench.replicas
        from bench import replicas

        lines += replicas.section_lines(stored["replicas"])
    phones = ROOT / "bench" / "classroom_phones.md"  # written by hand from the browser tests' runs
    if phones.exists():
        lines += [""] if lines[-1] else []
        lines += [*phones.read_text(encoding="utf-8").rstrip("\n").split("\n"), ""]
    return "\n".join(lines)


def _replica_lines(rows: list[dict]) -> list[str]:
    """The same class on deploy/'s topology: several replicas behind nginx, the class store in PostgreSQL."""
    if not rows:
        return []
    lines = [
        "",
        "**The same class on several replicas.** `python -m bench.classroom full --replicas 2 --students 30 60",
        "--write`: deploy/'s topology on loopback (`bench.replicas`: a throwaway PostgreSQL cluster for the class",
        "store, the replicas, Debian's nginx in front), each replica warmed as above; every fresh tab goes through",
        "nginx to a replica at random (no route cookie yet). Server CPU: the replicas' together (nginx and",
        "PostgreSQL are on the same cores too). One process holds one GIL, so a second replica is what puts the",
        "other core to work.",
        "",
        "| replicas | students | runs | page opens | median ms | p90 ms | p99 ms | errors | replicas' CPU s / s "
        "| replicas' CPU ms a run | clients' CPU s / s | RSS MB (all) | load before | speed ms | date |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['replicas']} | {r['students']} | {r['runs']} | {r['page_opens']} | {r['median_ms']} | {r['p90_ms']} "
            f"| {r['p99_ms']} | {r['errors']} | {r['server_cpu_per_wall_s']} | {_cpu_ms_per_run(r)} "
            f"| {r['clients_cpu_per_wall_s']} "
            f"| {r['rss_mb_end']} | {r['load_before']} | {r.get('speed_ms', '')} | {r['date']} |"
        )
    by_n = {r["students"]: r for r in rows}
    if 30 in by_n:
        r = by_n[30]
        met = r["p90_ms"] is not None and r["p90_ms"] <= 400 and r["errors"] == 0
        lines += [
            "",
            f"- {r['replicas']} replicas, N = 30: p90 ≤ 400 ms: {_ok(met)} (p90 {r['p90_ms']} ms, "
            f"{r['errors']} errors)",
        ]
    if 60 in by_n:
        r = by_n[60]
        lines.append(f"- {r['replicas']} replicas, N = 60: 0 errors: {_ok(r['errors'] == 0)} (p90 {r['p90_ms']} ms)")
    return lines


def _floor_lines(rows: list[dict], lessons: dict[int, dict]) -> list[str]:
    """The same load on the lessons' same-weight reference pages: what the server gives pages that compute nothing."""
    if not rows:
        return []
    lines = [
        "",
        "**The floor: the same class on pages that compute nothing.** `python -m bench.classroom full --reference",
        "[--scale F] --students 30 60 --write`: the same students, think times and mix of page opens and whole runs,",
        "on `bench/weighted_page.py` with each lesson's element, chart and table counts (the same-weight reference",
        "pages of items 1 and 2, from `bench.same_weight`'s last stored run), through the lessons' own queue for",
        "whole-page runs (`ui.server`). The page has no control outside its fragment, so a whole run is its script",
        "run again. Paragraphs × F: the charts and tables kept, the paragraphs scaled, to see how the floor moves with",
        "a page's element count. Clients' CPU: the bench's own process (every simulated tab parses every message).",
        "",
        "| pages | paragraphs × | students | runs | median ms | p90 ms | p99 ms | errors | server CPU s / s "
        "| server CPU ms a run | clients' CPU s / s | load before | speed ms | date |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| same-weight references | {r['paragraphs_scale']:g} | {r['students']} | {r['runs']} | {r['median_ms']} "
            f"| {r['p90_ms']} | {r['p99_ms']} | {r['errors']} | {r['server_cpu_per_wall_s']} | {_cpu_ms_per_run(r)} "
            f"| {r.get('clients_cpu_per_wall_s', '')} | {r['load_before']} | {r.get('speed_ms', '')} | {r['date']} |"
        )
    whole = {r["students"]: r for r in rows if r["paragraphs_scale"] == 1}
    if 30 in whole and 30 in lessons:
        floor, ours = whole[30], lessons[30]
        lines += [
            "",
            f"- N = 30: the lessons p90 {ours['p90_ms']} ms ({ours['runs']} runs, {ours['server_cpu_per_wall_s']} "
            f"CPU s / s{_per_run_words(ours)}); pages of their weight that compute nothing p90 {floor['p90_ms']} ms "
            f"({floor['runs']} runs, {floor['server_cpu_per_wall_s']} CPU s / s{_per_run_words(floor)}): "
            f"{ours['p90_ms'] / floor['p90_ms']:.1f}× the floor, "
            f"which is itself {'above' if floor['p90_ms'] > 400 else 'within'} the 400 ms target",
        ]
    return lines


def _cpu_ms_per_run(row: dict) -> str:
    """The server's CPU milliseconds a run (every replica's together), from the row's CPU seconds and runs; blank
    for a row stored before the CPU seconds were."""
    each = row.get("cpu_s_per_replica")
    return f"{1000 * sum(each) / row['runs']:.0f}" if each and row.get("runs") else ""


def _per_run_words(row: dict) -> str:
    ms = _cpu_ms_per_run(row)
    return f", {ms} ms of CPU a run" if ms else ""


def _same_weight_lines(w: dict) -> list[str]:
    rows = w["rows"]
    lines = [
        "## Against a page of the same weight",
        "",
        "`python -m bench.same_weight --write` (its docstring says how): each lesson in Chromium against",
        "`bench/weighted_page.py` given the lesson's own counts (elements, Plotly figures, Vega-Lite charts, tables,",
        "as the lesson opens), which computes nothing; its one control, a slider in a fragment, redraws one heatmap of",
        "the lesson's size. Page open: a fresh tab to fully drawn (script done, no skeleton, no figure changing for",
        "300 ms), median of 3; title: the lesson's title on screen, in that fresh tab (Streamlit's own scripts load",
        "first) and after a click on the lesson's link on the course map (a student's way in). Controls: each",
        "control's median over its moves over the reference slider's median.",
        "",
        "| lesson | elements | Plotly / Vega / tables | open s | reference open s | open ratio | title s, fresh tab "
        "| title s, clicked | reference control ms | each control's ratio |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        wt = r["weight"]
        each = "; ".join(f"{label}: {ratio}" for label, ratio in r["control_ratios"].items())
        lines.append(
            f"| {r['lesson']} | {wt['elements']} | {wt['plotly']} / {wt['vega']} / {wt['tables']} | {r['open_s']} "
            f"| {r['reference_open_s']} | {r['open_ratio']} | {r['title_s']} | {r.get('click_title_s', '–')} "
            f"| {r['reference_control_ms']} | {each} |"
        )
    if rows:
        opens = [r["open_ratio"] for r in rows]
        titles = [r["title_s"] for r in rows]
        controls = [x for r in rows for x in r["control_ratios"].values()]
        median_open = statistics.median(opens)
        lines += [
            "",
            f"- page open, the lessons' median ratio {median_open:.2f} (target ≤ 1.1×: {_ok(median_open <= 1.1)}), "
            f"the largest {max(opens):.2f} (target ≤ 1.25×: {_ok(max(opens) <= 1.25)})",
        ]
        clicked = [r["click_title_s"] for r in rows if "click_title_s" in r]
        if clicked:
            reference = [r["reference_title_s"] for r in rows]
            lines.append(
                f"- the title on screen {min(clicked):.2f}–{max(clicked):.2f} s after the click on the course map "
                f"(target ≤ 1 s: {_ok(max(clicked) <= 1)}); in a fresh tab {min(titles):.2f}–{max(titles):.2f} s, "
                f"where the reference page, which computes nothing, shows its title after {min(reference):.2f}–"
                f"{max(reference):.2f} s (Streamlit's own scripts load and connect first)"
            )
        else:
            lines.append(
                f"- the title on screen after {min(titles):.2f}–{max(titles):.2f} s "
                f"(target ≤ 1 s: {_ok(max(titles) <= 1)})"
            )
        if controls:
            median_control = statistics.median(controls)
            above = sum(x > 1.25 for x in controls)
            lines.append(
                f"- controls: {len(controls)} measured, median ratio {median_control:.2f}, {above} above 1.25× "
                f"(target none: {_ok(above == 0)}), the largest {max(controls):.2f} (target ≤ 1.5×: "
                f"{_ok(max(controls) <= 1.5)})"
            )
    speed = f"; speed ms: {w['speed_ms']}" if w.get("speed_ms") else ""
    machine_words = f"load before: {w['load_before']}{speed}; date: {w['date']}"
    lines += [f"- {len(rows)} lessons in {w['seconds']} s; {machine_words}", ""]
    return lines


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
        (ROOT / "bench" / "CLASSROOM.md").write_text(render(json.loads(RESULTS.read_text())))
        return
    if args.students is None:
        args.students = [10, 30, 60] if args.mode == "load" else [30, 60] if args.mode == "full" else [30]
    result = {"load": run_load, "full": run_full, "memory": run_memory}[args.mode](args)
    if args.write:
        if args.mode == "full" and args.reference:  # rows of other sizes and scales are kept beside these
            stored = json.loads(RESULTS.read_text()).get("full_reference", []) if RESULTS.exists() else []
            new = {(r["students"], r["paragraphs_scale"]) for r in result}
            kept = [r for r in stored if (r["students"], r["paragraphs_scale"]) not in new]
            store("full_reference", sorted(kept + result, key=lambda r: (-r["paragraphs_scale"], r["students"])))
        elif args.mode == "full" and args.replicas > 1:
            store("full_replicas", result)
        else:
            store("memory_idle" if args.mode == "memory" and args.idle else args.mode, result)


if __name__ == "__main__":
    main()
