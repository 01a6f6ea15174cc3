"""What the class benches share: a fresh ``streamlit run`` on a free port, the server process's memory and CPU, a
percentile, the machine a figure was measured on (its load and how fast it ran Python), and where the figures are
kept (``bench/classroom.json``)."""

from __future__ import annotations

import datetime
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "classroom.json"


def free_port() -> int:

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# The servers' logs (the errors students see redacted), in this checkout's git-ignored var/: a bench reads a log back
# when its run ends; a fixed name in the shared /tmp could be another user's file, and the logs piled up there.
LOGS = ROOT / "var" / "bench-logs"
KEEP_LOGS = 40  # the newest; older ones are removed when a server starts


def server_log(url: str) -> Path:
    """The log of the server :func:`server` started at ``url``."""
    return LOGS / f"server-{url.rsplit(':', 1)[1]}.log"


def _new_log(port: int) -> Path:
    LOGS.mkdir(parents=True, exist_ok=True)
    old = sorted((when, path) for path in LOGS.glob("server-*.log") if (when := _modified(path)) is not None)
    for _when, path in old[: max(0, len(old) - KEEP_LOGS + 1)]:
        path.unlink(missing_ok=True)
    return server_log(f"http://127.0.0.1:{port}")


def _modified(path: Path) -> float | None:
    """When a log was last written; None when another bench (the suite runs two at once) has just removed it."""
    try:
        return path.stat().st_mtime
    except FileNotFoundError:
        return None


@contextmanager
def server(*extra: str, script: str = "app.py", root: Path = ROOT):
    """A fresh ``streamlit run app.py`` (or another ``script``) with the shipped config, in ``root`` (this checkout,
    or another, to set two versions of the code side by side); yields ``(url, pid)``. Its log: :func:`server_log`."""
    port = free_port()
    log = _new_log(port)
    with log.open("w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", script, "--server.port", str(port), *extra],
            cwd=root,
            stdout=out,
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


def keep_figures(section: str, figures) -> None:
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


# What a bench writes: a change there is not a change to the code it measures.
RECORDS = (":(exclude)bench/*.json", ":(exclude)bench/*.md")


def code_version() -> str | None:
    """The commit this checkout runs, its short hash, with a "+" where tracked files other than the benches' records
    differ from it; None outside a git checkout. Stored beside a row, it says which code a figure measured."""
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
        changed = subprocess.run(["git", "diff", "--quiet", "HEAD", "--", ".", *RECORDS], cwd=ROOT, capture_output=True)
    except OSError:
        return None
    if head.returncode != 0:
        return None
    return head.stdout.strip() + ("+" if changed.returncode == 1 else "")


SLOW_CORES_ENV = "BENCH_SLOW_CORES"  # bench.slow_cores tells the command it runs the share it takes


def slowed() -> float | None:
    """The share of every core ``bench.slow_cores`` takes while this bench runs under it, else None. ``speed_ms``
    reads CPU time and does not see it, so a row measured under it says so beside its speed."""
    share = os.environ.get(SLOW_CORES_ENV)
    return float(share) if share else None


def machine() -> dict:
    load = os.getloadavg()[0]
    return {
        "nproc": os.cpu_count(),
        "load_before": round(load, 2),
        "speed_ms": speed_ms(),
        "date": datetime.date.today().isoformat(),
    }
