"""The server's memory thread (``ui.page._give_memory_back``): it collects every pass, and once, on its first pass,
moves what the server holds by then to the collector's permanent generation (``gc.freeze``), never again (a
session that opens later must stay collectable when it closes: issue 22, items 3 and 4).

Run in a subprocess: freezing is process-wide and would outlive the test."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.helpers import ROOT

PROBE = """
import gc, importlib, json, threading, time
page = importlib.import_module("ui.page")  # the module: ``ui.page`` the name is its page() function
page.MEMORY_CHECK_SECONDS = 0.05
held = [[i] for i in range(50_000)]  # what the server holds at start-up: lists, tracked by the collector
threading.Thread(target=page._give_memory_back, daemon=True).start()
deadline = time.monotonic() + 60  # its first pass imports what it needs (torch among them) first
while not gc.get_freeze_count() and time.monotonic() < deadline:
    time.sleep(0.05)
first = gc.get_freeze_count()
later = [[i] for i in range(50_000)]  # a session's objects, made after the first pass
time.sleep(0.5)
print(json.dumps({"first": first, "after": gc.get_freeze_count()}))
"""


def test_the_first_pass_freezes_what_the_server_holds_and_later_passes_freeze_nothing_more():
    out = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    counts = json.loads(out.stdout.strip().splitlines()[-1])
    assert counts["first"] >= 50_000  # the start-up objects are frozen
    assert counts["after"] == counts["first"]  # later passes freeze nothing more
