"""The suite's two workers keep their groups (``tests/conftest.py``): every test of the one shared server on one
worker, each other file whole on one worker. pytest-xdist groups by rewriting each test's id; where a pytest release
does not let it, every group is split silently, each worker starts its own server and Chromium, and the pages the
phone and accessibility tests share are drawn twice. Two small files of this suite, run on two workers, show it."""

from __future__ import annotations

import re
import subprocess
import sys

from tests.helpers import ROOT

FILES = ("tests/lessons/common/test_timing.py", "tests/lessons/common/test_url_state.py")


def test_each_file_runs_whole_on_one_worker_under_its_group():
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-n", "2", "-v", "-p", "no:cacheprovider", *FILES],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    ran = re.findall(r"^\[(gw\d)\] \[\s*\d+%\] PASSED (.+?) *$", run.stdout, re.MULTILINE)
    assert len(ran) > 10
    for file in FILES:
        mine = [(worker, test) for worker, test in ran if test.startswith(file)]
        group = file.removeprefix("tests/")
        assert mine and all(test.endswith(f"@{group}") for _, test in mine), mine[:3]  # the group is in its id
        assert len({worker for worker, _ in mine}) == 1, mine  # and the file ran on one worker
