"""A simulated student: Streamlit's own websocket protocol, without a browser.

The browser talks to ``streamlit run`` over one websocket (``/_stcore/stream``): it sends ``BackMsg``
protobufs (``rerun_script`` with the page and every widget's value) and receives ``ForwardMsg`` protobufs
(``new_session``, the page's ``delta``s, ``auto_rerun`` for a polling fragment, ``script_finished``). This
client does the same with the ``websockets`` package (a Streamlit dependency) and Streamlit's own protobuf
classes, so one process can be 60 students. It keeps what a browser keeps: the widgets it was sent (id,
label, kind, fragment) and the values it set, and it answers ``auto_rerun`` the way the frontend does, by
asking for the fragment's rerun every ``interval`` seconds, so a student watching a training run costs the
server what a real one costs.

Latency of one interaction: from sending the ``rerun_script`` to receiving its ``script_finished``.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState

WIDGETS = ("slider", "selectbox", "button", "number_input", "text_input", "radio", "checkbox", "segmented_control")
# script_finished statuses (ForwardMsg.ScriptFinishedStatus) that end the run a client waits for
FINISHED = {0, 3}  # FINISHED_SUCCESSFULLY, FINISHED_FRAGMENT_RUN_SUCCESSFULLY
ERROR_STATUS = 1  # FINISHED_WITH_COMPILE_ERROR
EARLY = 2  # FINISHED_EARLY_FOR_RERUN: another request interrupted this run


@dataclass
class Widget:
    id: str
    kind: str  # "slider", "button", ...
    label: str
    fragment_id: str  # "" when the widget is not inside a fragment
    proto: object  # the element's protobuf (min, max, step, options...)


@dataclass
class Student:
    """One browser tab. ``await student.open(page)``, then ``change``/``click``; ``close`` when done."""

    url: str  # http://host:port
    name: str = "student"
    widgets: dict[str, Widget] = field(default_factory=dict)  # label -> widget of the latest run
    keyed: dict[str, Widget] = field(default_factory=dict)  # the page's own widget key -> widget (labels repeat)
    states: dict[str, WidgetState] = field(default_factory=dict)  # widget id -> value sent
    exceptions: list[str] = field(default_factory=list)  # st.exception elements received
    errors: list[str] = field(default_factory=list)  # protocol failures: timeouts, closed connections
    charts: dict[str, list[str]] = field(default_factory=dict)  # a Plotly chart's key -> every spec (JSON) sent
    texts: list[str] = field(default_factory=list)  # every markdown, code and alert body received, in order
    refusals: list[str] = field(default_factory=list)  # st.error bodies, and st.warning bodies with an icon
    latencies: list[float] = field(default_factory=list)  # seconds, one per completed interaction
    tick_latencies: list[float] = field(default_factory=list)  # seconds, one per polling-fragment rerun
    page_name: str = ""
    query: str = ""  # the URL's query string, without "?" (a lesson's link parameters, e.g. "task=dates")
    page_script_hash: str = ""  # learnt from each navigation message, sent back as the browser does
    # when each element of the latest request's run arrived: (perf_counter seconds, element kind, text length);
    # what a page open's "time to the title / first paragraph" is read from
    arrivals: list[tuple[float, str, int]] = field(default_factory=list)
    run_started: float = 0.0  # perf_counter when the latest request was sent
    progress: list[tuple[float, str]] = field(default_factory=list)  # every progress bar's text, with its time
    doing: str = ""  # the latest action asked for, for a failure's message ("moving 'Seed'")

    def __post_init__(self):
        self._ws = None
        self._finished: asyncio.Queue[int] = asyncio.Queue()
        self._fragments: dict[str, asyncio.Task] = {}
        self._reader: asyncio.Task | None = None
        self._lock = asyncio.Lock()  # one request in flight at a time, as a browser does
        # what the run in progress redraws: "" a full run, else a fragment's id (and the fragments nested in it),
        # the widgets it has sent so far, and which fragments were seen inside which
        self._scope: str | None = None
        self._drawn: set[str] = set()
        self._nested: dict[str, set[str]] = {}
        self._calls: list[str] = [""]  # the fragments the run's latest element was drawn inside, outermost first

    # ------------------------------------------------------------------------------------------ protocol
    async def open(self, page_name: str, timeout: float = 120.0) -> float:
        """Connect and run ``page_name`` (its URL path, "" for home). Returns the seconds the first run took."""
        host = self.url.split("://", 1)[1]
        self._ws = await websockets.connect(
            f"ws://{host}/_stcore/stream", subprotocols=["streamlit"], origin=self.url, max_size=None
        )
        self._reader = asyncio.create_task(self._read())
        self.page_name = page_name
        return await self._open_run(timeout)

    @property
    def page_label(self) -> str:
        """The page this tab is on, as an error message names it (the course map: 'home')."""
        return repr(self.page_name or "home")

    async def _open_run(self, timeout: float) -> float:
        """The run that opens ``self.page_name`` (a first visit or a navigation), timed."""
        return await self._rerun(timeout=timeout, doing=f"opening {self.page_label}")

    async def close(self) -> None:
        for task in self._fragments.values():
            task.cancel()
        if self._ws is not None:
            await self._ws.close()
        if self._reader is not None:
            self._reader.cancel()

    async def _send(self, fragment_id: str = "", auto: bool = False) -> None:
        msg = BackMsg()
        rerun = msg.rerun_script
        rerun.query_string = self.query
        rerun.page_name = self.page_name
        rerun.page_script_hash = self.page_script_hash
        rerun.fragment_id = fragment_id
        rerun.is_auto_rerun = auto
        rerun.widget_states.widgets.extend(self.states.values())
        self._begin(fragment_id)
        await self._ws.send(msg.SerializeToString())

    def _begin(self, scope: str) -> None:
        self._scope, self._drawn, self._calls = scope, set(), [scope]

    def _forget_undrawn(self) -> None:
        """After a run that finished: the widgets its scope held that it did not draw again are gone from the page
        (a section whose controls now show another panel, a replay slider of a run no longer shown), as the
        browser removes them; a student cannot move them any more."""
        if self._scope is None:
            return
        owned, todo = set(), [self._scope]
        while todo:  # the fragment and every fragment seen nested inside it
            fragment = todo.pop()
            if fragment not in owned:
                owned.add(fragment)
                todo += self._nested.get(fragment, ())

        def gone(w: Widget) -> bool:
            return w.id not in self._drawn and (self._scope == "" or w.fragment_id in owned)

        self.widgets = {label: w for label, w in self.widgets.items() if not gone(w)}
        self.keyed = {key: w for key, w in self.keyed.items() if not gone(w)}
        self._scope = None

    async def _rerun(self, fragment_id: str = "", timeout: float = 60.0, auto: bool = False, doing: str = "") -> float:
        """One request and its wait for ``script_finished``. ``doing``: the student's action, in words, kept in
        :attr:`doing` (a polling fragment's own rerun keeps the action before it)."""
        async with self._lock:
            while not self._finished.empty():
                self._finished.get_nowait()
            start = time.perf_counter()
            if not auto:  # a polling fragment's own rerun does not restart what a request's timings are read from
                self.run_started = start
                self.arrivals.clear()
                self.doing = doing + (f" (fragment {fragment_id})" if fragment_id else "")
            await self._send(fragment_id, auto)
            while True:
                status = await asyncio.wait_for(self._finished.get(), timeout)
                if status in FINISHED or status == ERROR_STATUS:
                    break
            seconds = time.perf_counter() - start
            (self.tick_latencies if auto else self.latencies).append(seconds)
            return seconds

    async def _read(self) -> None:
        async for data in self._ws:
            msg = ForwardMsg()
            msg.ParseFromString(data)
            kind = msg.WhichOneof("type")
            if kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
                self._element(msg.delta.new_element, msg.delta.fragment_id)
            elif kind == "navigation":  # a full run starts (fragment runs send none): the page it is on
                self.page_script_hash = msg.navigation.page_script_hash
                self._stop_polling()  # a fragment that still polls says so again in this run (auto_rerun)
                self._begin("")
            elif kind == "script_finished":
                status = int(msg.script_finished)
                if status in FINISHED:
                    self._forget_undrawn()
                self._finished.put_nowait(status)
            elif kind == "auto_rerun":
                self._start_polling(msg.auto_rerun.fragment_id, msg.auto_rerun.interval)
            elif kind == "stop_auto_rerun":
                self._stop_polling()

    def _element(self, element, fragment_id: str) -> None:
        kind = element.WhichOneof("type")
        now = time.perf_counter()
        self._follow_calls(fragment_id)
        body = element.markdown.body if kind == "markdown" else ""
        self.arrivals.append((now, kind, len(body)))
        if kind == "progress":
            self.progress.append((now, element.progress.text))
        if kind == "exception":
            self.exceptions.append(f"{element.exception.type}: {element.exception.message}")
        elif kind in ("markdown", "code"):
            self.texts.append(getattr(element, kind).body if kind == "markdown" else element.code.code_text)
        elif kind == "alert":
            self.texts.append(element.alert.body)
            # a page's refusal: st.error, or a warning with an icon (ui.classroom's are ":material/block:");
            # a lesson's own plain st.warning (a caveat in the text) is not one
            if element.alert.format == 1 or (element.alert.format == 2 and element.alert.icon):
                self.refusals.append(element.alert.body)
        elif kind == "plotly_chart":
            key = element.plotly_chart.id.split("-", 2)[-1]  # "$$ID-<hash>-<key>" -> the page's own key
            self.charts.setdefault(key, []).append(element.plotly_chart.spec)
        elif kind in WIDGETS:
            proto = getattr(element, kind)
            widget = Widget(proto.id, kind, proto.label, fragment_id, proto)
            self._drawn.add(proto.id)
            self.widgets[proto.label] = widget
            if proto.id.startswith("$$ID-") and proto.id.count("-") >= 2:  # "$$ID-<hash>-<key>": a keyed widget
                self.keyed[proto.id.split("-", 2)[2]] = widget

    def _follow_calls(self, fragment_id: str) -> None:
        """Which fragment draws inside which, read off the order of a run's elements: a fragment whose elements come
        straight after another's was called inside it (a fragment drawn at the page's level follows elements of the
        page's own); elements of a fragment already open mean the ones opened after it have returned."""
        if fragment_id in self._calls:
            del self._calls[self._calls.index(fragment_id) + 1 :]
            return
        if not fragment_id:
            self._calls = [""]
            return
        if self._calls[-1]:
            self._nested.setdefault(self._calls[-1], set()).add(fragment_id)
        self._calls.append(fragment_id)

    def _start_polling(self, fragment_id: str, interval: float) -> None:
        if fragment_id in self._fragments:
            return

        async def poll():
            me = asyncio.current_task()
            # checked after every await: Python 3.11's wait_for can swallow a cancel that meets a result
            while self._fragments.get(fragment_id) is me:
                await asyncio.sleep(interval)
                if self._fragments.get(fragment_id) is not me:
                    return
                try:
                    await self._rerun(fragment_id, auto=True)  # waits for a control change in flight, if any
                except (TimeoutError, websockets.ConnectionClosed) as error:
                    self.errors.append(f"polling: {error!r}")
                    return

        self._fragments[fragment_id] = asyncio.create_task(poll())

    def _stop_polling(self) -> None:
        for task in self._fragments.values():
            task.cancel()
        self._fragments.clear()

    @property
    def polling(self) -> bool:
        return bool(self._fragments)

    # ---------------------------------------------------------------------------------------- actions
    async def change(self, label: str, value) -> float:
        """Set the widget labelled ``label`` (slider: number; select_slider, selectbox, radio: option index)."""
        widget = self.set(label, value)
        return await self._rerun(widget.fragment_id, doing=f"moving {label!r}")

    def set(self, label: str, value, key: str | None = None) -> Widget:
        """Set a widget's value without running anything, as the browser holds a form's fields until its submit
        button is pressed (then :meth:`click` the submit button). ``key``: the page's own widget key, where a
        label is not unique. Same values as :meth:`change`."""
        widget = self.keyed[key] if key is not None else self.widgets[label]
        state = WidgetState(id=widget.id)
        # the value types Streamlit 1.67 reads back (each widget's register_widget(value_type=...))
        if widget.kind == "slider" and widget.proto.options:  # st.select_slider: the formatted option
            state.string_array_value.data.append(widget.proto.options[int(value)])
        elif widget.kind == "slider":
            state.double_array_value.data.append(float(value))
        elif widget.kind in ("selectbox", "radio"):  # the formatted option, not its index
            state.string_value = widget.proto.options[int(value)]
        elif widget.kind == "number_input":
            state.double_value = float(value)
        elif widget.kind == "text_input":
            state.string_value = str(value)
        elif widget.kind == "checkbox":
            state.bool_value = bool(value)
        else:
            raise ValueError(f"cannot change a {widget.kind}")
        self.states[widget.id] = state
        return widget

    async def rerun(self) -> float:
        """Run the whole page again with the current widget values (as the page's own ``st.rerun()`` does).

        Never a fragment's rerun: a request for a fragment that a full run has meanwhile replaced gets no
        answer from the server (Streamlit drops it), and the browser simply moves on."""
        return await self._rerun(doing="running the whole page again")

    async def click(self, label: str, key: str | None = None) -> float:
        """Press the button labelled ``label`` (a trigger: true for this run only, like the browser's); ``key``:
        the page's own widget key instead, where several buttons share a label. A form's submit button sends
        the values :meth:`set` gave its fields."""
        widget = self.keyed[key] if key is not None else self.widgets[label]
        self.states[widget.id] = WidgetState(id=widget.id, trigger_value=True)
        try:
            return await self._rerun(widget.fragment_id, doing=f"pressing {label!r}")
        finally:
            self.states.pop(widget.id, None)

    async def navigate(self, page_name: str, query: str = "", timeout: float = 120.0) -> float:
        """Go to another page of the app in the same session (the sidebar's link): its session state is kept,
        the widgets of the page left behind are forgotten, as the browser forgets them."""
        self._stop_polling()
        self.page_name, self.query, self.page_script_hash = page_name, query, ""
        self.widgets.clear()
        self.keyed.clear()
        self.states.clear()
        return await self._open_run(timeout)

    def sliders(self) -> list[Widget]:
        """The page's sliders that are not disabled: the controls a simulated student moves."""
        return [w for w in self.widgets.values() if w.kind == "slider" and not w.proto.disabled]
