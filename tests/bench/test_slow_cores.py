"""``bench.slow_cores``: runs the command it is given under real spinners, returns its status, and leaves no spinner
behind; refuses bad arguments with a sentence. Correctness only: how much slower the machine gets is the bench's
figure, not a test's."""

import os
import re
import subprocess
import sys

import pytest

from bench.harness import SLOW_CORES_ENV
from tests.helpers import ROOT, gone

RUN = [sys.executable, "-m", "bench.slow_cores"]


# Run under the spinners: its parent's other children are the spinners; are they all real-time, and how many? And
# was it told the share (a bench's row says it ran slowed)?
NEIGHBOURS = (
    "import os, sys\n"
    "me = os.getppid()\n"
    "kids = [int(p) for p in open(f'/proc/{me}/task/{me}/children').read().split() if int(p) != os.getpid()]\n"
    "print('real-time', all(os.sched_getscheduler(p) == os.SCHED_FIFO for p in kids), len(kids))\n"
    f"print('told', os.environ.get({SLOW_CORES_ENV!r}))\n"
    "sys.exit(7)"
)


@pytest.mark.skipif(not hasattr(os, "SCHED_FIFO"), reason="real-time scheduling is a Linux call")
def test_the_command_runs_under_a_real_time_spinner_per_core_its_status_comes_back_and_no_spinner_outlives_it():
    done = subprocess.run(
        [*RUN, "--share", "0.3", "--", sys.executable, "-c", NEIGHBOURS], cwd=ROOT, capture_output=True, text=True
    )
    if done.returncode == 2 and "not allowed" in done.stderr:  # not root here: the refusal is what to check
        assert done.stdout == "" and "nothing ran" in done.stderr
        return
    assert done.returncode == 7, done.stderr  # the command's own status
    cores = len(os.sched_getaffinity(0))
    assert f"real-time True {cores}" in done.stdout  # a spinner per core, real-time while the command ran
    assert "told 0.3" in done.stdout
    pids = [int(p) for p in re.search(r"spinners ([\d ]+)", done.stdout).group(1).split()]
    assert len(pids) == cores and all(gone(p) for p in pids)  # and gone with it


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--share", "0.95", "--", "true"], "at most 0.9"),
        (["--share", "0", "--", "true"], "above 0"),
        (["--period-ms", "0.1", "--", "true"], "between 0.5 and 100"),
        ([], "no command to run"),
    ],
)
def test_a_bad_argument_is_refused_with_a_sentence_before_anything_runs(args, says):
    done = subprocess.run([*RUN, *args], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 2 and says in done.stderr and "spinners" not in done.stdout
