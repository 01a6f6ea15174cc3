"""A class in real browsers: a teacher and three students (separate browser contexts, one of them a phone) run a whole
poll and a whole class sweep over one `streamlit run` server, which is killed and started again in the middle:
the pages reconnect by themselves, everyone is still who they were, and no answer is lost.

The test starts its own server (not the session's ``streamlit_server``) so that it can kill it and start it again
on the same port and the same SQLite file."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import urllib.request

import pytest
from playwright.sync_api import expect

from lessons import masking
from lessons.common import catalog
from tests.helpers import BROWSER_WAIT as WAIT
from tests.helpers import EVERY_PART_DRAWN, ROOT, SCRIPT_DONE, assert_no_exception, browser_cookie, free_port, goto

pytestmark = pytest.mark.browser


def see(locator) -> None:
    expect(locator).to_be_visible(timeout=WAIT)


LESSON = "/masking"
STUDENTS = [  # name, viewport: one phone; names with an emoji and in a right-to-left script
    ("Ana 🙂", {"width": 1280, "height": 900}),
    ("נועה", {"width": 390, "height": 844}),
    ("Bo", {"width": 1280, "height": 900}),
]
APP = "[data-testid=stApp]"
SEEDS = (0, 1, 2)  # the sweep handed out: causal mask on, three seeds: three settings for three students


class Server:
    """`streamlit run app.py` on a fixed loopback port over one SQLite file; :meth:`restart` kills it outright (as a
    crash would) and starts it again on the same port and file."""

    def __init__(self, port: int, db_url: str, log_dir):
        self.port, self.url, self.log_dir = port, f"http://127.0.0.1:{port}", log_dir
        self.env = {**os.environ, "ATTENTION_LAB_DB_URL": db_url}
        self.proc: subprocess.Popen | None = None
        self.starts = 0

    def start(self) -> None:
        self.starts += 1
        log = self.log_dir / f"streamlit-{self.starts}.log"
        with open(log, "w") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(self.port),
                 "--server.address", "127.0.0.1", "--server.headless", "true"],
                cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, env=self.env,
            )  # fmt: skip
        deadline = time.monotonic() + 90
        while True:
            try:
                with urllib.request.urlopen(f"{self.url}/_stcore/health", timeout=2) as r:
                    if r.status == 200:
                        return
            except OSError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                pytest.fail(f"streamlit did not start:\n{log.read_text()}")
            time.sleep(0.3)

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=30)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()

    def restart(self) -> None:
        self.kill()
        self.start()


@pytest.fixture
def class_server(tmp_path):
    server = Server(free_port(), f"sqlite:///{tmp_path / 'class.sqlite3'}", tmp_path)
    server.start()
    yield server
    server.stop()


def main(page):
    return page.locator("[data-testid=stMain]")


def idle(page) -> None:
    page.wait_for_timeout(300)  # a click's rerun may not have started yet
    page.wait_for_selector(SCRIPT_DONE, timeout=WAIT)


def sidebar_link(page, name: str) -> None:
    """Go to another page inside the app (the session, and with it the teacher's handle, stays)."""
    page.locator("[data-testid=stSidebar]").get_by_role("link", name=name, exact=True).click()
    idle(page)


def text_of(page) -> str:
    return main(page).inner_text()


def shot(page, screenshot_dir, name: str) -> None:
    page.screenshot(path=screenshot_dir / f"class-live-{name}.png", full_page=True)


def test_a_class_runs_a_poll_and_a_sweep_across_a_server_restart(browser, class_server, screenshot_dir):
    t0 = time.monotonic()

    def log(what: str) -> None:
        print(f"{time.monotonic() - t0:6.1f} s  {what}", flush=True)

    url = class_server.url
    question = masking.exercises()[0]  # Hello's row with the padding mask off: its weight on <pad> (a number)
    contexts = []
    opened = {}  # page: the websockets it opened (one per connection to the server)

    def open_context(viewport):
        context = browser.new_context(viewport=viewport)
        context.add_init_script(EVERY_PART_DRAWN)
        context.set_default_timeout(WAIT)
        contexts.append(context)
        page = context.new_page()
        opened[page] = []
        page.on("websocket", lambda socket, seen=opened[page]: seen.append(socket.url))
        return context, page

    try:
        # --- the teacher starts a class ---------------------------------------------------------------------------
        teachers_browser, teacher = open_context({"width": 1400, "height": 1000})
        goto(teacher, f"{url}/classroom")
        teacher.get_by_label("Class name").fill("Week 3 · attention")
        teacher.get_by_role("button", name="Start a class").click()
        started = main(teacher).get_by_text(re.compile(r"^Class [A-Z0-9]{4,8} started\.$"))
        code = started.inner_text().split()[1]
        teacher_link = main(teacher).locator("[data-testid=stCode]", has_text="teacher=").inner_text().strip()
        student_link = main(teacher).locator("[data-testid=stCode]", has_text="join=").first.inner_text().strip()
        assert student_link == f"{url}/classroom?join={code}"
        assert teacher_link.startswith(f"{url}/classroom?class={code}&teacher=")
        assert browser_cookie(teachers_browser, "attention_lab_teacher").startswith(
            f"{code}."
        )  # a reopened tab finds the dashboard
        log(f"class {code} started")

        # --- three students join by the link, then open the lesson --------------------------------------------------
        students = []
        for name, viewport in STUDENTS:
            context, page = open_context(viewport)
            goto(page, student_link)
            expect(page.get_by_role("textbox", name="Class code")).to_have_value(code, timeout=WAIT)
            page.get_by_role("textbox", name="Your name in the class").fill(name)
            page.get_by_role("button", name="Join").click()
            see(main(page).get_by_text(f"You are in class {code} as"))
            assert name in text_of(page)  # shown as typed: the emoji and the right-to-left name
            assert browser_cookie(context, "attention_lab_class").startswith(f"{code}.")
            students.append((name, context, page))
        log("3 students joined")
        for _name, _context, page in students:
            page.goto(f"{url}{LESSON}")  # a new page: the class cookie rejoins it
        for _name, _context, page in students:
            page.wait_for_selector(SCRIPT_DONE, timeout=WAIT)
        log("students on the lesson")

        # --- the poll: the teacher asks from the lesson page ----------------------------------------------------------
        sidebar_link(teacher, "Masking")
        see(main(teacher).get_by_text(f"Class {code}").first)  # the teacher's class bar
        ask = teacher.locator(f".st-key-{question.key.replace('.', '-')}-ask button")
        ask.scroll_into_view_if_needed()
        ask.click()
        log("question asked")
        answers = [question.answer, question.answer, 0.5]  # two right, one wrong
        for (_name, _context, page), value in zip(students, answers, strict=True):
            see(main(page).get_by_text("Question from your teacher"))  # no reload: the bar polls
            form = main(page).locator("[data-testid=stForm]", has=page.get_by_role("button", name="Send my answer"))
            form.get_by_label("Your answer").fill(f"{value:.3f}")
            form.get_by_role("button", name="Send my answer").click()
            see(main(page).get_by_text("Your answer is in."))
        shot(students[1][2], screenshot_dir, "student-phone-question")
        log("3 answers sent")
        sidebar_link(teacher, "Class")  # the dashboard ("3 answers so far" is on the lesson's class bar too)
        see(main(teacher).get_by_text("Answers to the question"))
        see(main(teacher).get_by_text("3 answers so far"))
        log("dashboard counts 3")

        # --- the server dies and comes back on the same port and file -----------------------------------------------
        pages = [teacher, *(p for _n, _c, p in students)]
        sockets = [len(opened[page]) for page in pages]
        class_server.kill()
        for page in pages:  # every page notices (Streamlit's frontend pings the server until it is back)
            page.wait_for_selector(f"{APP}:not([data-test-connection-state=CONNECTED])", timeout=WAIT)
        class_server.start()
        log("server killed and started again")
        for page in pages:  # ... and reconnects by itself: a new websocket, a new session, the page rerun
            page.wait_for_selector(f"{APP}[data-test-connection-state=CONNECTED]", timeout=WAIT)
            idle(page)
        assert [len(opened[page]) for page in pages] == [n + 1 for n in sockets]
        log("pages reconnected")
        # the dashboard, drawn again by the new server: the teacher is still the teacher (their cookie)
        see(main(teacher).get_by_text("3 answers so far"))
        expect(main(teacher).get_by_role("button", name="Start a class")).to_have_count(0)
        for _name, _context, page in students:  # still members (their cookie): the question bar, their answer in
            see(main(page).get_by_text("Your answer is in."))
        assert_no_exception(teacher)

        # --- reveal: on the teacher's page and every student's, without reloading ----------------------------------
        teacher.locator(".st-key-classroom-dash-reveal button").click()
        see(main(teacher).get_by_text("Worked answer.", exact=False).first)
        see(main(teacher).get_by_text("2 of 3 (67%) gave the right number", exact=False).first)
        expect(teacher.locator(".st-key-classroom-dash-reveal")).to_have_count(0, timeout=WAIT)  # revealed for good
        shot(teacher, screenshot_dir, "teacher-reveal")
        for _name, _context, page in students:
            see(main(page).get_by_text("2 of 3 (67%) gave the right number", exact=False).first)
            see(main(page).get_by_text("Worked answer.", exact=False).first)
        shot(students[1][2], screenshot_dir, "student-phone-reveal")
        log("revealed everywhere")

        # --- the class sweep: three settings handed out from the lesson page ------------------------------------------
        goto(teacher, f"{url}{LESSON}")  # a new page: the teacher's cookie keeps the teacher
        sweep = main(teacher).locator("[data-testid=stExpander]", has_text="Class sweep")
        sweep.locator("summary").click()
        seeds = next(axis.values for axis in catalog.lesson("masking").sweep if axis.key == "masking.seed")
        for widget, value in [("live_causal", "False"), *(("seed", str(s)) for s in seeds if s not in SEEDS)]:
            chips = sweep.locator(f".st-key-classroom-sweep-masking-{widget}")
            chips.get_by_role("button", name=f"Remove {value}").click()
            idle(teacher)
        see(sweep.get_by_text("3 settings;"))
        sweep.get_by_role("button", name="Hand out to the class").click()
        idle(teacher)
        log("sweep handed out")
        settings = []
        for _name, _context, page in students:  # the bar sees the sweep and redraws the page with the setting
            handed = main(page).locator("[data-testid=stAlert]", has_text="Class sweep. Your setting:")
            see(handed)
            settings.append(re.search(r"Your setting: (.+?) \(set below", handed.inner_text()).group(1))
        assert sorted(settings) == [f"causal mask = True · seed = {s}" for s in SEEDS], settings
        log("settings: " + "; ".join(settings))
        for _name, _context, page in students:
            idle(page)
            budget = page.locator(".st-key-masking-budget")
            budget.scroll_into_view_if_needed()  # Streamlit draws an element far below the fold only once in view
            budget.get_by_role("slider", name="Seconds of training").press("Home")  # the shortest budget: 5 s
            idle(page)
            expect(budget.get_by_test_id("stSliderThumbValue")).to_have_text("5", timeout=WAIT)
            train = page.locator(".st-key-masking-train-causal-train")
            train.scroll_into_view_if_needed()
            train.get_by_role("button", name="Train").click()
        for _name, _context, page in students:
            see(main(page).locator("[data-testid=stProgress]", has_text=re.compile(r"^\s*done")))
        log("3 runs done")
        goto(teacher, f"{url}/classroom")
        see(main(teacher).get_by_text("3 runs over 3 of 3 settings", exact=False))
        pooled = main(teacher).locator("[data-testid=stVegaLiteChart]").last
        pooled.scroll_into_view_if_needed()
        see(pooled)
        shot(teacher, screenshot_dir, "teacher-sweep")
        assert_no_exception(teacher)
        for page in pages[1:]:
            assert_no_exception(page)
        log("pooled on the dashboard")

        # --- a learner's progress survives closing the page ----------------------------------------------------------
        _name, context, page = students[0]
        page.close()
        page = context.new_page()
        goto(page, f"{url}/")
        see(main(page).get_by_role("link", name=re.compile(r"Masking · in progress")))
        see(main(page).get_by_role("link", name=re.compile(r"^Resume: Masking")))
        log("progress kept")
    finally:
        for context in contexts:
            context.close()
