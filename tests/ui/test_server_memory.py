"""The server's memory thread (``ui.server._give_memory_back``): it collects every pass, and once, on its first
pass, moves what the server holds by then to the collector's permanent generation (``gc.freeze``), never again (a
session that opens later must stay collectable when it closes).

Run in a subprocess: freezing is process-wide and would outlive the test."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.helpers import ROOT

PROBE = """
import gc, json, threading, time
from ui import server
server.MEMORY_CHECK_SECONDS = 0.05
held = [[i] for i in range(50_000)]  # what the server holds at start-up: lists, tracked by the collector
threading.Thread(target=server._give_memory_back, daemon=True).start()
deadline = time.monotonic() + 60  # its first pass imports what it needs (torch among them) first
while not gc.get_freeze_count() and time.monotonic() < deadline:
    time.sleep(0.05)
first = gc.get_freeze_count()
later = [[i] for i in range(50_000)]  # a session's objects, made after the first pass
time.sleep(0.5)
print(json.dumps({"first": first, "after": gc.get_freeze_count()}))
"""


@pytest.mark.slow  # starts a Python process
def test_the_first_pass_freezes_what_the_server_holds_and_later_passes_freeze_nothing_more():
    out = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    counts = json.loads(out.stdout.strip().splitlines()[-1])
    assert counts["first"] >= 50_000  # the start-up objects are frozen
    assert counts["after"] == counts["first"]  # later passes freeze nothing more


THRESHOLDS_PROBE = """
import gc, json, weakref
from ui import server
server.MEMORY_CHECK_SECONDS = 3600.0  # the memory thread's own collection stays out of this
before = gc.get_threshold()
server._start_once()


class Node:
    pass


dead = []
for _ in range(5):  # garbage cycles, then more new objects than one young collection waits for
    a, b = Node(), Node()
    a.other, b.other = b, a
    dead.append(weakref.ref(a))
    del a, b
    keep = [[i] for i in range(server.GC_THRESHOLDS[0] * 2)]
print(json.dumps({"before": before, "after": gc.get_threshold(), "alive": sum(r() is not None for r in dead)}))
"""


@pytest.mark.slow  # starts a Python process
def test_the_collector_runs_less_often_once_the_server_starts_and_still_collects_garbage_cycles_on_its_own():
    out = subprocess.run(
        [sys.executable, "-c", THRESHOLDS_PROBE], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr[-2000:]
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    assert seen["before"][0] < seen["after"][0] == 10_000  # Python's default starts one every 700 new objects
    assert seen["alive"] <= 1  # every cycle but perhaps the last is collected young, with no gc.collect()
