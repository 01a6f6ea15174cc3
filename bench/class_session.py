"""A class session on one server: a teacher and N students over Streamlit's websocket protocol.

    python -m bench.class_session --students 60 --store sqlite|postgres [--write]

A fresh ``streamlit run app.py`` on a free loopback port, its store (``ATTENTION_LAB_DB_URL``) a new SQLite file
(``sqlite``) or PostgreSQL (``postgres``: the configured ``ATTENTION_LAB_DB_URL`` if there is one, else a throwaway
cluster started here with ``store.throwaway.cluster()``, as the tests do). Then, every client a simulated browser
tab (``bench.streamlit_client``):

- the teacher starts the class through the class page's start form (over the protocol, not the store), opens the
  lesson, presses "Ask the class" under its first exercise, and goes back to the class page: the dashboard, whose
  fragment the client reruns every 2 s as the browser does. Each of those refreshes is timed (rerun request to
  ``script_finished``) while the students act.
- N students arrive within a few seconds (one every ``--stagger`` s): each opens ``/classroom?join=CODE``, types
  a name into the join form and presses Join, opens the lesson, answers the open question in the question bar's
  form and presses "Send my answer", then posts one finished training run, and stays on the page (its question
  bar polls every 3 s) until the session ends.

The runs are **posted through the store API, not trained**: training 60 models at once on two cores would take
minutes, so the bench trains one real run of the lesson's panel once, before the class starts (one thread, a few
seconds), and each student posts it the way the page's ``ui.classroom.post_finished_run`` posts a finished run
(settings, curve, final metrics, attention snapshot), from this process, as the member the server created for
that student (read from the database by the name the student joined with).

Counted at the end, read back from the database: answers A (students with an answer to the question stored), runs
R (runs stored for the class); errors E: protocol failures (timeouts, closed connections), exceptions shown on a
page, refusals shown on a page (st.error, a warning with an icon), "cannot be reached" notices, a step whose page
did not say it worked (joined, answer in), a failed post, a student not done within the session's time, and
"class store action failed" lines in the server's log. Then the bench deletes its class as the teacher can (with
the teacher key the start form showed), so a configured database keeps nothing of it. The last line printed is

    class session: students N store S answers A/N runs R/N dashboard p90 T ms errors E

Dashboard latency: p90 over every refresh from the first student's arrival to ``--linger`` seconds (20) after the
last one is done (the class sitting on the lesson, its bars polling), and apart, over the refreshes until the last
student was done. Also recorded: the server's CPU seconds over that time (``/proc``) and this process's (the
simulated tabs share the same cores), and the machine's load before and after.

Targets (2 cores): N = 60 on both stores with A = R = N, E = 0 and dashboard p90 ≤ 500 ms. ``--write``
stores the figures in ``bench/classroom.json`` (section ``class_session``, the latest 4 runs per store and N), writes
``bench/sections/class_session.md`` for RESULTS.md and renders ``bench/CLASSROOM.md``. ``--profile PATH``: py-spy
samples the server (the thread holding the GIL) while the students act, and the run's figures say where its time
went, by part (dashboard, question bars, lesson page, class page, script-run overhead, event loop); stored apart,
as py-spy pausing the server inflates its latencies.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime
import json
import os
import random
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import sqlalchemy as sa
import torch

import store
from bench import classroom_report, sections
from bench.classroom_report import PROFILE_RATE, RUNS_NOTE, final_line, section_lines
from bench.harness import RESULTS, cpu_seconds, keep_figures, percentile, rss_mb, server, server_log
from bench.streamlit_client import Student
from lessons.common import classroom
from lessons.masking import train_yourself
from store.db import ENV_URL
from store.schema import answers, members, runs
from store.throwaway import cluster
from ui.server import LIMIT as PAGE_RUN_PLACES

ROOT = Path(__file__).resolve().parents[1]
SECTION = "class_session"
PROFILED = "class_session_profile"  # the last run under --profile
KEEP = 4  # runs kept per store and N: one run's p90 of a dozen refreshes varies from run to run
CLASS_PAGE = "classroom"
LESSON = "masking"  # a lesson with exercises (the question) and a training panel (the run)
MAX_SECONDS = 60.0  # simulated activity, from the first student's arrival to the end
LINGER_SECONDS = 20.0  # once every student is done, they stay on the lesson (their bars polling) this long


# --------------------------------------------------------------------------------------------------- the store
@contextlib.contextmanager
def database(kind: str):
    """``(url, how)``: a new SQLite file, or PostgreSQL (the configured URL, else a throwaway cluster)."""

    if kind == "sqlite":
        with tempfile.TemporaryDirectory(prefix="attention-lab-class-") as folder:
            yield f"sqlite:///{folder}/class.sqlite3", "a new SQLite file"
        return
    configured = os.environ.get(ENV_URL, "").strip()
    if configured:
        if not configured.startswith("postgresql"):
            raise SystemExit(f"--store postgres, but {ENV_URL} is not a PostgreSQL URL")
        yield configured, f"the PostgreSQL server in {ENV_URL}"
        return

    with cluster() as url:
        yield url, "a throwaway PostgreSQL cluster (store.throwaway)"


def one_real_run(lesson: str) -> dict:
    """A finished run of the lesson's training panel, trained once here (one thread, a 5 s budget), as
    ``post_finished_run`` would post it: ``{"curve", "metrics", "snapshot"}``."""

    assert lesson == LESSON, "the bench trains the masking lesson's panel"
    torch.set_num_threads(1)
    run = train_yourself.new_run(True, 0, 5.0).start()
    run.wait(60)
    latest = run.snapshots[-1]
    metrics = {name: float(getattr(latest, name)) for name in ("exact_match", "loss", "seconds", "step")}
    return {
        "curve": classroom.run_curve(run.snapshots),
        "metrics": metrics,
        "snapshot": classroom.attention_snapshot(latest.attention),
    }


# ------------------------------------------------------------------------------------------------ the session
def _own_cpu() -> float:

    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _since(client: Student, mark: int) -> str:
    return " ".join(client.texts[mark:])


async def _teacher(url: str, lesson: str) -> tuple[Student, str, str, list[str]]:
    """The teacher's tab: start the class with the start form, ask the lesson's first exercise, open the dashboard.
    Returns the tab (polling the dashboard), the class code, the teacher key (from the teacher link the page
    shows once) and the problems met."""
    problems: list[str] = []
    teacher = Student(url, name="teacher")
    await teacher.open(CLASS_PAGE)
    teacher.set("Class name", f"Bench class of {datetime.date.today().isoformat()}")
    mark = len(teacher.texts)
    await teacher.click("Start a class")
    found = re.search(r"Class \*\*([A-Z0-9]+)\*\* started", _since(teacher, mark))
    if found is None:
        raise RuntimeError(f"the start form did not start a class: {_since(teacher, mark)[:300]!r}")
    code = found.group(1)
    key = re.search(r"teacher=([A-Za-z0-9_\-]+)", _since(teacher, mark))
    if key is None:
        raise RuntimeError("the start form showed no teacher link")
    await teacher.navigate(lesson)
    asks = sorted(key for key in teacher.keyed if key.startswith(f"{lesson}.ex") and key.endswith(".ask"))
    if not asks:
        raise RuntimeError(f"no 'Ask the class' button on {lesson} for the teacher")
    await teacher.click("Ask the class", key=asks[0])
    await teacher.navigate(CLASS_PAGE)
    if "Here now" not in " ".join(w for w in teacher.texts[-50:]) and not teacher.polling:
        problems.append("teacher: the dashboard did not start refreshing")
    return teacher, code, key.group(1), problems


async def _student(url: str, code: str, question_id: int, i: int, lesson: str, post, rng: random.Random) -> dict:
    """One student's few seconds: join, open the lesson, answer, post a run. Returns the step times (s)."""
    s = Student(url, name=f"student {i:02d}", query=f"join={code}")
    steps: dict = {"student": s}
    steps["open"] = await s.open(CLASS_PAGE)
    s.set("Your name in the class", s.name)
    mark = len(s.texts)
    steps["join"] = await s.click("Join")
    if "You are in class" not in _since(s, mark):
        raise RuntimeError(f"{s.name}: Join did not say so ({_since(s, mark)[:200]!r})")
    steps["lesson"] = await s.navigate(lesson)
    key = f"classroom.q{question_id}"  # the bar's answer ("Your answer" also labels the lesson's own exercises)
    box = s.keyed.get(key)
    if box is None:
        raise RuntimeError(f"{s.name}: no question bar on {lesson}")
    value = rng.randrange(len(box.proto.options)) if box.kind == "radio" else rng.choice([0.5, 0.8, 1.0, 4.0])
    s.set("Your answer", value, key=key)
    mark = len(s.texts)
    steps["answer"] = await s.click("Send my answer", key=f"FormSubmitter:{key}.form-Send my answer")
    if "Your answer is in" not in _since(s, mark):
        raise RuntimeError(f"{s.name}: the answer was not confirmed ({_since(s, mark)[:200]!r})")
    start = time.perf_counter()
    await asyncio.to_thread(post, s.name, i)
    steps["post"] = time.perf_counter() - start
    return steps


async def _session(
    url: str, db_url: str, n: int, lesson: str, stagger: float, linger: float, seed: int, payload: dict, spy: Spy
) -> dict:

    classes, _learners = store.open_store(db_url)
    problems: list[str] = []
    teacher, code, key, met = await _teacher(url, lesson)
    problems += met
    question = classes.current_question(code)
    if question is None or question.state != "open":
        raise RuntimeError("the teacher's question is not open")
    await asyncio.sleep(6.5)  # the dashboard refreshes on its own (about 3 times) before anyone arrives
    idle_ticks = list(teacher.tick_latencies)
    teacher.tick_latencies.clear()

    def post(name: str, i: int) -> None:  # as ui.classroom.post_finished_run posts a finished run
        with classes.engine.connect() as conn:
            row = conn.execute(
                sa.select(members.c.id, members.c.name).where(members.c.class_code == code, members.c.name == name)
            ).one()
        member = store.Member(row.id, code, row.name)
        settings = {"masking.live_causal": True, "masking.seed": i % 5}
        classes.post_run(member, lesson, settings, payload["curve"], payload["metrics"], payload["snapshot"])

    rng = random.Random(seed)
    spy.start()
    cpu_before, clients_before = spy.cpu_seconds(), _own_cpu()
    started = time.monotonic()
    tasks = []
    for i in range(n):
        student = _student(url, code, question.id, i, lesson, post, random.Random(rng.random()))
        tasks.append(asyncio.create_task(student))
        await asyncio.sleep(stagger)
    done, pending = await asyncio.wait(tasks, timeout=max(1.0, MAX_SECONDS - linger - (time.monotonic() - started)))
    busy = time.monotonic() - started
    storm = len(teacher.tick_latencies)  # the refreshes done while students were still arriving and acting
    storm_cpu = spy.cpu_seconds() - cpu_before
    await asyncio.sleep(max(0.0, min(linger, MAX_SECONDS - busy)))
    for task in pending:
        task.cancel()
        problems.append("a student was not done within the session's time")
    ticks = list(teacher.tick_latencies)
    seconds = time.monotonic() - started
    cpu, clients_cpu = spy.cpu_seconds() - cpu_before, _own_cpu() - clients_before
    spy.stop()
    step_times: dict[str, list[float]] = {}
    crowd = [teacher]
    for task in done:
        if task.exception() is not None:
            problems.append(repr(task.exception())[:300])
            continue
        result = task.result()
        crowd.append(result.pop("student"))
        for step, value in result.items():
            step_times.setdefault(step, []).append(value)
    dashboard_text = " ".join(teacher.texts[-80:])
    for client in crowd:
        problems += [f"{client.name}: {e}" for e in client.errors + client.exceptions + client.refusals]
        problems += [f"{client.name}: {t[:120]}" for t in client.texts if "cannot be reached" in t]
    for client in crowd:
        await client.close()
    for task in tasks:  # a cancelled student's tab: closed through its task; nothing left running
        with contextlib.suppress(BaseException):
            await task
    with classes.engine.connect() as conn:
        answered = conn.execute(
            sa.select(sa.func.count(sa.distinct(answers.c.member_id))).where(answers.c.question_id == question.id)
        ).scalar()
        posted = conn.execute(sa.select(sa.func.count()).where(runs.c.class_code == code)).scalar()
        joined = conn.execute(sa.select(sa.func.count()).where(members.c.class_code == code)).scalar()
    classes.teacher(code, key).delete()  # a configured database keeps nothing of the bench's class
    classes.engine.dispose()
    shown = re.findall(r"\*\*(\d+)\*\* answers? so far", dashboard_text)
    ms = lambda x: None if x is None else round(1000 * x, 1)  # noqa: E731
    return {
        "students": n,
        "joined": joined,
        "answers": answered,
        "runs": posted,
        "dashboard_answers_shown": int(shown[-1]) if shown else None,
        "seconds": round(seconds, 1),
        "students_done_s": round(busy, 1),
        "refreshes": len(ticks),
        "dashboard_median_ms": ms(statistics.median(ticks)) if ticks else None,
        "dashboard_p90_ms": ms(percentile(ticks, 0.9)),
        "dashboard_max_ms": ms(max(ticks)) if ticks else None,
        "server_cpu_s": round(cpu, 1),  # the server process's CPU time (user + system) over "seconds"
        "server_cpu_while_acting_s": round(storm_cpu, 1),  # of it, until the last student was done
        "clients_cpu_s": round(clients_cpu, 1),  # this process's: the simulated tabs (and the posts), same 2 cores
        "storm_refreshes": storm,
        "dashboard_storm_p90_ms": ms(percentile(ticks[:storm], 0.9)),
        "dashboard_idle_median_ms": ms(statistics.median(idle_ticks)) if idle_ticks else None,
        "steps_median_ms": {k: ms(statistics.median(v)) for k, v in step_times.items()},
        "steps_p90_ms": {k: ms(percentile(v, 0.9)) for k, v in step_times.items()},
        "errors": len(problems),
        "error_samples": problems[:5],
        "page_runs_at_once": PAGE_RUN_PLACES,  # the server's queue for whole-page runs (ui.server)
    }


class Spy:
    """With ``--profile PATH``: py-spy samples the server from the first student's arrival to the end, only the
    thread holding the GIL (where a 2-core server's Python time goes), as collapsed stacks in PATH."""

    def __init__(self, pid: int, path: str | None):

        if path and shutil.which("py-spy") is None:
            raise SystemExit("--profile needs py-spy (pip install py-spy); or run the server under cProfile")
        self.pid, self.path, self.proc = pid, path, None

    def start(self) -> None:

        if self.path:
            self.proc = subprocess.Popen(["py-spy", "record", "--pid", str(self.pid), "--gil", "--threads",
                                          "--rate", str(PROFILE_RATE), "--format", "raw", "--output", self.path],
                                         stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)  # fmt: skip

    def cpu_seconds(self) -> float:
        """The server process's CPU time so far (user + system, all threads)."""
        return cpu_seconds(self.pid)

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.send_signal(2)  # SIGINT: py-spy writes what it sampled and exits
            self.proc.wait(timeout=60)
            self.proc = None


def profile_shares(path: str, lesson: str) -> dict:
    """Where the server's Python time went (py-spy's GIL-holder samples): each part's share, and the seconds the
    GIL was held against the seconds sampled."""
    parts = {
        "dashboard refreshes": "live (ui/classroom.py:",
        "students' question bar": "bar (ui/classroom.py:",
        f"the lesson page ({lesson})": f"({lesson}.py:",
        "the class page (open, join)": "(classroom.py:",
        "script runs' overhead (threads, session state)": "ScriptRunner",
        "event loop (websocket messages)": "_run_module_as_main",
    }
    counts = dict.fromkeys([*parts, "other threads"], 0)
    store_in_dashboard = total = 0
    for line in Path(path).read_text().splitlines():
        stack, _, n = line.rpartition(" ")
        total += int(n)
        part = next((name for name, mark in parts.items() if mark in stack), "other threads")
        counts[part] += int(n)
        if part == "dashboard refreshes" and "(store/" in stack:
            store_in_dashboard += int(n)
    return {
        "gil_s": round(total / PROFILE_RATE, 1),
        "shares": {name: round(n / max(total, 1), 3) for name, n in counts.items()},
        "store_share_of_dashboard": round(store_in_dashboard / max(counts["dashboard refreshes"], 1), 2),
    }


def _log_errors(log: Path) -> list[str]:
    lines = log.read_text(errors="replace").splitlines() if log.exists() else []
    return [line[:200] for line in lines if "class store action failed" in line or line.startswith("Traceback")]


def run(
    n: int,
    kind: str,
    lesson: str = LESSON,
    stagger: float = 0.05,
    linger: float = LINGER_SECONDS,
    seed: int = 0,
    argv=None,
    profile: str | None = None,
) -> dict:

    clock = time.monotonic()
    load_before = os.getloadavg()[0]
    payload = one_real_run(lesson)
    with database(kind) as (db_url, how):
        saved = os.environ.get(ENV_URL)
        os.environ[ENV_URL] = db_url  # the server's store
        try:
            with server() as (url, pid):
                spy = Spy(pid, profile)
                try:
                    row = asyncio.run(_session(url, db_url, n, lesson, stagger, linger, seed, payload, spy))
                finally:
                    spy.stop()
                row["rss_mb_end"] = round(rss_mb(pid))
                logged = _log_errors(server_log(url))
        finally:
            if saved is None:
                os.environ.pop(ENV_URL, None)
            else:
                os.environ[ENV_URL] = saved
    row["errors"] += len(logged)
    row["error_samples"] = (row["error_samples"] + logged)[:5]
    if profile:
        row["profile"] = profile_shares(profile, lesson)
    load_after = os.getloadavg()[0]
    return row | {
        "store": kind,
        "database": how,
        "lesson": lesson,
        "runs_posted": RUNS_NOTE,
        "load_before": round(load_before, 2),
        "load_after": round(load_after, 2),
        "date": datetime.date.today().isoformat(),
        "time": datetime.datetime.now(datetime.UTC).strftime("%H:%M UTC"),
        "measured_by": sections.measured_by("class_session", argv, time.monotonic() - clock, load_before),
    }


def write(row: dict) -> None:
    """Keep the row (one per store and N; a profiled run apart: py-spy slows the server it samples), then write
    the section for RESULTS.md and render CLASSROOM.md."""
    stored = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    if "profile" in row:
        keep_figures(PROFILED, row)
    else:
        same = [r for r in stored.get(SECTION, []) if (r["store"], r["students"]) == (row["store"], row["students"])]
        others = [r for r in stored.get(SECTION, []) if r not in same]
        keep_figures(SECTION, [*others, *same[-(KEEP - 1) :], row])  # the latest KEEP runs of each: the spread
    stored = json.loads(RESULTS.read_text())
    sections.write(SECTION, section_lines(stored.get(SECTION, []), stored.get(PROFILED)))
    classroom_report.write()


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--students", type=int, default=60)
    parser.add_argument("--store", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--lesson", default=LESSON, help=argparse.SUPPRESS)
    parser.add_argument("--stagger", type=float, default=0.05, help="seconds between two students' arrivals")
    parser.add_argument(
        "--linger",
        type=float,
        default=LINGER_SECONDS,
        help="seconds the class stays (bars and dashboard refreshing) once every student is done",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--write", action="store_true", help="record the figures (bench/CLASSROOM.md, RESULTS.md)")
    parser.add_argument("--profile", metavar="PATH", help="py-spy the server (GIL holder), collapsed stacks in PATH")
    args = parser.parse_args(argv)
    row = run(args.students, args.store, args.lesson, args.stagger, args.linger, args.seed, argv, args.profile)
    print(json.dumps(row), file=sys.stderr, flush=True)
    if args.write:
        write(row)
    print(final_line(row), flush=True)


if __name__ == "__main__":
    main()
