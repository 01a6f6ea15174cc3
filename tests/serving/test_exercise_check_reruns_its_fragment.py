"""An exercise's Check reruns that exercise alone, on a real server: its widgets belong to a fragment, the page's
title and figures are not sent again, and the feedback comes back.

A simulated tab (``bench/streamlit_client.py``) talks to ``streamlit run`` as the browser does; AppTest cannot tell,
since it reruns the whole script for every widget.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

import pytest

from bench.streamlit_client import Student

PAGE = "scaling"


async def _scenario(url: str) -> dict:
    tab = Student(url)
    await tab.open(PAGE)
    answers = [key for key in tab.keyed if key.endswith(".answer")]  # in page order: the last is Check's
    check = tab.widgets["Check"]
    fragment = check.fragment_id
    tab.set("", 0, key=answers[-1])
    charts_before, texts_before = sum(map(len, tab.charts.values())), len(tab.texts)
    await tab.click("Check")
    sent = tab.texts[texts_before:]
    charts_after = sum(map(len, tab.charts.values()))
    await tab.close()
    return {"answers": answers, "fragment": fragment, "sent": sent, "charts": charts_after - charts_before, "tab": tab}


@pytest.mark.browser  # a real server, like the browser tests
def test_check_reruns_the_exercise_alone(streamlit_server):
    # a thread of its own: Playwright's sync API (the browser tests) keeps an event loop in this one
    with ThreadPoolExecutor(1) as pool:
        result = pool.submit(lambda: asyncio.run(asyncio.wait_for(_scenario(streamlit_server), 240))).result()
    tab = result["tab"]
    assert not tab.exceptions and not tab.errors, tab.exceptions + tab.errors
    assert result["answers"] and result["fragment"], "the exercise's Check is in a fragment"
    assert result["charts"] == 0, "no figure of the page was sent again"
    assert any(text.startswith(("Right", "Not quite")) for text in result["sent"]), result["sent"]
    assert len(result["sent"]) < 10, f"more than one exercise was sent again: {result['sent']}"
