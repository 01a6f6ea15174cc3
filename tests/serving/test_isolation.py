"""Two students training at the same time on one server each see only their own run.

Three sessions talk to a real ``streamlit run`` over Streamlit's websocket protocol (the simulated student of
``bench/streamlit_client.py``): A trains on ``dates``, B on the Italian toy translation, at the same time. A's
live figures must show A's task only and B's show B's; and the shared pretrained model every student reads
must come out of it untouched: a student who opens the lesson afterwards gets exactly the heatmap (every
weight, bit for bit in the figure's JSON) that a student got before anyone trained.
"""

from __future__ import annotations

import asyncio
import json
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from bench.streamlit_client import Student
from minimodels.tasks import get_task

PAGE = "bahdanau_attention"
SHIPPED_HEATMAP = "bahdanau_attention.heatmap"  # the pretrained model's alignment of the default sentence


def _source_labels(spec: str) -> list[str]:
    return json.loads(spec)["layout"]["xaxis"]["ticktext"]


def _live_specs(student: Student, task_name: str) -> list[str]:
    prefix = f"bahdanau_attention.train.{task_name}."
    return [spec for key, specs in student.charts.items() if key.startswith(prefix) for spec in specs]


async def _wait_for(condition, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError
        await asyncio.sleep(0.25)


async def _scenario(url: str) -> dict:
    before = Student(url, name="before")
    await before.open(PAGE)
    shipped_before = before.charts[SHIPPED_HEATMAP][-1]
    await before.close()

    a, b = Student(url, name="A"), Student(url, name="B")
    await asyncio.gather(a.open(PAGE), b.open(PAGE))
    options = list(a.widgets["Task"].proto.options)
    await a.change("Task", next(i for i, o in enumerate(options) if o.startswith("Written dates")))
    await asyncio.gather(a.click("Train"), b.click("Train"))  # both runs start together
    # A's dates run ends by itself (target or 15 s); B's translation run is stopped after a few reports
    both_drawn = lambda: len(_live_specs(a, "dates")) >= 3 and len(_live_specs(b, "toy-translation-it")) >= 3  # noqa: E731
    await _wait_for(both_drawn, 120)
    await b.click("Stop")
    await _wait_for(lambda: not a.widgets["Train"].proto.disabled, 120)

    after = Student(url, name="after")
    await after.open(PAGE)
    shipped_after = after.charts[SHIPPED_HEATMAP][-1]
    for student in (a, b, after):
        await student.close()
    return {"a": a, "b": b, "shipped": (shipped_before, shipped_after)}


@pytest.mark.browser  # a real server, like the browser tests
def test_two_students_train_at_once_and_each_sees_only_their_own(streamlit_server):
    # a thread of its own: Playwright's sync API (the browser tests) keeps an event loop in this one
    with ThreadPoolExecutor(1) as pool:
        result = pool.submit(lambda: asyncio.run(asyncio.wait_for(_scenario(streamlit_server), 300))).result()
    a, b = result["a"], result["b"]
    for student in (a, b):
        assert not student.exceptions and not student.errors, student.exceptions + student.errors

    # each student's live figures come from their own run only
    assert not _live_specs(a, "toy-translation-it") and not _live_specs(b, "dates")
    dates_probe, translation_probe = get_task("dates").probe.source, get_task("toy-translation-it").probe.source
    for spec in _live_specs(a, "dates"):
        assert "".join(_source_labels(spec)[:-1]) == dates_probe  # characters, then </s>
    for spec in _live_specs(b, "toy-translation-it"):
        assert "".join(_source_labels(spec)[:-1]).replace("▁", " ").strip() == translation_probe

    # the shared pretrained model is bit-for-bit the model it was before both trainings
    shipped_before, shipped_after = result["shipped"]
    assert json.loads(shipped_before)["data"] == json.loads(shipped_after)["data"]
