"""What one exercise's Check costs the server, against a whole run of the same lesson page; and a training run.

    python -m bench.exercise_check [--lesson scaling] [--repeats 10] [--checkout PATH] [--training SECONDS]

A fresh ``streamlit run`` of ``app.py`` (from ``--checkout``, default this one, to compare two versions of the code
on the same machine), one simulated tab (``bench.streamlit_client``) on the lesson: its page run whole
``--repeats`` times (as any whole-page control does), then the last exercise's Check pressed ``--repeats`` times
with an answer in its box. For each: the server's CPU seconds per interaction (``/proc``, every thread) and the
median round trip.

With ``--training``, then: a second tab presses Train on the Bahdanau lesson's dates task and watches it (polling
as the browser does) for that many seconds while the first reruns its page whole: the server's CPU over that time
(a run trained in the server's own process counts there; one in a worker does not), the first tab's median round
trip, and how often the watching tab polled the panel.

Printed with the 1-minute load and the machine's speed (``bench.harness.speed_ms``): a shared machine distorts both.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time
from pathlib import Path

from bench.harness import cpu_seconds, server, speed_ms
from bench.streamlit_client import Student


async def measure(url: str, pid: int, lesson: str, repeats: int, training: float) -> dict[str, tuple[float, float]]:
    tab = Student(url)
    await tab.open(lesson)
    await tab.rerun()  # warm: the lesson's shared figures and models are loaded by now
    figures = {}
    for what in ("whole page", "exercise Check"):
        answers = [key for key in tab.keyed if key.endswith(".answer")]
        times, before = [], cpu_seconds(pid)
        for _ in range(repeats):
            if what == "whole page":
                times.append(await tab.rerun())
            else:
                tab.set("", 0, key=answers[-1])
                times.append(await tab.click("Check"))
        figures[what] = ((cpu_seconds(pid) - before) / repeats * 1000, statistics.median(times) * 1000)
    assert not tab.exceptions, tab.exceptions
    if training:
        trainer = Student(url, query="task=dates")
        await trainer.open("bahdanau_attention")
        before, start, times = cpu_seconds(pid), time.perf_counter(), []
        await trainer.click("Train", key="bahdanau_attention.train.dates.train")
        while time.perf_counter() - start < training:
            times.append(await tab.rerun())
            await asyncio.sleep(0.5)
        seconds = time.perf_counter() - start
        figures["whole page while a run trains"] = (
            (cpu_seconds(pid) - before) / seconds * 1000,
            statistics.median(times) * 1000,
        )
        figures["training reports seen"] = (float(len(trainer.tick_latencies)), 0.0)
        await trainer.close()
    await tab.close()
    return figures


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lesson", default="scaling")
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--checkout", type=Path, default=None, help="another checkout's app.py to serve")
    parser.add_argument("--training", type=float, default=0.0, help="seconds of a second tab's training run")
    args = parser.parse_args(argv)
    script = str(args.checkout.resolve() / "app.py") if args.checkout else "app.py"
    load, speed = os.getloadavg()[0], speed_ms()
    with server(script=script) as (url, pid):
        figures = asyncio.run(measure(url, pid, args.lesson, args.repeats, args.training))
    print(f"{script} · lesson {args.lesson} · {args.repeats} repeats · load {load:.2f} · speed {speed:.0f} ms")
    for what, (cpu, median) in figures.items():
        if what == "training reports seen":
            print(f"  {what}: {cpu:.0f} polls of the training panel")
        elif what.endswith("trains"):
            print(f"  {what}: server CPU {cpu:.0f} ms per second, median round trip {median:.0f} ms")
        else:
            print(f"  {what}: server CPU {cpu:.0f} ms per interaction, median round trip {median:.0f} ms")


if __name__ == "__main__":
    main()
