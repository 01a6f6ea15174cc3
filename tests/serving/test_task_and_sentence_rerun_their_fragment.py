"""The Task and the sentence of the Transformer and Bahdanau lessons rerun the part of the page that depends on them,
on a real server: their widgets belong to a fragment, the lesson's title and introduction are not sent again, and
the figures that read the task and the sentence are sent again, drawn for the new ones.

A simulated tab (``bench/streamlit_client.py``) talks to ``streamlit run`` as the browser does; AppTest cannot tell,
since it reruns the whole script for every widget.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

import pytest

from bench.streamlit_client import Student
from lessons import transformer

CASES = {
    # page: (the task's key, the sentence's key on the first task, a sentence, a chart drawn from both, the intro)
    "transformer": (
        "transformer.task",
        "transformer.text.toy-translation",
        "Jane visits Africa in September",
        "transformer.diagram",
        transformer.INTRO,
    ),
    "bahdanau_attention": (
        "bahdanau_attention.task",
        "bahdanau_attention.text.toy-translation-it",
        "Jane visits Africa",
        "bahdanau_attention.heatmap",
        None,  # computed from the checkpoints: read off the page
    ),
}


async def _scenario(url: str, page: str) -> dict:
    task_key, text_key, sentence, chart, _ = CASES[page]
    tab = Student(url)
    await tab.open(page)
    intro = next(t for t in tab.texts if len(t) > 200)  # the lesson's first paragraph
    headings = sum(kind == "heading" for _, kind, _ in tab.arrivals)  # the title and every section's
    seen = {"fragments": [tab.keyed[task_key].fragment_id, tab.keyed[text_key].fragment_id], "intro": intro}
    for name, key, value in (("sentence", text_key, sentence), ("task", task_key, 1)):
        texts, before = len(tab.texts), tab.charts[chart][-1]
        widget = tab.set("", value, key=key)
        await tab._rerun(widget.fragment_id)
        seen[name] = {
            "fewer headings": sum(kind == "heading" for _, kind, _ in tab.arrivals) < headings,
            "intro sent": intro in tab.texts[texts:],
            "chart": tab.charts[chart][-1] if tab.charts[chart][-1] != before else None,
        }
    await tab.close()
    seen["tab"] = tab
    return seen


@pytest.mark.browser  # a real server, like the browser tests
@pytest.mark.parametrize("page", sorted(CASES))
def test_the_task_and_the_sentence_rerun_their_fragment(streamlit_server, page):
    # a thread of its own: Playwright's sync API (the browser tests) keeps an event loop in this one
    with ThreadPoolExecutor(1) as pool:
        seen = pool.submit(lambda: asyncio.run(asyncio.wait_for(_scenario(streamlit_server, page), 300))).result()
    tab = seen["tab"]
    assert not tab.exceptions and not tab.errors, tab.exceptions + tab.errors
    assert all(seen["fragments"]), "the task and the sentence are in a fragment"
    if CASES[page][4] is not None:
        assert seen["intro"] == CASES[page][4]
    for change in ("sentence", "task"):
        assert seen[change]["fewer headings"], f"the {change} sent the lesson's title or a section above again"
        assert not seen[change]["intro sent"], f"the {change} sent the introduction again"
        assert seen[change]["chart"] is not None, f"the {change} did not redraw the figure that reads it"
