"""``bench/CLASSROOM.md``, written from ``bench/classroom.json``: every stored class figure, the machine it was measured
on, and the targets. Each bench that stores figures renders it again (``python -m bench.classroom render`` too)."""

from __future__ import annotations

import json
import statistics

from bench import sections
from bench.harness import RESULTS, ROOT

SETTLE_S = 35  # seconds before reading an idle server's memory: one of its 30 s give-back rounds has run
RUNS_NOTE = "runs posted through the store API, not trained"
TARGET_P90_MS = 500.0  # a class session's dashboard
PROFILE_RATE = 200  # py-spy samples a second


def write() -> None:
    """Render CLASSROOM.md from what is stored now."""
    (ROOT / "bench" / "CLASSROOM.md").write_text(render(json.loads(RESULTS.read_text())))


# A class on one laptop (bench.class_scenario), 30 students on 2 cores: first paragraph p90, whole page p90 (ms);
# every control, Check and poll answer p90 (ms); the longest wait between two progress updates a trainer sees (ms)
SCENARIO_TARGETS = {"paragraph": 1000, "whole page": 1500, "controls and checks": 250, "progress gap": 2000}
SCENARIO_ACTIONS = ("fragment control", "whole-page control", "check", "poll answer")


def scenario_met(r: dict) -> dict[str, bool]:
    """Each of the class scenario's targets, met or not, for one stored row (None values: nothing measured)."""
    p90 = r["p90_ms"]
    actions = [p90[k] for k in SCENARIO_ACTIONS if p90.get(k) is not None]
    return {
        "paragraph": p90.get("paragraph") is not None and p90["paragraph"] <= SCENARIO_TARGETS["paragraph"],
        "whole page": p90.get("whole page") is not None and p90["whole page"] <= SCENARIO_TARGETS["whole page"],
        "controls and checks": bool(actions) and max(actions) <= SCENARIO_TARGETS["controls and checks"],
        "progress gap": r["longest_progress_gap_ms"] <= SCENARIO_TARGETS["progress gap"],
        "errors": r["errors"] == 0,
    }


def scenario_lines(rows: list[dict]) -> list[str]:
    """The section CLASSROOM.md leads with: a class as it uses one laptop (``python -m bench.class_scenario``)."""
    if not rows:
        return []
    keys = ("title", "paragraph", "whole page", *SCENARIO_ACTIONS, "train to first progress")
    lines = [
        "## A class on one laptop: the yardstick",
        "",
        "`python -m bench.class_scenario --students N --write`: a cold `streamlit run app.py`; the teacher starts a",
        "class and asks a question; N students open the join link and the lesson within 10 s of the teacher putting",
        "it up, then every 5–20 s move a control, answer an exercise (Check) or the poll, and each presses Train once",
        "inside the stated window (seconds after the server came up). Rows dated before 2026-11-29 drew each arrival",
        "from the server's start instead, which put every student whose moment came before the link into one instant:",
        "their title, paragraph and whole-page times measure that burst's queue.",
        "p90 in ms (p50 in brackets); gap: the longest wait between two progress updates any trainer saw, and (from",
        "2026-11-29 06:00) apart by what the trainer was looking at: a run waiting in the queue for a free worker (its",
        "place in line shown above the bar; from 08:30 the bar also gives how far the runs training now have got) or",
        "a training run's last report. From 2026-11-29 08:30 a trainer watches their run to its end up to 120 s past",
        "the session (a run still queued then was counted an error before), and a simulated student no longer moves a",
        "control its page has taken away (a replay slider of a panel no longer shown: Streamlit drops such a request,",
        "and the student waited 60 s for an answer). Cores: the",
        "server's CPU seconds per second. Targets, 30 students on 2 cores: first paragraph ≤ "
        f"{SCENARIO_TARGETS['paragraph']}, whole page ≤ {SCENARIO_TARGETS['whole page']}, controls and checks ≤ "
        f"{SCENARIO_TARGETS['controls and checks']}, progress at least every {SCENARIO_TARGETS['progress gap']} ms, "
        "0 errors; 60 students: 0 errors.",
        "",
        "| students | lesson | Train window s | " + " | ".join(keys) + " | gap | cores | errors | load before/after "
        "| speed ms | date | code |",
        "|" + "---|" * (len(keys) + 10),
    ]
    for r in rows:
        cells = [f"{r['p90_ms'].get(k)} ({r['p50_ms'].get(k)})" for k in keys]
        lines.append(
            f"| {r['students']} | {r['lesson']} | {r['window_s'][0]:g}–{r['window_s'][1]:g} | "
            + " | ".join(cells)
            + f" | {_gap(r)} | {r['server_cores']} | {r['errors']} "
            f"| {r['load_before']}/{r['load_after']} | {_speed(r)} | {r['date']} | {r.get('commit') or '—'} |"
        )
    lines += ["", *scenario_verdicts(rows), ""]
    notes = ROOT / "bench" / "class_scenario.md"  # what the rows mean, machine by machine: written by hand
    if notes.exists():
        lines += [*notes.read_text(encoding="utf-8").rstrip("\n").split("\n"), ""]
    return lines


def scenario_verdicts(rows: list[dict]) -> list[str]:
    """One line per class size with stored rows, and apart from them the rows measured on cores ``bench.slow_cores``
    slowed: in how many rows every target was met, and for each row that missed one, which, on what machine (its
    speed) and code, and the figure. Every row, not the latest alone: the rows come from machines of different
    speeds."""
    lines = []
    for n, share in sorted({scenario_group(r) for r in rows}, key=lambda g: (g[0], g[1] or 0.0)):
        mine = [r for r in rows if scenario_group(r) == (n, share)]
        if n == 30:
            missed = [(r, [k for k, ok in scenario_met(r).items() if not ok]) for r in mine]
        else:  # a larger class: no error is the one target
            missed = [(r, [] if r["errors"] == 0 else ["errors"]) for r in mine]
        short = [(r, names) for r, names in missed if names]
        slowed = "" if share is None else f" on cores slowed by {share:.1%}"
        line = f"{n} students{slowed}: every target met in {len(mine) - len(short)} of {len(mine)} rows"
        if short:
            line += "; not met in " + "; ".join(
                f"the row of {r['date']}{_code(r)} at speed ms {r['speed_ms']} ({_all_missed(r, names)})"
                for r, names in short
            )
        lines.append(line + ".")
    return lines


def scenario_group(r: dict) -> tuple[int, float | None]:
    """The rows a class-scenario row is kept and judged with: the same class size, on cores slowed by the same share
    or not slowed (an emulated slow machine's rows neither push out nor stand in for a real machine's)."""
    return r["students"], r.get("slow_cores")


def _all_missed(r: dict, targets: list[str]) -> str:
    return ", ".join(_missed(r, target) for target in targets)


def _code(r: dict) -> str:
    return f" (code {r['commit']})" if r.get("commit") else ""


def _speed(r: dict) -> str:
    """A row's speed, and the share of each core ``bench.slow_cores`` took from it where it ran under that (its
    ``speed_ms``, CPU time, does not show it)."""
    share = r.get("slow_cores")
    return f"{r['speed_ms']}" if share is None else f"{r['speed_ms']}, cores slowed by {share:.1%}"


def _missed(r: dict, target: str) -> str:
    """A missed target and the row's figure for it, with how many timings that figure is of where the row says."""
    if target == "errors":
        return f"{r['errors']} error{'s' if r['errors'] != 1 else ''}"
    if target == "progress gap":
        return f"longest progress gap {r['longest_progress_gap_ms']:.0f} ms"
    p90 = r["p90_ms"]
    if target == "controls and checks":
        target = max((k for k in SCENARIO_ACTIONS if p90.get(k) is not None), key=lambda k: p90[k])
    measured = (r.get("counts") or {}).get(target)  # a p90 of a handful is the slowest or the one before it
    return f"{target} p90 {p90.get(target)} ms" + (f" of {measured} timings" if measured is not None else "")


def _gap(r: dict) -> str:
    """The longest progress gap, and apart while queued and while training where the row has them."""
    by = r.get("longest_gap_ms_by_state")
    whole = f"{r['longest_progress_gap_ms']:.0f}"
    return whole if not by else f"{whole} (queued {by['queued']:.0f}, training {by['training']:.0f})"


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
    lines += scenario_lines(stored.get("class_scenario", []))
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
            "the margins they were given, so Plotly.js drew them in one pass (`lessons.common.margins.fit_margins`).",
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
        lines += section_lines(stored["class_session"], stored.get("class_session_profile"))
    if "replicas" in stored:  # written by bench.replicas
        lines += replicas_section_lines(stored["replicas"])
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
        for r in (r for r in rows if "run_ratio" in r):
            lines.append(
                f"- {r['lesson']}: whole-page run on the server {r['run_ms']} ms against the floor's "
                f"{r['reference_run_ms']} ms ({r['floor']}): {r['run_ratio']}× (target ≤ 1.3×: "
                f"{_ok(r['run_ratio'] <= 1.3)}; load {r.get('load_before')}, speed ms {r.get('speed_ms')}, "
                f"{r.get('date')})"
            )
    speed = f"; speed ms: {w['speed_ms']}" if w.get("speed_ms") else ""
    machine_words = f"load before: {w['load_before']}{speed}; date: {w['date']}"
    lines += [f"- {len(rows)} lessons in {w['seconds']} s; {machine_words}", ""]
    return lines


# ------------------------------------------------------------------------------------------------ a class session
def final_line(r: dict) -> str:
    p90 = r["dashboard_p90_ms"]
    shown = "none" if p90 is None else f"{p90:.0f}"
    return (f"class session: students {r['students']} store {r['store']} answers {r['answers']}/{r['students']} "
            f"runs {r['runs']}/{r['students']} dashboard p90 {shown} ms errors {r['errors']}")  # fmt: skip


def met(r: dict) -> bool:
    n = r["students"]
    p90 = r["dashboard_p90_ms"]
    return r["answers"] == n and r["runs"] == n and r["errors"] == 0 and p90 is not None and p90 <= TARGET_P90_MS


def section_lines(rows: list[dict], profiled: dict | None = None, heading: str = "##") -> list[str]:
    """The section "A class session": every stored run, the machine's load, the targets, and where a
    profiled run's server time went."""
    lines = [
        f"{heading} A class session",
        "",
        "`python -m bench.class_session --students N --store sqlite|postgres --write`: a fresh `streamlit run app.py`.",
        "The teacher starts the class with the class page's start form, asks the first exercise of the masking lesson",
        "(“Ask the class”), and watches the dashboard: its fragment rerun every 2 s, as the browser does. N students",
        "arrive one every 50 ms; each opens the student link, joins with a name, opens the lesson, answers in the",
        "question bar's form and posts one finished run, then stays (the bar polling every 3 s) until 20 s after the",
        f"last student is done. All over Streamlit's websocket protocol except the runs: **{RUNS_NOTE}**",
        "(one real run of the lesson's panel, trained once before the class, posted by each student as",
        "`post_finished_run` posts a finished run, as the member the server created for them). Answers and runs are",
        "read back from the database. Dashboard latency: a refresh's rerun request to its `script_finished`; p90",
        "over every refresh from the first student's arrival to the end, and over those until the last student was",
        "done; idle: the refreshes in the 6.5 s before the first student arrives. `load`: the 1-minute load average",
        "before → after (2 cores shared with other engineers' servers, browsers and training: above 2, every latency",
        "here is inflated by it). Server CPU: the server process's CPU",
        "seconds over the session's wall seconds; clients' CPU: the bench process's own (its 60 simulated tabs parse",
        "every message), on the same 2 cores.",
        "",
        "| store | students | answers | runs | refreshes (while students acted) | dashboard median ms | p90 ms "
        "| p90 while students acted | max ms | idle median ms | students done in s | server CPU s until then "
        "| server CPU s / wall s "
        "| clients' CPU s | join p90 ms | answer p90 ms | page runs at once | errors | load | date | target |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    order = sorted(rows, key=lambda r: (r["store"], r["students"], r["date"], r.get("time", "")))
    for r in order:
        target = ("met" if met(r) else "**not met**") if r["students"] == 60 else ""
        lines.append(sections.row(
            r["store"], r["students"], f"{r['answers']}/{r['students']}", f"{r['runs']}/{r['students']}",
            f"{r['refreshes']} ({r.get('storm_refreshes')})", r["dashboard_median_ms"], r["dashboard_p90_ms"],
            r.get("dashboard_storm_p90_ms"), r["dashboard_max_ms"], r["dashboard_idle_median_ms"],
            r["students_done_s"], r.get("server_cpu_while_acting_s", ""), f"{r.get('server_cpu_s')} / {r['seconds']}",
            r.get("clients_cpu_s"),
            r["steps_p90_ms"].get("join"),
            r["steps_p90_ms"].get("answer"), r.get("page_runs_at_once") or "all", r["errors"],
            f"{r['load_before']} → {r['load_after']}",
            f"{r['date']} {r.get('time', '')}".strip(), target,
        ))  # fmt: skip
    lines.append("")
    for r in order:
        lines.append(f"- {r['store']}, N = {r['students']}: `{final_line(r)}`. {r['measured_by']}")
        if r["error_samples"]:
            lines.append(f"  First errors: {'; '.join(r['error_samples'][:3])}")
    lines += ["", "Target (N = 60 on both stores): A = R = N, 0 errors, dashboard p90 ≤ 500 ms.", ""]
    busy = [r for r in order if r.get("server_cpu_while_acting_s")]
    if busy:
        ratios = [r["server_cpu_while_acting_s"] / r["students_done_s"] for r in busy]
        lines += [
            f"While the students arrived, the server used {min(ratios):.2f}–{max(ratios):.2f} s of CPU per second "
            f"(the runs that measured it, N = {', '.join(str(r['students']) for r in busy)}): a whole core, about what "
            "one Python process gets with its GIL. Over the whole session, students sitting in class included, the "
            f"median refresh took {min(r['dashboard_median_ms'] for r in order):g}–"
            f"{max(r['dashboard_median_ms'] for r in order):g} ms.",
            "",
        ]
    if profiled:
        shares = ", ".join(f"{name} {share:.0%}" for name, share in profiled["profile"]["shares"].items())
        lines += [
            f"Where the server's time goes ({profiled['store']}, N = {profiled['students']}, a separate run under "
            f"`--profile`: py-spy sampling the thread that holds the GIL, {PROFILE_RATE} a second, from the first "
            f"student's arrival to the end; {profiled['date']}, load {profiled['load_before']} → "
            f"{profiled['load_after']}): the GIL was held {profiled['profile']['gil_s']} s of "
            f"{profiled['seconds']} s, the server process used {profiled['server_cpu_s']} s of CPU; shares: {shares}. "
            f"The store's reads are {profiled['profile']['store_share_of_dashboard']:.0%} of the dashboard's part. "
            f"That run's dashboard p90 (py-spy pausing the server to sample it): {profiled['dashboard_p90_ms']} ms.",
            "",
        ]
    return lines


# ------------------------------------------------------------------------------------------------ several replicas
def replicas_final_line(r: dict) -> str:
    return (
        f"replicas: {r['replicas_serving']} students {r['students']} errors {r['errors']} "
        f"consistent {'yes' if r['consistent'] else 'no'} failover lost {r['lost']}"
    )


def replicas_section_lines(rows: list[dict], heading: str = "##") -> list[str]:
    """The section "Several replicas": every stored run, the machine's load."""
    lines = [
        f"{heading} Several replicas",
        "",
        "`python -m bench.replicas --students N --write`: the topology of `deploy/docker-compose.yml` without Docker:",
        "a throwaway PostgreSQL cluster, two `streamlit run app.py` replicas, Debian's nginx in front running",
        "`deploy/nginx.conf` itself (sticky by a random key nginx keeps in a cookie). Through nginx, over Streamlit's",
        "websocket protocol with the cookies a browser keeps: a teacher starts a class and asks a question, N students",
        f"join, answer and post a run ({RUNS_NOTE}); the teacher's dashboard is then read on each",
        "replica directly; then every student changes their answer, one every 0.1 s, and halfway the replica with",
        "the most students is killed (SIGKILL). Its tabs reconnect through nginx as Streamlit's browser client does",
        "(new websocket, same cookies), land on the other replica, are rejoined from their cookie and send again.",
        "Students per replica: nginx's access log (the replica that answered each student's page); open websockets",
        "per replica: the kernel's count before the kill. `lost`: class members, answers and runs before the kill",
        "minus after, plus reconnected students not greeted by their own name, plus stored answers that are not the",
        "last one sent. `load`: the 1-minute load average before → after (2 cores shared with other engineers' work).",
        "",
        "| students | students per replica | websockets per replica | consistent | killed after s | failed over "
        "| reconnect median / max s | lost | errors | load | date |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in sorted(rows, key=lambda r: r["students"]):
        lines.append(
            sections.row(
                r["students"],
                " / ".join(map(str, r["per_replica"].values())),
                " / ".join(map(str, r["websockets_per_replica"].values())),
                "yes" if r["consistent"] else "**no**",
                r["killed_after_s"],
                r["failover_students"],
                f"{r['reconnect_median_s']} / {r['reconnect_max_s']}",
                r["lost"],
                r["errors"],
                f"{r['load_before']} → {r['load_after']}",
                r["date"],
            )
        )
    lines.append("")
    for r in sorted(rows, key=lambda r: r["students"]):
        v = r["views"][0] if r["views"] else {}
        lines.append(
            f"- N = {r['students']}: `{replicas_final_line(r)}`. Both dashboards: joined {v.get('joined')}, answers "
            f"{v.get('answers')}, {v.get('runs')} runs; database before the kill {r['before']}, "
            f"after {r['after']}. {r['measured_by']} {r['nginx']}; {r['database']}."
        )
        if r.get("note"):
            lines.append(f"  {r['note']}")
        if r["error_samples"]:
            lines.append(f"  First errors: {'; '.join(r['error_samples'][:3])}")
    lines += ["", "Target: 60 students, 0 errors, consistent yes, lost 0.", ""]
    return lines
