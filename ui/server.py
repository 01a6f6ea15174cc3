"""The server's runtime: what one ``streamlit run`` process does for every session, apart from drawing pages.

- every page run: one torch thread for the page's own computations (:func:`prepare_run`);
- once per process, after the heavy imports: Python's collector tuned and the long-lived objects frozen out of its
  way, and the memory thread started (:func:`_start_once`, :func:`_give_memory_back`);
- once per server process, from the first page it serves: what a lesson's first run would pay, done beforehand in a
  thread of its own (:func:`warm_up`);
- the queue for whole-page runs (:func:`admit`, :func:`page_drawn`), and work that can wait until no page is being
  drawn whole (:func:`later`);
- once per process, from the first page run: every reply on the app's connections sent at once
  (:func:`_send_replies_at_once`);
- every use of Streamlit's internals (:func:`_let_expired_sessions_go`, :func:`arrow_table`, :func:`_event_loop`,
  :func:`fragment_rerun`): each guarded, so a Streamlit upgrade that moves one costs that step, never a page.

Pages never call this module; ``ui.page`` (set-up), ``ui.tail`` (the page's end) and ``ui.charts`` do.
"""

from __future__ import annotations

import gc
import logging
import os
import queue
import socket
import sys
import threading
import time
from collections import deque
from concurrent.futures import Future

log = logging.getLogger(__name__)

# ------------------------------------------------------------------------------------------------ every page run
# Torch threads for what a page computes while a student waits (small matrices, one sentence decoded).
# torch.set_num_threads acts on the calling thread, and Streamlit runs each script run in a thread of its own, so it
# is set at the start of every run. One thread: with torch's default of one per core, a 16×64 matmul waited for
# cores a training run held, a thousand times longer than its own work.
PAGE_THREADS = 1


def prepare_run() -> None:
    """At the start of every page's run (a lesson's has imported torch by then, through ``lessons``)."""
    _send_replies_at_once()
    if "torch" not in sys.modules:  # the home page (or the class page) first: it never imports torch
        start_warm_up()  # a lesson opened first starts it at its end (ui.tail), not while its own run imports
        return
    import torch  # the import statement, not sys.modules' entry: another thread may be halfway through importing it

    torch.set_num_threads(PAGE_THREADS)
    # Plotly and Altair look pandas up in sys.modules without importing it: on a fresh server, one session's thread
    # could find it half-imported by another's and fail. An import statement waits for one in progress to finish.
    import pandas  # noqa: F401

    _start_once()


# ------------------------------------------------------------------------------------------------ once per process
_started = False
_started_lock = threading.Lock()
# Python starts a young collection every 700 new objects and a full one every 100 young ones. A page run makes tens
# of thousands (protobuf messages, Plotly's dicts) and a class's sessions are what the older generation holds, so the
# defaults paused every student on the server for a full collection every few seconds, the lock held. Every 10,000
# new objects, and rarely a full one (the memory thread's is the full one); cycles still die young.
GC_THRESHOLDS = (10_000, 20, 100)
MEMORY_CHECK_SECONDS = 30.0


def _start_once() -> None:
    """Once per server process, after the heavy imports: freeze what is alive now (torch, Plotly, Altair, pandas:
    ~280,000 long-lived objects a full collection would walk with the lock held) into the collector's permanent
    generation, set :data:`GC_THRESHOLDS`, start :func:`_give_memory_back`."""
    global _started
    with _started_lock:
        if _started:
            return
        _started = True
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)
    threading.Thread(target=_give_memory_back, name="give-memory-back", daemon=True).start()


def _give_memory_back() -> None:
    """Every half minute: let go of closed tabs' expired sessions, collect them, return the memory to the OS.

    Streamlit keeps a closed tab's session for ``server.disconnectedSessionTTL`` seconds (a student whose Wi-Fi
    blinked finds their page as they left it), but removes an expired one only when it next stores another; after a
    class, everyone gone at once, every session stayed in memory with each student's trained models.

    On its first pass it also freezes what the lessons loaded since :func:`_start_once` (models, shipped results,
    shared figures: ~390,000 more objects once every lesson has opened), so no collection walks them again. A frozen
    object is never collected as part of a cycle: a session open at that moment keeps its cyclic garbage when it
    closes, a one-off cost bounded by the sessions of the server's first half minute.
    """
    from lessons.common import live  # here: the home page imports ui and never loads torch (live does)

    frozen = False
    while True:
        time.sleep(MEMORY_CHECK_SECONDS)
        _let_expired_sessions_go()
        gc.collect()
        if not frozen:
            gc.freeze()
            frozen = True
        live.trim_freed_memory()


def _let_expired_sessions_go() -> None:
    """Reading the size of Streamlit's session store lets its expired entries go (its documented behaviour). The
    store is internal: if it moves, sessions expire on Streamlit's own terms and nothing else changes."""
    try:
        from streamlit.runtime import get_instance  # here: only a running server has one

        manager = get_instance()._session_mgr
        with manager._storage_lock:
            len(manager._session_storage._cache)
    except Exception:  # noqa: BLE001 - an internal of Streamlit moved
        log.debug("could not let closed sessions go", exc_info=True)


def arrow_table(frame):
    """A pandas frame as the Arrow table Streamlit itself would make of it for ``st.dataframe``."""
    from streamlit.dataframe_util import convert_pandas_df_to_arrow_table  # here: it imports pandas and pyarrow

    return convert_pandas_df_to_arrow_table(frame)


# ------------------------------------------------------------------------------------------------ warming up
# A lesson's first run on a fresh server paid for the imports (torch alone takes seconds), the shipped checkpoints and
# the tasks they read (a translation task's sentences are generated: seconds more): a class that opened a lesson
# together waited for all of it, in the first page runs' queue. The server does it once, in a thread of its own, from
# the first page it serves (the class page the teacher opens, or the course map; a lesson opened first starts it at
# its end, so that the warm-up does not slow that lesson's own imports): Streamlit runs nothing of the app before a
# browser asks for a page, and the server's start is not slowed.
_warm_started = False
_warm_lock = threading.Lock()
WARM_THREAD = "warm-up"


def start_warm_up() -> None:
    """Start :func:`warm_up` in a thread of its own, once per server process (later calls do nothing). Not under
    AppTest (its runtime is a stand-in): a test's process imports what its test imports, and the home page's test
    sees no torch."""
    global _warm_started
    with _warm_lock:
        if _warm_started:
            return
        _warm_started = True
    if not _serving():
        return
    # Streamlit's caches warn of a missing script context once per call outside a page's run: this thread's are
    # expected, and a teacher's terminal shows the server's log.
    logging.getLogger("streamlit.runtime.scriptrunner_utils.script_run_context").addFilter(
        lambda record: record.threadName != WARM_THREAD
    )
    threading.Thread(target=warm_up, name=WARM_THREAD, daemon=True).start()


def _serving() -> bool:
    """Whether this process is a ``streamlit run`` server (Streamlit's own runtime), not AppTest's."""
    try:
        from streamlit.runtime import RuntimeState, get_instance  # here: only a running server has one

        return isinstance(get_instance().state, RuntimeState)  # AppTest's stand-in answers with a mock
    except Exception:  # noqa: BLE001 - no runtime, or an internal of Streamlit moved: nothing is warmed
        return False


def warm_up() -> dict[str, float]:
    """What every lesson's first run needs, made before a student asks: every built lesson's package and section
    modules imported (torch, Plotly, Altair and pandas with them), every shipped checkpoint the catalog names loaded
    into the server's cache (``ui.pretrained``, shared read-only) with the task it reads generated, the training
    workers started. Then the collector freezes what was loaded, as :func:`_start_once` does. Returns the seconds
    each step took (also logged); a step that fails is logged and the next one runs: a lesson's own run then does
    that work, as it did before."""
    import importlib  # here: what follows imports torch, which the home page never loads
    import pkgutil  # with importlib

    # here: each imports torch or Plotly, which the home page never loads
    from lessons.common import catalog, grids  # noqa: F401 - grids: the lessons' figures' grids
    from lessons.common.workers import POOL  # here, as above
    from minimodels.tasks import get_task  # here, as above
    from ui.pretrained import _load as load_shipped  # here: a page's cache; the runtime's module is imported first

    spent: dict[str, float] = {}
    start = time.perf_counter()

    def step(name: str, work) -> None:
        began = time.perf_counter()
        try:
            work()
        except Exception:  # noqa: BLE001 - a lesson's own run will meet it and say so on its page
            log.warning("warming up: %s failed", name, exc_info=True)
        spent[name] = round(time.perf_counter() - began, 2)

    def libraries() -> None:
        import altair  # noqa: F401 - here: what a lesson's charts import, loaded before a page asks
        import pandas  # noqa: F401 - here, as altair
        import plotly.graph_objects  # noqa: F401 - here, as altair
        import torch  # here, as altair

        torch.set_num_threads(PAGE_THREADS)  # this thread's: it never takes a second core from a page

    def every_lesson() -> None:
        for entry in catalog.built_lessons():
            package = importlib.import_module(f"lessons.{entry.slug}")
            for module in pkgutil.iter_modules(package.__path__):
                importlib.import_module(f"lessons.{entry.slug}.{module.name}")

    def checkpoints() -> None:
        for entry in catalog.built_lessons():
            for task, model in entry.pretrained:
                load_shipped(task, model)
                get_task(task)  # the task as the lesson's page asks for it

    step("libraries", libraries)
    step("lessons", every_lesson)
    step("checkpoints", checkpoints)
    step("training workers", POOL.prestart)  # idle and niced: a class's first Train starts at once
    gc.freeze()
    spent["total"] = round(time.perf_counter() - start, 2)
    log.info("warmed up for the lessons' first runs: %s (seconds)", spent)
    return spent


# ------------------------------------------------------------------------------------------------ the sockets
# Every reply leaves at once. Streamlit binds its listening socket itself, without naming TCP as its protocol, and
# asyncio turns Nagle's algorithm off only on the connections of sockets that name it: every accepted connection kept
# it, so a small reply written while the previous one was still unacknowledged waited for the browser's delayed
# acknowledgement (40 ms on Linux), on every light interaction. TCP_NODELAY is set, from the server's event loop, on
# its listening socket (the connections it accepts later inherit it) and on the connections already open.
_nodelay_set = False
_nodelay_lock = threading.Lock()
LOOP_WAIT_S = 5.0


def _send_replies_at_once() -> None:
    """Once per server process: TCP_NODELAY on every TCP socket the server's event loop watches. Under AppTest, or
    if Streamlit's runtime moved, nothing happens and replies go out as Streamlit sends them."""
    global _nodelay_set
    with _nodelay_lock:
        if _nodelay_set:
            return
        _nodelay_set = True
    try:
        _on_the_loop(lambda loop: [_nodelay(sock) for sock, _ in _tcp_sockets(loop)])
    except Exception:  # noqa: BLE001 - no running server (AppTest), or an internal of Streamlit or asyncio moved
        log.debug("could not set TCP_NODELAY on the server's sockets", exc_info=True)


def _nodelay(sock: socket.socket) -> None:
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


def tcp_sockets() -> list[dict]:
    """The server's TCP sockets, each ``{"listening", "nodelay", "port", "peer"}`` (``peer`` None when listening),
    for tests and benches; [] without a running server."""
    try:
        return _on_the_loop(lambda loop: [state for _, state in _tcp_sockets(loop)])
    except Exception:  # noqa: BLE001 - as in _send_replies_at_once
        log.debug("could not read the server's sockets", exc_info=True)
        return []


def _event_loop():
    """The asyncio loop Streamlit's server runs on (Streamlit's internal)."""
    from streamlit.runtime import get_instance  # here: only a running server has one

    return get_instance()._get_async_objs().eventloop


def _on_the_loop(work):
    """``work(loop)`` run on the server's event loop, the only thread that touches its sockets; its result."""
    loop = _event_loop()
    done: Future = Future()

    def call() -> None:
        try:
            done.set_result(work(loop))
        except Exception as error:  # noqa: BLE001 - handed to the waiting thread
            done.set_exception(error)

    loop.call_soon_threadsafe(call)
    return done.result(timeout=LOOP_WAIT_S)


def _tcp_sockets(loop):
    """Each TCP socket the loop watches (the listening one, every open connection) with its state. The sockets are
    views of the loop's file descriptors, lent for the call: they must not be kept or closed."""
    for fd in [key.fd for key in loop._selector.get_map().values()]:  # asyncio's selector loop (internal)
        try:
            sock = socket.socket(fileno=fd)
        except OSError:  # not a socket
            continue
        try:
            if sock.family not in (socket.AF_INET, socket.AF_INET6) or sock.type != socket.SOCK_STREAM:
                continue
            listening = bool(sock.getsockopt(socket.SOL_SOCKET, socket.SO_ACCEPTCONN))
            state = {
                "listening": listening,
                "nodelay": bool(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)),
                "port": sock.getsockname()[1],
                "peer": None if listening else sock.getpeername()[1],
            }
            yield sock, state
        except OSError:  # a connection closing meanwhile
            continue
        finally:
            sock.detach()  # the loop owns the descriptor


# ------------------------------------------------------------------------------------------------ the queue
# At most LIMIT whole-page runs at a time; the others wait their turn, first come first served.
#
# Streamlit runs every session's script in a thread of its own, and Python runs one thread at a time. When a class
# opens pages together, dozens of page runs shared the core in 5 ms slices: each took as long as all of them, and so
# did everything else the server had to do meanwhile (the teacher's dashboard, a student's slider). A page run takes
# one of LIMIT places before its heavy part (after its title is on screen) and gives it back at its end; the rest
# queue in arrival order. The same work gets done, but runs finish one after another instead of all at the end, and
# fragment reruns (a section's controls, the dashboard, a question bar, a training panel) never queue.
#
# A place is given back by :func:`page_drawn` (the page's tail) or, whatever stopped the run (``st.stop``, an error,
# a tab closed, a rerun request), when the run's thread has ended: Streamlit gives each run of a script a thread that
# ends with it. A run that reruns itself (``st.rerun``) keeps its place. Nobody waits longer than MAX_WAIT_S.
# ``ATTENTION_LAB_PAGE_RUNS`` sets LIMIT (2 by default: on two cores one run computes while another waits for the
# database or the network).
LIMIT = max(1, int(os.environ.get("ATTENTION_LAB_PAGE_RUNS", "2") or 2))
MAX_WAIT_S = 30.0
POLL_S = 0.05  # how soon a waiting run sees a place freed by a run's thread ending without page_drawn()

_turns = threading.Condition()
_running: set[threading.Thread] = set()
_waiting: deque[threading.Thread] = deque()


def _let_ended_runs_go() -> None:
    for thread in [t for t in _running if not t.is_alive()]:
        _running.discard(thread)


def admit() -> float:
    """Wait for a place for this thread's page run; returns the seconds waited (0 when a place was free)."""
    me = threading.current_thread()
    with _turns:
        _let_ended_runs_go()
        if me in _running:
            return 0.0
        if not _waiting and len(_running) < LIMIT:
            _running.add(me)
            return 0.0
        start = time.monotonic()
        _waiting.append(me)
        try:
            while not (_waiting[0] is me and len(_running) < LIMIT) and time.monotonic() - start < MAX_WAIT_S:
                _turns.wait(POLL_S)
                _let_ended_runs_go()
            _running.add(me)
        finally:
            _waiting.remove(me)
            _turns.notify_all()
        return time.monotonic() - start


def page_drawn() -> None:
    """Give this thread's place back (nothing happens if it holds none): the next student's page run may start."""
    me = threading.current_thread()
    with _turns:
        if me in _running:
            _running.discard(me)
            _turns.notify_all()


def queue_state() -> tuple[int, int]:
    """(runs holding a place, runs waiting), for tests and benches."""
    with _turns:
        _let_ended_runs_go()
        return len(_running), len(_waiting)


def fragment_rerun() -> bool:
    """Whether this script run reruns fragments only (a section's control, a polling panel), not the whole page."""
    try:
        from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx  # here: an internal

        ctx = get_script_run_ctx(suppress_warning=True)
        return bool(ctx is not None and ctx.fragment_ids_this_run)
    except Exception:  # noqa: BLE001 - an internal of Streamlit moved: taken for a whole page, as most runs are
        return False


# ------------------------------------------------------------------------------------------------ work for later
# What no student waits for: one thread, started with the first piece, does each piece in turn once no whole-page run
# holds a place in the queue (or after LATER_WAIT_S), so that it never shares the interpreter with a page being drawn
# whole (a fragment's rerun, short, may overlap it). Only in a `streamlit run` server: under AppTest a test's run does
# its own work and nothing more.
LATER_WAIT_S = 2.0
_later: queue.SimpleQueue = queue.SimpleQueue()
_later_lock = threading.Lock()
_later_thread: threading.Thread | None = None
LATER_THREAD = "later"


def later(work) -> None:
    """Do ``work()`` in the server's background thread, once no page is being drawn; a failure is logged."""
    global _later_thread
    if not _serving():
        return
    with _later_lock:
        if _later_thread is None:
            logging.getLogger("streamlit.runtime.scriptrunner_utils.script_run_context").addFilter(
                lambda record: record.threadName != LATER_THREAD  # its caches' "no script context": expected
            )
            _later_thread = threading.Thread(target=_do_later, name=LATER_THREAD, daemon=True)
            _later_thread.start()
    _later.put(work)


def _do_later() -> None:
    while True:
        work = _later.get()
        since = time.monotonic()
        while queue_state()[0] and time.monotonic() - since < LATER_WAIT_S:
            time.sleep(POLL_S)
        try:
            work()
        except Exception:  # noqa: BLE001 - nobody waits for it: a page that needs it does it itself
            log.warning("work for later failed", exc_info=True)
