"""The server's queue for whole-page runs (``ui.server``): at most LIMIT at once, the rest in arrival order; a place
comes back at the page's end or when the run's thread ends, however it ended; nobody waits forever."""

import threading
import time

import pytest

from ui import server


@pytest.fixture(autouse=True)
def empty_gate(monkeypatch):
    monkeypatch.setattr(server, "LIMIT", 2)
    yield
    assert server.queue_state() == (0, 0), "a test left a place taken"


def _run(log: list, name: str, hold: threading.Event, leave: bool = True) -> threading.Thread:
    def body():
        server.admit()
        log.append(name)
        hold.wait(10)
        if leave:
            server.page_drawn()

    thread = threading.Thread(target=body, name=name)
    thread.start()
    return thread


def _until(condition, seconds: float = 5.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.005)


def test_at_most_limit_run_and_the_rest_go_in_arrival_order():
    log: list[str] = []
    holds = {name: threading.Event() for name in "abcde"}
    threads = {}
    for name in "abcde":
        threads[name] = _run(log, name, holds[name])
        _until(lambda n=name: sum(server.queue_state()) == "abcde".index(n) + 1)  # in before the next one starts
    _until(lambda: server.queue_state() == (2, 3))
    assert log == ["a", "b"]
    holds["b"].set()
    _until(lambda: len(log) == 3)
    holds["a"].set()
    _until(lambda: len(log) == 4)
    assert log == ["a", "b", "c", "d"]
    for name in "cde":
        holds[name].set()
    for thread in threads.values():
        thread.join(5)
    assert log == ["a", "b", "c", "d", "e"]


def test_a_run_that_ends_without_leaving_gives_its_place_back():
    """st.stop, an error, a closed tab: the run's thread ends, and the place is free again."""
    log: list[str] = []
    first = threading.Event()
    first.set()
    stopped = [_run(log, f"stopped{i}", first, leave=False) for i in range(2)]
    for thread in stopped:
        thread.join(5)
    waiting = threading.Event()
    later = _run(log, "later", waiting)
    _until(lambda: "later" in log)
    waiting.set()
    later.join(5)


def test_a_rerun_keeps_its_place():
    server.admit()
    assert server.admit() == 0.0  # st.rerun: the same thread runs the page again
    assert server.queue_state() == (1, 0)
    server.page_drawn()
    server.page_drawn()  # a second leave changes nothing


def test_nobody_waits_past_the_limit(monkeypatch):
    monkeypatch.setattr(server, "MAX_WAIT_S", 0.2)
    monkeypatch.setattr(server, "LIMIT", 1)
    log: list[str] = []
    hold = threading.Event()
    holder = _run(log, "holder", hold)
    _until(lambda: log == ["holder"])
    waited: list[float] = []
    late = threading.Thread(target=lambda: (waited.append(server.admit()), server.page_drawn()))
    late.start()
    late.join(5)
    assert 0.2 <= waited[0] < 2.0
    hold.set()
    holder.join(5)


@pytest.mark.parametrize("page", ["pages/masking.py", "pages/classroom.py", None])
def test_a_page_run_waits_for_its_turn_after_its_title(monkeypatch, page):
    """Every page (a lesson, a tool, the course map) takes a place: with none free it waits; once one is free it
    draws the whole page, and its place is free again at its end."""
    from tests.helpers import open_page

    open_page(page)  # the page's first run on this process (its models loaded) outside the test
    monkeypatch.setattr(server, "LIMIT", 1)
    log: list[str] = []
    hold = threading.Event()
    holder = _run(log, "another page", hold)
    _until(lambda: log == ["another page"])
    opened = {}
    runner = threading.Thread(target=lambda: opened.setdefault("at", open_page(page)))
    runner.start()
    _until(lambda: server.queue_state() == (1, 1), seconds=30)
    hold.set()
    holder.join(5)
    runner.join(60)
    at = opened["at"]
    assert not at.exception
    assert at.title and len(at.main.children) > 3
    assert server.queue_state() == (0, 0)
