"""The bench client's failures say which page a simulated student was opening (the course map as "home")."""

import asyncio
from concurrent.futures import ThreadPoolExecutor

from bench.streamlit_client import Student


def run(coroutine):
    """``asyncio.run`` in a thread of its own: a browser test before this one may have left Playwright's event loop
    running in this one."""
    with ThreadPoolExecutor(1) as thread:
        return thread.submit(asyncio.run, coroutine).result()


def test_a_navigation_names_the_page_it_opens(monkeypatch):
    said = []

    async def rerun(self, fragment_id="", timeout=60.0, auto=False, doing=""):
        said.append(doing)
        return 0.0

    monkeypatch.setattr(Student, "_rerun", rerun)
    student = Student("http://127.0.0.1:1")
    run(student.navigate("masking"))
    run(student.navigate(""))
    assert said == ["opening 'masking'", "opening 'home'"]
