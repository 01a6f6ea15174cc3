"""Several replicas for a department: deploy/'s topology, here, without Docker.

    python -m bench.replicas [--students 60] [--write]

Starts what ``deploy/docker-compose.yml`` describes, on loopback: a throwaway PostgreSQL cluster
(``store.throwaway``, or the server in ``ATTENTION_LAB_DB_URL``), two ``streamlit run app.py`` replicas on free
ports with ``ATTENTION_LAB_DB_URL`` set, and Debian's nginx in front, run in the foreground from a temporary folder
(its own prefix, pid, logs) with **deploy/nginx.conf itself** filled in (the compose file fills the same template).
nginx keeps each browser on one replica by a random key it puts in a cookie (see deploy/nginx.conf for why not
``ip_hash``). Then, every client a simulated browser tab through nginx (``bench.streamlit_client`` plus cookies):

1. **A class across both replicas.** The teacher starts a class and asks the masking lesson's first exercise; N
   students join, answer and post a run: ``bench.class_session``'s own teacher and student steps, run with this
   module's :class:`Browser` (which first loads the page over HTTP, as a browser does, and keeps the cookies
   nginx and the app set). Runs are posted through the store API, not trained (as in ``bench.class_session``).
   Which replica served each student is read from nginx's access log (the replica that answered the student's
   page request and later its websocket), and the open websockets per replica from the kernel (``/proc/net/tcp``).
2. **Seen the same from either.** The teacher's dashboard is opened on each replica directly (the teacher's
   cookie, no nginx): joined, answers, the "answers so far" line and the runs table must be equal on both, and
   equal to the database's counts.
3. **One replica killed mid-run.** Every student changes their answer, one every 0.1 s; halfway through, the
   replica with the most students gets SIGKILL. Its tabs see their websocket close and do what Streamlit's
   browser client does: a new websocket to the same address with the same cookies, the page they were on run again
   with the values the tab holds. nginx finds the replica gone and sends them to the other one, where the class
   page and the lesson rejoin them from their cookie. They then send their changed answer.

Counted at the end: errors E (protocol failures other than the killed replica's closed websockets, exceptions or
refusals on a page, a step that did not say it worked, a tab that did not come back, a student whose page and
websocket went to different replicas, "class store action failed" lines in the replicas' logs); consistent
(step 2 held, and after the kill the surviving replica's dashboard still equals the database); lost L: members,
answers and runs of the class in the database before the kill minus after, plus every reconnected student the
page did not greet by their own name, plus every student whose stored answer is not the last one they sent. The
last line printed is

    replicas: R students N errors E consistent yes|no failover lost L

R: the replicas that served students (of the two started). ``--write`` stores the figures in
``bench/classroom.json`` (section ``replicas``), writes ``bench/sections/replicas.md`` and renders
``bench/CLASSROOM.md``. Loopback only; about a minute of activity at N = 60.
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
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from unittest import mock

import pyarrow as pa
import sqlalchemy as sa
import websockets

import store
from bench import class_session, classroom_report, sections
from bench.classroom_report import RUNS_NOTE
from bench.classroom_report import replicas_final_line as final_line
from bench.classroom_report import replicas_section_lines as section_lines
from bench.harness import RESULTS, free_port, keep_figures, server, server_log
from bench.streamlit_client import ERROR_STATUS, Student
from store.db import ENV_URL
from store.schema import answers, members, runs
from store.throwaway import cluster

ROOT = Path(__file__).resolve().parents[1]
DEPLOY = ROOT / "deploy"
TEMPLATE = DEPLOY / "nginx.conf"
COMPOSE = DEPLOY / "docker-compose.yml"
PLACEHOLDERS = ("ATTENTION_LAB_LISTEN", "ATTENTION_LAB_REPLICAS", "ATTENTION_LAB_ACCESS_LOG")
ROUTE_COOKIE = "attention_lab_route"  # nginx's routing key (deploy/nginx.conf)
SECTION = "replicas"
LESSON = class_session.LESSON
STAGGER = 0.1  # seconds between two students' arrivals, and between two changed answers
RECONNECT_TRIES = 10  # a dropped tab tries again this many times, 0.5 s apart at first, then 1 s, 2 s...
TABS: list = []  # every Browser of the running session, closed at its end
COOKIE_SCRIPT = re.compile(r"document\.cookie = '([A-Za-z0-9_]+)=([^;']*); Max-Age=(\d+)")

# nginx's own file, around deploy/nginx.conf: the parts a Docker image has and a foreground nginx in a temporary
# folder needs (its pid, logs and temporary files there, one worker).
MAIN_CONF = """\
daemon off;
worker_processes 1;
pid {folder}/nginx.pid;
error_log {folder}/error.log notice;
events {{ worker_connections 1024; }}
http {{
    client_body_temp_path {folder}/client_body;
    proxy_temp_path {folder}/proxy;
    fastcgi_temp_path {folder}/fastcgi;
    uwsgi_temp_path {folder}/uwsgi;
    scgi_temp_path {folder}/scgi;
    include {folder}/attention_lab.conf;
}}
"""


# ------------------------------------------------------------------------------------------------ the topology
def nginx_binary() -> str | None:
    """Debian's nginx, or None."""
    return shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx",) if os.access(p, os.X_OK)), None)


def render_template(values: dict[str, str]) -> str:
    """deploy/nginx.conf with its placeholders filled, as the nginx image's envsubst fills them."""
    text = TEMPLATE.read_text()
    for name in PLACEHOLDERS:
        text = text.replace("${" + name + "}", values[name])
    left = re.findall(r"\$\{(\w+)\}", text)
    if left:
        raise ValueError(f"deploy/nginx.conf has placeholders nobody fills: {left}")
    return text


@contextlib.contextmanager
def nginx(replicas: list[str]):
    """Debian's nginx in the foreground, deploy/nginx.conf in front of ``replicas`` ("host:port"); yields
    ``(url, access_log)``."""
    binary = nginx_binary()
    if binary is None:
        raise RuntimeError("nginx is not installed (Debian: apt-get install nginx)")
    folder = Path(tempfile.mkdtemp(prefix="attention-lab-nginx-"))
    folder.chmod(0o755)  # nginx's workers (user nobody when we are root) write temporary files in here
    port = free_port()
    access = folder / "access.log"
    conf = render_template(
        {
            "ATTENTION_LAB_LISTEN": f"127.0.0.1:{port}",
            "ATTENTION_LAB_REPLICAS": " ".join(f"server {r};" for r in replicas),
            "ATTENTION_LAB_ACCESS_LOG": str(access),
        }
    )
    (folder / "attention_lab.conf").write_text(conf)
    (folder / "nginx.conf").write_text(MAIN_CONF.format(folder=folder))
    command = [binary, "-p", str(folder), "-c", str(folder / "nginx.conf"), "-e", str(folder / "error.log")]
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=(folder / "stderr.log").open("w"))
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2):
                    break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    said = (folder / "stderr.log").read_text() + (folder / "error.log").read_text()
                    raise RuntimeError(f"nginx did not start: {said[-600:]}") from None
                time.sleep(0.1)
        yield url, access
    finally:
        proc.terminate()  # SIGTERM: nginx's fast shutdown
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        shutil.rmtree(folder, ignore_errors=True)


def established(port: int) -> int:
    """Open TCP connections to a local ``port`` (the kernel's count: nginx's websockets to that replica)."""
    count = 0
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        local, state = line.split()[1], line.split()[3]
        count += state == "01" and int(local.rsplit(":", 1)[1], 16) == port
    return count


def access_lines(log: Path) -> list[dict]:
    """nginx's access log (deploy/nginx.conf's format): request, status, the replica(s) tried, the routing key."""
    pattern = re.compile(r'"(\S+) (\S+) [^"]*" (\d+) upstream=(.*?) route=(\S*)')
    found = []
    for line in log.read_text().splitlines() if log.exists() else []:
        m = pattern.search(line)
        if m:
            found.append(
                {
                    "path": m.group(2),
                    "status": int(m.group(3)),
                    "route": m.group(5),
                    "upstreams": [u.strip() for u in m.group(4).split(",")],
                }
            )
    return found


# -------------------------------------------------------------------------------------------------- the browser
@dataclass
class Browser(Student):
    """A tab as a browser holds it: the page is first loaded over HTTP (nginx's routing cookie comes with it), every
    cookie the app sets (``document.cookie`` in an ``st.html`` script) is kept and sent with the websocket, and a
    websocket the server drops is opened again, as Streamlit's own client does."""

    cookies: dict[str, str] = field(default_factory=dict)
    metrics: dict[str, str] = field(default_factory=dict)  # st.metric label -> value, as last drawn
    tables: list[list[dict]] = field(default_factory=list)  # every st.dataframe's rows, in order
    drops: list[str] = field(default_factory=list)  # the server closed the websocket (the browser reconnects)
    reconnect_seconds: list[float] = field(default_factory=list)  # drop -> the page run again on the new socket
    reconnects: int = 0

    def __post_init__(self):
        super().__post_init__()
        TABS.append(self)
        self.closed = False
        self._leaving = False
        self._reconnecting: asyncio.Task | None = None
        self.texts_at_reconnect = 0  # len(texts) when the last reconnect's page run began

    # the HTTP side
    def _cookie_header(self) -> dict:
        return {"Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items())} if self.cookies else {}

    def _load(self, page_name: str) -> None:
        address = f"{self.url}/{page_name}" + (f"?{self.query}" if self.query else "")
        request = urllib.request.Request(address, headers=self._cookie_header())
        with urllib.request.urlopen(request, timeout=30) as response:
            response.read()
            for header in response.headers.get_all("Set-Cookie") or []:
                name, _, value = header.split(";", 1)[0].partition("=")
                self.cookies[name.strip()] = value.strip()

    # the websocket
    async def open(self, page_name: str, timeout: float = 120.0) -> float:
        await asyncio.to_thread(self._load, page_name)
        await self._connect()
        self.page_name = page_name
        return await self._open_run(timeout)

    async def _connect(self) -> None:
        host = self.url.split("://", 1)[1]
        self._ws = await websockets.connect(
            f"ws://{host}/_stcore/stream",
            subprotocols=["streamlit"],
            origin=self.url,
            max_size=None,
            additional_headers=self._cookie_header(),
        )
        self.closed = False
        self._reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        try:
            await super()._read()
        except websockets.ConnectionClosed as error:
            if not self._leaving:
                self.drops.append(repr(error)[:120])
        finally:
            self.closed = True
            self._finished.put_nowait(ERROR_STATUS)  # a request waiting for this socket's answer stops waiting
            if not self._leaving:
                self._reconnecting = asyncio.get_running_loop().create_task(self._reconnect(time.perf_counter()))

    async def _reconnect(self, dropped: float) -> None:
        self._stop_polling()
        wait = 0.5
        for attempt in range(RECONNECT_TRIES):
            await asyncio.sleep(wait if attempt else 0.2)
            wait = min(wait * 2, 4.0)
            try:
                await self._connect()
            except (OSError, websockets.InvalidHandshake, TimeoutError):
                continue
            self.reconnects += 1
            self.texts_at_reconnect = len(self.texts)
            self.widgets.clear()
            self.keyed.clear()
            # the page it was on, with the values the tab holds
            await self._rerun(timeout=120, doing=f"reconnecting to {self.page_label}")
            if not self.closed:
                self.reconnect_seconds.append(time.perf_counter() - dropped)
            return
        raise RuntimeError(f"{self.name}: could not reconnect in {RECONNECT_TRIES} tries")

    async def settled(self) -> None:
        """Wait until a reconnect in progress is done (raises if it failed)."""
        while self._reconnecting is not None and not self._reconnecting.done():
            await asyncio.shield(self._reconnecting)

    async def close(self) -> None:
        self._leaving = True
        if self._reconnecting is not None:
            self._reconnecting.cancel()
        await super().close()

    # what a page sends
    def _element(self, element, fragment_id: str) -> None:
        super()._element(element, fragment_id)
        kind = element.WhichOneof("type")
        if kind == "html":  # ui.classroom._set_cookie: the browser would run the script
            for name, value, life in COOKIE_SCRIPT.findall(element.html.body):
                if int(life) and value:
                    self.cookies[name] = value
                else:
                    self.cookies.pop(name, None)
        elif kind == "metric":
            self.metrics[element.metric.label] = element.metric.body
        elif kind == "dataframe":
            data = element.dataframe.arrow_data.data
            self.tables.append(pa.ipc.open_stream(data).read_all().to_pylist() if data else [])


# ------------------------------------------------------------------------------------------------- the session
def _counts(engine: sa.Engine, code: str, question_id: int) -> dict:

    with engine.connect() as conn:
        return {
            "members": conn.execute(sa.select(sa.func.count()).where(members.c.class_code == code)).scalar(),
            "answers": conn.execute(
                sa.select(sa.func.count(sa.distinct(answers.c.member_id))).where(answers.c.question_id == question_id)
            ).scalar(),
            "runs": conn.execute(sa.select(sa.func.count()).where(runs.c.class_code == code)).scalar(),
        }


async def dashboard_via(replica: str, cookies: dict) -> dict:
    """The teacher's dashboard opened on one replica directly (no nginx), with the teacher's cookie: what it says
    about the class (not who is "here now", which moves with time)."""
    tab = Browser(replica, name=f"teacher on {replica}")
    tab.cookies = {k: v for k, v in cookies.items() if k != ROUTE_COOKIE}
    try:
        await tab.open(class_session.CLASS_PAGE)
        so_far = re.findall(r"\*\*(\d+)\*\* answers? so far", " ".join(tab.texts))
        runs = next((t for t in reversed(tab.tables) if t and "run" in t[0] and "setting" in t[0]), [])
        return {
            "joined": tab.metrics.get("Joined"),
            "answers": tab.metrics.get("Answers to the question"),
            "answers_so_far": int(so_far[-1]) if so_far else None,
            "runs": sorted((r["run"], r["setting"]) for r in runs),  # names are off on the projected dashboard
            "problems": tab.errors + tab.exceptions + tab.refusals,
        }
    finally:
        await tab.close()


def _agrees(view: dict, counts: dict) -> bool:
    return (
        view["joined"] == str(counts["members"])
        and view["answers"] == str(counts["answers"])
        and view["answers_so_far"] == counts["answers"]
        and len(view["runs"]) == counts["runs"]
    )


async def _change_answer(s: Browser, key: str, value) -> None:
    """A student changes their answer: sets the new value and presses Send. When the tab's websocket drops on the
    way, the browser's reconnect runs first and the student presses again on the page it brings back."""
    submit = f"FormSubmitter:{key}.form-Send my answer"
    for _attempt in range(4):
        await s.settled()
        if key not in s.keyed:
            raise RuntimeError(f"{s.name}: no question bar (reconnects: {s.reconnects})")
        s.set("Your answer", value, key=key)
        mark = len(s.texts)
        try:
            await s.click("Send my answer", key=submit)
        except websockets.ConnectionClosed:
            continue
        if s.closed:
            continue
        if "Your answer is in" in " ".join(s.texts[mark:]):
            return
        raise RuntimeError(f"{s.name}: the changed answer was not confirmed ({' '.join(s.texts[mark:])[:160]!r})")
    raise RuntimeError(f"{s.name}: the changed answer could not be sent in 4 tries")


async def _session(url: str, replicas: list[tuple[str, int]], access: Path, db_url: str, n: int, payload: dict):

    classes, _learners = store.open_store(db_url)
    problems: list[str] = []
    TABS.clear()
    # 1. a class across both replicas: bench.class_session's teacher and students, as browsers behind nginx
    with mock.patch.object(class_session, "Student", Browser):
        teacher, code, _key, met = await class_session._teacher(url, LESSON)
        problems += met
        question = classes.current_question(code)
        if question is None or question.state != "open":
            raise RuntimeError("the teacher's question is not open")

        def post(name: str, i: int) -> None:  # as bench.class_session posts a finished run

            with classes.engine.connect() as conn:
                row = conn.execute(
                    sa.select(members.c.id, members.c.name).where(members.c.class_code == code, members.c.name == name)
                ).one()
            settings = {"masking.live_causal": True, "masking.seed": i % 5}
            classes.post_run(
                store.Member(row.id, code, row.name),
                LESSON,
                settings,
                payload["curve"],
                payload["metrics"],
                payload["snapshot"],
            )

        started = time.monotonic()
        tasks = []
        for i in range(n):
            rng = random.Random(i)
            tasks.append(asyncio.create_task(class_session._student(url, code, question.id, i, LESSON, post, rng)))
            await asyncio.sleep(STAGGER)
        results = await asyncio.gather(*tasks, return_exceptions=True)
    crowd: list[Browser] = []
    for result in results:
        if isinstance(result, BaseException):
            problems.append(repr(result)[:300])
        else:
            crowd.append(result["student"])
    joined_s = time.monotonic() - started
    await asyncio.sleep(2.0)  # everyone on the lesson, bars polling

    # who is where: nginx's log (each student's page request) and the kernel (open websockets per replica)
    by_route = {}
    for line in access_lines(access):
        if line["path"].startswith(f"/{class_session.CLASS_PAGE}") and line["route"] not in by_route:
            by_route[line["route"]] = line["upstreams"][-1]
    home = {s.name: by_route.get(s.cookies.get(ROUTE_COOKIE)) for s in crowd}
    per_replica = {address: sum(1 for r in home.values() if r == address) for address, _pid in replicas}
    sockets = {address: established(int(address.rsplit(":", 1)[1])) for address, _pid in replicas}
    teacher_home = by_route.get(teacher.cookies.get(ROUTE_COOKIE))

    # 2. the class seen from either replica
    before = _counts(classes.engine, code, question.id)
    views = [await dashboard_via(f"http://{address}", teacher.cookies) for address, _pid in replicas]
    for view in views:
        problems += [f"dashboard: {p}" for p in view.pop("problems")]
    same = all(v == views[0] for v in views) and all(_agrees(v, before) for v in views)

    # 3. everyone changes their answer; halfway, the busiest replica is killed
    victim, victim_pid = max(replicas, key=lambda r: (per_replica[r[0]], r[0]))
    key = f"classroom.q{question.id}"
    values = {}
    for i, s in enumerate(crowd):
        box = s.keyed.get(key)
        values[s.name] = (i % len(box.proto.options)) if box is not None and box.kind == "radio" else 0.25 + i / 100
    changes, killed_at = [], None
    t0 = time.monotonic()
    for i, s in enumerate(crowd):
        if i == len(crowd) // 2:
            os.kill(victim_pid, signal.SIGKILL)
            killed_at = time.monotonic() - t0
        changes.append(asyncio.create_task(_change_answer(s, key, values[s.name])))
        await asyncio.sleep(STAGGER)
    changed = await asyncio.gather(*changes, return_exceptions=True)
    failover_s = time.monotonic() - t0
    for result in changed:
        if isinstance(result, BaseException):
            problems.append(repr(result)[:300])
    with contextlib.suppress(Exception):  # a teacher who did not come back is counted below
        await teacher.settled()
    await asyncio.sleep(3.0)  # the dashboard and the bars refresh on the surviving replica

    # what survived
    after = _counts(classes.engine, code, question.id)
    survivor = next(address for address, _pid in replicas if address != victim)
    final_view = await dashboard_via(f"http://{survivor}", teacher.cookies)
    problems += [f"dashboard: {p}" for p in final_view.pop("problems")]
    consistent = same and _agrees(final_view, after)

    with classes.engine.connect() as conn:
        stored = dict(
            conn.execute(
                sa.select(members.c.name, answers.c.answer)
                .join(answers, answers.c.member_id == members.c.id)
                .where(answers.c.question_id == question.id)
            ).all()
        )
    wrong_answer = [s.name for s in crowd if not _same_answer(stored.get(s.name), values[s.name])]
    moved = [s for s in crowd if s.reconnects]
    not_greeted = [s.name for s in moved if f"you are `{s.name}`" not in " ".join(s.texts[s.texts_at_reconnect :])]
    lost = sum(max(0, before[k] - after[k]) for k in before) + len(not_greeted) + len(wrong_answer)

    # errors: a drop is expected only on the killed replica; every other failure counts
    for s in [teacher, *crowd]:
        expected = (home.get(s.name) if s is not teacher else teacher_home) == victim
        if s.drops and not expected:
            problems.append(f"{s.name}: its websocket dropped, but its replica was not the one killed")
        if expected and not s.reconnects:
            problems.append(f"{s.name}: on the killed replica, and never came back")
        closed = [e for e in s.errors if "ConnectionClosed" in e]
        problems += [f"{s.name}: {e}" for e in s.errors if e not in closed or not expected]
        problems += [f"{s.name}: {e}" for e in s.exceptions + s.refusals]
        problems += [f"{s.name}: {t[:120]}" for t in s.texts if "cannot be reached" in t]
    problems += [f"{name}: the page did not greet them as themselves after reconnecting" for name in not_greeted]
    problems += [f"{name}: the stored answer is not the one sent last" for name in wrong_answer]
    teacher_back = teacher_home != victim or (
        teacher.reconnects > 0 and teacher.metrics.get("Joined") == str(after["members"])
    )
    if not teacher_back:
        problems.append("teacher: the dashboard did not come back after the kill")
    for client in TABS:  # every tab opened, a student's whose steps failed included
        await client.close()
    await asyncio.sleep(0.5)  # nginx logs a websocket when it closes
    sticky, seen = 0, set()
    for line in access_lines(access):  # in the order they closed: a tab's first websocket before its reconnection
        if line["path"] == "/_stcore/stream" and line["route"] in by_route and line["route"] not in seen:
            seen.add(line["route"])
            sticky += line["upstreams"][0] != by_route[line["route"]]
    if sticky:
        problems.append(f"{sticky} websockets first reached another replica than their page")
    failovers = [
        line for line in access_lines(access) if line["path"] == "/_stcore/stream" and len(line["upstreams"]) > 1
    ]
    classes.engine.dispose()
    reconnect = sorted(x for s in [teacher, *crowd] for x in s.reconnect_seconds)
    return {
        "students": n,
        "replicas": len(replicas),
        "replicas_serving": sum(1 for v in per_replica.values() if v),
        "per_replica": {address: per_replica[address] for address, _pid in replicas},
        "websockets_per_replica": sockets,
        "teacher_on_killed": teacher_home == victim,
        "joined_in_s": round(joined_s, 1),
        "before": before,
        "after": after,
        "views": [{k: len(v) if k == "runs" else v for k, v in view.items()} for view in views],  # runs: rows
        "consistent": consistent,
        "killed": victim,
        "killed_after_s": round(killed_at or 0.0, 2),
        "failover_students": len(moved),
        "failover_logged_by_nginx": len(failovers),
        "reconnect_median_s": round(reconnect[len(reconnect) // 2], 2) if reconnect else None,
        "reconnect_max_s": round(reconnect[-1], 2) if reconnect else None,
        "second_round_s": round(failover_s, 1),
        "lost": lost,
        "errors": len(problems),
        "error_samples": problems[:5],
        "error_kinds": _kinds(problems),
    }


def _kinds(problems: list[str]) -> dict[str, int]:
    """How many problems of each kind (a problem's text without the student's name and numbers)."""
    kinds: dict[str, int] = {}
    for problem in problems:
        kind = re.sub(r"student \d+|\d+", "#", problem)[:90]
        kinds[kind] = kinds.get(kind, 0) + 1
    return dict(sorted(kinds.items(), key=lambda kv: -kv[1])[:8])


def _same_answer(stored: str | None, sent) -> bool:
    if stored is None:
        return False
    return stored == str(sent) if isinstance(sent, int) else abs(float(stored) - float(sent)) < 1e-6


@contextlib.contextmanager
def database():
    """``(url, how)``: the PostgreSQL server in ``ATTENTION_LAB_DB_URL``, else a throwaway cluster (replicas
    cannot share the embedded SQLite file: it lives in one machine's, one container's, folder)."""

    configured = os.environ.get(ENV_URL, "").strip()
    if configured.startswith("postgresql"):
        yield configured, f"the PostgreSQL server in {ENV_URL}"
        return

    with cluster() as url:
        yield url, "a throwaway PostgreSQL cluster (store.throwaway)"


def run(n: int, argv=None) -> dict:

    clock = time.monotonic()
    load_before = os.getloadavg()[0]
    payload = class_session.one_real_run(LESSON)
    logs: list[Path] = []
    with database() as (db_url, how):
        saved = os.environ.get(ENV_URL)
        os.environ[ENV_URL] = db_url  # every replica's store
        try:
            with contextlib.ExitStack() as stack:
                replicas = []
                for _ in range(2):
                    address, pid = stack.enter_context(server("--server.address", "127.0.0.1"))
                    replicas.append((address.split("://", 1)[1], pid))
                    logs.append(server_log(address))
                url, access = stack.enter_context(nginx([address for address, _pid in replicas]))
                row = asyncio.run(_session(url, replicas, access, db_url, n, payload))
        finally:
            if saved is None:
                os.environ.pop(ENV_URL, None)
            else:
                os.environ[ENV_URL] = saved
    logged = [line for log in logs for line in class_session._log_errors(log)]
    row["errors"] += len(logged)
    row["error_samples"] = (row["error_samples"] + logged)[:5]
    for kind, count in _kinds(logged).items():
        row["error_kinds"][f"replica log: {kind}"] = count
    return row | {
        "database": how,
        "nginx": subprocess.run([nginx_binary(), "-v"], capture_output=True, text=True).stderr.strip(),
        "runs_posted": RUNS_NOTE,
        "load_before": round(load_before, 2),
        "load_after": round(os.getloadavg()[0], 2),
        "date": datetime.date.today().isoformat(),
        "measured_by": sections.measured_by(SECTION, argv, time.monotonic() - clock, load_before),
    }


def write(row: dict) -> None:
    stored = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    rows = [r for r in stored.get(SECTION, []) if r["students"] != row["students"]]
    keep_figures(SECTION, [*rows, row])
    stored = json.loads(RESULTS.read_text())
    sections.write(SECTION, section_lines(stored[SECTION]))
    classroom_report.write()


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--students", type=int, default=60)
    parser.add_argument("--write", action="store_true", help="record the figures (bench/CLASSROOM.md, RESULTS.md)")
    args = parser.parse_args(argv)
    row = run(args.students, argv)
    print(json.dumps(row), file=sys.stderr, flush=True)
    if args.write:
        write(row)
    print(final_line(row), flush=True)


if __name__ == "__main__":
    main()
