"""Attention Lab: the home page, a map of the course."""

import streamlit as st

import ui
from lessons.common import catalog
from lessons.common.catalog import COURSE

ui.page("Course map", icon="🧭", heading="Attention Lab")
st.markdown(
    "Learn attention from the inside. Every lesson runs or trains a small PyTorch model right here and draws "
    "its attention weights as they are computed. Start with recurrence and the bottleneck that made attention "
    "necessary, then build attention up piece by piece, and end in two research labs."
)

states = ui.progress_panel()  # the learner's progress: resume, done / in progress per lesson


def in_rows(entries, per_row: int = 2):
    """``(column, entry)`` for ``entries`` in rows of ``per_row`` columns: on a phone Streamlit stacks a row's
    columns one under the other, so rows (not two long columns) keep the course's order there too."""
    for start in range(0, len(entries), per_row):
        yield from zip(st.columns(per_row), entries[start : start + per_row], strict=False)


number = 0
for part in COURSE:
    st.header(part.title, divider="gray")
    for column, lesson in in_rows(list(part.lessons)):
        number += 1
        with column.container(border=True):
            if lesson.built:
                state = {"done": " · ✓ done", "in progress": " · in progress"}.get(states.get(lesson.slug), "")
                st.page_link(lesson.page, label=f"**{number}. {lesson.title}**{state}", icon=lesson.icon)
                st.markdown(lesson.promise)
            else:
                st.markdown(f":gray[**{number}. {lesson.title}** · *coming*]")
                st.markdown(f":gray[{lesson.promise}]")

tools = [entry for entry in catalog.TOOLS if entry.built]
if tools:
    st.header("Tools", divider="gray")
    for column, entry in in_rows(tools):
        with column.container(border=True):
            st.page_link(entry.page, label=f"**{entry.title}**", icon=entry.icon)
            st.markdown(entry.promise)

st.caption(
    "The course follows a Transformer lecture, an NLP lecture on attention, “How much attention do you "
    "need?” (Sockeye, ACL 2018) and “Multilingual NMT with a language-independent attention bridge”."
)
