"""A slower machine on this one: every core loses a fixed share of its time to a spinner the scheduler puts first.

    python -m bench.slow_cores [--share 0.425] [--period-ms 2] -- COMMAND [ARG ...]

Runs COMMAND while on each core a process of real-time priority (``SCHED_FIFO``) spins for ``share × period`` and
sleeps for the rest of every period. Every ordinary process on that core gets the time left, shared as its nice value
says: as on a laptop whose cores are slower, where a niced training worker still gives way to the server. The two
other ways of slowing this machine each change something else: a CPU quota (a cgroup's) is one budget for all
cores, and when the training workers spend it on one core the server is held back on the other, whatever their nice
values; holding everything to one core (``taskset``) keeps each core's speed, so one page run is not slowed at all.

The default share makes a quick day's machine about as slow as the slow machine of 2026-11-28 (its calibration, by
``make fast`` and a fixed loop, is in bench/class_scenario.md). The spinners' time is theirs, not the command's:
``bench.harness.speed_ms``, which reads CPU time, does not change under them; the wall-time ratio this prints does.

Needs the right to real-time scheduling (root, or ``CAP_SYS_NICE``): without it, says so and exits with 2 before
running anything. Printed first: the fixed loop's wall time without and with the spinners, and their process ids.
COMMAND finds the share in ``BENCH_SLOW_CORES`` (a bench's row says it ran slowed: ``speed_ms``, CPU time, does not
see the spinners). Exits with COMMAND's status. The spinners end with this process, however it ends
(``PR_SET_PDEATHSIG``, and each checks its parent every period).
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import os
import signal
import subprocess
import sys
import time

from bench.harness import SLOW_CORES_ENV

PR_SET_PDEATHSIG = 1  # prctl(2): the signal a child gets when its parent ends
MAX_SHARE = 0.9  # the kernel keeps 5% of every second from real-time processes; more would stall the machine


def _spin(cpu: int, on_s: float, off_s: float, parent: int, ready: int) -> None:
    """A spinner's life, in a forked child: pinned to ``cpu``, real-time, ``on_s`` busy then ``off_s`` asleep."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        os.sched_setaffinity(0, {cpu})
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(1))
    except (OSError, AttributeError):
        os.write(ready, b"0")
        os._exit(0)
    os.write(ready, b"1")
    while os.getppid() == parent:
        end = time.perf_counter() + on_s
        while time.perf_counter() < end:
            pass
        time.sleep(off_s)
    os._exit(0)


def start(share: float, period_s: float) -> list[int] | None:
    """A spinner on every core this process may run on; their process ids, or None (and none left running) when
    real-time scheduling is not allowed here."""
    parent, pids, allowed = os.getpid(), [], True
    for cpu in sorted(os.sched_getaffinity(0)):
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read)
            _spin(cpu, share * period_s, (1 - share) * period_s, parent, write)
        os.close(write)
        pids.append(pid)
        allowed = os.read(read, 1) == b"1" and allowed
        os.close(read)
    if not allowed:
        stop(pids)
        return None
    return pids


def stop(pids: list[int]) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    for pid in pids:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)


def loop_ms() -> float:
    """Wall time of a fixed pure-Python loop, the median of 5, in ms (tens of the spinners' periods: a loop as short
    as one period reads luck, not speed)."""
    times = []
    for _ in range(5):
        began = time.perf_counter()
        total = 0
        for i in range(1_000_000):
            total += i * i % 7
        times.append((time.perf_counter() - began) * 1000)
    return sorted(times)[2]


def _share(text: str) -> float:
    value = float(text)
    if not 0 < value <= MAX_SHARE:
        raise argparse.ArgumentTypeError(f"a share of each core above 0 and at most {MAX_SHARE}")
    return value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--share", type=_share, default=0.425, help="of every core's time the spinners take")
    parser.add_argument("--period-ms", type=float, default=2.0, help="one spin and its sleep (ms)")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- then the command to run slowed")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no command to run: put it after --")
    if not 0.5 <= args.period_ms <= 100:
        parser.error("--period-ms: between 0.5 and 100")
    before = loop_ms()
    pids = start(args.share, args.period_ms / 1000)
    if pids is None:
        print(
            "slow_cores: real-time scheduling is not allowed here (run as root, or with CAP_SYS_NICE); nothing ran",
            file=sys.stderr,
        )
        return 2
    try:
        under = loop_ms()
        print(
            f"slow_cores: share {args.share} of each of {len(pids)} cores every {args.period_ms:g} ms; a fixed loop "
            f"{before:.1f} ms before, {under:.1f} ms now ({under / before:.2f}×); spinners {' '.join(map(str, pids))}",
            flush=True,
        )
        return subprocess.run(command, env={**os.environ, SLOW_CORES_ENV: str(args.share)}).returncode
    finally:
        stop(pids)


if __name__ == "__main__":
    sys.exit(main())
