"""A trivial rerun's round trip over loopback, with the server's replies sent as Streamlit sends them and sent at once
(TCP_NODELAY, ``ui.server._send_replies_at_once``).

    python -m bench.nodelay [--reruns 60]

Two fresh ``streamlit run`` servers serve the same one-checkbox page; on one, the page's set-up starts with
``ui.server.prepare_run()``, as every page of the course does. A websocket client (``bench.streamlit_client``)
opens the page, then ticks and unticks the checkbox ``--reruns`` times, one rerun at a time: each round trip lasts
from sending the rerun to receiving its ``script_finished``. Printed: p50/p90/max per server, the state of the
server's sockets as ``ui.server.tcp_sockets()`` reads them, the machine's load and speed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import tempfile
from pathlib import Path

from bench.harness import percentile, server, speed_ms
from bench.streamlit_client import Student

PAGE = """
import json

import streamlit as st

from ui import server

if {at_once}:
    server.prepare_run()
ticked = st.checkbox("tick")
st.write("ticked" if ticked else "not ticked")
st.code(json.dumps(server.tcp_sockets()))
"""


async def _round_trips(url: str, reruns: int) -> tuple[list[float], list[dict]]:
    student = Student(url)
    await student.open("")
    times = []
    for i in range(reruns):
        times.append(await student.change("tick", i % 2 == 0))
    sockets = json.loads(student.texts[-1])
    await student.close()
    return times, sockets


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reruns", type=int, default=60)
    args = parser.parse_args()
    print(f"load {os.getloadavg()[0]:.2f}, speed {speed_ms()} ms (~90 on a quiet machine)")
    with tempfile.TemporaryDirectory() as folder:
        for name, at_once in (("as Streamlit sends", False), ("at once (TCP_NODELAY)", True)):
            script = Path(folder) / f"page_{int(at_once)}.py"
            script.write_text(PAGE.format(at_once=at_once))
            with server("--server.headless", "true", script=str(script)) as (url, _):
                times, sockets = asyncio.run(_round_trips(url, args.reruns))
            ms = [1000 * t for t in times[5:]]  # the first reruns warm the server up
            nodelay = [s["nodelay"] for s in sockets if not s["listening"]]
            print(
                f"{name}: {len(ms)} reruns, p50 {percentile(ms, 0.5):.1f} ms, p90 {percentile(ms, 0.9):.1f} ms, "
                f"max {max(ms):.1f} ms; connections with TCP_NODELAY: {sum(nodelay)} of {len(nodelay)}"
            )
    print(f"load {os.getloadavg()[0]:.2f} after")


if __name__ == "__main__":
    main()
