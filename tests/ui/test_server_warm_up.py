"""The server's warm-up (``ui.server.warm_up``) makes what a lesson's first run needs before a student asks (its
imports, the shipped checkpoints, the training workers), and starts only in a ``streamlit run`` server: never under
AppTest, whose process its test owns."""

import subprocess
import sys

import pytest

from tests.helpers import ROOT

WARM = """
import importlib, pkgutil, sys
from ui import server
before = 'torch' in sys.modules
spent = server.warm_up()
from lessons.common import catalog
from lessons.common.pretrained import load_pretrained
modules = [f"lessons.{e.slug}.{m.name}" for e in catalog.built_lessons()
           for m in pkgutil.iter_modules(importlib.import_module(f"lessons.{e.slug}").__path__)]
shipped = {pair for e in catalog.built_lessons() for pair in e.pretrained}
misses = load_pretrained.cache_info().misses
for task, model in shipped:
    load_pretrained(task, model)
from lessons.common.workers import POOL, POOL_SIZE
print(before, all(m in sys.modules for m in modules), len(shipped), load_pretrained.cache_info().misses - misses,
      len(POOL.pids()) == POOL_SIZE, sorted(spent))
"""

HOME = """
import sys, threading, time
from streamlit.testing.v1 import AppTest
at = AppTest.from_file("app.py").run(timeout=60)
assert not at.exception, at.exception
time.sleep(1)
print([t.name for t in threading.enumerate() if t.name == "warm-up"], "torch" in sys.modules)
"""


@pytest.mark.slow  # a fresh interpreter imports every lesson and loads every shipped checkpoint
def test_warm_up_imports_every_lesson_loads_every_shipped_checkpoint_and_starts_the_workers():
    out = subprocess.run([sys.executable, "-c", WARM], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    before, imported, shipped, loaded_again, workers, steps = out.stdout.split(maxsplit=5)
    assert before == "False" and imported == "True"
    assert int(shipped) > 0 and loaded_again == "0", "a checkpoint a page asks for was loaded again"
    assert workers == "True", "the training workers were not started"
    assert steps.strip() == str(["checkpoints", "lessons", "libraries", "total", "training workers"])


@pytest.mark.slow  # a fresh interpreter
def test_no_warm_up_under_apptest():
    out = subprocess.run([sys.executable, "-c", HOME], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["[]", "False"]
