"""The bench client's failures say which page a simulated student was opening (the course map as "home")."""

import asyncio

from bench.streamlit_client import Student


def test_a_navigation_names_the_page_it_opens(monkeypatch):
    said = []

    async def rerun(self, fragment_id="", timeout=60.0, auto=False, doing=""):
        said.append(doing)
        return 0.0

    monkeypatch.setattr(Student, "_rerun", rerun)
    student = Student("http://127.0.0.1:1")
    asyncio.run(student.navigate("masking"))
    asyncio.run(student.navigate(""))
    assert said == ["opening 'masking'", "opening 'home'"]
