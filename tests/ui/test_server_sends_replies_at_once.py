"""Every reply of a real ``streamlit run`` server leaves at once (``ui.server._send_replies_at_once``): after the
first page run, TCP_NODELAY is on for the server's listening socket, for the connection open then, and for every
connection accepted later. Without it a small reply waited for the browser's delayed acknowledgement.

Read through the socket option, not a clock (the suite asserts on no wall-clock time): a probe page, served by its
own server, prints the states ``ui.server.tcp_sockets()`` reads on the server's event loop, before and after the
page's set-up; two websocket clients, the second connecting after the first page run."""

from __future__ import annotations

import asyncio
import json
from concurrent.futures import ThreadPoolExecutor

import pytest

from bench.streamlit_client import Student
from tests.helpers import streamlit_run

PROBE_PAGE = """
import json

import streamlit as st

from ui import server

before = server.tcp_sockets()
server.prepare_run()  # every page's set-up (ui.page) starts with it
st.code(json.dumps({"before": before, "after": server.tcp_sockets()}))
"""


async def _states(url: str) -> list[dict]:
    """What the probe page prints for two students, the second connecting after the first one's page run."""
    printed = []
    first = Student(url, name="first")
    await first.open("")
    printed.append(json.loads(first.texts[-1]))
    second = Student(url, name="second")
    await second.open("")
    printed.append(json.loads(second.texts[-1]))
    await first.close()
    await second.close()
    return printed


@pytest.mark.slow  # starts a streamlit server
def test_every_connection_of_a_real_server_sends_its_replies_at_once(tmp_path):
    script = tmp_path / "probe_page.py"
    script.write_text(PROBE_PAGE)
    # the client in a thread of its own: a browser test on the same worker may have left Playwright's loop running
    with streamlit_run(str(script), tmp_path) as url, ThreadPoolExecutor(1) as pool:
        first, second = pool.submit(asyncio.run, _states(url)).result()
    port = int(url.rsplit(":", 1)[1])

    listening = [s for s in first["after"] if s["listening"]]
    assert [s["port"] for s in listening] == [port]  # the probe sees the server's own listening socket
    assert first["before"], "the probe read no socket: the test would see nothing"
    for states in (first["after"], second["before"], second["after"]):
        connections = [s for s in states if not s["listening"]]
        assert connections, states  # at least the student's own websocket
        assert all(s["nodelay"] for s in states), states
    # the second student's connection was accepted after the first page run: it inherited the listening socket's
    # option before its own page's set-up ran
    new = {s["peer"] for s in second["before"] if not s["listening"]} - {
        s["peer"] for s in first["after"] if not s["listening"]
    }
    assert new, (first, second)
