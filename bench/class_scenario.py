"""A class as it really uses one laptop: a cold server, a teacher, N students who open the lesson the teacher names,
then act every 5–20 s and each train once.

    python -m bench.class_scenario --students 30 [--lesson masking] [--seconds 90] [--window 20 60] [--finish 120]
                                   [--write]

What happens, on a fresh ``streamlit run app.py`` (its store a new SQLite file), from the moment it answers its
health check (the cold start is part of what is measured):

- the teacher opens the class page in a fresh tab, starts a class, opens the lesson, presses "Ask the class" under
  its first exercise (the poll) and goes to the dashboard, which refreshes itself as the browser's does;
- each of N students arrives at a uniformly random moment of the 10 s after the teacher's join link is up (nobody
  can join a class before it exists; a moment drawn from the server's start instead put every student whose moment
  came before the link into one instant, all 30 within 2.5 s when the teacher's set-up took 11 s): a fresh tab on
  the join link, the name typed, Join pressed, then the lesson opened. Timed for that page open: the first heading
  (the title), the first paragraph of prose (a Markdown element of 80 characters or more) and the whole page
  (``script_finished``);
- until ``--seconds`` after the server came up, every 5–20 s (uniform) each student does one thing: moves a
  control (a slider, select box, radio or checkbox it was sent; timed apart when it lives in a fragment and when
  it reruns the whole page), answers one of the lesson's exercises and presses Check, or answers the teacher's
  poll in the question bar (once). Each student presses Train once at a random moment of the ``--window`` (seconds
  after the server came up) and watches the run: the time from Train to the first progress text, and every gap
  between two progress texts that differ, until the run says it is done; each gap also by what the trainer was
  looking at (a queued run's "waiting for a free slot", or a training run's last report). A student who pressed
  Train watches their run to its end even past ``--seconds``, for at most ``--finish`` seconds more (a run still
  queued or training when the class's time is up is not a failure; one not done by then is).

Printed: p50/p90 of every timing above, the longest gap between two progress updates any trainer saw, the errors
(protocol failures, exceptions or refusals on a page, "cannot be reached" notices, tracebacks in the server's log),
the server's CPU seconds per wall second, the machine's load before and after and its speed (``speed_ms``).
``--write`` keeps the row in ``bench/classroom.json`` (section ``class_scenario``, the latest 8 per N) and renders
``bench/CLASSROOM.md``.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import json
import os
import random
import sys
import time

import store
from bench import classroom_report
from bench.class_session import _log_errors, _since, _teacher, database
from bench.harness import (
    RESULTS,
    code_version,
    cpu_seconds,
    keep_figures,
    percentile,
    server,
    server_log,
    slowed,
    speed_ms,
)
from bench.streamlit_client import Student
from store.db import ENV_URL

SECTION = "class_scenario"
KEEP = 8  # per class size (and slowed share): rows from machines of different speeds stay side by side
ARRIVAL_SECONDS = 10.0  # every student opens the join link within this many seconds of the teacher putting it up
ACT_EVERY = (5.0, 20.0)  # seconds between two things a student does
FINISH_SECONDS = 120.0  # how long past the session a trainer keeps watching a run that has not ended
PARAGRAPH_CHARS = 80  # a Markdown element this long is prose, not a label
CONTROLS = ("slider", "selectbox", "radio", "checkbox")
NOT_MOVED = ("Your answer", "Presenter mode")  # answered, not moved; the teacher's projector switch


def _ms(values: list[float], q: float) -> float | None:
    value = percentile(values, q)
    return None if value is None else round(1000 * value, 1)


def _open_times(s: Student) -> dict[str, float]:
    """Seconds from the request to the title, the first paragraph and the whole page, read from its arrivals."""
    start = s.run_started
    heading = next((t for t, kind, _ in s.arrivals if kind == "heading"), None)
    prose = next((t for t, kind, n in s.arrivals if kind == "markdown" and n >= PARAGRAPH_CHARS), None)
    times = {"whole": max(t for t, _, _ in s.arrivals) - start} if s.arrivals else {}
    if heading is not None:
        times["title"] = heading - start
    if prose is not None:
        times["paragraph"] = prose - start
    return times


def _controls(s: Student) -> list:
    """The controls a student may move: enabled, not an answer box (those are answered, not moved)."""
    found = []
    for w in s.widgets.values():
        if w.kind not in CONTROLS or getattr(w.proto, "disabled", False) or w.label in NOT_MOVED:
            continue
        if w.kind in ("selectbox", "radio") and len(w.proto.options) < 2:
            continue
        found.append(w)
    return found


async def _move(s: Student, rng: random.Random, t: dict) -> None:
    w = rng.choice(_controls(s))
    if w.kind == "slider":
        p = w.proto
        if p.options:
            value = rng.randrange(len(p.options))
        else:
            steps = max(1, round((p.max - p.min) / (p.step or 1)))
            value = p.min + rng.randint(0, steps) * (p.step or 1)
    elif w.kind in ("selectbox", "radio"):
        value = rng.randrange(len(w.proto.options))
    else:
        value = rng.random() < 0.5
    seconds = await s.change(w.label, value)
    t["fragment control" if w.fragment_id else "whole-page control"].append(seconds)


async def _check(s: Student, rng: random.Random, t: dict) -> bool:
    answers = [k for k in s.keyed if k.endswith(".answer") and not k.startswith("classroom.")]
    if not answers:
        return False
    key = rng.choice(answers)
    box = s.keyed[key]
    s.set("Your answer", rng.randrange(len(box.proto.options)) if box.kind == "radio" else rng.random(), key=key)
    form = key.removesuffix(".answer")
    t["check"].append(await s.click("Check", key=f"FormSubmitter:{form}.form-Check"))
    return True


async def _poll(s: Student, question_id: int, rng: random.Random, t: dict) -> bool:
    key = f"classroom.q{question_id}"
    box = s.keyed.get(key)
    if box is None:
        return False
    s.set("Your answer", rng.randrange(len(box.proto.options)) if box.kind == "radio" else 1.0, key=key)
    mark = len(s.texts)
    t["poll answer"].append(await s.click("Send my answer", key=f"FormSubmitter:{key}.form-Send my answer"))
    if "Your answer is in" not in _since(s, mark):
        s.errors.append("the poll answer was not confirmed")
    return True


async def _train(s: Student, t: dict, until: float) -> None:
    """Press Train, then watch: the first progress text, each gap between two different progress texts, the end."""
    trains = [w for w in s.widgets.values() if w.kind == "button" and w.label == "Train" and not w.proto.disabled]
    if not trains:
        s.errors.append("no Train button to press")
        return
    mark, pressed = len(s.progress), time.perf_counter()
    await s.click("Train", key=trains[0].id.split("-", 2)[2] if trains[0].id.count("-") >= 2 else None)
    last_text, last_at, first = None, pressed, None
    while time.monotonic() < until:
        await asyncio.sleep(0.1)
        for at, text in s.progress[mark:]:
            if text != last_text:
                if first is None:
                    first = at - pressed
                    t["train to first progress"].append(first)
                else:
                    t["progress gap"].append(at - last_at)
                    # what the trainer was looking at during the wait: their place in the queue, or a training run
                    queued = last_text.startswith(("waiting", "starting"))
                    t["gap while queued" if queued else "gap while training"].append(at - last_at)
                last_text, last_at = text, at
        mark = len(s.progress)
        if last_text is not None and (last_text.startswith(("done", "stopped", "failed"))):
            if last_text.startswith("failed"):
                s.errors.append(f"training failed: {last_text[:120]}")
            return
        if not s.polling and last_text is not None:  # the run is over and the page has not redrawn yet
            await s.rerun()
    s.errors.append("the training run had not ended by the session's end plus --finish seconds")


async def _student(url: str, code_ready, i: int, lesson: str, seconds: float, window, seed: int, finish: float) -> dict:
    rng = random.Random(seed)
    t: dict[str, list[float]] = {
        k: []
        for k in (
            "class page",
            "title",
            "paragraph",
            "whole page",
            "fragment control",
            "whole-page control",
            "check",
            "poll answer",
            "train to first progress",
            "progress gap",
            "gap while queued",
            "gap while training",
        )
    }
    started = time.monotonic()
    code, question_id = await code_ready
    await asyncio.sleep(rng.uniform(0, ARRIVAL_SECONDS))
    s = Student(url, name=f"student {i:02d}", query=f"join={code}")
    try:
        t["class page"].append(await s.open("classroom"))
        s.set("Your name in the class", s.name)
        mark = len(s.texts)
        await s.click("Join")
        if "You are in class" not in _since(s, mark):
            s.errors.append(f"Join did not say so ({_since(s, mark)[:120]!r})")
        await s.navigate(lesson)
        opened = _open_times(s)
        for name, label in (("title", "title"), ("paragraph", "paragraph"), ("whole", "whole page")):
            if name in opened:
                t[label].append(opened[name])
            else:
                s.errors.append(f"the lesson page sent no {label}")
        train_at = started + rng.uniform(*window)
        polled = trained = False
        until = started + seconds
        while time.monotonic() < until:
            await asyncio.sleep(rng.uniform(*ACT_EVERY))
            if time.monotonic() >= until:
                break
            if not trained and time.monotonic() >= train_at:
                trained = True
                await _train(s, t, until + finish)
                continue
            choice = rng.random()
            if choice < 0.2 and not polled:
                polled = await _poll(s, question_id, rng, t)
            elif choice < 0.5 and await _check(s, rng, t):
                pass
            elif _controls(s):
                await _move(s, rng, t)
        if not trained:
            s.errors.append("never got to press Train within the session")
    except (TimeoutError, OSError) as error:
        # nothing asked yet: the student failed connecting, before its first request set what it was doing
        s.errors.append(f"protocol: {error!r} while {s.doing or 'connecting, before its first request'}")
    finally:
        await s.close()
    problems = [f"{s.name}: {e}" for e in s.errors + s.exceptions + s.refusals]
    problems += [f"{s.name}: {x[:120]}" for x in s.texts if "cannot be reached" in x]
    return {"times": t, "problems": problems}


async def _class(url: str, pid: int, n: int, lesson: str, seconds: float, window, seed: int, finish: float) -> dict:
    loop = asyncio.get_running_loop()
    code_ready: asyncio.Future = loop.create_future()
    cpu_before, started = cpu_seconds(pid), time.monotonic()
    rng = random.Random(seed)
    students = [
        asyncio.create_task(_student(url, code_ready, i, lesson, seconds, window, rng.randrange(10**9), finish))
        for i in range(n)
    ]
    problems: list[str] = []
    teacher = None
    try:
        teacher, code, _key, met = await _teacher(url, lesson)
        problems += met
        classes, _ = store.open_store(os.environ[ENV_URL])
        question = classes.current_question(code)
        classes.engine.dispose()
        code_ready.set_result((code, question.id))
    except Exception as error:  # the class never started: the students cannot join, say why
        code_ready.set_exception(error)
        problems.append(f"teacher: {error!r}")
    outcomes = await asyncio.gather(*students, return_exceptions=True)
    wall, cpu = time.monotonic() - started, cpu_seconds(pid) - cpu_before
    if teacher is not None:
        problems += [f"teacher: {e}" for e in teacher.errors + teacher.exceptions]
        await teacher.close()
    times: dict[str, list[float]] = {}
    for outcome in outcomes:
        if isinstance(outcome, BaseException):
            problems.append(repr(outcome)[:200])
            continue
        problems += outcome["problems"]
        for k, v in outcome["times"].items():
            times.setdefault(k, []).extend(v)
    return {
        "p50_ms": {k: _ms(v, 0.5) for k, v in times.items()},
        "p90_ms": {k: _ms(v, 0.9) for k, v in times.items()},
        "counts": {k: len(v) for k, v in times.items()},
        "longest_progress_gap_ms": round(1000 * max(times.get("progress gap") or [0.0]), 1),
        "longest_gap_ms_by_state": {
            state: round(1000 * max(times.get(f"gap while {state}") or [0.0]), 1) for state in ("queued", "training")
        },
        "server_cores": round(cpu / wall, 2),
        "seconds": round(wall, 1),
        "problems": problems,
    }


def run(n: int, lesson: str, seconds: float, window, seed: int = 0, finish: float = FINISH_SECONDS) -> dict:
    load_before, speed, code = os.getloadavg()[0], speed_ms(), code_version()  # the code as the server starts
    with database("sqlite") as (db_url, _how):
        saved = os.environ.get(ENV_URL)
        os.environ[ENV_URL] = db_url
        try:
            with server() as (url, pid):
                row = asyncio.run(_class(url, pid, n, lesson, seconds, window, seed, finish))
                logged = _log_errors(server_log(url))
        finally:
            if saved is None:
                os.environ.pop(ENV_URL, None)
            else:
                os.environ[ENV_URL] = saved
    problems = row.pop("problems") + logged
    return {
        "students": n,
        "lesson": lesson,
        "window_s": list(window),
        "finish_s": finish,
        **row,
        "errors": len(problems),
        "error_samples": problems[:6],
        "nproc": os.cpu_count(),
        "load_before": round(load_before, 2),
        "load_after": round(os.getloadavg()[0], 2),
        "speed_ms": speed,
        **({"slow_cores": share} if (share := slowed()) is not None else {}),
        "date": datetime.date.today().isoformat(),
        "commit": code,
    }


def final_line(r: dict) -> str:
    p90 = r["p90_ms"]
    parts = " ".join(f"{k.replace(' ', '_')} {v:.0f}" for k, v in p90.items() if v is not None)
    return (
        f"class scenario: students {r['students']} p90_ms {parts} longest_progress_gap_ms "
        f"{r['longest_progress_gap_ms']:.0f} "
        + " ".join(f"longest_gap_{k}_ms {v:.0f}" for k, v in r.get("longest_gap_ms_by_state", {}).items())
        + f" server_cores {r['server_cores']} errors {r['errors']}"
    )


def write(row: dict) -> None:
    stored = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    same = [
        r for r in stored.get(SECTION, []) if classroom_report.scenario_group(r) == classroom_report.scenario_group(row)
    ]
    others = [r for r in stored.get(SECTION, []) if r not in same]
    keep_figures(SECTION, [*others, *same[-(KEEP - 1) :], row])
    classroom_report.write()


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--students", type=int, default=30)
    parser.add_argument("--lesson", default="masking")
    parser.add_argument("--seconds", type=float, default=90.0, help="from the server coming up to the end")
    parser.add_argument("--window", type=float, nargs=2, default=(20.0, 50.0), help="when students press Train (s)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--finish", type=float, default=FINISH_SECONDS, help="how long past --seconds a trainer watches their run (s)"
    )
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args(argv)
    row = run(args.students, args.lesson, args.seconds, tuple(args.window), args.seed, args.finish)
    print(json.dumps(row), file=sys.stderr, flush=True)
    if args.write:
        write(row)
    print(final_line(row), flush=True)


if __name__ == "__main__":
    main()
